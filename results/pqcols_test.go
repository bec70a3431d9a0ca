package results

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/gpureplay/gpureplay/tables"
)

// viaPqarrow makes the encoder write its columns through the library's
// pqarrow.WriteArrowToColumn, as it did before pqcols.go, until the test
// ends.
func viaPqarrow(t *testing.T) {
	t.Helper()
	old := writeColumn
	t.Cleanup(func() { writeColumn = old })
	writeColumn = func(mem memory.Allocator, cw file.ColumnChunkWriter, arr arrow.Array, defs []int16) error {
		props := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem))
		ctx := pqarrow.NewArrowWriteContext(context.Background(), &props)
		nullable := cw.Descr().SchemaNode().RepetitionType() == parquet.Repetitions.Optional
		return pqarrow.WriteArrowToColumn(ctx, cw, arr, defs, nil, nullable)
	}
}

// TestParquetAsPqarrow: the Parquet schema of every table is the one
// pqarrow.ToParquet gives, and the encoder writes the same bytes as when
// it handed its columns to pqarrow, for the fixture's tables and for a
// string column across the dictionary's cases (dictionary, indices,
// fallback to plain) and nullable columns with and without nulls; Scan
// and Check read the tables as pqarrow's reader does.
func TestParquetAsPqarrow(t *testing.T) {
	props := parquetProps(memory.DefaultAllocator)
	for _, table := range Tables() {
		s := Schema(table)
		got, err := parquetSchema(s, props)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := pqarrow.ToParquet(s, props, pqarrow.NewArrowWriterProperties())
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equals(ps.Root()) {
			t.Errorf("%s: schema\n%v\npqarrow's\n%v", table, got, ps.Root())
		}
	}

	fixture := func() string {
		dir := t.TempDir()
		w := newTestWriter(t, dir, Parquet, batchRows)
		writeFixture(w)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	ours := fixture()
	viaPqarrow(t)
	theirs := fixture()
	for _, table := range Tables() {
		a, err := os.ReadFile(filepath.Join(ours, table+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(theirs, table+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes, %d through pqarrow, not the same", table, len(a), len(b))
		}
		var rows [][]any
		err = Scan(ours, table, func(rec arrow.Record) error {
			rows = appendRows(t, rows, rec)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		_, want := readParquet(t, filepath.Join(ours, table+".parquet"))
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("%s: Scan reads\n%v\npqarrow\n%v", table, rows, want)
		}
		if err := Check(filepath.Join(ours, table+".parquet"), table, Parquet); err != nil {
			t.Error(err)
		}
	}
}

// TestParquetColumnsAsPqarrow writes string and nullable columns over
// several row groups with both column writers and compares the files
// (sameParquet: the pages byte for byte, the footers' metadata).
func TestParquetColumnsAsPqarrow(t *testing.T) {
	write := func(pq bool) []byte {
		if pq {
			viaPqarrow(t)
		}
		et := newEncodeTest(t, col("name", str), nullable("n", i64), nullable("x", f64), col("k", i32))
		mem := et.mem
		for g := range 4 {
			names := array.NewStringBuilder(mem)
			n := array.NewInt64Builder(mem)
			x := array.NewFloat64Builder(mem)
			k := array.NewInt32Builder(mem)
			for i := range 7000 {
				switch {
				case g == 2: // more distinct bytes than a dictionary page
					names.Append(fmt.Sprintf("v%0599d", i))
				case i%3 == 0:
					names.Append("")
				default:
					names.Append(fmt.Sprint("name", i%5+g))
				}
				if g == 1 || i%4 == 0 {
					n.AppendNull()
					x.AppendNull()
				} else {
					n.Append(int64(i * g))
					x.Append(float64(i) / 3)
				}
				k.Append(int32(i - g))
			}
			et.write([]runRows{{tables.Run{Trace: "a.trace", Policy: "cdp"}, 7000}}, names.NewArray(), n.NewArray(), x.NewArray(), k.NewArray())
			names.Release()
			n.Release()
			x.Release()
			k.Release()
		}
		et.finish()
		return et.out.Bytes()
	}
	a, b := write(false), write(true)
	sameParquet(t, a, b)
}

// sameParquet compares two Parquet files byte for byte up to their
// footers, and their footers' column chunk metadata with each chunk's
// encodings as a set: the library keeps a chunk's encoding statistics in
// a map, so the footer of a chunk with two data encodings (a dictionary
// that fell back to plain) lists them in either order, whichever writer
// wrote it.
func sameParquet(t *testing.T, a, b []byte) {
	t.Helper()
	body := func(f []byte) []byte {
		n := int(binary.LittleEndian.Uint32(f[len(f)-8:]))
		return f[:len(f)-8-n]
	}
	if !bytes.Equal(body(a), body(b)) {
		t.Fatalf("%d bytes, %d through pqarrow: the pages differ", len(a), len(b))
	}
	ra, err := file.NewParquetReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	describe := func(r *file.Reader) []string {
		var out []string
		md := r.MetaData()
		for g := range md.NumRowGroups() {
			rg := md.RowGroup(g)
			for c := range rg.NumColumns() {
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				encs := fmt.Sprint(cc.Encodings())
				if e := cc.Encodings(); len(e) > 0 {
					sorted := slices.Clone(e)
					slices.Sort(sorted)
					encs = fmt.Sprint(sorted)
				}
				st, err := cc.Statistics()
				if err != nil {
					t.Fatal(err)
				}
				stats := "none"
				if st != nil {
					stats = fmt.Sprintf("%q %q nulls %d", st.EncodeMin(), st.EncodeMax(), st.NullCount())
				}
				out = append(out, fmt.Sprintf("group %d column %d: %d values, %d/%d bytes, pages at %d/%d, %s, %s",
					g, c, cc.NumValues(), cc.TotalCompressedSize(), cc.TotalUncompressedSize(),
					cc.DictionaryPageOffset(), cc.DataPageOffset(), encs, stats))
			}
		}
		return out
	}
	da, db := describe(ra), describe(rb)
	if !slices.Equal(da, db) {
		t.Errorf("footers differ:\n%s\nthrough pqarrow:\n%s", strings.Join(da, "\n"), strings.Join(db, "\n"))
	}
}
