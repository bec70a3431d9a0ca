package results

import "github.com/apache/arrow-go/v18/arrow"

// A Batch is a block of one table's rows that a Recorder (NewRecorder)
// collected and no file has received yet. Its owner passes it to a
// Writer's WriteBatch, which releases it, or calls Release.
type Batch struct {
	table int
	rec   arrow.Record
}

// Table is the name of the batch's table ("ctas", ...).
func (b Batch) Table() string { return tableNames[b.table] }

// Rows is the number of rows in the batch.
func (b Batch) Rows() int64 { return b.rec.NumRows() }

// Bytes is the memory the batch holds, for callers that bound how much
// they keep waiting.
func (b Batch) Bytes() int64 {
	var n int64
	for _, col := range b.rec.Columns() {
		n += dataBytes(col.Data())
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

// Release frees the batch's memory.
func (b Batch) Release() {
	if b.rec != nil {
		b.rec.Release()
	}
}

// emitEncoder hands each batch to a function instead of a file.
type emitEncoder struct {
	table int
	emit  func(Batch)
}

func (e emitEncoder) write(rec arrow.Record) error {
	rec.Retain()
	e.emit(Batch{table: e.table, rec: rec})
	return nil
}

func (emitEncoder) close() error { return nil }

// dropEncoder is the encoder of a table that gets no file.
type dropEncoder struct{}

func (dropEncoder) write(arrow.Record) error { return nil }
func (dropEncoder) close() error             { return nil }
