package samples

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// tasksTrace is a generated tasks trace taken apart: its header, and per
// task (in spawn order) its kernel, launch and CTA.
type tasksTrace struct {
	header   *trace.Header
	kernels  []*trace.Kernel
	launches []*trace.Launch
	ctas     []*trace.CTA
	copies   []*trace.Memcpy
	buffers  []*trace.Buffer
}

// generateTasks runs the tasks generator with kv, checks the trace passes
// the package's order checks and the trace validator, and takes it apart.
func generateTasks(t *testing.T, kv ...string) *tasksTrace {
	t.Helper()
	recs := generate(t, "tasks", kv...)
	if err := checkOrder(recs); err != nil {
		t.Fatalf("%v: %v", kv, err)
	}
	v := trace.NewValidator(&sliceSource{recs: slices.Clone(recs)})
	for {
		if _, err := v.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%v: validator: %v", kv, err)
		}
	}
	tt := &tasksTrace{header: recs[0].(*trace.Header)}
	for _, r := range recs[1:] {
		switch r := r.(type) {
		case *trace.Kernel:
			tt.kernels = append(tt.kernels, r)
		case *trace.Launch:
			tt.launches = append(tt.launches, r)
		case *trace.CTA:
			tt.ctas = append(tt.ctas, r)
		case *trace.Memcpy:
			tt.copies = append(tt.copies, r)
		case *trace.Buffer:
			tt.buffers = append(tt.buffers, r)
		default:
			t.Fatalf("%v: unexpected %v record", kv, r.Kind())
		}
	}
	return tt
}

// TestTasksShape checks every kind's tasks are what Pagoda's Table 3 and
// the replay expect: count one-CTA kernels of threads threads, each
// host-launched at 0 on a stream of its own, with Table 3's registers and
// shared memory exactly when the kind synchronises.
func TestTasksShape(t *testing.T) {
	kinds := []string{"mixed"}
	for _, k := range taskKinds {
		kinds = append(kinds, k.name)
	}
	for _, kind := range kinds {
		for _, threads := range []int{100, 128} {
			tt := generateTasks(t, "kind="+kind, "count=24", "threads="+strconv.Itoa(threads), "mandel_size=16", "image=32")
			h := tt.header
			if h.ClockMHz != 1000 || h.GPU != "titanx" || h.Source != "gen:tasks" {
				t.Errorf("%s: header %+v", kind, h)
			}
			if len(tt.kernels) != 24 || len(tt.launches) != 24 || len(tt.ctas) != 24 {
				t.Fatalf("%s: %d kernels, %d launches, %d ctas; want 24 each", kind, len(tt.kernels), len(tt.launches), len(tt.ctas))
			}
			for i, k := range tt.kernels {
				want := lookupTaskKind(k.Name)
				if want == nil || (kind != "mixed" && k.Name != kind) {
					t.Fatalf("%s: task %d is kernel %q", kind, i, k.Name)
				}
				if k.Grid != [3]uint32{1, 1, 1} || k.Block != [3]uint32{uint32(threads), 1, 1} || k.Regs != want.regs {
					t.Errorf("%s: kernel %+v", kind, k)
				}
				if (k.Smem > 0) != want.sync {
					t.Errorf("%s: smem %d, but sync is %v", k.Name, k.Smem, want.sync)
				}
				l := tt.launches[i]
				if !l.Host() || l.T != 0 || l.Stream != k.ID || l.Kernel != k.ID {
					t.Errorf("%s: launch %+v", kind, l)
				}
			}
		}
	}
}

