package accelsim

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestDeterministic converts the same trace twice and gets the same bytes.
func TestDeterministic(t *testing.T) {
	for _, list := range []string{"testdata/golden/v4", "testdata/golden/irregular", "testdata/samples/matrixmul-v4"} {
		a := jsonl(t, convert(t, list, DefaultOptions()))
		b := jsonl(t, convert(t, list, DefaultOptions()))
		if !bytes.Equal(a, b) {
			t.Errorf("%s converts differently on a second run", list)
		}
	}
}

// TestXZ checks that a compressed kernel file converts exactly like the
// plain one.
func TestXZ(t *testing.T) {
	plain := convert(t, "testdata/golden/v5-cluster", DefaultOptions())
	xz := convert(t, "testdata/golden/xz", DefaultOptions())
	if !bytes.Equal(jsonl(t, plain[1:]), jsonl(t, xz[1:])) {
		t.Error("the .traceg.xz converts differently from the .traceg")
	}
}

// TestProgress checks that Progress sees both passes over every block.
func TestProgress(t *testing.T) {
	var last [3]Progress
	calls := 0
	o := DefaultOptions()
	o.Progress = func(p Progress) {
		calls++
		if p.Pass < 1 || p.Pass > 2 || p.Bytes < last[p.Pass].Bytes || p.CTAs < last[p.Pass].CTAs || p.Kernels != 2 {
			t.Fatalf("progress %+v after %+v", p, last[p.Pass])
		}
		last[p.Pass] = p
	}
	convert(t, "testdata/golden/v4", o)
	size := int64(0)
	for _, f := range []string{"kernel-1.traceg", "kernel-2.traceg"} {
		st, err := os.Stat(filepath.Join("testdata/golden/v4", f))
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	for pass := 1; pass <= 2; pass++ {
		if p := last[pass]; p.Kernel != 2 || p.CTAs != 3 || p.Bytes != size {
			t.Errorf("pass %d ended at %+v; want kernel 2, 3 CTAs, %d bytes", pass, p, size)
		}
	}
}

// TestStreamingMemory converts a 10 MB kernel file and checks that the heap
// stays far below its size: instructions are never held, only one block's
// summary and the kernel's access ranges.
func TestStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10 MB trace")
	}
	dir := t.TempDir()
	size := writeSynthetic(t, dir, 512, 4, 100)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	o := DefaultOptions()
	n := 0
	o.Progress = func(Progress) {
		if n++; n%32 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	var count counter
	if err := Convert(filepath.Join(dir, "kernelslist.g"), &count, o); err != nil {
		t.Fatal(err)
	}
	if count.ctas != 512 {
		t.Fatalf("%d CTAs converted; want 512", count.ctas)
	}
	if grew := int64(peak - base); grew > size/4 {
		t.Errorf("heap grew by %d bytes converting a %d-byte trace", grew, size)
	}
}

// counter is a trace.Sink that counts CTAs.
type counter struct{ ctas int }

func (c *counter) Write(r trace.Record) error {
	if _, ok := r.(*trace.CTA); ok {
		c.ctas++
	}
	return nil
}
