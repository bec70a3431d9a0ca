package results

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// batchRows is how many rows a table collects in its builders before it
// hands them to the encoder as one record batch.
const batchRows = 1 << 16

// table streams the rows of one output table into a temporary file. Rows
// collect in Arrow builders and go out as a record batch every batch rows,
// so memory holds at most one batch per table.
type table struct {
	name    string         // table name, e.g. "ctas"
	final   string         // path the file gets on success
	file    *tempfile.File // written under a temporary name until then
	out     *posWriter
	enc     encoder
	rb      *array.RecordBuilder // the columns after the run columns but the strings
	strs    []strColumn          // and the strings, in schema order (strcols.go)
	fields  []arrow.Field        // the columns after the run columns
	runs    []runRows            // the pending rows' run columns (runcols.go)
	batch   int                  // rows per record batch
	pending int                  // rows in the builders
	written int64                // rows handed to the encoder
	next    int                  // next column of rb for bind
	nextStr int                  // and of strs
}

// base is the table under a column set (which embeds it), for write.
func (t *table) base() *table { return t }

// open creates the table's temporary file for the final path and starts
// the file format, so the file has its header even if no row ever comes.
// A table with no final path writes nothing and drops its rows.
func (t *table) open(final string, id int, f Format, mem memory.Allocator, batch int) error {
	t.final = final
	if final == "" {
		t.build(id, mem, batch, dropEncoder{})
		return nil
	}
	file, err := tempfile.Create(t.final)
	if err != nil {
		return fmt.Errorf("results: creating %s table: %w", tableNames[id], err)
	}
	t.file = file
	t.out = &posWriter{buf: bufio.NewWriterSize(file, 64<<10)}
	enc, err := newEncoder(f, t.out, schemas[id], mem)
	if err != nil {
		t.name = tableNames[id]
		return t.errorf("starting file: %w", err)
	}
	t.build(id, mem, batch, newAsyncEncoder(enc))
	return nil
}

// record sets the table up to hand each batch to emit instead of a file.
func (t *table) record(id int, emit func(Batch), mem memory.Allocator, batch int) {
	t.build(id, mem, batch, emitEncoder{table: id, emit: emit})
}

// build sets up the table's builders, and enc to take its batches.
func (t *table) build(id int, mem memory.Allocator, batch int, enc encoder) {
	t.name = tableNames[id]
	t.batch = batch
	t.fields = schemas[id].Fields()[runColumns:]
	var built []arrow.Field
	for _, f := range t.fields {
		if f.Type.ID() == arrow.STRING {
			t.strs = append(t.strs, strColumn{})
		} else {
			built = append(built, f)
		}
	}
	t.rb = array.NewRecordBuilder(mem, arrow.NewSchema(built, nil))
	t.enc = enc
}

// add counts a row whose columns have all been appended, and flushes the
// batch when it is full.
func (t *table) add() error { return t.addRows(1) }

// addRows counts n rows whose columns have all been appended, and flushes
// the batch when it is full; n is at most the batch's room (room).
func (t *table) addRows(n int) error {
	t.pending += n
	if t.pending < t.batch {
		return nil
	}
	return t.flush()
}

// grow makes room in the builders for n more rows, appended a column at
// a time (addAll): where they run out of room, they grow fourfold, up to
// the batch. Grown by the builders themselves, they doubled, each time
// copying and clearing what they held: a table that never fills a batch
// (BFS scale 16's) did that a dozen times, which cost BFS --out parquet
// 18 instructions a CTA more (scripts/instructions.sh --quick, medians).
func (t *table) grow(n int) {
	have := t.rb.Field(0).Cap()
	if t.pending+n <= have {
		return
	}
	// The builders round a reservation up to the power of two above the
	// rows it makes room for (flush).
	t.rb.Reserve(min(max(4*have, t.pending+n), t.batch) - 1 - t.pending)
}

// room is how many more rows the pending batch takes.
func (t *table) room() int { return t.batch - t.pending }

