package results

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/gpureplay/gpureplay/results/internal/parquet"
	"github.com/gpureplay/gpureplay/tables"
)

// TestParquetDictColumns writes a string column with row groups of
// 10,000 rows: a group's values in stretches, "" among them; a value a
// row; a dictionary of 3.2 MB (past the 1 MiB at which arrow-go's writer
// fell back to plain strings); "" new to a group; pages of distinct
// values then of one. Every row must read back (through arrow-go's
// reader), each group's statistics must be the least and greatest value
// it holds, every group stays dictionary-encoded, and its pages hold its
// rows.
func TestParquetDictColumns(t *testing.T) {
	et := newEncodeTest(t, col("name", str))
	rep := func(v string, n int) []string { return slices.Repeat([]string{v}, n) }
	distinct := make([]string, 8000) // 3.2 MB: past the dictionary page limit
	for i := range distinct {
		distinct[i] = fmt.Sprintf("v%0399d", i)
	}
	alternating := make([]string, 10000)
	for i := range alternating {
		alternating[i] = []string{"n", "m"}[i%2]
	}
	blocks := [][]string{
		// group 0: dictionary k1, k0, ""; then k2, unknown, among known
		join(rep("k1", 1000), rep("k0", 1000), rep("", 1000)),
		join(rep("k0", 2000), rep("k2", 500), rep("k1", 1500)),
		join(rep("k2", 1000), rep("k0", 2000)),
		alternating, // group 1: a value a row
		// group 2: falls back to plain, then a known value
		rep("x", 1000), distinct, rep("x", 1000),
		rep("p", 5000), rep("", 5000), // group 3: "" new to it
		// group 4: a first slice whose dictionary outgrows its page
		join(distinct[:3000], rep("y", 2000)), rep("y", 5000),
		// group 5: a page filled by strings the dictionary lacks, then a
		// page of indices alone
		rep("a", 100), distinct[:1000], rep("a", 3000),
	}
	var want []string
	a := tables.Run{Trace: "a.trace", Policy: "cdp"}
	for _, vs := range blocks {
		et.writeStrings([]runRows{{a, len(vs)}}, vs)
		want = append(want, vs...)
	}
	rows, pf := et.finish()
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, row := range rows {
		if row[runColumns] != want[i] {
			t.Fatalf("row %d: %q, want %q", i, row[runColumns], want[i])
		}
	}
	if got, wantGroups := pf.NumRowGroups(), (len(want)+testGroupRows-1)/testGroupRows; got != wantGroups {
		t.Fatalf("%d row groups, want %d", got, wantGroups)
	}
	for g := range pf.NumRowGroups() {
		vs := want[g*testGroupRows : min((g+1)*testGroupRows, len(want))]
		chunk, err := pf.MetaData().RowGroup(g).ColumnChunk(runColumns)
		if err != nil {
			t.Fatal(err)
		}
		where := fmt.Sprintf("group %d", g)
		checkStats(t, where, chunk, least(vs), greatest(vs))
		checkPageStats(t, where, pf.RowGroup(g), runColumns, vs)
		if notDictionary(chunk) {
			t.Errorf("%s: not dictionary-encoded: %v", where, chunk.Encodings())
		}
	}
}

// checkPageStats checks that the data pages of column c of a row group
// holding values vs hold its rows, each page at most parquet.PageRows.
func checkPageStats(t *testing.T, where string, rg *file.RowGroupReader, c int, vs []string) {
	t.Helper()
	pr, err := rg.GetColumnPageReader(c)
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for pr.Next() {
		if p, ok := pr.Page().(file.DataPage); ok {
			if p.NumValues() > parquet.PageRows {
				t.Errorf("%s: a page of %d rows", where, p.NumValues())
			}
			at += int(p.NumValues())
		}
	}
	if err := pr.Err(); err != nil {
		t.Fatal(err)
	}
	if at != len(vs) {
		t.Errorf("%s: pages hold %d rows, want %d", where, at, len(vs))
	}
}

func join(parts ...[]string) []string {
	var s []string
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

func least(vs []string) string {
	m := vs[0]
	for _, v := range vs {
		m = min(m, v)
	}
	return m
}

func greatest(vs []string) string {
	m := vs[0]
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// TestParquetEmptyFirstRow writes a group whose first row is "" and
// the rest another value: the statistics hold both.
func TestParquetEmptyFirstRow(t *testing.T) {
	et := newEncodeTest(t, col("name", str))
	a := tables.Run{Trace: "a.trace", Policy: "cdp"}
	for _, vs := range [][]string{{""}, slices.Repeat([]string{"x"}, 10)} {
		et.writeStrings([]runRows{{a, len(vs)}}, vs)
	}
	_, pf := et.finish()
	chunk, err := pf.MetaData().RowGroup(0).ColumnChunk(runColumns)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, "group 0", chunk, "", "x")
}

// writeStrings writes a block of the rows of runs whose one column after
// the run columns holds vs, as a table hands over its string columns:
// as stretches (strcols.go).
func (et *encodeTest) writeStrings(runs []runRows, vs []string) {
	var c strColumn
	var sp strSpool
	for _, v := range vs {
		sp.put(v)
	}
	c.appendSpooled(&sp, 0, len(vs))
	rest := array.NewRecord(arrow.NewSchema(nil, nil), nil, int64(len(vs)))
	defer rest.Release()
	if err := et.e.write(block{runs: runs, rest: rest, strs: [][]stretch{c.take()}}); err != nil {
		et.t.Fatal(err)
	}
}
