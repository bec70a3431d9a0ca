package results

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/gpureplay/gpureplay/tables"
)

// TestParquetRunColumns writes run columns as dictionary indices across
// every case writeRuns meets, with row groups of 10,000 rows: stretches of
// several whole chunks and a partial one, a block split by a row group's
// end, a group that starts with a partial chunk, and groups holding two
// values, one of them "", first or second. Every row must read back with
// its run's values, every group must stay dictionary-encoded, and each
// group's statistics must be the least and greatest value it holds, ""
// included. A nullable column beside them, sliced at the same places,
// keeps its nulls.
func TestParquetRunColumns(t *testing.T) {
	et := newEncodeTest(t, col("x", i64), nullable("y", i64))
	mem, s := et.mem, et.schema
	a := tables.Run{Trace: "a.trace", Policy: "cdp"}
	b := tables.Run{Trace: "b.trace", Policy: "dtbl", Params: "dtbl.agt_entries=512"}
	c := tables.Run{Trace: "a.trace", Policy: "spawn"}
	blocks := [][]runRows{
		{{a, 9000}},            // group 0: two whole chunks and 808 rows of a
		{{a, 1000}, {b, 7000}}, // group 0 ends with 1,000 a; group 1 starts with b
		{{b, 2000}, {c, 1500}}, // group 1 ends with c, params ""; group 2 starts with 500 c
		{{c, 9000}},            // group 2: after a partial chunk, whole ones
		{{c, 500}},             // group 2 ends
		{{a, 5000}, {b, 5000}}, // group 3: params "" first, then another
	}
	var want []tables.Run
	x := int64(0)
	for _, runs := range blocks {
		xb, yb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		for _, r := range runs {
			for range r.rows {
				want = append(want, r.run)
				xb.Append(x)
				if x%3 == 0 {
					yb.AppendNull()
				} else {
					yb.Append(-x)
				}
				x++
			}
		}
		et.write(runs, xb.NewArray(), yb.NewArray())
		xb.Release()
		yb.Release()
	}
	rows, pf := et.finish()
	if got := pf.NumRowGroups(); got != 4 {
		t.Fatalf("%d row groups, want 4", got)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, row := range rows {
		r := want[i]
		var y any = -int64(i)
		if i%3 == 0 {
			y = nil
		}
		if row[0] != r.Trace || row[1] != r.Policy || row[2] != r.Params || row[3] != int64(i) || row[4] != y {
			t.Fatalf("row %d: %v, want %v %d %v", i, row, r, i, y)
		}
	}

	for g := range pf.NumRowGroups() {
		lo, hi := int64(g)*testGroupRows, min(int64(g+1)*testGroupRows, int64(len(want)))
		rg := pf.MetaData().RowGroup(g)
		for i, field := range runFields {
			chunk, err := rg.ColumnChunk(i)
			if err != nil {
				t.Fatal(err)
			}
			values := map[string]bool{}
			least, greatest := field(&want[lo]), field(&want[lo])
			for _, r := range want[lo:hi] {
				v := field(&r)
				values[v] = true
				least, greatest = min(least, v), max(greatest, v)
			}
			where := fmt.Sprintf("group %d column %s", g, s.Field(i).Name)
			checkStats(t, where, chunk, least, greatest)
			if notDictionary(chunk) {
				t.Errorf("%s: %d values, but not dictionary-encoded: %v", where, len(values), chunk.Encodings())
			}
		}
	}
}

// testGroupRows is the rows of an encodeTest's row group.
const testGroupRows = 10000

// An encodeTest writes blocks through a Parquet encoder of a table with
// the run columns and the given fields, in row groups of testGroupRows
// rows, into memory, and reads them back.
type encodeTest struct {
	t      *testing.T
	mem    *memory.CheckedAllocator
	schema *arrow.Schema
	e      *parquetEncoder
	out    bytes.Buffer
}

func newEncodeTest(t *testing.T, fields ...arrow.Field) *encodeTest {
	et := &encodeTest{t: t, mem: memory.NewCheckedAllocator(memory.NewGoAllocator()), schema: schema(fields...)}
	t.Cleanup(func() { et.mem.AssertSize(t, 0) })
	e, err := newParquetEncoder(&et.out, et.schema, et.mem)
	if err != nil {
		t.Fatal(err)
	}
	e.groupRows = testGroupRows
	et.e = e
	return et
}

// write writes a block of the rows of runs with columns cols (the fields
// after the run columns), releasing them.
func (et *encodeTest) write(runs []runRows, cols ...arrow.Array) {
	rest := array.NewRecord(arrow.NewSchema(et.schema.Fields()[runColumns:], nil), cols, int64(cols[0].Len()))
	for _, c := range cols {
		c.Release()
	}
	defer rest.Release()
	if err := et.e.write(block{runs: runs, rest: rest}); err != nil {
		et.t.Fatal(err)
	}
}

// finish closes the file and returns its rows and a reader of it.
func (et *encodeTest) finish() ([][]any, *file.Reader) {
	t := et.t
	if err := et.e.close(); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/t.parquet"
	if err := os.WriteFile(path, et.out.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	_, rows := readParquet(t, path)
	pf, err := file.NewParquetReader(bytes.NewReader(et.out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pf.Close() })
	return rows, pf
}

func checkStats(t *testing.T, where string, chunk *metadata.ColumnChunkMetaData, least, greatest string) {
	t.Helper()
	st, err := chunk.Statistics()
	if err != nil || st == nil {
		t.Fatalf("%s: no statistics (%v)", where, err)
	}
	bs := st.(*metadata.ByteArrayStatistics)
	if !bs.HasMinMax() || string(bs.Min()) != least || string(bs.Max()) != greatest {
		t.Errorf("%s: statistics %q..%q, want %q..%q", where, bs.Min(), bs.Max(), least, greatest)
	}
}

// notDictionary reports whether a string column chunk's data pages
// are not dictionary indices.
func notDictionary(chunk *metadata.ColumnChunkMetaData) bool {
	return !hasEncoding(chunk.Encodings(), parquet.Encodings.RLEDict)
}
