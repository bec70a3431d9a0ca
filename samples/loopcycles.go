package samples

import "strconv"

// maxLoopCycles bounds loop_cycles: a thousand memory round trips per
// iteration, far above what any real loop body costs, and small enough
// that a vertex's whole loop (fewer than 2^28 iterations) stays far from
// overflowing int64.
const maxLoopCycles = 100000

// loopModel is loop_cycles' default: the cost model's own loop, and each
// launch site's inline_cycles by the lane-loop rule (laneloop.go).
const loopModel = "model"

// loopParam declares the loop_cycles parameter of a generator whose
// parent threads loop over their nested work (bfs, sssp, gc: a vertex's
// neighbours; join: a key's output pairs), def being the cost model's own
// per-iteration charge, and loop naming the loop. At its default, model,
// a looping lane pays def an iteration and a launch site's inline_cycles
// is its child priced by the lane-loop rule (laneLoopCycles: each child
// thread loop_share · (its CTA's cycles − cta_once)). A number sets both
// to that many cycles an iteration: the parameter exists to test the
// premise of SPAWN's controller, its Eq. 2 (t_parent = workload ×
// t_warp), which prices one iteration of a parent lane's loop like one
// child warp's whole run, SPAWN §IV-A's "Each iteration time is
// approximately similar to the counterpart's child warp execution time":
// the spawn experiments set one full child warp of each cost model, bfs
// 224, sssp 788, gc 298, join 60 (cmd/experiment's eq2Premise;
// docs/experiments.md, SPAWN).
func loopParam(def int, loop string) Param {
	return Param{
		Name:    "loop_cycles",
		Default: loopModel,
		Doc: "cycles of one iteration of a parent lane's " + loop + ", looping lanes and inlined launch sites alike " +
			"(SPAWN's Eq. 2 assumes about one child warp's time); model: looping lanes at the cost model's " +
			strconv.Itoa(def) + ", inlined sites by the lane-loop rule, loop_share·(child CTA cycles − cta_once) a child thread",
	}
}

// loopCycles is a parent lane's loop as loop_cycles sets it: cycles an
// iteration, and whether launch sites are priced at that too (given) or
// by the lane-loop rule (the default).
type loopCycles struct {
	cycles int64
	given  bool
}

// parseLoopCycles reads and checks loop_cycles, def being the cost
// model's iteration. Child kernels do not use it: each child thread's one
// iteration keeps the cost model's constant.
func parseLoopCycles(p Params, def int64) (loopCycles, error) {
	if s, err := p.lookup("loop_cycles"); err != nil || s == loopModel {
		return loopCycles{cycles: def}, err
	}
	v, err := p.Int("loop_cycles", 1, maxLoopCycles)
	return loopCycles{cycles: int64(v), given: true}, err
}

// ModelLoopCycles is the cost model's iteration of a parent lane's loop
// that loop_cycles' default charges a looping lane, and false where the
// generator has no loop_cycles.
func (g *Generator) ModelLoopCycles() (int64, bool) {
	return g.loop, g.loop > 0
}
