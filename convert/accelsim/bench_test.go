package accelsim

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// discard is a trace.Sink that drops records, so a benchmark measures the
// importer alone.
type discard struct{}

func (discard) Write(trace.Record) error { return nil }

// BenchmarkConvert measures conversion throughput in bytes of trace text
// per second (both passes), on a synthetic kernel shaped like real
// compressed traces: most lines without memory access, coalesced accesses in
// base+stride form, some scattered ones in base+delta form, and shared
// memory.
func BenchmarkConvert(b *testing.B) {
	dir := b.TempDir()
	size := writeSynthetic(b, dir, 512, 8, 200)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		if err := Convert(filepath.Join(dir, "kernelslist.g"), discard{}, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvertWriter adds the binary trace encoder, as replay convert runs.
func BenchmarkConvertWriter(b *testing.B) {
	dir := b.TempDir()
	size := writeSynthetic(b, dir, 512, 8, 200)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		w := trace.NewWriter(io.Discard)
		if err := Convert(filepath.Join(dir, "kernelslist.g"), w, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvertSample converts the real matrix multiply sample.
func BenchmarkConvertSample(b *testing.B) {
	st, err := os.Stat("testdata/samples/matrixmul-v4/kernel-1.traceg")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for range b.N {
		if err := Convert("testdata/samples/matrixmul-v4", discard{}, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// writeSynthetic writes a one-kernel trace of ctas blocks of warps warps of
// insts instructions into dir and returns the kernel file's size.
func writeSynthetic(tb testing.TB, dir string, ctas, warps, insts int) int64 {
	tb.Helper()
	const in, out = 0x7f0000000000, 0x7f0010000000
	list := fmt.Sprintf("MemcpyHtoD,0x%x,%d\nkernel-1.traceg\n", in, ctas*warps*32*4*8)
	if err := os.WriteFile(filepath.Join(dir, "kernelslist.g"), []byte(list), 0o644); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "kernel-1.traceg"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "-kernel name = synth\n-kernel id = 1\n-grid dim = (%d,1,1)\n-block dim = (%d,1,1)\n", ctas, warps*32)
	fmt.Fprintf(w, "-shmem = 4096\n-nregs = 32\n-binary version = 80\n-cuda stream id = 0\n")
	fmt.Fprintf(w, "-shmem base_addr = 0x00007fb139000000\n-local mem base_addr = 0x00007fb137000000\n")
	fmt.Fprintf(w, "-nvbit version = 1.7\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n#traces format = ...\n\n")
	for c := range ctas {
		fmt.Fprintf(w, "\n#BEGIN_TB\n\nthread block = %d,0,0\n", c)
		for wp := range warps {
			fmt.Fprintf(w, "\nwarp = %d\ninsts = %d\n", wp, insts)
			tid := uint64((c*warps + wp) * 32)
			for i := range insts {
				pc := i * 16
				switch i % 20 {
				case 3, 7, 11:
					fmt.Fprintf(w, "%04x ffffffff 1 R4 LDG.E 1 R2 4 1 0x%x 4 0 \n", pc, in+4*tid+uint64(i/20)*4*uint64(ctas*warps*32))
				case 15:
					fmt.Fprintf(w, "%04x ffffffff 0 STG.E 2 R6 R9 4 1 0x%x 4 0 \n", pc, out+4*tid)
				case 17:
					fmt.Fprintf(w, "%04x ffffffff 1 R8 LDG.E.64 1 R2 8 2 0x%x", pc, in+8*tid)
					for l := 1; l < 32; l++ {
						fmt.Fprintf(w, " %d", 8+(l%3)*64)
					}
					fmt.Fprint(w, " 0 \n")
				case 19:
					fmt.Fprintf(w, "%04x ffffffff 1 R10 LDS.U.32 1 R5 4 1 0x%x 4 0 \n", pc, 4*wp*32)
				default:
					fmt.Fprintf(w, "%04x ffffffff 1 R%d IMAD.WIDE 2 R6 R7 0 0 \n", pc, i%32)
				}
			}
		}
		fmt.Fprint(w, "\n#END_TB\n")
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return st.Size()
}
