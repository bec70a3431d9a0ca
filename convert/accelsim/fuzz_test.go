package accelsim

import (
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// FuzzParseInst feeds instruction lines to the parser: it must never panic,
// and a line it accepts must have one address per active lane of a memory
// instruction, in lane order.
//
//	go test ./convert/accelsim -fuzz FuzzParseInst
func FuzzParseInst(f *testing.F) {
	for _, s := range []struct {
		line     string
		version  int
		lineinfo bool
	}{
		{"0008 ffffffff 1 R1 MOV 0 0 ", 4, false},
		{"0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4 ", 4, false},
		{"00f0 ffffffff 0 STG.E 2 R6 R9 4 1 0x7fb0fc461c00 4 0 ", 5, false},
		{"0278 ffffffff 1 R12 LDS.U.128 1 R2 16 1 0x0 0 ", 4, false},
		{"1020 ffffffff 1 R24 LDG.E.128.CONSTANT.SYS 1 R44 16 2 0x7efe7b60c300 16 16 16 2000 16 16 16 976 16 16 16 2000 16 16 16 6096 16 16 16 4048 16 16 16 3024 16 16 16 976 16 16 16 ", 3, false},
		{"0098 00000005 1 R4 LDG.E.CG 1 R4 4 0 0x00007f2b2d500000 0x00007f2b2d500010 ", 4, false},
		{"14 0020 ffffffff 1 R3 LDG.E.64 1 R2 8 1 0x100 8 0 ", 4, true},
		{"1 0 0 3 0010 00000003 1 R2 LDG.E 1 R4 4 1 0x40 4 ", 2, false},
		{"0080 00000001 1 R11 ATOMG.E.ADD 2 R12 R13 4 2 0x7f4000040000 ", 4, false},
		{"0010 ffffffff 1 R2 IADD3 2 R1 R1 0 -4 ", 5, false},
	} {
		f.Add(s.line, s.version, s.lineinfo)
	}
	f.Fuzz(func(t *testing.T, line string, version int, lineinfo bool) {
		var in inst
		if err := parseInst(&in, []byte(line), version, lineinfo); err != nil {
			return
		}
		want := 0
		if in.width > 0 {
			want = bits.OnesCount32(in.mask)
		}
		if in.n != want {
			t.Fatalf("%d addresses for mask %08x and width %d", in.n, in.mask, in.width)
		}
		for j := 0; j < in.n; j++ {
			if in.mask&(1<<in.lane[j]) == 0 || j > 0 && in.lane[j] <= in.lane[j-1] {
				t.Fatalf("lanes %v for mask %08x", in.lane[:in.n], in.mask)
			}
		}
	})
}

// FuzzHeader feeds kernel headers to the header parser: it must never
// panic, and a header it accepts must describe a launchable grid.
//
//	go test ./convert/accelsim -fuzz FuzzHeader
func FuzzHeader(f *testing.F) {
	for _, s := range []string{
		v4,
		"-kernel name = _Z9vectorAddPKfS0_Pfi\n-kernel id = 1\n-grid dim = (196,1,1)\n-block dim = (256,1,1)\n-shmem = 0\n-nregs = 12\n-binary version = 80\n-cuda stream id = 0\n-shmem base_addr = 0x00007fb139000000\n-local mem base_addr = 0x00007fb137000000\n-nvbit version = 1.7\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n#traces format = ...\n",
		"\n-grid dim = (2147483647,65535,65535)\n#\n",
		"-block dim = (32,32,2)\n#\n",
		"-accelsim tracer version = 4.1\n-unknown key = 1\n#BEGIN_TB\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		h, err := readHeader(newLineReader(strings.NewReader(text), "k.traceg"), "k.traceg")
		if err != nil {
			return
		}
		if h.threads() < 1 || h.threads() > maxBlockThreads || h.ctas() < 1 || h.ctas() > maxGridCTAs || h.nregs > maxRegs || h.shmem < 0 {
			t.Fatalf("accepted header %+v", *h)
		}
	})
}

// FuzzKernel converts fuzzed kernel files whole: the conversion must never
// panic, and when it succeeds its records must pass trace.NewValidator.
//
//	go test ./convert/accelsim -fuzz FuzzKernel
func FuzzKernel(f *testing.F) {
	for _, name := range []string{"v2/kernel-1.traceg", "v3/kernel-1.traceg", "v4/kernel-1.traceg", "v4-lineinfo/kernel-7.traceg", "v5-cluster/kernel-3.traceg", "irregular/kernel-1.traceg"} {
		b, err := os.ReadFile(filepath.Join("testdata/golden", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "MemcpyHtoD,0x00007f4000000000,1024\n")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, kernel, copies string) {
		if len(kernel) > 1<<16 || strings.Contains(copies, "kernel") {
			return
		}
		// Blocks a file leaves out get a record each, so the output grows
		// with the grid, not the file: keep the grids small.
		if h, err := readHeader(newLineReader(strings.NewReader(kernel), "k"), "k"); err == nil && h.ctas() > 1<<12 {
			return
		}
		list := filepath.Join(dir, "kernelslist.g")
		if os.WriteFile(list, []byte(copies+"\nkernel-1.traceg\n"), 0o644) != nil ||
			os.WriteFile(filepath.Join(dir, "kernel-1.traceg"), []byte(kernel), 0o644) != nil {
			t.Skip("cannot write the trace")
		}
		out := &records{}
		if err := Convert(list, out, DefaultOptions()); err != nil {
			return
		}
		v := trace.NewValidator(out)
		w := trace.NewJSONLWriter(io.Discard) // what a file must hold besides: strings UTF-8 and at most MaxString
		for {
			rec, err := v.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("converted trace is invalid: %v", err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatalf("converted trace no file can hold: %v", err)
			}
		}
	})
}
