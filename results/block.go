package results

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A block is a batch of one table's rows on its way to an encoder: the
// run columns as the stretches of rows each run holds (runcols.go), the
// other columns as a record. The run columns stay stretches this far
// because the formats lay them out differently: the Arrow files as a
// string a row (record), CSV as a row's start (csvEncoder.write),
// Parquet as indices into a dictionary of the stretch's value
// (parquetEncoder.writeStretches), which costs next to nothing to
// encode.
//
// A block of a table's own rows has its other string columns as
// stretches too (strcols.go): strs[j] for column j after the run
// columns, which rest then lacks (strs is nil where rest has them all).
// Parquet writes them as it does the run columns; the Arrow files and
// CSV take them laid out (columns).
type block struct {
	runs []runRows
	rest arrow.Record // the columns after the run columns but those of strs
	strs [][]stretch
}

// stretches returns column j after the run columns as stretches, or nil
// if rest has it.
func (b block) stretches(j int) []stretch {
	if b.strs == nil {
		return nil
	}
	return b.strs[j]
}

// rows is the number of rows in the block.
func (b block) rows() int64 { return b.rest.NumRows() }

func (b block) retain()  { b.rest.Retain() }
func (b block) release() { b.rest.Release() }

// columns lays out the block's n columns after the run columns, in
// schema order: rest's, and the stretches' as string arrays. The caller
// releases each.
func (b block) columns(n int, mem memory.Allocator) []arrow.Array {
	cols := make([]arrow.Array, n)
	k := 0
	for j := range cols {
		if s := b.stretches(j); s != nil {
			cols[j] = stretchArray(mem, s)
			continue
		}
		cols[j] = b.rest.Column(k)
		cols[j].Retain()
		k++
	}
	return cols
}

// record lays the block out as one record of schema s, the run columns
// and the other string columns as strings. The caller releases it.
func (b block) record(s *arrow.Schema, mem memory.Allocator) arrow.Record {
	run := runArrays(mem, b.runs)
	cols := append(run[:], b.columns(s.NumFields()-runColumns, mem)...)
	rec := array.NewRecord(s, cols, b.rows())
	release(cols)
	return rec
}

func release(cols []arrow.Array) {
	for _, c := range cols {
		c.Release()
	}
}

// bytes is the memory the block holds, counting the strings of its run
// and string columns as if laid out.
func (b block) bytes() int64 {
	var n int64
	for _, col := range b.rest.Columns() {
		n += dataBytes(col.Data())
	}
	for i := range runColumns {
		for _, r := range b.runs {
			n += int64(r.rows) * int64(len(runFields[i](&r.run))+arrow.Int32SizeBytes)
		}
	}
	for _, s := range b.strs {
		n += stretchBytes(s)
	}
	return n
}

// stretchBytes is the memory a string column of these stretches takes
// laid out.
func stretchBytes(runs []stretch) int64 {
	var n int64
	for _, r := range runs {
		n += int64(r.rows) * int64(len(r.v)+arrow.Int32SizeBytes)
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
