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

// AppendValues appends a row of each value of vs, and clears vs so that
// a spool's chunk holds no strings past its rows. A stretch of vs is
// found by comparing each value with its first alone, and appended
// whole.
func (c *strColumn) AppendValues(vs []string) {
	for i := 0; i < len(vs); {
		v, j := vs[i], i+1
		for j < len(vs) && same(vs[j], v) {
			j++
		}
		c.appendRows(v, j-i)
		i = j
	}
	clear(vs)
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
