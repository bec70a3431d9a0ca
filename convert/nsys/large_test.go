package nsys

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

// largeFixture is a long report of one process on one A100: n kernels
// on stream 7, 20 µs apart from launch to launch, each 10 µs long and
// starting 8 µs after its call (cudaLaunchKernel_v7000); a 4 KiB
// host-to-device copy (cudaMemcpyAsync, 1 µs) before every ninth; and a
// cudaMalloc, with no GPU activity, beside every fifth. With n = 180,000:
// 20,000 copies, 36,000 calls without activity, 236,000 runtime rows.
func largeFixture(n int64) fixture {
	f := baseFixture()
	for _, tab := range []string{tabKernel, tabRuntime, tabMemcpy, tabMemset, tabSync, tabEvent} {
		f[tab].rows = nil // the base report's own GPU work and calls left out
	}
	f["TARGET_INFO_GPU"].rows = f["TARGET_INFO_GPU"].rows[:1]
	corr := int64(1)
	for i := range n {
		at := 1_000_000 + 20_000*i
		if i%9 == 0 {
			f.call(corr, at, 2)
			f.copy(corr, 0, 7, at+2000, at+3000, 4096, copyHtoD)
			corr++
		}
		if i%5 == 0 {
			f.call(corr, at+300, 1)
			corr++
		}
		f.call(corr, at+500, 3)
		f.kernel(corr, 0, 7, at+8500, at+18500, 9, [6]int64{216, 1, 1, 256, 1, 1}, 32, 1024, 0)
		corr++
	}
	return f
}

// BenchmarkConvertLarge converts largeFixture(180000), written once (some
// 5 s), as replay convert --from=nsys does, to a sink that keeps
// nothing: docs/performance.md's figures.
//
//	go test ./convert/nsys -run XXX -bench ConvertLarge -benchtime 3x -benchmem
func BenchmarkConvertLarge(b *testing.B) {
	path := largeFixture(180_000).write(b)
	for b.Loop() { // (the loop's timer starts here)
		sum, err := Convert(path, discard{}, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		if sum.Kernels != 180_000 || sum.Memcpys != 20_000 {
			b.Fatalf("converted %s", sum)
		}
	}
}

// TestWriteLargeExport writes largeFixture(180000) to the file
// NSYS_LARGE_EXPORT names, for measuring the command itself
// (docs/performance.md: its peak resident memory):
//
//	NSYS_LARGE_EXPORT=$PWD/large.sqlite go test ./convert/nsys -run WriteLargeExport
//	/usr/bin/time -f "%e s %U+%S s %M KB" replay convert --from=nsys large.sqlite -o large.trace.zst
func TestWriteLargeExport(t *testing.T) {
	dst := os.Getenv("NSYS_LARGE_EXPORT")
	if dst == "" {
		t.Skip("set NSYS_LARGE_EXPORT to a path to write the export there")
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			os.Remove(dst) // no half-written export left behind
		}
	})
	largeFixture(180_000).writeAt(t, dst)
}

// TestLargeFixture converts a short largeFixture and checks its counts,
// so that the benchmark's report stays one the importer takes whole.
func TestLargeFixture(t *testing.T) {
	recs, sum := convertFixture(t, largeFixture(90), DefaultOptions())
	if sum.Kernels != 90 || sum.Memcpys != 10 || len(recs) == 0 {
		t.Errorf("converted %s", sum)
	}
	if n := sum.Unused["runtime:cudaMalloc"]; n != 18 {
		t.Errorf("%d cudaMalloc calls unused, want 18 (%v)", n, sum.Unused)
	}
}
