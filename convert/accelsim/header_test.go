package accelsim

import (
	"strings"
	"testing"
)

func parseHeaderText(t *testing.T, text string) *kernelHeader {
	t.Helper()
	h, err := readHeader(newLineReader(strings.NewReader(text), "k.traceg"), "k.traceg")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHeaderDefaults checks what a header that says little gives: the
// defaults Accel-Sim uses.
func TestHeaderDefaults(t *testing.T) {
	h := parseHeaderText(t, "\n-some new key = 3\n#BEGIN_TB\n")
	want := kernelHeader{name: "k.traceg", grid: [3]uint32{1, 1, 1}, block: [3]uint32{1, 1, 1}}
	if *h != want {
		t.Errorf("got %+v; want %+v", *h, want)
	}
}

// TestHeaderValues checks every key the tracer writes.
func TestHeaderValues(t *testing.T) {
	h := parseHeaderText(t, `-kernel name = void f<(char)61>(int) = x
-kernel id = 12
-grid dim = (196, 2,1)
-block dim = (256,1,1)
-shmem = 8192
-nregs = 30
-binary version = 86
-cuda stream id = 94526738210304
-shmem base_addr = 0x00007fb05c000000
-local mem base_addr = 0x00007fb05a000000
-nvbit version = 1.5.5
-accelsim tracer version = 4.1
-enable lineinfo = 1

#traces format = ...
`)
	want := kernelHeader{
		name: "void f<(char)61>(int) = x", id: 12, hasID: true,
		grid: [3]uint32{196, 2, 1}, block: [3]uint32{256, 1, 1}, shmem: 8192, nregs: 30,
		binaryVersion: 86, stream: 94526738210304, shmemBase: 0x7fb05c000000, localBase: 0x7fb05a000000,
		nvbitVersion: "1.5.5", tracerVersion: 4, lineinfo: true,
	}
	if *h != want {
		t.Errorf("got %+v\nwant %+v", *h, want)
	}
	if h.ctas() != 392 || h.warps() != 8 {
		t.Errorf("%d CTAs, %d warps; want 392, 8", h.ctas(), h.warps())
	}
}
