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
// (parquetEncoder.writeRun), which costs next to nothing to encode.
//
// A block of a table's own rows also has its string columns after the
// run columns as stretches (strcols.go), strs[j] for column j of rest
// (nil where that is no string column, or strs nil), for the formats
// that take them so: Parquet.
type block struct {
	runs []runRows
	rest arrow.Record // the columns after the run columns
	strs [][]stretch
}

// stretches returns column j of rest as stretches, or nil if the block
// does not have it so.
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

// record lays the block out as one record of schema s, the run columns
// as strings. The caller releases it.
func (b block) record(s *arrow.Schema, mem memory.Allocator) arrow.Record {
	run := runArrays(mem, b.runs)
	cols := append(run[:], b.rest.Columns()...)
	rec := array.NewRecord(s, cols, b.rows())
	for _, c := range run {
		c.Release()
	}
	return rec
}

// bytes is the memory the block holds, counting the run columns' strings
// as if laid out.
func (b block) bytes() int64 {
	var n int64
	for _, col := range b.rest.Columns() {
		n += dataBytes(col.Data())
	}
	for _, r := range b.runs {
		for _, field := range runFields {
			n += int64(r.rows) * int64(len(field(&r.run))+arrow.Int32SizeBytes)
		}
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
