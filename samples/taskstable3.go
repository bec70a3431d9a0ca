package samples

import (
	"math"
	"strconv"
)

// work=table3, the default, scales each kind's task costs to Pagoda's
// Table 3, which splits every benchmark's time under CUDA-HyperQ into "%
// Time spent in data copy" and "% Time spent in computation", the two
// summing to 100 on every row. The cost model's tasks (taskscost.go) are
// what one warp alone would spend; the paper's measured tasks run longer —
// its HyperQ runs are compute-bound where, at the model's costs, most kinds
// would be bound by their copies.
//
// What the shares mean. HyperQ runs a task's copies and its kernel in the
// task's stream, one after another, but up to 32 tasks' streams at once,
// so copies of some tasks overlap kernels of others and no wall-clock
// split of the run sums to 100 unless each share is the time one resource
// needs for the whole run: the copies' time is how long the copy path must
// be busy to move every task's data, the computation's how long the GPU's
// 32 kernel slots must be busy to run every task; a run that does one,
// then the other, takes their sum. The replay (docs/model.md, "Copies")
// has one copy engine per direction, so a run's inputs and outputs cross
// side by side and the copy path is busy as long as its busier direction:
//
//	copy    = max(Σ bytes in, Σ bytes out) / PCIe rate
//	compute = Σ task time / hyperqTasks (HyperQ runs 32 kernels at once)
//	scale   = (copy · (100 − share) / share) / compute
//
// with a task's time its longest warp and share Table 3's copy percentage,
// so that after scaling copy / (copy + compute) = share / 100. Every warp
// of the kind is scaled alike, so the irregular kinds keep their spread of
// task costs. The rate is the pcie_gbps parameter, 11 GB/s by default: the
// Pagoda experiments' io.pcie_gbps (cmd/experiment/sets.go, pagodaCopies).
const (
	// hyperqTasks is the Titan X's concurrent kernels (HyperQ's 32
	// hardware queues, the titanx preset's gpu.max_kernels).
	hyperqTasks = 32

	// tasksClockMHz is the trace's clock (tasksHeader): a rate of g GB/s
	// moves g·1000/tasksClockMHz bytes a cycle.
	tasksClockMHz = 1000
)

// table3Split is a kind's copy and compute time under HyperQ, in cycles, as
// Table 3 divides it: the busier copy direction's bytes over the rate, and
// the tasks' times over HyperQ's 32 kernel slots.
func table3Split(work, bytesIn, bytesOut, gbps float64) (copying, compute float64) {
	return max(bytesIn, bytesOut) / (gbps * 1000 / tasksClockMHz), work / hyperqTasks
}

// calibrateTable3 sets each kind's scale from a pass over its tasks, drawn
// again from the kind's own seed, and notes it in meta. With
// work=measured a kind whose costs are measured keeps them.
func calibrateTable3(c *tasksConfig, pl *taskPlan, meta map[string]string) {
	for i, k := range pl.kinds {
		if c.keepMeasured && k.measured {
			continue
		}
		src := k.source(c, pl.counts[i], pl.seeds[i], map[string]string{})
		var work, in, out float64
		for range pl.counts[i] {
			longest := longestWarp(src.next())
			tin, tout := taskData(c, k, src)
			work += float64(longest)
			in += float64(tin)
			out += float64(tout)
		}
		copying, compute := table3Split(work, in, out, c.pcieGBps)
		if compute <= 0 || copying <= 0 {
			continue
		}
		pl.scales[i] = copying * float64(100-k.copyShare) / float64(k.copyShare) / compute
		meta["table3_scale_"+k.name] = strconv.FormatFloat(pl.scales[i], 'f', 3, 64)
	}
}

// scaleWarps multiplies each warp's cycles by f, rounding to the nearest
// cycle (at least 1 for a warp that had work).
func scaleWarps(warps []int64, f float64) {
	if f == 1 {
		return
	}
	for i, w := range warps {
		if w > 0 {
			warps[i] = max(1, int64(math.Round(float64(w)*f)))
		}
	}
}
