package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/tables"
)

// A Writer writes the eight output tables of one or more replays into a
// directory, one file per table. Rows stream to temporary files as they
// arrive; Close gives the files their final names only once every table is
// complete, so an interrupted or failed run never leaves a half-written
// table behind.
//
// A Writer implements Sink and SyncSink. Sink methods return no error, so the first
// error (a full disk, say) is kept: later rows are dropped, Err reports it
// at once and Close returns it. A Writer is not safe for concurrent use.
type Writer struct {
	run       tables.Run
	summary   summaryCols
	kernels   kernelCols
	ctas      ctaCols
	launches  launchCols
	occupancy occupancyCols
	pages     pageCols
	stages    stageCols
	syncs     syncCols
	err       error
	closed    bool
	sp        *spool // a Recorder's builder goroutine (spool.go); nil for files
	madeDir   string // the directory Create made, removed by Abort if empty
}

var _ tables.SyncSink = (*Writer)(nil)

// errClosed is kept as the Writer's error once it is closed or aborted, so
// rows sent after that are dropped rather than written to freed builders.
var errClosed = errors.New("results: writer is closed")

// Create starts a Writer of format f (Parquet if f is empty) in dir,
// creating dir if needed. Files already in dir under the final names are
// replaced when Close succeeds.
func Create(dir string, f Format) (*Writer, error) {
	return create(dir, f, buffers, batchRows)
}