// flush hands the rows in the builders to the encoder as one batch.
func (t *table) flush() error {
	if t.pending == 0 {
		return nil
	}
	b := t.takeBlock()
	defer b.release()
	if t.pending == t.batch {
		// A table that fills a batch is likely to fill the next: size the
		// builders for it at once instead of growing them by doubling.
		// The builders round a reservation of n up to the power of two
		// above n, so batch rows (a power of two) would get room for
		// twice as many: batch-1 gets room for batch.
		t.rb.Reserve(t.batch - 1)
	}
	t.pending = 0
	return t.writeBlock(b)
}

// takeBlock hands over the pending rows as a block, with the string
// columns' stretches.
func (t *table) takeBlock() block {
	b := block{runs: t.takeRuns(), rest: t.rb.NewRecord()}
	s := 0
	for j, f := range t.fields {
		if f.Type.ID() == arrow.STRING {
			if b.strs == nil {
				b.strs = make([][]stretch, len(t.fields))
			}
			b.strs[j] = t.strs[s].take()
			s++
		}
	}
	return b
}

// writeBlock hands a batch of rows to the encoder, after any rows still
// in the builders.
func (t *table) writeBlock(b block) error {
	if t.pending > 0 {
		if err := t.flush(); err != nil {
			return err
		}
	}
	t.written += b.rows()
	if err := t.enc.write(b); err != nil {
		return t.errorf("writing: %w", err)
	}
	return nil
}

// finish writes the last batch and the format's footer and closes the
// temporary file. The file keeps its temporary name until commit.
func (t *table) finish() error {
	if err := t.flush(); err != nil {
		return err
	}
	t.release()
	if err := t.enc.close(); err != nil {
		return t.errorf("finishing file: %w", err)
	}
	if t.file == nil {
		return nil
	}
	if err := t.out.buf.Flush(); err != nil {
		return t.errorf("writing: %w", err)
	}
	if err := t.file.Sync(); err != nil {
		return t.errorf("syncing: %w", err)
	}
	return nil
}

// commit gives the finished file its final name. The rename replaces an
// older file of that name atomically, so a reader sees the old table or the
// new one, never part of one.
func (t *table) commit() error {
	if t.file == nil {
		return nil
	}
	err := t.file.Commit()
	t.file = nil
	if err != nil {
		return t.errorf("closing and renaming: %w", err)
	}
	return nil
}

// discard closes and removes the temporary file. It is safe to call in any
// state, more than once.
func (t *table) discard() {
	if a, ok := t.enc.(*asyncEncoder); ok {
		a.abandon()
	}
	t.release()
	if t.file != nil {
		t.file.Discard()
		t.file = nil
	}
}

// release frees the builders' memory.
func (t *table) release() {
	if t.rb != nil {
		t.rb.Release()
		t.rb = nil
	}
}

func (t *table) errorf(format string, args ...any) error {
	err := fmt.Errorf("results: %s table (%s): "+format, append([]any{t.name, t.final}, args...)...)
	if t.file != nil {
		// The user knows the file by its final name, not the temporary one.
		err = &renamed{strings.ReplaceAll(err.Error(), t.file.Name(), t.final), err}
	}
	return err
}

// renamed is an error whose message names the final file, still wrapping
// the original for errors.Is and errors.As.
type renamed struct {
	msg string
	err error
}

func (r *renamed) Error() string { return r.msg }
func (r *renamed) Unwrap() error { return r.err }

// The bind methods return the table's column builders in schema order, each
// call the next column; a table's typed columns are bound once, so
// appending a row does no type assertion.

func (t *table) str() *strColumn {
	c := &t.strs[t.nextStr]
	t.nextStr++
	return c
}

func (t *table) int64s() *array.Int64Builder {
	b := t.rb.Field(t.next).(*array.Int64Builder)
	t.next++
	return b
}

func (t *table) int32s() *array.Int32Builder {
	b := t.rb.Field(t.next).(*array.Int32Builder)
	t.next++
	return b
}

func (t *table) float64s() *array.Float64Builder {
	b := t.rb.Field(t.next).(*array.Float64Builder)
	t.next++
	return b
}
