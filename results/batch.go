package results

// A Batch is a block of one table's rows that a Recorder (NewRecorder)
// collected and no file has received yet. Its owner passes it to a
// Writer's WriteBatch, which releases it, or calls Release.
type Batch struct {
	table int
	b     block
}

// Table is the name of the batch's table ("ctas", ...).
func (b Batch) Table() string { return tableNames[b.table] }

// Rows is the number of rows in the batch.
func (b Batch) Rows() int64 { return b.b.rows() }

// Bytes is the memory the batch holds, for callers that bound how much
// they keep waiting.
func (b Batch) Bytes() int64 { return b.b.bytes() }

// Release frees the batch's memory.
func (b Batch) Release() {
	if b.b.rest != nil {
		b.b.release()
	}
}

// emitEncoder hands each batch to a function instead of a file.
type emitEncoder struct {
	table int
	emit  func(Batch)
}

func (e emitEncoder) write(b block) error {
	b.retain()
	e.emit(Batch{table: e.table, b: b})
	return nil
}

func (emitEncoder) close() error { return nil }

// dropEncoder is the encoder of a table that gets no file.
type dropEncoder struct{}

func (dropEncoder) write(block) error { return nil }
func (dropEncoder) close() error      { return nil }
