package samples

import "strconv"

// maxLoopCycles bounds loop_cycles: a thousand memory round trips per
// iteration, far above what any real loop body costs, and small enough
// that a vertex's whole loop (fewer than 2^28 iterations) stays far from
// overflowing int64.
const maxLoopCycles = 100000

// loopParam declares the loop_cycles parameter of a generator whose
// parent threads loop over their nested work (bfs, sssp, gc: a vertex's
// neighbours; join: a key's output pairs), with def, the cost model's own
// per-iteration charge, as its default, and loop naming the loop. The
// parameter exists to test the premise of SPAWN's controller: its Eq. 2
// (t_parent = workload × t_warp) prices one iteration of a parent lane's
// loop like one child warp's whole run (~220-300 cycles for the graph
// generators, 60 for join's output child), where the cost models charge
// an amortised 40-50 cycles. The spawn experiments
// calibrate it on that premise, SPAWN §IV-A's "Each iteration time is
// approximately similar to the counterpart's child warp execution time":
// one full child warp of each cost model, bfs 224, sssp 788, gc 298, join
// 60 (cmd/experiment's eq2Premise; docs/experiments.md, SPAWN).
func loopParam(def int, loop string) Param {
	return Param{
		Name:    "loop_cycles",
		Default: strconv.Itoa(def),
		Doc: "cycles of one iteration of a parent lane's " + loop + " (looping lanes and inlined launch sites); " +
			"SPAWN's Eq. 2 assumes about one child warp's time",
	}
}

// parseLoopCycles reads and checks loop_cycles. Child kernels do not use
// it: each child thread's one iteration keeps the cost model's constant.
func parseLoopCycles(p Params) (int64, error) {
	v, err := p.Int("loop_cycles", 1, maxLoopCycles)
	return int64(v), err
}