// TestTasksCostByHand checks one small task of each kind against its cost
// formula worked by hand from the constants.
func TestTasksCostByHand(t *testing.T) {
	start := tasksWarpStartCycles + tasksDRAMCycles // 440
	for _, tc := range []struct {
		kv     []string
		smem   int64
		warps  []int64 // nil: all warps equal to cycles
		cycles int64
	}{
		// max_iter=1: every pixel's dwell is 1 (the loop ends after one
		// iteration whether or not c escapes), so a warp's step costs
		// 40 + 1·20, and a 64×64 tile dealt to 128 threads is 32 steps.
		{[]string{"kind=mandelbrot", "max_iter=1", "mandel_size=1", "threads=32"}, 0, nil, 40 + 40 + 20},
		{[]string{"kind=mandelbrot", "max_iter=1", "threads=128"}, 0, nil, 40 + 32*(40+20)},
		// 16 pixels to 32 threads: one pixel on warp 0, 9 taps of 8 + 20.
		{[]string{"kind=conv", "image=4", "threads=64"}, 0, []int64{start + 20 + 9*8, 20}, start + 20 + 9*8},
		// 32 samples, one each: 64 complex taps of 12, magnitude 40.
		{[]string{"kind=beamformer", "signal=32", "threads=32"}, 0, nil, start + 64*12 + 40},
		// 64 samples, 2 a thread per convolution (32 taps of 8), 8 after
		// decimation (1 a thread, 4 cycles), 3 barriers each 20 + an L2
		// trip of 200.
		{[]string{"kind=filterbank", "signal=64", "threads=32"}, 512, nil, start + 2*2*32*8 + 2*4 + 3*220},
		// One 8×8 block, 8 threads: a DRAM round, 16 elements moved, two
		// DCT8s, three barriers.
		{[]string{"kind=dct", "image=8", "threads=8"}, 264, nil, 40 + 400 + 16*4 + 2*1101 + 3*20},
		// 64 threads are the SDK's CTA: 8 groups, 2112 bytes; 16 blocks
		// take them two rounds.
		{[]string{"kind=dct", "image=32", "threads=64"}, 2112, nil, 40 + 2*(400+16*4+2*1101+3*20)},
		// 4 blocks need only 4 groups' buffers.
		{[]string{"kind=dct", "image=16", "threads=64"}, 4 * 264, nil, 40 + 400 + 16*4 + 2*1101 + 3*20},
		// One 16×16 tile, one element a thread: one k step (an L2 trip, 2
		// loads, 2 barriers, 16 shared-memory MACs on one accumulator, the
		// measured chain's 38 cycles each), then the store.
		{[]string{"kind=matmul", "matrix=16", "threads=256"}, 2048, nil, start + 200 + 2*4 + 2*20 + 16*38 + 4},
		// Two tiles in flight, two at once: the same time, twice the smem.
		{[]string{"kind=matmul", "matrix=32", "threads=512"}, 4096, nil, start + 2*(2*(200+2*4+2*20+16*38)+4)},
		// 128 threads, two elements a thread on two accumulators: a MAC
		// every 19 cycles (the chain's 38 shared; issue would allow 2).
		{[]string{"kind=matmul", "matrix=16", "threads=128"}, 2048, nil, start + 200 + 2*2*4 + 2*20 + 2*16*19 + 2*4},
		// One 8-byte block: 48 rounds of 150 and 300 around them.
		{[]string{"kind=3des", "packet_min=8", "packet_max=8", "threads=32"}, 0, nil, start + 300 + 48*150},
		// 17 blocks to 16 threads: thread 0 takes two.
		{[]string{"kind=3des", "packet_min=136", "packet_max=136", "threads=16"}, 0, nil, start + 2*(300+48*150)},
	} {
		tt := generateTasks(t, append(tc.kv, "count=3", "work=model")...)
		for i, c := range tt.ctas {
			if c.Cycles != tc.cycles || !reflect.DeepEqual(c.WarpCycles, tc.warps) || tt.kernels[i].Smem != tc.smem {
				t.Errorf("%v: task %d: cycles %d, warps %v, smem %d; want %d, %v, %d",
					tc.kv, i, c.Cycles, c.WarpCycles, tt.kernels[i].Smem, tc.cycles, tc.warps, tc.smem)
			}
		}
	}
}

