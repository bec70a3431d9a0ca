package samples

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// loopAlt is the non-default loop_cycles the tests generate with: about one
// child warp's run, as SPAWN's Eq. 2 assumes.
const loopAlt = 300

// loopCase is one graph generator whose parents loop at loop_cycles, with
// the checks that tie a parent warp's and a launch site's cycles at the
// cost model's iteration (def, given) to those at loopAlt.
type loopCase struct {
	gen    string
	kv     []string
	parent string // the parent kernel's name
	def    int64  // the cost model's iteration, loop_cycles' at its default
	site   func(def, alt *trace.Launch) error
	warp   func(def, alt int64) error
}

// loopIters is how many loop iterations account for a parent's cycles
// growing by diff when loop_cycles goes from def to loopAlt, or an error
// when diff is not a whole number of them.
func loopIters(diff, def int64) (int64, error) {
	step := loopAlt - def
	if diff < 0 || diff%step != 0 {
		return 0, fmt.Errorf("cycles grew by %d, not a multiple of %d", diff, step)
	}
	return diff / step, nil
}

var loopCases = []loopCase{
	{
		// A bfs parent lane's whole cost past its base is its loop.
		gen: "bfs", kv: []string{"scale=9", "site_threshold=12", "seed=3"}, parent: "bfs_level", def: levelEdgeCycles,
		site: func(d, a *trace.Launch) error {
			if d.InlineCycles != d.Workload*levelEdgeCycles || a.InlineCycles != d.Workload*loopAlt {
				return fmt.Errorf("inline %d and %d for %d edges", d.InlineCycles, a.InlineCycles, d.Workload)
			}
			return nil
		},
		warp: func(d, a int64) error {
			if d == idleWarpCycles && a == d {
				return nil
			}
			n := (d - levelBaseCycles) / levelEdgeCycles
			if n < 0 || n > 12 || d != levelBaseCycles+n*levelEdgeCycles || a != levelBaseCycles+n*loopAlt {
				return fmt.Errorf("%d and %d cycles", d, a)
			}
			return nil
		},
	},
	{
		// An sssp site relaxes all its edges, plus the atomics of the
		// lowered ones, which loop_cycles leaves alone. A warp's longest
		// lane may change with the loop's cost, so only bounds hold: each
		// looping lane has 1 to 12 edges.
		gen: "sssp", kv: []string{"scale=9", "site_threshold=12", "seed=3"}, parent: "sssp_relax", def: ssspEdgeCycles,
		site: func(d, a *trace.Launch) error {
			rest := d.InlineCycles - d.Workload*ssspEdgeCycles
			if a.InlineCycles-d.InlineCycles != d.Workload*(loopAlt-ssspEdgeCycles) ||
				rest < 0 || rest%ssspLowerCycles != 0 || rest/ssspLowerCycles > d.Workload {
				return fmt.Errorf("inline %d and %d for %d edges", d.InlineCycles, a.InlineCycles, d.Workload)
			}
			return nil
		},
		warp: func(d, a int64) error {
			if d == idleWarpCycles || d == ssspBaseCycles {
				if a != d {
					return fmt.Errorf("a warp with no looping lane went from %d to %d cycles", d, a)
				}
				return nil
			}
			// loopAlt is below the default (422): the warp shrinks by 1
			// to 12 iterations' difference.
			step := int64(loopAlt - ssspEdgeCycles)
			if grew := a - d; grew > step || grew < 12*step {
				return fmt.Errorf("%d and %d cycles", d, a)
			}
			return nil
		},
	},
	{
		// A gc lane loops over the neighbours it scans, then pays its
		// round's outcome, which loop_cycles leaves alone.
		gen: "gc", kv: []string{"scale=9", "edgefactor=8", "site_threshold=24", "seed=3"}, parent: "gc_color", def: gcEdgeCycles,
		site: func(d, a *trace.Launch) error {
			n, err := loopIters(a.InlineCycles-d.InlineCycles, gcEdgeCycles)
			if out := d.InlineCycles - n*gcEdgeCycles; err != nil || n < 1 || n > d.Workload || (out != gcColorCycles && out != gcRequeueCycles) {
				return fmt.Errorf("inline %d and %d for %d neighbours (%v)", d.InlineCycles, a.InlineCycles, d.Workload, err)
			}
			return nil
		},
		warp: func(d, a int64) error {
			if d == idleWarpCycles {
				if a != d {
					return fmt.Errorf("an idle warp went to %d cycles", a)
				}
				return nil
			}
			n, err := loopIters(a-d, gcEdgeCycles)
			switch out := d - gcBaseCycles - n*gcEdgeCycles; {
			case err != nil || n > 24:
				return fmt.Errorf("%d and %d cycles (%v)", d, a, err)
			case out != 0 && out != gcColorCycles && out != gcRequeueCycles && out != gcColorCycles+gcRequeueCycles:
				return fmt.Errorf("%d and %d cycles: %d loop iterations leave %d", d, a, n, out)
			}
			return nil
		},
	},
}

