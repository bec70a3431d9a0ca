package results

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/gpureplay/gpureplay/tables"
)

// TestParquetDictColumns writes a string column through dictColumn with
// row groups of 10,000 rows, across every case writeDict meets: a group's
// dictionary made of its first slice, "" in it; later slices of known
// values (indices), of values the dictionary lacks (strings) and of both;
// a group whose dictionary outgrows its page, so that the library falls
// back to plain encoding, and known values after that; a group where ""
// comes as a new value; a group whose first slice has more distinct bytes
// than a dictionary page may hold; a group whose indices start a page.
// Every row must read back, each group's statistics must be the least and
// greatest value it holds, each page's must bound its values, and only
// the groups that fell back may have plain data pages.
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
	plainGroups := map[int]bool{2: true, 4: true}
	var want []string
	a := tables.Run{Trace: "a.trace", Policy: "cdp"}
	for _, vs := range blocks {
		b := array.NewStringBuilder(et.mem)
		b.AppendValues(vs, nil)
		et.write([]runRows{{a, len(vs)}}, b.NewArray())
		b.Release()
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
		if plain := plainDataPages(chunk); plain != plainGroups[g] {
			t.Errorf("%s: plain data pages %v, want %v (%v)", where, plain, plainGroups[g], chunk.EncodingStats())
		}
	}
}

// checkPageStats checks the statistics of each data page of column c of
// a row group holding values vs: they must bound the page's values and
// lie within the group's. (A page of dictionary indices is bounded by the
// whole dictionary, as the library bounds it, so not always exactly.)
func checkPageStats(t *testing.T, where string, rg *file.RowGroupReader, c int, vs []string) {
	t.Helper()
	pr, err := rg.GetColumnPageReader(c)
	if err != nil {
		t.Fatal(err)
	}
	at, pages := 0, 0
	for pr.Next() {
		p, ok := pr.Page().(file.DataPage)
		if !ok {
			continue
		}
		rows := vs[at : at+int(p.NumValues())]
		at += len(rows)
		pages++
		st := p.Statistics()
		lo, hi := string(st.Min), string(st.Max)
		if !st.HasMin || !st.HasMax || lo > least(rows) || hi < greatest(rows) || lo < least(vs) || hi > greatest(vs) {
			t.Errorf("%s page %d (rows %d-%d): statistics %q..%q (set %v, %v), want bounds of %q..%q within %q..%q",
				where, pages, at-len(rows), at, lo, hi, st.HasMin, st.HasMax, least(rows), greatest(rows), least(vs), greatest(vs))
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

// TestParquetEmptyFirstRow writes a group whose dictionary holds "" from
// its only first row, followed by strings of a value the dictionary
// lacks: no index is written after the first row, so the statistics'
// "" comes from put alone.
func TestParquetEmptyFirstRow(t *testing.T) {
	et := newEncodeTest(t, col("name", str))
	a := tables.Run{Trace: "a.trace", Policy: "cdp"}
	for _, vs := range [][]string{{""}, slices.Repeat([]string{"x"}, 10)} {
		b := array.NewStringBuilder(et.mem)
		b.AppendValues(vs, nil)
		et.write([]runRows{{a, len(vs)}}, b.NewArray())
		b.Release()
	}
	_, pf := et.finish()
	chunk, err := pf.MetaData().RowGroup(0).ColumnChunk(runColumns)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, "group 0", chunk, "", "x")
}