// TestMandelTaskWarps checks the SIMT cost of a tile by hand: 64 pixels
// to 48 threads, so warp 0 (threads 0–31) takes pixels 0–31 then 48–63,
// and warp 1 (threads 32–47) pixels 32–47 only.
func TestMandelTaskWarps(t *testing.T) {
	dwells := make([]int, 64)
	dwells[5], dwells[40], dwells[50], dwells[63] = 7, 3, 2, 9
	step := tasksMandelPixelCycles
	want := []int64{
		tasksWarpStartCycles + (step + 7*tasksMandelIterCycles) + (step + 9*tasksMandelIterCycles),
		tasksWarpStartCycles + (step + 3*tasksMandelIterCycles),
	}
	if got := mandelTaskWarps(dwells, 48); !reflect.DeepEqual(got, want) {
		t.Errorf("48 threads: %v, want %v", got, want)
	}
	if got := mandelTaskWarps(dwells[:1], 64); got[1] != tasksIdleWarpCycles {
		t.Errorf("one pixel, 64 threads: warp 1 costs %d, want idle %d", got[1], tasksIdleWarpCycles)
	}
}

// TestMandelFrame checks a frame's sampling by hand. One 2×2 tile: the
// frame is 2 tiles wide (the aspect), 4 pixels over the full region's 3.5,
// so step 0.875 from −2.5 − 0.875i. The tile's pixels are c = −2.5 −
// 0.875i and −2.5 (dwell 1: |c| > 2), −1.625 (on the real axis inside
// [−2, ¼]: in the set) and −1.625 − 0.875i, whose orbit runs c, 0.25 +
// 1.96875i (|z|² ≈ 3.94), −5.44 + 0.11i: dwell 3.
func TestMandelFrame(t *testing.T) {
	f := newMandelFrame(2, 1, 50, 0, 0)
	if got, want := f.dwells(0, nil), []int{1, 3, 1, 50}; !reflect.DeepEqual(got, want) {
		t.Errorf("dwells %v, want %v", got, want)
	}
	if f.cols != 2 || f.step != 0.875 {
		t.Errorf("frame %+v", f)
	}
}

// TestMandelInterior checks the closed-form shortcut against iteration:
// every point it calls interior never escapes, and it finds both regions.
func TestMandelInterior(t *testing.T) {
	found := 0
	for y := -60; y <= 60; y++ {
		for x := -110; x <= 30; x++ {
			cr, ci := float64(x)/50, float64(y)/50
			if mandelInterior(cr, ci) {
				found++
				if d := mandelDwell(cr, ci, 2000); d != 2000 {
					t.Errorf("%g%+gi: interior, but escapes after %d", cr, ci, d)
				}
			}
		}
	}
	if !mandelInterior(0, 0) || !mandelInterior(-1, 0) || mandelInterior(0.3, 0) || mandelInterior(-1.5, 0) || found < 1000 {
		t.Errorf("interior test: %d points found", found)
	}
}

// TestSludStructure checks BOTS sparselu's task list by hand. Blocks 0–2
// are dense (every off-diagonal pair is a neighbour or in row/column 0);
// at nb = 4 blocks (0,3), (3,0), (1,3), (3,1) are empty and no fill-in
// reaches them: kk=0 has 2 fwd, 2 bdiv, 4 bmod; kk=1 and kk=2 one each.
func TestSludStructure(t *testing.T) {
	var ops []sludOp
	sludWalk(2, func(op sludOp) bool { ops = append(ops, op); return true })
	if want := []sludOp{sludLU0, sludFwd, sludBdiv, sludBmod, sludLU0}; !reflect.DeepEqual(ops, want) {
		t.Errorf("nb=2: %v, want %v", ops, want)
	}
	for _, tc := range []struct{ nb, tasks int }{{1, 1}, {2, 5}, {3, 14}, {4, 18}} {
		if got := sludCount(tc.nb, 1<<30); got != tc.tasks {
			t.Errorf("nb=%d: %d tasks, want %d", tc.nb, got, tc.tasks)
		}
	}
	for _, tc := range []struct{ tasks, nb int }{{1, 1}, {5, 2}, {6, 3}, {14, 3}, {15, 4}, {18, 4}} {
		if got := sludSize(tc.tasks); got != tc.nb {
			t.Errorf("sludSize(%d) = %d, want %d", tc.tasks, got, tc.nb)
		}
	}
}