// create is Create with the allocator and batch size chosen, for tests.
func create(dir string, f Format, mem memory.Allocator, batch int) (*Writer, error) {
	if f == "" {
		f = Parquet
	}
	if !f.valid() {
		return nil, fmt.Errorf("results: unknown format %q (valid formats: %s)", f, formatList())
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("results: creating output directory: %w", err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		tempfile.MadeDir(dir) // a signal removes it too, if still empty
	}
	w, err := createFiles(f, func(table string) string { return filepath.Join(dir, table+"."+string(f)) }, mem, batch)
	if err == nil && errors.Is(statErr, fs.ErrNotExist) {
		w.madeDir = dir
	}
	return w, err
}

// CreateFiles starts a Writer of format f (Parquet if f is empty) that
// writes the table called name to the file path(name), creating its
// directory if needed; a table whose path is "" gets no file and its rows
// are dropped. It is how one replay of a sharded study writes its own
// part of each table.
func CreateFiles(f Format, path func(table string) string) (*Writer, error) {
	if f == "" {
		f = Parquet
	}
	if !f.valid() {
		return nil, fmt.Errorf("results: unknown format %q (valid formats: %s)", f, formatList())
	}
	return createFiles(f, path, buffers, batchRows)
}

func createFiles(f Format, path func(table string) string, mem memory.Allocator, batch int) (*Writer, error) {
	w := &Writer{}
	for i, t := range w.tables() {
		final := path(tableNames[i])
		if final != "" {
			if err := os.MkdirAll(filepath.Dir(final), 0o777); err != nil {
				w.Abort()
				return nil, fmt.Errorf("results: creating output directory: %w", err)
			}
		}
		if err := t.open(final, i, f, mem, batch); err != nil {
			w.Abort()
			return nil, err
		}
	}
	w.bind()
	return w, nil
}

// NewRecorder returns a Writer that writes no file: each batch of rows a
// table collects is handed to emit, in order, for another Writer's
// WriteBatch. Replays that run side by side record their rows this way,
// and one Writer appends them in a fixed order, so the tables do not
// depend on which replay finished first. Close hands over the last,
// partial batches.
//
// Rows are built into batches on a goroutine of the Recorder's own
// (spool.go), so emit is called from it, in each table's order; the
// Recorder must be closed or aborted to end it.
func NewRecorder(emit func(Batch)) *Writer { return newRecorder(emit, batchRows) }

// newRecorder is NewRecorder with the batch size chosen, for tests.
func newRecorder(emit func(Batch), batch int) *Writer {
	w := &Writer{}
	for i, t := range w.tables() {
		t.record(i, emit, spooledBuffers, batch)
	}
	w.bind()
	w.startSpool()
	return w
}

func (w *Writer) bind() {
	w.summary.bind()
	w.kernels.bind()
	w.ctas.bind()
	w.launches.bind()
	w.occupancy.bind()
	w.pages.bind()
	w.stages.bind()
	w.syncs.bind()
}

// tables returns the tables in docs/design.md order.
func (w *Writer) tables() [numTables]*table {
	return [numTables]*table{
		summaryTable:   &w.summary.table,
		kernelsTable:   &w.kernels.table,
		ctasTable:      &w.ctas.table,
		launchesTable:  &w.launches.table,
		occupancyTable: &w.occupancy.table,
		pagesTable:     &w.pages.table,
		stagesTable:    &w.stages.table,
		syncsTable:     &w.syncs.table,
	}
}

// Begin starts the rows of a replay: every row written after it carries
// run's trace, policy and params, until the next Begin. Runs of several traces and
// policies thus concatenate in one set of tables.
func (w *Writer) Begin(run tables.Run) {
	if w.sp != nil {
		w.sp.begin(run)
		return
	}
	w.run = run
}

// Err returns the first error met while writing rows, so a long replay can
// stop early instead of learning of a full disk at Close. After Close or
// Abort it reports that the Writer is closed.
func (w *Writer) Err() error {
	if w.sp != nil {
		if w.closed {
			return w.err
		}
		return w.sp.error()
	}
	return w.err
}

// The Sink methods (Summary, Kernel, CTA, ...) are generated with the
// tables' columns (columns_gen.go): a Recorder's row goes into its
// spool's chunk, each field in its column, straight from the argument,
// so a row is not copied whole on its way; a file Writer's rows go
// straight into the tables' builders (add). The fields are put in the
// Sink method's own body: through a put method of the chunk's, a call
// a row, synth --out parquet took 6 instructions a CTA more
// (scripts/instructions.sh --quick synth-parquet). The CTA rows
// allocate nothing beyond the amortised growth of the column builders:
// replays produce millions of them.

// columns is a table's column set for rows of type R (ctaCols for
// tables.CTA, ...), generated from the table's declaration
// (columns_gen.go).
type columns[R any] interface {
	base() *table
	append(R)
}

// add appends a row to t's builders. Rows go by value: a pointer passed
// through the type parameter's method would escape, one allocation a row.
func add[R any, T columns[R]](w *Writer, t T, r R) {
	if w.start(t.base()) {
		t.append(r)
		w.end(t.base())
	}
}

// start counts the run columns of a row into t, or reports that the row is
// to be dropped after an error.
func (w *Writer) start(t *table) bool {
	if w.err != nil {
		return false
	}
	t.addRun(&w.run, 1)
	return true
}

// end completes a row of t, keeping the error if its batch failed to write.
func (w *Writer) end(t *table) {
	if err := t.add(); err != nil {
		w.err = err
	}
}

// WriteBatch appends a batch a Recorder handed over to its table, after
// the rows the table already holds, and releases it. Errors are kept as
// for rows: the batch is dropped, Err reports it and Close returns it.
//
// WriteBatch is for Writers of files: a Recorder takes rows.
func (w *Writer) WriteBatch(b Batch) {
	if w.sp != nil {
		panic("results: WriteBatch on a Recorder")
	}
	defer b.Release()
	if w.err != nil {
		return
	}
	if err := w.tables()[b.table].writeBlock(b.b); err != nil {
		w.err = err
	}
}

// Close writes the remaining rows, finishes every file and renames each to
// its final name (summary.parquet, kernels.parquet, ...). On error no
// temporary file is left; tables renamed before the error are complete
// files. Tables that got no rows are written with their full schema.
func (w *Writer) Close() error {
	if w.closed {
		return errClosed
	}
	if w.sp != nil {
		w.sp.stop(false)
	}
	w.closed = true
	err := w.err
	w.err = errClosed
	ts := w.tables()
	if err == nil {
		// Each table ends its own file: they finish side by side, so the
		// encoding left at the end (for a short run, all of it) and the
		// syncs overlap instead of queueing.
		errs := make([]error, len(ts))
		var wg sync.WaitGroup
		for i, t := range ts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = t.finish()
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != nil {
				err = e
				break
			}
		}
	}
	// The summary is renamed last: where it exists, so do the other
	// tables, which is how a study tells a finished replay (its summary
	// part) from one cut short.
	order := append(append([]*table(nil), ts[summaryTable+1:]...), ts[summaryTable])
	for _, t := range order {
		if err == nil {
			err = t.commit()
		}
	}
	if err != nil {
		w.discard()
	}
	return err
}

// Abort gives up the output: it closes and removes the temporary files and
// leaves the final names untouched. It is safe to call at any time, more
// than once, and after a failed Close.
func (w *Writer) Abort() {
	if w.sp != nil {
		w.sp.stop(true)
	}
	w.closed = true
	w.err = errClosed
	w.discard()
	if w.madeDir != "" {
		os.Remove(w.madeDir) // only if empty: what else is there is not ours
	}
}

func (w *Writer) discard() {
	for _, t := range w.tables() {
		t.discard()
	}
}
