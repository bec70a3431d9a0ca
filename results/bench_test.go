package results

import (
	"testing"

	"github.com/gpureplay/gpureplay/tables"
)

// BenchmarkWriteCTAs writes a million CTA rows in each format and reports
// the rate, the figure that matters for the replay's hot path.
func BenchmarkWriteCTAs(b *testing.B) {
	for _, f := range formats {
		b.Run(string(f), func(b *testing.B) {
			benchmarkWrite(b, f, func(w *Writer, j int) {
				r := tables.CTA{KernelID: uint64(j >> 10), CTA: uint64(j & 1023), SM: int32(j % 13),
					DispatchCycle: int64(j) * 3, StartCycle: int64(j)*3 + 5, EndCycle: int64(j)*3 + 900}
				if j%7 == 0 {
					g := uint64(j >> 4)
					r.GroupID = &g
				}
				w.CTA(r)
			})
		})
	}
}

// BenchmarkWriteKernels writes a million kernel rows shaped as BFS's: a
// host kernel now and then among device kernels of another name, so its
// string columns hold two values each in long stretches.
func BenchmarkWriteKernels(b *testing.B) {
	for _, f := range formats {
		b.Run(string(f), func(b *testing.B) {
			parent := uint64(7)
			benchmarkWrite(b, f, func(w *Writer, j int) {
				r := tables.Kernel{KernelID: uint64(j), Name: "bfs_expand", Origin: "device", ParentKernelID: &parent,
					Stream: uint64(j % 4), CTAs: int64(1 + j%3), ThreadsPerCTA: 256,
					LaunchCycle: int64(j) * 7, ReadyCycle: int64(j)*7 + 40, StartCycle: int64(j)*7 + 90, EndCycle: int64(j)*7 + 900}
				if j%20000 == 0 {
					r.Name, r.Origin, r.ParentKernelID = "bfs_level", "host", nil
				}
				w.Kernel(r)
			})
		})
	}
}

// benchmarkWrite writes a million rows of one table in format f, row j
// by write, and reports the rate.
func benchmarkWrite(b *testing.B, f Format, write func(w *Writer, j int)) {
	const rows = 1 << 20
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w, err := Create(b.TempDir(), f)
		if err != nil {
			b.Fatal(err)
		}
		w.Begin(tables.Run{Trace: "bfs.trace.zst", Policy: "cdp"})
		for j := 0; j < rows; j++ {
			write(w, j)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRecordCTAs hands a million CTA rows to a Recorder, the path a
// replay's rows take: ns/op is what the replay's goroutine waits for, the
// builder goroutine doing the appends beside it.
func BenchmarkRecordCTAs(b *testing.B) {
	const rows = 1 << 20
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w := NewRecorder(func(b Batch) { b.Release() })
		w.Begin(tables.Run{Trace: "bfs.trace.zst", Policy: "cdp"})
		for j := 0; j < rows; j++ {
			w.CTA(tables.CTA{KernelID: uint64(j >> 10), CTA: uint64(j & 1023), SM: int32(j % 13),
				DispatchCycle: int64(j) * 3, StartCycle: int64(j)*3 + 5, EndCycle: int64(j)*3 + 900})
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
