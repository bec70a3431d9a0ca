package samples

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// costVariants are the parameter sets under which each generator's cost
// parameters are checked to reach the trace: its default structure, its
// flat variant, and the codes the experiments run.
var costVariants = map[string][][]string{
	"bfs":        {{"scale=10"}, {"scale=10", "variant=flat"}, {"scale=10", "code=dragonli", "site_threshold=31"}},
	"sssp":       {{"scale=10"}, {"scale=10", "variant=flat"}, {"scale=10", "code=dragonli", "site_threshold=31"}, {"scale=10", "code=dragonli", "variant=flat"}},
	"gc":         {{"scale=10"}, {"scale=10", "variant=flat"}},
	"join":       {nil, {"dist=uniform"}, {"variant=flat"}},
	"amr":        {nil, {"variant=flat"}},
	"mandel":     {nil, {"variant=flat"}},
	"spmm":       {nil, {"size=small"}, {"size=large"}, {"variant=flat"}},
	"sa":         {nil, {"variant=flat"}},
	"laplace":    {nil},
	"conv":       {nil},
	"stencil3d":  {nil},
	"bfs-levels": {nil},
	// work=model: under work=table3 a kind's task time is scaled to
	// Table 3's share whatever its constants.
	"tasks": {{"work=model", "kind=mixed", "mix=3des,filterbank,mandelbrot,matmul,beamformer,conv,dct", "count=512"},
		{"work=model", "kind=slud", "count=512"}, {"work=model", "kind=matmul", "count=64", "smem=off"}},
}

// traceCycles sums every cycle count a trace holds: CTAs' and warps'
// cycles, launch sites' times and inline costs, and when in its CTA each
// page is first touched.
func traceCycles(recs []trace.Record) int64 {
	var sum int64
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.CTA:
			sum += r.Cycles
			for _, w := range r.WarpCycles {
				sum += w
			}
		case *trace.Pages:
			sum += r.At
		case *trace.Launch:
			sum += r.InlineCycles
			if r.Parent != nil {
				sum += int64(r.Parent.At)
			}
		}
	}
	return sum
}

// TestCostParamsReachTheTrace sets each invented cost parameter of every
// generator to twice its default and checks that the trace's cycles
// change under at least one of the generator's structures it reaches
// (Generator.CostReaches), that the header records the value, and that
// the default is back afterwards: a parameter that stops reaching its
// constant fails here. Under a structure it does not reach (a constant
// only another code's kernels read, costConst.onlyIn), the records after
// the header must be the ones the default writes: the experiments' grid
// leaves it out there on that word.
func TestCostParamsReachTheTrace(t *testing.T) {
	for _, g := range List() {
		if len(g.costs) == 0 {
			continue
		}
		variants, ok := costVariants[g.Name]
		if !ok {
			t.Errorf("%s has cost parameters but no variants to check them under", g.Name)
			continue
		}
		base := make([]int64, len(variants))
		baseRecs := make([][]trace.Record, len(variants))
		for i, kv := range variants {
			baseRecs[i] = generate(t, g.Name, kv...)
			base[i] = traceCycles(baseRecs[i])
		}
		for _, c := range g.costs {
			t.Run(g.Name+"/"+c.name, func(t *testing.T) {
				set := fmt.Sprintf("%s=%g", c.name, 2*c.def)
				moved := false
				for i, kv := range variants {
					recs := generate(t, g.Name, append(append([]string(nil), kv...), set)...)
					if h := recs[0].(*trace.Header); h.Meta[c.name] != fmt.Sprintf("%g", 2*c.def) {
						t.Errorf("%v: header meta %s = %q, want %g", kv, c.name, h.Meta[c.name], 2*c.def)
					}
					if !g.CostReaches(c.name, kv) {
						if !reflect.DeepEqual(recs[1:], baseRecs[i][1:]) {
							t.Errorf("%v: %s changes the records, but CostReaches says no kernel of it reads it", kv, set)
						}
						continue
					}
					moved = moved || traceCycles(recs) != base[i]
				}
				if !moved {
					t.Errorf("%s at ×2 leaves every trace's cycles as they were", set)
				}
				if c.get() != c.def {
					t.Errorf("after the run %s is %g, want its default %g back", c.name, c.get(), c.def)
				}
			})
		}
	}
}

