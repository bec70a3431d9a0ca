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

	"github.com/gpureplay/gpureplay/tables"
)

// replayInto records rows with write through a Recorder of batches of
// batch rows and writes its batches into a Parquet Writer in dir, as a
// study's merge does.
func replayInto(t *testing.T, dir string, batch int, write func(*Writer)) {
	t.Helper()
	recordInto(t, dir, Parquet, batch, write)
}

// recordInto is replayInto with the files' format chosen.
func recordInto(t *testing.T, dir string, f Format, batch int, write func(*Writer)) {
	t.Helper()
	var mu sync.Mutex
	var batches []Batch
	rec := newRecorder(func(b Batch) {
		mu.Lock()
		batches = append(batches, b)
		mu.Unlock()
	}, batch)
	write(rec)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := create(dir, f, memory.DefaultAllocator, batchRows)
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
// runs (several chunks, a Begin between them) byte for byte, the ctas,
// kernels and launches rows, which a Recorder appends a column at a time
// (bulk.go), with and without their optional values.
func TestRecorderRows(t *testing.T) {
	dir := t.TempDir()
	replayInto(t, dir, batchRows, writeFixture)
	for name, rows := range fixtureRows {
		checkTable(t, dir, name, Parquet, rows)
	}

	many := func(w *Writer) {
		for r, n := range []int{3*spoolRows + 7, spoolRows - 1, 2 * spoolRows} {
			w.Begin(tables.Run{Trace: "t", Policy: []string{"cdp", "dtbl", "spawn"}[r]})
			for i := 0; i < n; i++ {
				c := tables.CTA{KernelID: uint64(r), CTA: uint64(i), SM: int32(i % 13), DispatchCycle: int64(i),
					StartCycle: int64(i + 1), EndCycle: int64(i + 2), StallCycles: int64(i % 5)}
				if i%7 == 0 {
					c.GroupID = u64(uint64(i / 7))
				}
				if i%3 == 0 {
					c.Slowdown = f64p(1 + float64(i)/8)
				}
				w.CTA(c)
				if i%3 == 1 {
					w.Kernel(kernelRow(r, i))
					w.Launch(launchRow(i))
				}
				if i%100 == 0 {
					w.Occupancy(tables.Occupancy{Cycle: int64(i)})
				}
			}
			w.Summary(tables.Summary{MakespanCycles: int64(n)})
		}
	}
	// Batches of a size that no chunk of spooled rows divides put batch
	// boundaries inside chunks.
	for _, batch := range []int{batchRows, 1000} {
		a, b := t.TempDir(), t.TempDir()
		replayInto(t, a, batch, many)
		direct, err := create(b, Parquet, memory.DefaultAllocator, batch)
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
				t.Errorf("batch %d: %s: recorded rows differ from rows written directly", batch, name)
			}
		}
	}
}

// kernelRow and launchRow make the i-th kernels and launches rows of
// run r, each optional value nil in some rows and set in others.
func kernelRow(r, i int) tables.Kernel {
	k := tables.Kernel{KernelID: uint64(i), Name: []string{"bfs", "k", ""}[i%3], Origin: "device",
		Stream: uint64(r), CTAs: int64(i % 9), ThreadsPerCTA: 256, LaunchCycle: int64(i),
		ReadyCycle: int64(i + 1), StartCycle: int64(i + 2), EndCycle: int64(i + 3),
		WaitCycles: int64(i % 4), CoalescedGroups: int64(i % 2)}
	if i%4 != 0 {
		k.ParentKernelID = u64(uint64(i / 4))
	}
	return k
}

func launchRow(i int) tables.Launch {
	l := tables.Launch{SiteID: uint64(i % 11), Cycle: int64(i), ParentKernelID: uint64(i / 3),
		ParentCTA: uint64(i % 17), Warp: int32(i % 8), Lane: int32(i % 32),
		ChildKernelID: uint64(i), Workload: int64(i % 100),
		Decision: []string{"launch", "inline", "coalesce"}[i%3], Outcome: []string{"launched", "inlined"}[i%2]}
	if i%5 == 0 {
		l.TargetKernelID = u64(uint64(i / 5))
		l.EstChildCycles, l.EstParentCycles = f64p(float64(i)/3), f64p(float64(i)/7)
	}
	if i%2 == 0 {
		n := int64(i)
		l.SpawnN, l.SpawnNCon = &n, f64p(float64(i)/2)
	}
	return l
}

// Abort ends a Recorder's builder goroutine and drops its rows.
func TestRecorderAbort(t *testing.T) {
	before := runtime.NumGoroutine()
	emitted := 0
	rec := NewRecorder(func(b Batch) { emitted++; b.Release() })
	rec.Begin(tables.Run{Trace: "t", Policy: "cdp"})
	for i := 0; i < 10*spoolRows; i++ {
		rec.CTA(tables.CTA{CTA: uint64(i)})
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
