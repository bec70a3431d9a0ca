package samples

import (
	"strconv"
	"strings"
)

// taskKind is one benchmark of Pagoda's Table 3: what its tasks' kernels
// declare and where their costs come from.
type taskKind struct {
	name      string
	regs      int  // Table 3's "default register count" (the HyperQ build; Pagoda caps it at 32)
	irregular bool // Table 3's task type: whether the costs vary (the tests hold the model to it)
	copyShare int  // Table 3's "% time spent in data copy (CUDA-HyperQ)"
	sync      bool // Table 3: requires thread-block synchronisation (likewise)
	// measured says the kind's costs are fitted to GPGPU-Sim runs of its
	// public code (docs/calibration.md): work=measured keeps them as
	// measured rather than scaling them to Table 3.
	measured bool
	// ipc is a warp's issue rate alone in the kind's inner loop (warp
	// instructions per cycle), from the operation costs of taskscost.go.
	ipc float64
	// ipcGlobal is the rate with smem=off, for the kinds whose loop then
	// reads global memory instead (0: the same as ipc).
	ipcGlobal float64
	// ipcOf, when set, is ipc for the run's configuration, for a kind
	// whose loop's rate depends on its threads (matmul's accumulators).
	ipcOf func(c *tasksConfig) float64

	// smem is the shared memory each of the run's tasks declares. It is
	// nonzero exactly for the kinds that synchronise, since the replay
	// gives a task a named barrier iff smem > 0 and it has more than one
	// warp (see filterbankSmem for the one kind where that rule forces a
	// choice).
	smem func(c *tasksConfig) int64

	// io is the bytes the host copies to the GPU before each task and back
	// after it (Table 3's input set per task), for kinds whose tasks all
	// move the same; sources whose tasks differ implement taskIO instead.
	io func(c *tasksConfig) (in, out int64)

	// source prepares n tasks of this kind from the run's parameters and a
	// seed of its own, adding what it worked out to meta.
	source func(c *tasksConfig, n int, seed uint64, meta map[string]string) taskSource
}

// taskSource yields the per-warp cycles of one kind's tasks, in spawn
// order; each call returns a fresh slice the caller may keep.
type taskSource interface {
	next() []int64
}

// taskIO is a source whose tasks move different amounts of data: the bytes
// copied to the GPU before, and back after, the task next last returned.
type taskIO interface {
	lastIO() (in, out int64)
}

// float32Bytes is the element size of every kind's data.
const float32Bytes = 4

// Table 3's input sets per task, as copies. A Mandelbrot task's input is
// its tile's coordinates, which travel in the task's own parameters, and
// its output the tile's dwells; a signal kind reads and writes a signal; an
// image kind an image; MM reads two matrices and writes one.
func mandelIO(c *tasksConfig) (int64, int64) {
	return 0, int64(c.mandelSize) * int64(c.mandelSize) * float32Bytes
}
func signalIO(c *tasksConfig) (int64, int64) {
	n := int64(c.signal) * float32Bytes
	return n, n
}
func imageIO(c *tasksConfig) (int64, int64) {
	n := int64(c.image) * int64(c.image) * float32Bytes
	return n, n
}
func matmulIO(c *tasksConfig) (int64, int64) {
	n := int64(c.matrix) * int64(c.matrix) * float32Bytes
	return 2 * n, n
}