// TestSludOpWarps checks the four block operations' costs on 4×4 blocks
// by hand: 6 updates (3+2+1) per row or column over the elimination.
func TestSludOpWarps(t *testing.T) {
	start := tasksWarpStartCycles + tasksDRAMCycles
	for _, tc := range []struct {
		op   sludOp
		want []int64
	}{
		{sludBmod, []int64{start + 4*8 + 2*4, 20}},        // 16 elements, one on each of warp 0's first lanes
		{sludFwd, []int64{start + 6*12, 20}},              // 4 columns
		{sludBdiv, []int64{start + 4*40 + 6*12, 20}},      // 4 rows, 4 divisions each
		{sludLU0, []int64{start + 3*40 + (3+2+1)*12, 20}}, // 3 steps of a division and the row's updates
	} {
		if got := sludOpWarps(tc.op, 4, 64); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", sludOpNames[tc.op], got, tc.want)
		}
	}
	// Fewer threads than rows: lu0's step k takes ⌈(3−k)/2⌉ rounds.
	if got, want := sludOpWarps(sludLU0, 4, 2)[0], int64(start+2*(40+3*12)+(40+2*12)+(40+1*12)); got != want {
		t.Errorf("lu0, 2 threads: %d, want %d", got, want)
	}
}

// TestTasksIrregular checks the irregular kinds vary from task to task and
// from warp to warp, and the regular ones do not.
func TestTasksIrregular(t *testing.T) {
	for _, k := range taskKinds {
		tt := generateTasks(t, "kind="+k.name, "count=200", "mandel_size=32", "image=32")
		cycles := map[int64]bool{}
		warpsDiffer := false
		for _, c := range tt.ctas {
			cycles[c.Cycles] = true
			warpsDiffer = warpsDiffer || c.WarpCycles != nil
		}
		if k.irregular && (len(cycles) < 2 || !warpsDiffer) {
			t.Errorf("%s: %d distinct task costs, warps differ %v; want irregular", k.name, len(cycles), warpsDiffer)
		}
		if !k.irregular && (len(cycles) != 1 || warpsDiffer) {
			t.Errorf("%s: %d distinct task costs, warps differ %v; want regular", k.name, len(cycles), warpsDiffer)
		}
	}
}

// TestTasksMixed checks the mixed benchmark deals equal shares, in an
// order the seed shuffles.
func TestTasksMixed(t *testing.T) {
	names := func(tt *tasksTrace) []string {
		var s []string
		for _, k := range tt.kernels {
			s = append(s, k.Name)
		}
		return s
	}
	a := names(generateTasks(t, "count=42", "mandel_size=8"))
	counts := map[string]int{}
	for _, n := range a {
		counts[n]++
	}
	if want := map[string]int{"3des": 11, "filterbank": 11, "mandelbrot": 10, "matmul": 10}; !reflect.DeepEqual(counts, want) {
		t.Errorf("shares %v, want %v", counts, want)
	}
	if slices.IsSorted(a) {
		t.Error("mixed tasks not interleaved")
	}
	if b := names(generateTasks(t, "count=42", "mandel_size=8", "seed=2")); reflect.DeepEqual(a, b) {
		t.Error("seed does not change the interleaving")
	}
	all := generateTasks(t, "count=16", "mix=slud,conv,dct,beamformer,mandelbrot,filterbank,matmul,3des", "mandel_size=8")
	if h := all.header.Meta; h["tasks_slud"] != "2" || h["tasks_3des"] != "2" {
		t.Errorf("eight-kind mix meta %v", h)
	}
}