// TestLoopCycles generates each graph generator's trace with loop_cycles
// given at the cost model's iteration and at loopAlt, and checks the two
// differ only where a parent's loop is charged: the parent warps' cycles
// and the launch sites' inline cycles, by exactly the loop's iterations
// times the change. The children's CTAs, the kernels and the launches'
// other fields stay, and the header's meta names loop_cycles.
func TestLoopCycles(t *testing.T) {
	for _, c := range loopCases {
		def := generate(t, c.gen, slices.Concat(c.kv, []string{fmt.Sprintf("loop_cycles=%d", c.def)})...)
		alt := generate(t, c.gen, slices.Concat(c.kv, []string{fmt.Sprintf("loop_cycles=%d", loopAlt)})...)
		if err := checkOrder(alt); err != nil {
			t.Fatalf("%s: %v", c.gen, err)
		}
		if len(def) != len(alt) {
			t.Fatalf("%s: %d records at the default, %d at loop_cycles=%d", c.gen, len(def), len(alt), loopAlt)
		}
		checkLoopMeta(t, c.gen, def[0].(*trace.Header), alt[0].(*trace.Header), loopAlt)
		sites, warps := 0, 0
		parents := map[uint64]bool{}
		for i := 1; i < len(def); i++ {
			var err error
			switch d := def[i].(type) {
			case *trace.Kernel:
				parents[d.ID] = d.Name == c.parent
				err = sameRecord(d, alt[i])
			case *trace.Launch:
				if d.Host() {
					err = sameRecord(d, alt[i])
					break
				}
				sites++
				err = c.checkSite(d, alt[i])
			case *trace.CTA:
				if !parents[d.Kernel] {
					err = sameRecord(d, alt[i])
					break
				}
				warps += len(d.WarpCycles)
				err = c.checkParentCTA(d, alt[i])
			default:
				err = sameRecord(d, alt[i])
			}
			if err != nil {
				t.Fatalf("%s: record %d: %v", c.gen, i, err)
			}
		}
		if sites == 0 || warps == 0 {
			t.Errorf("%s: %d launch sites, %d parent warps; want some of each", c.gen, sites, warps)
		}
	}
}

// checkLoopMeta checks that alt's meta records loop_cycles=want and
// agrees with def's otherwise.
func checkLoopMeta(t *testing.T, gen string, def, alt *trace.Header, want int64) {
	t.Helper()
	if got := alt.Meta["loop_cycles"]; got != fmt.Sprint(want) {
		t.Errorf("%s: meta loop_cycles = %q, want %d", gen, got, want)
	}
	rest, drest := maps.Clone(alt.Meta), maps.Clone(def.Meta)
	delete(rest, "loop_cycles")
	delete(drest, "loop_cycles")
	if !maps.Equal(drest, rest) {
		t.Errorf("%s: metas differ beyond loop_cycles: %v and %v", gen, def.Meta, alt.Meta)
	}
}