// TestCostParamsByHand checks two parameters against the cost formulas:
// bfs's expand_base_cycles adds its increase to every bfs_expand warp
// that holds an edge, and gc's base_cycles to every gc_color warp that
// holds a vertex (idle warps keep idleWarpCycles).
func TestCostParamsByHand(t *testing.T) {
	for _, tc := range []struct {
		gen, kernel, param string
		def                int64
	}{
		{"bfs", "bfs_expand", "expand_base_cycles", 120},
		{"gc", "gc_color", "base_cycles", 200},
	} {
		t.Run(tc.gen, func(t *testing.T) {
			warps := func(kv ...string) []int64 {
				recs := generate(t, tc.gen, append([]string{"scale=10"}, kv...)...)
				names := map[uint64]string{}
				var ws []int64
				for _, r := range recs {
					switch r := r.(type) {
					case *trace.Kernel:
						names[r.ID] = r.Name
					case *trace.CTA:
						if names[r.Kernel] == tc.kernel {
							ws = append(ws, r.WarpCycles...)
						}
					}
				}
				return ws
			}
			def, alt := warps(), warps(fmt.Sprintf("%s=%d", tc.param, 2*tc.def))
			if len(def) != len(alt) || len(def) == 0 {
				t.Fatalf("%d warps at the default, %d at ×2", len(def), len(alt))
			}
			busy := 0
			for i := range def {
				want := def[i] + tc.def
				if def[i] == idleWarpCycles {
					want = def[i]
				} else {
					busy++
				}
				if alt[i] != want {
					t.Fatalf("warp %d: %d cycles at ×2, want %d (%d at the default)", i, alt[i], want, def[i])
				}
			}
			if busy == 0 {
				t.Fatal("no busy warp to check")
			}
		})
	}
}