// TestTasksBadParams checks values the generator cannot honour are
// ParamErrors naming the parameter, with nothing written.
func TestTasksBadParams(t *testing.T) {
	g, _ := Lookup("tasks")
	for _, tc := range []struct {
		kv    []string
		param string
	}{
		{[]string{"kind=fft"}, "kind"},
		{[]string{"mix=conv,fft"}, "mix"},
		{[]string{"mix=conv,conv"}, "mix"},
		{[]string{"mix=mixed"}, "mix"},
		{[]string{"mix="}, "mix"},
		{[]string{"count=0"}, "count"},
		{[]string{"threads=1025"}, "threads"},
		{[]string{"slud_block=33"}, "slud_block"},
		{[]string{"packet_max=1024"}, "packet_max"}, // below packet_min's 2048
		{[]string{"max_iter=0"}, "max_iter"},
		{[]string{"work=stated"}, "work"},
		{[]string{"pcie_gbps=0"}, "pcie_gbps"},
		{[]string{"pcie_gbps=NaN"}, "pcie_gbps"},
		{[]string{"kind=mandelbrot", "count=1048576"}, "mandel_size"}, // 2^32 pixels
	} {
		p, err := g.ParseParams(tc.kv)
		if err != nil {
			t.Fatal(err)
		}
		var sink sliceSink
		err = g.Run(p, &sink)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != tc.param || len(sink.recs) != 0 {
			t.Errorf("%s: %v, %d records; want a ParamError on %s", tc.kv, err, len(sink.recs), tc.param)
		}
	}
}

// Every task's data moves as copies in its own stream, sized by Table 3's
// input sets: a 32×32 image (conv) goes in and out as 4 KiB each way, a
// Mandelbrot tile only comes back, a 3DES packet goes both ways at its
// drawn size.
func TestTasksCopies(t *testing.T) {
	tt := generateTasks(t, "kind=conv", "count=3", "image=32")
	if len(tt.buffers) != 2 || len(tt.copies) != 6 {
		t.Fatalf("%d buffers, %d copies; want 2 and 6", len(tt.buffers), len(tt.copies))
	}
	for i, c := range tt.copies {
		dir := trace.DirH2D
		if i%2 == 1 {
			dir = trace.DirD2H
		}
		if c.Dir != dir || c.Bytes != 32*32*4 || c.Stream != uint64(i/2+1) {
			t.Errorf("copy %d: %+v; want %s of 4096 bytes in stream %d", i, c, dir, i/2+1)
		}
	}
	mb := generateTasks(t, "kind=mandelbrot", "count=2", "mandel_size=8")
	if len(mb.copies) != 2 || mb.copies[0].Dir != trace.DirD2H || mb.copies[0].Bytes != 8*8*4 {
		t.Errorf("mandelbrot copies: %+v; want one 256-byte copy back per task", mb.copies)
	}
	des := generateTasks(t, "kind=3des", "count=4")
	for i := 0; i+1 < len(des.copies); i += 2 {
		in, out := des.copies[i], des.copies[i+1]
		if in.Bytes != out.Bytes || in.Bytes < 2048 || in.Bytes > 65536 {
			t.Errorf("3des task %d: copies %d in, %d out; want one packet of 2K–64K each way", i/2+1, in.Bytes, out.Bytes)
		}
	}
}

// work=table3, the default, scales each kind's warps so that, under
// HyperQ with one copy engine each way, the copy time (the busier
// direction's bytes at pcie_gbps) and the compute time (the tasks' longest
// warps summed, over 32 at once) split as Pagoda Table 3's shares, and
// keeps each task's shape: every warp scales by the same factor. Checked
// for every Table 3 benchmark alone and for the mix, at two rates, from
// the trace's own copy records, within half a percentage point (the scaled
// warps are rounded to whole cycles).
func TestTasksTable3(t *testing.T) {
	kinds := []string{"mixed"}
	for _, k := range taskKinds {
		kinds = append(kinds, k.name)
	}
	for _, gbps := range []float64{11, 15.75} {
		rate := "pcie_gbps=" + strconv.FormatFloat(gbps, 'f', -1, 64)
		for _, kind := range kinds {
			model := generateTasks(t, "kind="+kind, "count=64", "seed=5", "work=model")
			scaled := generateTasks(t, "kind="+kind, "count=64", "seed=5", rate)
			checkTable3Split(t, kind+" "+rate, scaled, gbps)
			checkScaledShape(t, kind, model, scaled)
			if scaled.header.Meta["table3_scale_"+scaled.kernels[0].Name] == "" {
				t.Errorf("%s: header meta %v has no table3 scale", kind, scaled.header.Meta)
			}
		}
	}
}

