package results

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// replayInto records rows with write through a Recorder and writes its
// batches into a Parquet Writer in dir, as a study's merge does.
func replayInto(t *testing.T, dir string, write func(*Writer)) {
	t.Helper()
	var mu sync.Mutex
	var batches []Batch
	rec := NewRecorder(func(b Batch) {
		mu.Lock()
		batches = append(batches, b)
		mu.Unlock()
	})
	write(rec)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := create(dir, Parquet, memory.DefaultAllocator, batchRows)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		w.WriteBatch(b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Rows a Recorder builds on its own goroutine reach the tables as the
// Writer's own rows do: the fixture's every table, and many rows across
// runs (several chunks, a Begin between them) byte for byte.
func TestRecorderRows(t *testing.T) {
	dir := t.TempDir()
	replayInto(t, dir, writeFixture)
	for name, rows := range fixtureRows {
		checkTable(t, dir, name, Parquet, rows)
	}

	many := func(w *Writer) {
		for r, n := range []int{3*spoolRows + 7, spoolRows - 1, 2 * spoolRows} {
			w.Begin(Run{Trace: "t", Policy: []string{"cdp", "dtbl", "spawn"}[r]})
			for i := 0; i < n; i++ {
				w.CTA(CTA{KernelID: uint64(r), CTA: uint64(i), EndCycle: int64(i)})
				if i%100 == 0 {
					w.Occupancy(Occupancy{Cycle: int64(i)})
				}
			}
			w.Summary(Summary{MakespanCycles: int64(n)})
		}
	}
	a, b := t.TempDir(), t.TempDir()
	replayInto(t, a, many)
	direct, err := create(b, Parquet, memory.DefaultAllocator, batchRows)
	if err != nil {
		t.Fatal(err)
	}
	many(direct)
	if err := direct.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range finalNames(Parquet) {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s: recorded rows differ from rows written directly", name)
		}
	}
}

// Abort ends a Recorder's builder goroutine and drops its rows.
func TestRecorderAbort(t *testing.T) {
	before := runtime.NumGoroutine()
	emitted := 0
	rec := NewRecorder(func(b Batch) { emitted++; b.Release() })
	rec.Begin(Run{Trace: "t", Policy: "cdp"})
	for i := 0; i < 10*spoolRows; i++ {
		rec.CTA(CTA{CTA: uint64(i)})
	}
	rec.Abort()
	rec.Abort()
	if err := rec.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Abort, %d before", n, before)
	}
	if emitted != 0 {
		t.Errorf("an aborted Recorder emitted %d batches", emitted)
	}
}