// TestLoopCyclesModel checks loop_cycles' default, model, against
// loop_cycles given at the cost model's iteration: the same trace but for
// the launch sites' inline_cycles, which the default prices by the
// lane-loop rule and the given value at the iteration (at least one
// site differs), and the meta, which records loop_cycles only where it
// was given.
func TestLoopCyclesModel(t *testing.T) {
	for _, c := range loopCases {
		model := generate(t, c.gen, c.kv...)
		given := generate(t, c.gen, slices.Concat(c.kv, []string{fmt.Sprintf("loop_cycles=%d", c.def)})...)
		if len(model) != len(given) {
			t.Fatalf("%s: %d records at the default, %d given", c.gen, len(model), len(given))
		}
		if _, ok := model[0].(*trace.Header).Meta["loop_cycles"]; ok {
			t.Errorf("%s: default trace's meta %v records loop_cycles", c.gen, model[0].(*trace.Header).Meta)
		}
		checkLoopMeta(t, c.gen, model[0].(*trace.Header), given[0].(*trace.Header), c.def)
		differ := 0
		for i := 1; i < len(model); i++ {
			if m, ok := model[i].(*trace.Launch); ok && !m.Host() {
				g, ok := given[i].(*trace.Launch)
				if !ok {
					t.Fatalf("%s: record %d: launch became %v", c.gen, i, given[i].Kind())
				}
				if m.InlineCycles != g.InlineCycles {
					differ++
				}
				same := *g
				same.InlineCycles = m.InlineCycles
				if err := sameRecord(m, &same); err != nil {
					t.Fatalf("%s: record %d: %v", c.gen, i, err)
				}
				continue
			}
			if err := sameRecord(model[i], given[i]); err != nil {
				t.Fatalf("%s: record %d: %v", c.gen, i, err)
			}
		}
		if differ == 0 {
			t.Errorf("%s: no site priced differently by the rule", c.gen)
		}
	}
}

// checkSite checks a device launch at the default against the same launch
// at loopAlt: equal but for the inline cycles, which c.site checks.
func (c loopCase) checkSite(d *trace.Launch, r trace.Record) error {
	a, ok := r.(*trace.Launch)
	if !ok {
		return fmt.Errorf("launch %+v became %v", d, r.Kind())
	}
	same := *a
	same.InlineCycles = d.InlineCycles
	if err := sameRecord(d, &same); err != nil {
		return err
	}
	if err := c.site(d, a); err != nil {
		return fmt.Errorf("site of kernel %d: %v", d.Kernel, err)
	}
	return nil
}

// checkParentCTA checks a parent CTA at the default against the same CTA
// at loopAlt, warp by warp with c.warp.
func (c loopCase) checkParentCTA(d *trace.CTA, r trace.Record) error {
	a, ok := r.(*trace.CTA)
	if !ok || a.Kernel != d.Kernel || a.CTA != d.CTA || len(a.WarpCycles) != len(d.WarpCycles) {
		return fmt.Errorf("parent cta %+v became %+v", d, r)
	}
	for w := range d.WarpCycles {
		if err := c.warp(d.WarpCycles[w], a.WarpCycles[w]); err != nil {
			return fmt.Errorf("kernel %d cta %d warp %d: %v", d.Kernel, d.CTA, w, err)
		}
	}
	return nil
}

// sameRecord reports whether the two traces hold the same record.
func sameRecord(d, a trace.Record) error {
	if !reflect.DeepEqual(d, a) {
		return fmt.Errorf("%+v became %+v", d, a)
	}
	return nil
}