// work=measured is work=table3 but for the kinds whose costs are fitted
// to GPGPU-Sim runs (dct, matmul): those keep the cost model's cycles,
// every warp as work=model has it, and record no scale, while the other
// kinds are scaled as work=table3 scales them.
func TestTasksMeasured(t *testing.T) {
	for _, kind := range []string{"dct", "matmul", "conv", "mixed"} {
		model := generateTasks(t, "kind="+kind, "count=64", "seed=5", "work=model")
		table3 := generateTasks(t, "kind="+kind, "count=64", "seed=5", "work=table3")
		measured := generateTasks(t, "kind="+kind, "count=64", "seed=5", "work=measured")
		for i, c := range measured.ctas {
			k := lookupTaskKind(measured.kernels[i].Name)
			want := table3.ctas[i].Cycles
			if k.measured {
				want = model.ctas[i].Cycles
			}
			if c.Cycles != want {
				t.Errorf("%s: task %d (%s) takes %d cycles; want %d (measured %v)", kind, i, k.name, c.Cycles, want, k.measured)
				break
			}
			if got := measured.header.Meta["table3_scale_"+k.name]; (got == "") != k.measured {
				t.Errorf("%s: %s's table3 scale %q; want one only for a kind not measured", kind, k.name, got)
				break
			}
		}
	}
}

// checkTable3Split checks each kind's copy share of HyperQ's time in tt
// against Table 3 (table3Shares, typed in from the paper independently of
// taskKinds): copy = max(Σ in, Σ out) / gbps bytes per 1000 MHz cycle,
// compute = Σ task cycles / 32.
func checkTable3Split(t *testing.T, name string, tt *tasksTrace, gbps float64) {
	t.Helper()
	type split struct{ work, in, out float64 }
	kindOf := map[uint64]string{}
	splits := map[string]*split{}
	for i, k := range tt.kernels {
		kindOf[k.ID] = k.Name
		if splits[k.Name] == nil {
			splits[k.Name] = &split{}
		}
		splits[k.Name].work += float64(tt.ctas[i].Cycles)
	}
	for _, c := range tt.copies {
		s := splits[kindOf[c.Stream]]
		if c.Dir == trace.DirH2D {
			s.in += float64(c.Bytes)
		} else {
			s.out += float64(c.Bytes)
		}
	}
	for kind, s := range splits {
		copying := max(s.in, s.out) / gbps
		compute := s.work / 32
		want := table3Shares[kind]
		if got := 100 * copying / (copying + compute); got < want-0.5 || got > want+0.5 {
			t.Errorf("%s: %s copies take %.2f%% of HyperQ's copy+compute; want Table 3's %v%% ± 0.5", name, kind, got, want)
		}
	}
}

// table3Shares is Pagoda Table 3's "% Time spent in data copy
// (CUDA-HyperQ)" column.
var table3Shares = map[string]float64{
	"mandelbrot": 24, "filterbank": 35, "beamformer": 13, "conv": 30,
	"dct": 81, "matmul": 51, "slud": 3, "3des": 74,
}

// checkScaledShape checks every warp of every scaled task is its model
// cost times one factor per task.
func checkScaledShape(t *testing.T, kind string, model, scaled *tasksTrace) {
	t.Helper()
	for i := range scaled.kernels {
		f := float64(scaled.ctas[i].Cycles) / float64(model.ctas[i].Cycles)
		for w, c := range model.ctas[i].WarpCycles {
			if got, want := float64(scaled.ctas[i].WarpCycles[w]), float64(c)*f; got < want-1 || got > want+1 {
				t.Fatalf("%s task %d warp %d: %v cycles scaled; want %v (×%.3f)", kind, i, w, got, want, f)
			}
		}
	}
}
