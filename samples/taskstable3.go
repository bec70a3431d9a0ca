package samples

import (
	"math"
	"strconv"
)

// work=table3 scales each kind's task costs to Pagoda's Table 3, which
// splits every benchmark's time under CUDA-HyperQ into data copy and
// computation. The cost model's tasks (taskscost.go) are what one warp
// alone would spend; the paper's measured tasks run longer — its HyperQ
// runs are compute-bound where, at the model's costs, most kinds would be
// bound by their copies. The scale makes HyperQ's compute time relate to
// its copy time as Table 3's shares do:
//
//	compute = Σ task time / hyperqTasks (HyperQ runs 32 kernels at once)
//	copy    = Σ (bytes in + bytes out) / PCIe rate
//	scale   = (copy · (100 − share) / share) / compute
//
// with a task's time its longest warp. Every warp of the kind is scaled
// alike, so the irregular kinds keep their spread of task costs.
const (
	// hyperqTasks is the Titan X's concurrent kernels (HyperQ's 32
	// hardware queues, the titanx preset's gpu.max_kernels).
	hyperqTasks = 32

	// table3BytesPerCycle is PCIe 3.0 x16 at 15.75 GB/s in the trace's
	// 1000 MHz cycles (the titanx preset's io.pcie_gbps).
	table3BytesPerCycle = 15.75
)

// calibrateTable3 sets each kind's scale from a pass over its tasks, drawn
// again from the kind's own seed, and notes it in meta.
func calibrateTable3(c *tasksConfig, pl *taskPlan, meta map[string]string) {
	for i, k := range pl.kinds {
		src := k.source(c, pl.counts[i], pl.seeds[i], map[string]string{})
		var work, bytes float64
		for range pl.counts[i] {
			longest := longestWarp(src.next())
			in, out := taskData(c, k, src)
			work += float64(longest)
			bytes += float64(in + out)
		}
		compute := work / hyperqTasks
		copying := bytes / table3BytesPerCycle
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