// TestLoopCyclesDefaultGiven checks that naming loop_cycles at its
// default, model, gives the trace the default gives, header included.
func TestLoopCyclesDefaultGiven(t *testing.T) {
	for _, c := range loopCases {
		given := slices.Concat(c.kv, []string{"loop_cycles=" + loopModel})
		if !reflect.DeepEqual(generate(t, c.gen, c.kv...), generate(t, c.gen, given...)) {
			t.Errorf("%s: loop_cycles=%s changed the trace", c.gen, loopModel)
		}
	}
}

// TestLoopCyclesHandCTAs checks the parent cost models at loop_cycles=300
// on worklists of known degrees; the expected cycles are worked by hand
// from the cost constants (bfs base 200, sssp base 359 and lowering
// atomics 374, outcomes 20 and 120).
func TestLoopCyclesHandCTAs(t *testing.T) {
	g := degreeGraph(5, 20, 3, 40, 16, 17)
	bfs := &bfsTrace{g: g, block: 64, threshold: 16, loop: 300}
	if cta, _ := bfs.levelCTA(1, 0, []int32{0, 1, 2, 3, 4, 5}); cta.Cycles != 200+16*300 {
		t.Errorf("bfs: cta %+v, want 5000 cycles (16 edges at 300)", cta)
	}
	// sssp: vertex 0 lowers 2 of 5 edges (5·300 + 2·374 = 2248), vertex 2
	// 1 of 3 (3·300 + 374 = 1274); 1 and 3 launch.
	lowered := make([]bool, 5+20+3+40)
	lowered[0], lowered[4], lowered[25] = true, true, true
	sssp := &ssspTrace{g: g, block: 64, threshold: 16, loop: 300}
	if cta, _, _ := sssp.relaxCTA(1, 0, []int32{0, 1, 2, 3}, lowered); cta.Cycles != 359+2248 {
		t.Errorf("sssp: cta %+v, want 2607 cycles", cta)
	}
	if got := ssspLaneCycles(20, 3, 300); got != 20*300+3*374 {
		t.Errorf("sssp: inline cycles %d, want 7122", got)
	}
	// gc: vertex 0 (colored) scans 5, vertex 2 (requeued) 1; 1 and 3
	// launch, so the warp loops 5 times and runs both outcomes.
	c := &gcColoring{g: g, color: []int32{0, -1, -1, 0, -1, -1}, round: 1}
	gc := &gcTrace{g: g, block: 64, threshold: 16, loop: 300}
	if cta, _ := gc.colorCTA(c, 1, 0, []int32{0, 1, 2, 3}, []int32{5, 10, 1, 40}); cta.Cycles != 200+5*300+20+120 {
		t.Errorf("gc: cta %+v, want 1840 cycles", cta)
	}
	if got := gcLaneCycles(40, true, 300); got != 40*300+20 {
		t.Errorf("gc: inline cycles %d, want 12020", got)
	}
}

// degreeGraph is a CSR whose vertices have the given degrees; the cost
// models read only the degrees.
func degreeGraph(degrees ...int) *csr {
	g := &csr{offsets: make([]int32, len(degrees)+1)}
	for v, d := range degrees {
		g.offsets[v+1] = g.offsets[v] + int32(d)
	}
	g.cols = make([]int32, g.offsets[len(degrees)])
	return g
}

// TestLoopCyclesBadValues checks that a loop_cycles that is not an
// integer in [1, 100000] is a ParamError naming it, in every generator.
func TestLoopCyclesBadValues(t *testing.T) {
	for _, c := range loopCases {
		g, _ := Lookup(c.gen)
		for _, v := range []string{"0", "-5", "x", "100001", "1.5"} {
			p, err := g.ParseParams([]string{"loop_cycles=" + v})
			if err == nil {
				err = g.Run(p, &sliceSink{})
			}
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != "loop_cycles" || pe.Value != v {
				t.Errorf("%s loop_cycles=%s: err %v, want a ParamError on loop_cycles", c.gen, v, err)
			}
		}
	}
}
