package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// The pool hands out zeroed memory of the size asked for, whatever the
// buffer it reuses held, grows in place within a buffer's class, and
// keeps only whole buffers of its classes.
func TestBufferPool(t *testing.T) {
	p := &bufferPool{}
	for _, c := range []struct{ size, class int }{{0, 6}, {1, 6}, {64, 6}, {65, 7}, {1000, 10}, {1024, 10}, {1025, 11}} {
		if got := poolClass(c.size); got != c.class {
			t.Errorf("poolClass(%d) = %d, want %d", c.size, got, c.class)
		}
	}
	for range 100 { // sync.Pool may drop what it is given; some rounds reuse
		b := p.Allocate(1000)
		if len(b) != 1000 || cap(b) != 1024 {
			t.Fatalf("Allocate(1000): len %d cap %d, want 1000 1024", len(b), cap(b))
		}
		if !bytes.Equal(b[:cap(b)], make([]byte, 1024)) {
			t.Fatal("Allocate returned memory that is not zeroed")
		}
		for i := range b[:cap(b)] {
			b[:cap(b)][i] = 0xff
		}
		b = p.Reallocate(1024, b) // in place
		if len(b) != 1024 || b[1023] != 0xff {
			t.Fatalf("Reallocate within the class moved or lost the bytes")
		}
		g := p.Reallocate(3000, b)
		if len(g) != 3000 || g[0] != 0xff || g[1023] != 0xff || g[1024] != 0 {
			t.Fatalf("Reallocate to a larger class lost the bytes or left garbage")
		}
		p.Free(g)
		p.Free(make([]byte, 100)) // not a class's size: dropped
	}
	if b := p.Allocate(1 << 27); len(b) != 1<<27 {
		t.Fatalf("Allocate beyond the largest class: len %d", len(b))
	}
}

// A table written again after other rows filled the pooled buffers is
// byte for byte the same: null slots, which the builders leave as the
// allocator gave them, stay zero (Arrow IPC writes them as they are).
func TestPooledTablesDeterministic(t *testing.T) {
	write := func(f Format, nulls bool) [][]byte {
		dir := t.TempDir()
		w, err := create(dir, f, buffers, 1000)
		if err != nil {
			t.Fatal(err)
		}
		w.Begin(tables.Run{Trace: "t", Policy: "cdp"})
		for j := range 2500 {
			c := tables.CTA{KernelID: uint64(j), CTA: uint64(j), EndCycle: int64(j) * 977}
			if !nulls || j%3 == 0 {
				c.GroupID, c.Slowdown = u64(uint64(j)*31+7), f64p(float64(j)+0.5)
			}
			w.CTA(c)
			k := kernelRow(0, j)
			if !nulls {
				k.ParentKernelID = u64(uint64(j) + 99)
			}
			w.Kernel(k)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return readFinal(t, dir, f)
	}
	for _, f := range []Format{Arrow, Parquet} {
		a := write(f, true)
		for range 3 {
			write(f, false)
			b := write(f, true)
			for i, name := range finalNames(f) {
				if !bytes.Equal(a[i], b[i]) {
					t.Fatalf("%s differs when written again over reused buffers", name)
				}
			}
		}
	}
}

// A Recorder's builders take their memory uncleared (spooledBuffers),
// so every byte of a batch must be one they wrote: its tables, null
// values among them, are byte for byte those of builders given cleared
// memory, in every format, when the pool holds buffers full of ones.
func TestRecorderUnclearedBuffers(t *testing.T) {
	rows := func(w *Writer) {
		w.Begin(tables.Run{Trace: "t", Policy: "cdp"})
		for j := range 3000 {
			c := tables.CTA{KernelID: uint64(j), CTA: uint64(j), EndCycle: int64(j) * 977}
			if j%3 == 0 {
				c.GroupID, c.Slowdown = u64(uint64(j)*31+7), f64p(float64(j)+0.5)
			}
			w.CTA(c)
			w.Kernel(kernelRow(0, j))
		}
	}
	write := func(f Format) [][]byte {
		dir := t.TempDir()
		var batches []Batch
		rec := newRecorder(func(b Batch) { batches = append(batches, b) }, 1000)
		rows(rec)
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		w, err := create(dir, f, memory.NewGoAllocator(), 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			w.WriteBatch(b)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return readFinal(t, dir, f)
	}
	dirty := func() {
		var held [][]byte
		for size := 64; size <= 1<<14; size *= 2 { // a batch's buffers are at most 8 KB
			for range 256 { // more than the batches take
				b := pool.Allocate(size)
				for i := range b {
					b[i] = 0xff
				}
				held = append(held, b)
			}
		}
		for _, b := range held {
			pool.Free(b)
		}
	}
	defer func(a memory.Allocator) { spooledBuffers = a }(spooledBuffers)
	for _, f := range []Format{Arrow, Parquet, CSV} {
		spooledBuffers = memory.NewGoAllocator()
		want := write(f)
		spooledBuffers = unclearedPool{pool}
		dirty()
		got := write(f)
		for i, name := range finalNames(f) {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s from uncleared buffers differs from cleared ones", name)
			}
		}
	}
}

// readFinal is the bytes of each table in dir written in format f, in
// finalNames' order.
func readFinal(t *testing.T, dir string, f Format) [][]byte {
	t.Helper()
	var got [][]byte
	for _, name := range finalNames(f) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	return got
}