// taskKinds are Table 3's benchmarks, in its order.
var taskKinds = []*taskKind{
	{name: "mandelbrot", ipc: 7.0 / float64(tasksMandelIterCycles), regs: 28, copyShare: 24, irregular: true, smem: noSmem, io: mandelIO, source: newMandelTasks},
	{name: "filterbank", ipc: 2.0 / float64(tasksMACCycles), regs: 21, copyShare: 35, sync: true, smem: filterbankSmem, io: signalIO, source: regularSource(filterbankWarps)},
	{name: "beamformer", ipc: 6.0 / float64(tasksComplexMACCycles), regs: 34, copyShare: 13, smem: noSmem, io: signalIO, source: regularSource(beamformerWarps)},
	{name: "conv", ipc: 2.0 / float64(tasksMACCycles), regs: 25, copyShare: 30, smem: noSmem, io: imageIO, source: regularSource(convWarps)},
	{name: "dct", ipc: dctPassWarpInsts / float64(dct8Cycles), ipcGlobal: dctPassWarpInsts / float64(dct8Cycles+tasksL2Cycles), regs: 33, copyShare: 81, sync: true, measured: true, smem: dctSmem, io: imageIO, source: regularSource(dctWarps)},
	{name: "matmul", ipcOf: matmulIPC, ipcGlobal: 2.0 / float64(tasksMACCycles), regs: 30, copyShare: 51, sync: true, measured: true, smem: matmulSmem, io: matmulIO, source: regularSource(matmulWarps)},
	{name: "slud", ipc: 4.0 / float64(tasksUpdateCycles), regs: 17, copyShare: 3, irregular: true, smem: noSmem, source: newSludTasks},
	{name: "3des", ipc: 51.0 / float64(desRoundCycles), regs: 26, copyShare: 74, irregular: true, smem: noSmem, source: newDESTasks},
}

func noSmem(*tasksConfig) int64 { return 0 }

// rate is the kind's issue rate alone under the run's configuration.
func (k *taskKind) rate(c *tasksConfig) float64 {
	switch {
	case c.noSmem && k.ipcGlobal > 0:
		return k.ipcGlobal
	case k.ipcOf != nil:
		return k.ipcOf(c)
	}
	return k.ipc
}

// lookupTaskKind returns the kind called name, or nil.
func lookupTaskKind(name string) *taskKind {
	for _, k := range taskKinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// taskKindNames lists the kinds for error messages.
func taskKindNames() string {
	names := make([]string, len(taskKinds))
	for i, k := range taskKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// fixedTasks is the source of a regular kind: every task costs the same.
type fixedTasks struct{ warps []int64 }

func (f fixedTasks) next() []int64 { return append([]int64(nil), f.warps...) }

// regularSource makes the source constructor of a regular kind from its
// per-warp cost model.
func regularSource(warps func(c *tasksConfig) []int64) func(*tasksConfig, int, uint64, map[string]string) taskSource {
	return func(c *tasksConfig, _ int, _ uint64, _ map[string]string) taskSource {
		return fixedTasks{warps(c)}
	}
}

// taskPlan is the order tasks are spawned in and where each one's costs
// come from.
type taskPlan struct {
	kinds   []*taskKind
	sources []taskSource // one per kind
	counts  []int        // tasks per kind
	seeds   []uint64     // each kind's seed
	scales  []float64    // each kind's work scale (work=table3), 1 otherwise
	order   []uint8      // per task, its index in kinds
	meta    map[string]string
}

// newTaskPlan deals count tasks to the configured kinds in equal shares
// (the first count mod len(kinds) kinds get one more), prepares each kind's
// tasks from a seed of its own drawn from the run's seed, and, when there
// is more than one kind, shuffles the spawn order: Pagoda's multi-program
// benchmark (MPE, Table 4) has independent applications spawning tasks
// asynchronously, 8K tasks each of 32K.
func newTaskPlan(c *tasksConfig) *taskPlan {
	rng := newRand(c.seed)
	pl := &taskPlan{kinds: c.mix, order: make([]uint8, 0, c.count), meta: map[string]string{}}
	for i, k := range c.mix {
		n := c.count / len(c.mix)
		if i < c.count%len(c.mix) {
			n++
		}
		seed := rng.Uint64()
		pl.sources = append(pl.sources, k.source(c, n, seed, pl.meta))
		pl.counts, pl.seeds, pl.scales = append(pl.counts, n), append(pl.seeds, seed), append(pl.scales, 1)
		pl.meta["tasks_"+k.name] = strconv.Itoa(n)
		for range n {
			pl.order = append(pl.order, uint8(i))
		}
	}
	if len(c.mix) > 1 {
		rng.Shuffle(len(pl.order), func(i, j int) { pl.order[i], pl.order[j] = pl.order[j], pl.order[i] })
	}
	return pl
}
