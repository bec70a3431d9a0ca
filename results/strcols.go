package results

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A table's string columns after the run columns (kernel names, origins,
// a launch's decision and outcome) are kept as stretches of rows that
// hold one value, as the run columns are (runcols.go): they hold a
// handful of values in long stretches (BFS: one kernel name over nearly
// all of the kernels rows). A batch hands the stretches to the encoder
// (block): Parquet writes a stretch as its dictionary index, repeated
// (parquetEncoder), with no comparison of a row's bytes with the last
// row's, and the Arrow files and CSV lay them out as string arrays. Laid
// out for every batch, whatever its format, they cost BFS --out parquet
// 22 instructions a CTA more. Appended to
// arrow's string builders, each value was copied with its offset, and
// the Parquet encoder then compared every row with the one before: --out
// added 330 instructions a CTA more on BFS with Parquet, 125 with CSV
// (scripts/instructions.sh --quick bfs-parquet bfs-csv; BFS scale 16
// writes 1.7 strings a CTA).

// A stretch is a run of rows of a string column that hold one value.
type stretch struct {
	v    string
	rows int
}

// strColumn is a string column's pending rows, as stretches.
type strColumn struct {
	runs []stretch
}

// Append appends a row of value v.
func (c *strColumn) Append(v string) { c.appendRows(v, 1) }

// strSpool is a string column's rows in a spool chunk (spool.go), as
// stretches: put compares a row's value with the last stretch's as the
// row comes, by its bytes' address and length (nearly every row's value
// is its stretch's string itself: a kernel's declared name, a constant),
// and keeps no string a row. Kept a string a row in the chunk, compared
// with the stretch's when the builder took the chunk, and cleared, they
// cost --out 20 instructions a CTA more on BFS with Parquet (840 where
// 820, scripts/instructions.sh bfs-parquet; a tighter loop for that
// comparison alone saved 9 of them) and 28 with CSV (--quick bfs-csv).
// putNew is a call: inlined, it took put past the inlining budget, and
// put's call cost 21 of them.
type strSpool struct {
	runs []stretch // the stretches before the last
	cur  string    // the last stretch's value
	rows int       // and its rows
}

// put appends a row of value v.
func (s *strSpool) put(v string) {
	if unsafe.StringData(v) == unsafe.StringData(s.cur) && len(v) == len(s.cur) {
		s.rows++
		return
	}
	s.putNew(v)
}

// putNew appends a row of value v, which is not the last stretch's
// string (it may hold the same bytes elsewhere): a call, so that put
// is inlined.
//
//go:noinline
func (s *strSpool) putNew(v string) {
	if v == s.cur {
		s.rows++
		return
	}
	if s.rows > 0 {
		s.runs = append(s.runs, stretch{s.cur, s.rows})
	}
	s.cur, s.rows = v, 1
}

// reset empties s, its strings dropped, for a chunk's next rows.
func (s *strSpool) reset() {
	clear(s.runs)
	s.runs, s.cur, s.rows = s.runs[:0], "", 0
}

// appendSpooled appends rows [lo, hi) of s.
func (c *strColumn) appendSpooled(s *strSpool, lo, hi int) {
	at := 0
	for _, r := range s.runs {
		at = appendPart(c, r, at, lo, hi)
	}
	appendPart(c, stretch{s.cur, s.rows}, at, lo, hi)
}

// appendPart appends the rows of r, rows [at, at+r.rows) of a chunk,
// that lie in [lo, hi), and returns where r ends.
func appendPart(c *strColumn, r stretch, at, lo, hi int) int {
	if a, b := max(at, lo), min(at+r.rows, hi); a < b {
		c.appendRows(r.v, b-a)
	}
	return at + r.rows
}

// same is a == b, found without a call where a and b are the same
// string, as a column's values mostly are (the name of a kernel's
// declaration, a constant): the compiler calls runtime.memequal for any
// two strings of one length, with the loop's values stored and loaded
// around the call.
func same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// appendRows appends rows rows of value v.
func (c *strColumn) appendRows(v string, rows int) {
	if n := len(c.runs); n > 0 && same(c.runs[n-1].v, v) {
		c.runs[n-1].rows += rows
		return
	}
	c.runs = append(c.runs, stretch{v, rows})
}

// take hands over the pending rows' stretches and forgets them.
func (c *strColumn) take() []stretch {
	runs := c.runs
	c.runs = nil
	return runs
}

// stretchArray lays out a string column of the rows of runs: its offsets
// and bytes are written directly, with no validity bitmap (the column
// has no nulls).
func stretchArray(mem memory.Allocator, runs []stretch) arrow.Array {
	n, size := 0, 0
	for i := range runs {
		n += runs[i].rows
		size += runs[i].rows * len(runs[i].v)
	}
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize((n + 1) * arrow.Int32SizeBytes)
	defer offsets.Release()
	values := memory.NewResizableBuffer(mem)
	values.Resize(size)
	defer values.Release()
	offs, data := arrow.Int32Traits.CastFromBytes(offsets.Bytes()), values.Bytes()
	row, at := 0, 0
	for i := range runs {
		v := runs[i].v
		start := at
		for range runs[i].rows {
			offs[row] = int32(at)
			row++
			at += len(v)
		}
		fill(data[start:at], v)
	}
	offs[n] = int32(at)
	d := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nil, offsets, values}, nil, 0, 0)
	defer d.Release()
	return array.NewStringData(d)
}

// fill writes v over b again and again (len(b) is a multiple of len(v)),
// doubling each copy.
func fill(b []byte, v string) {
	if len(b) == 0 {
		return
	}
	k := copy(b, v)
	for k < len(b) {
		k += copy(b[k:], b[:k])
	}
}
