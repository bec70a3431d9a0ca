package accelsim

import (
	"os"
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// The real traces in testdata/samples are copies of the project's shared
// samples (simple-v5's kernel file xz-compressed, which the tracer can also
// write), so CI needs nothing outside the repository.
var samples = []struct {
	dir        string
	file       string // the kernel file
	grid       [3]uint32
	block      [3]uint32
	roles      []trace.Role
	warpsPerTB int
}{
	{"vectoradd-v4", "kernel-1.traceg", [3]uint32{1, 1, 1}, [3]uint32{1024, 1, 1}, []trace.Role{"input", "input", "inout"}, 32},
	{"matrixmul-v4", "kernel-1.traceg", [3]uint32{1, 1, 1}, [3]uint32{32, 32, 1}, []trace.Role{"input", "input", "output"}, 32},
	{"simple-v5", "kernel-1.traceg.xz", [3]uint32{196, 1, 1}, [3]uint32{256, 1, 1}, []trace.Role{"input", "input", "output"}, 8},
}

// TestSamples converts each real sample and checks the records against
// what its header says: one kernel with its grid and block, one cta record
// per CTA of the grid, the buffers the copies and the output make, and
// access records (these kernels are affine, so regular).
func TestSamples(t *testing.T) {
	for _, s := range samples {
		t.Run(s.dir, func(t *testing.T) {
			recs := convert(t, "testdata/samples/"+s.dir+"/kernelslist.g", DefaultOptions())
			var kernels, ctas, accesses, pages int
			var roles []trace.Role
			for _, r := range recs {
				switch r := r.(type) {
				case *trace.Kernel:
					kernels++
					if r.Grid != s.grid || r.Block != s.block {
						t.Errorf("kernel grid %v block %v; the header says %v %v", r.Grid, r.Block, s.grid, s.block)
					}
				case *trace.CTA:
					ctas++
					if r.Cycles <= 0 {
						t.Errorf("CTA %d has %d cycles", r.CTA, r.Cycles)
					}
				case *trace.Buffer:
					roles = append(roles, r.Role)
				case *trace.Access:
					accesses++
				case *trace.Pages:
					pages++
				}
			}
			want := int(s.grid[0] * s.grid[1] * s.grid[2])
			if kernels != 1 || ctas != want {
				t.Errorf("%d kernels and %d CTAs; want 1 and %d", kernels, ctas, want)
			}
			if !slices.Equal(roles, s.roles) {
				t.Errorf("buffer roles %v; want %v", roles, s.roles)
			}
			if accesses == 0 || pages == 0 {
				t.Errorf("%d access and %d pages records; want both (the kernel is regular)", accesses, pages)
			}
		})
	}
}

// TestSampleWarps reads each sample's kernel file with the body reader and
// checks that every thread block has the warps its block dim implies.
func TestSampleWarps(t *testing.T) {
	for _, s := range samples {
		t.Run(s.dir, func(t *testing.T) {
			path := "testdata/samples/" + s.dir + "/" + s.file
			r, err := openKernel(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			lr := newLineReader(r, path)
			h, err := readHeader(lr, s.file)
			if err != nil {
				t.Fatal(err)
			}
			if h.warps() != s.warpsPerTB {
				t.Errorf("header gives %d warps per block; want %d", h.warps(), s.warpsPerTB)
			}
			wc := &warpCounter{want: h.warps(), t: t}
			seen, err := readBody(lr, h, wc)
			if err != nil {
				t.Fatal(err)
			}
			if seen.n != h.ctas() || uint64(wc.blocks) != h.ctas() {
				t.Errorf("%d thread blocks read; the grid has %d", wc.blocks, h.ctas())
			}
		})
	}
}

// warpCounter is a visitor checking each block's warp count.
type warpCounter struct {
	t      *testing.T
	want   int
	warps  map[int]bool
	blocks int
}

func (w *warpCounter) beginCTA(uint64) error { w.warps = map[int]bool{}; return nil }

func (w *warpCounter) inst(warp int, _ *inst) error { w.warps[warp] = true; return nil }

func (w *warpCounter) endCTA() error {
	w.blocks++
	if len(w.warps) != w.want {
		w.t.Errorf("block %d has %d warps; want %d", w.blocks, len(w.warps), w.want)
	}
	return nil
}

// TestSamplesMatchShared checks that the copies still match the project's
// shared samples when they are there (they are not in CI's checkout alone).
func TestSamplesMatchShared(t *testing.T) {
	for _, s := range samples[:2] {
		shared, err := os.ReadFile("../../../shared/traces/accelsim/" + s.dir + "/" + s.file)
		if err != nil {
			t.Skip("no shared samples beside the repository")
		}
		local, err := os.ReadFile("testdata/samples/" + s.dir + "/" + s.file)
		if err != nil {
			t.Fatal(err)
		}
		if string(shared) != string(local) {
			t.Errorf("testdata/samples/%s differs from the shared sample", s.dir)
		}
	}
}