// TestCostParamsConcurrent runs generators at the defaults and at other
// costs at once: each run sees its own values (run with -race).
func TestCostParamsConcurrent(t *testing.T) {
	want := traceCycles(generate(t, "bfs", "scale=8"))
	alt := traceCycles(generate(t, "bfs", "scale=8", "level_base_cycles=400"))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kv, w := []string{"scale=8"}, want
			if i%2 == 1 {
				kv, w = append(kv, "level_base_cycles=400"), alt
			}
			if got := traceCycles(generate(t, "bfs", kv...)); got != w {
				errs <- fmt.Errorf("run %d: %d cycles, want %d", i, got, w)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCostParamsRefit sets an invented constant a measured one was fitted
// beside and checks that the fit is solved again, so the captured kernel
// keeps its measured time (within the fit's rounding), and that both are
// back at the end of the run.
func TestCostParamsRefit(t *testing.T) {
	for _, tc := range []struct {
		gen, set   string
		captured   float64
		tol        float64
		model      func() int64
		fitted     *int64
		fittedWant int64
	}{
		{"tasks", "l2_cycles=400", 861, 8, func() int64 { return matmulKStep(1, false) }, &tasksSmemMACChainCycles, 38},
		{"tasks", "dram_cycles=800", 2766, 1, func() int64 { return tasksWarpStartCycles + dctRound(1, false) }, &dct8Cycles, 1101},
		{"join", "gather_cycles=200", 5867, 11, func() int64 {
			return joinCTABaseCycles + 22*joinBoundsStepCycles + joinStoreAckCycles() + coldStartCycles(joinBoundsColdLines)
		}, &joinBoundsStepCycles, 164},
		{"sssp", "gather_cycles=4", 437.8, 1, func() int64 { return ssspChildBaseCycles + warpSize*ssspGatherCycles }, &ssspChildBaseCycles, 373},
		// amr: level 3's refining leaf (2,723.5 cycles at 837 MHz) and
		// the Reg run's looping CTA 0 (46,587), at 706 MHz.
		{"amr", "claim_cycles=240", 2297.2, 1, amrDLLeafRefine, &amrDLEnergyCycles, 345},
		{"amr", "scan_step_cycles=80", 39295.4, 20, amrDLRegLoop, &amrDLTempCycles, 1173},
		{"amr", "overflow_cycles=200", 1832.3, 1, func() int64 { return amrDLLeafRefine() - amrDLClaimCycles - amrDLEnergyCycles }, &amrDLLoadCycles, 279},
	} {
		if *tc.fitted != tc.fittedWant {
			t.Errorf("%s: the fitted constant is %d at the defaults, want %d", tc.gen, *tc.fitted, tc.fittedWant)
		}
		p := mustParams(t, tc.gen, tc.set)
		done, err := p.gen.setCosts(p)
		if err != nil {
			t.Fatal(err)
		}
		got, fitted := tc.model(), *tc.fitted
		done()
		if d := float64(got) - tc.captured; d > tc.tol || d < -tc.tol {
			t.Errorf("%s %s: the captured kernel takes %d cycles, measured %.0f", tc.gen, tc.set, got, tc.captured)
		}
		if fitted == tc.fittedWant {
			t.Errorf("%s %s: the fitted constant stayed %d", tc.gen, tc.set, fitted)
		}
		if *tc.fitted != tc.fittedWant {
			t.Errorf("%s: after the run the fitted constant is %d, want %d back", tc.gen, *tc.fitted, tc.fittedWant)
		}
	}
}

// TestTasksCostParamByHand: conv_pixel_cycles at ×2 adds its increase
// to each output pixel a task's busiest lane computes: with 128 threads
// over a 128×128 image, 128 pixels a lane, 128 × 20 cycles a task (its
// warps are equal, so the CTA's cycles say it).
func TestTasksCostParamByHand(t *testing.T) {
	tasks := func(kv ...string) []int64 {
		var cs []int64
		for _, r := range generate(t, "tasks", append([]string{"kind=conv", "work=model", "count=4"}, kv...)...) {
			if c, ok := r.(*trace.CTA); ok {
				cs = append(cs, c.Cycles)
			}
		}
		return cs
	}
	def, alt := tasks(), tasks("conv_pixel_cycles=40")
	if len(def) != 4 || len(alt) != len(def) {
		t.Fatalf("%d tasks at the default, %d at ×2; want 4", len(def), len(alt))
	}
	for i := range def {
		if alt[i]-def[i] != 128*20 {
			t.Errorf("task %d: %d cycles at ×2, %d at the default: want %d more", i, alt[i], def[i], 128*20)
		}
	}
}

// amrDLLeafRefine is a level-3 CDP child with a refining cell in the
// amr cost model: its sub-cell, look, 32-thread scan, claim, barrier,
// overflow check and energy.
func amrDLLeafRefine() int64 {
	return amrDLTempCycles + amrDLLoadCycles + amrDLScanCycles(amrDLChildThreads) + amrDLClaimCycles +
		amrDLBarrierCycles + amrDLOverflowCycles + amrDLEnergyCycles
}

// amrDLRegLoop is AmrReg's CTA of 256 threads whose first warp's lanes
// all refine: the chunk's pass with 32 sub-cells a lane, and the empty
// pass.
func amrDLRegLoop() int64 {
	return amrDLLoadCycles + 2*amrDLScanCycles(256) + amrDLClaimCycles + 2*amrDLBarrierCycles +
		2*amrDLOverflowCycles + amrDLEnergyCycles + amrDLRefine*amrDLTempCycles
}

// TestAMRRefitOutgrown sets amr's invented steps past what the captured
// CTAs hold (each at the largest value a cost parameter takes): the
// fits stop at 0 rather than go negative, and the trace, CDP and flat,
// still validates.
func TestAMRRefitOutgrown(t *testing.T) {
	big := strconv.Itoa(maxCostCycles)
	for _, set := range []string{"scan_step_cycles", "claim_cycles", "overflow_cycles", "barrier_cycles"} {
		for _, variant := range []string{"dp", "flat"} {
			kv := []string{set + "=" + big, "variant=" + variant}
			recs := generate(t, "amr", kv...)
			v := trace.NewValidator(&sliceSource{recs: recs})
			for {
				if _, err := v.Next(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("%v: validator: %v", kv, err)
				}
			}
		}
	}
	if amrDLTempCycles != 1173 || amrDLLoadCycles != 279 || amrDLEnergyCycles != 345 {
		t.Errorf("after the runs: sub-cell %d, look %d, energy %d; want 1173, 279, 345 back", amrDLTempCycles, amrDLLoadCycles, amrDLEnergyCycles)
	}
}
