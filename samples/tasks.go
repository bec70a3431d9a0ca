package samples

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "tasks",
		Doc:  "Pagoda's narrow-task benchmarks (Table 3): many one-CTA kernels, each on its own stream, spawned back to back from the host",
		Params: []Param{
			{Name: "kind", Default: "mixed", Doc: "the benchmark: mandelbrot, filterbank, beamformer, conv, dct, matmul, slud, 3des, or mixed (an interleaving of the kinds in mix)"},
			{Name: "mix", Default: "3des,filterbank,mandelbrot,matmul", Doc: "comma-separated kinds the mixed benchmark interleaves in equal shares (Pagoda's MPE: 3DES, MB, FB, MM)"},
			{Name: "work", Default: "table3", Doc: "task costs: table3 (the per-warp cost model scaled, kind by kind, so that HyperQ's copy time, the busier direction's bytes at pcie_gbps, and its compute time, the tasks' times over its 32 kernel slots, split as Pagoda Table 3 measured; taskstable3.go), measured (table3, but the kinds whose costs are fitted to GPGPU-Sim runs, dct and matmul, keep those costs) or model (the per-warp cost model of taskscost.go unscaled)"},
			{Name: "pcie_gbps", Default: "11", Doc: "work=table3: the copy rate in GB/s the calibration assumes, one copy engine each way; replay at the same io.pcie_gbps (the Pagoda experiments' 11)"},
			{Name: "smem", Default: "on", Doc: "on: the kinds that stage data in shared memory do (the CUDA SDK codes); off: dct and matmul read their operands from global memory instead and declare none (Pagoda Table 5's versions without shared memory)"},
			{Name: "count", Default: "256", Doc: "number of tasks (Pagoda Table 3: 32768; 273K for SLUD)"},
			{Name: "threads", Default: "128", Doc: "threads per task, one CTA each (Pagoda §6.2 runs every benchmark with 128)"},
			{Name: "mandel_size", Default: "64", Doc: "mandelbrot: each task renders a mandel_size×mandel_size tile of one frame (Table 3: 64×64)"},
			{Name: "max_iter", Default: "256", Doc: "mandelbrot: escape-time iteration limit, the dwell of a pixel in the set"},
			{Name: "signal", Default: "2048", Doc: "filterbank, beamformer: samples per task's signal (Table 3: 2K)"},
			{Name: "image", Default: "128", Doc: "conv, dct: each task's image is image×image pixels (Table 3: 128×128)"},
			{Name: "matrix", Default: "64", Doc: "matmul: each task multiplies two matrix×matrix matrices (Table 3: 64×64)"},
			{Name: "slud_block", Default: "32", Doc: "slud: side of the sparse LU's blocks, at most a warp (Table 3: 32×32)"},
			{Name: "packet_min", Default: "2048", Doc: "3des: smallest packet in bytes (Table 3: 2K)"},
			{Name: "packet_max", Default: "65536", Doc: "3des: largest packet in bytes (Table 3: 64K); sizes spread evenly over octaves between the two"},
			seedParam,
		},
		run:   runTasks,
		costs: tasksCosts,
		refit: tasksRefit,
	})
}

// maxTasks bounds count: the generator holds a byte per task (the mixed
// order, SLUD's operation list), so this bounds memory, not trace length.
const maxTasks = 1 << 22

// maxTasksPixels bounds the pixels the mandelbrot tasks render between
// them, 16 times the paper's 32K tasks of 64×64: each one is iterated, so
// this bounds the generator's time.
const maxTasksPixels = 1 << 31

// tasksConfig is the tasks generator's parameters, checked.
type tasksConfig struct {
	mix            []*taskKind // the kinds to deal tasks to: the one kind, or mix's for mixed
	count, threads int
	mandelSize     int
	maxIter        int
	signal         int
	image          int
	matrix         int
	sludBlock      int
	packetMin      int
	packetMax      int
	table3         bool    // work=table3 or measured: costs scaled to Table 3 (taskstable3.go)
	keepMeasured   bool    // work=measured: but the kinds with measured costs
	pcieGBps       float64 // the copy rate the Table 3 calibration assumes
	noSmem         bool    // smem=off: no shared-memory staging (Table 5)
	seed           uint64
}

func parseTasks(p Params) (c tasksConfig, err error) {
	names := make([]string, 0, len(taskKinds)+1)
	for _, k := range taskKinds {
		names = append(names, k.name)
	}
	kind, err := p.Choice("kind", append(names, "mixed")...)
	if err != nil {
		return c, err
	}
	if c.mix, err = parseMix(p); err != nil {
		return c, err
	}
	work, err := p.Choice("work", "model", "table3", "measured")
	if err != nil {
		return c, err
	}
	c.table3 = work != "model"
	c.keepMeasured = work == "measured"
	if c.pcieGBps, err = p.Float("pcie_gbps", 1e-3, 1e6); err != nil {
		return c, err
	}
	smem, err := p.Choice("smem", "on", "off")
	if err != nil {
		return c, err
	}
	c.noSmem = smem == "off"
	if kind != "mixed" {
		c.mix = []*taskKind{lookupTaskKind(kind)}
	}
	for _, f := range []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"count", &c.count, 1, maxTasks},
		{"threads", &c.threads, 1, 1024},
		{"mandel_size", &c.mandelSize, 1, 1024},
		{"max_iter", &c.maxIter, 1, 1 << 16},
		{"signal", &c.signal, 1, 1 << 20},
		{"image", &c.image, 1, 4096},
		{"matrix", &c.matrix, 1, 1024},
		{"slud_block", &c.sludBlock, 2, warpSize},
		{"packet_min", &c.packetMin, 8, 1 << 24},
		{"packet_max", &c.packetMax, 8, 1 << 24},
	} {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	if slices.Contains(c.mix, lookupTaskKind("mandelbrot")) && c.count*c.mandelSize*c.mandelSize > maxTasksPixels {
		return c, p.errorf("mandel_size", strconv.Itoa(c.mandelSize),
			"count·mandel_size² must be at most 2^31 pixels; with count=%d, want at most %d", c.count, int(math.Sqrt(float64(maxTasksPixels/c.count))))
	}
	if c.packetMax < c.packetMin {
		return c, p.errorf("packet_max", strconv.Itoa(c.packetMax), "want at least packet_min=%d", c.packetMin)
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// parseMix reads the mix parameter: distinct kinds, mixed excluded. It is
// checked whatever the kind, so a typo never hides behind kind=mandelbrot.
func parseMix(p Params) ([]*taskKind, error) {
	s, err := p.lookup("mix")
	if err != nil {
		return nil, err
	}
	var mix []*taskKind
	for _, name := range strings.Split(s, ",") {
		k := lookupTaskKind(name)
		if k == nil {
			return nil, p.errorf("mix", s, "%q is not a kind; want a comma-separated list of %s", name, taskKindNames())
		}
		for _, seen := range mix {
			if seen == k {
				return nil, p.errorf("mix", s, "%s given twice", name)
			}
		}
		mix = append(mix, k)
	}
	return mix, nil
}

// runTasks writes the narrow-task trace: a header, then for each task in
// spawn order its kernel (one CTA of threads threads), its host launch at
// t = 0 on a stream of its own, and its CTA record.
//
// Spawn times are all 0 because Pagoda's benchmarks spawn every task as
// soon as the host can (§4.2, §6.6: "continuous spawning"; the inputs of
// all tasks exist up front), so the pace is set by the host's own per-task
// cost, which the replay models (lat.host_issue, pagoda.spawn_cycles), not
// by the trace. Each task's data moves as explicit copies in its stream, a
// copy to the GPU before its launch and one back after it: Pagoda's
// measurements include them (§6.2; Table 3 gives each benchmark's share of
// time in copies under HyperQ).
func runTasks(p Params, out trace.Sink) error {
	cfg, err := parseTasks(p)
	if err != nil {
		return err
	}
	plan := newTaskPlan(&cfg)
	meta := p.Values()
	for k, v := range plan.meta {
		meta[k] = v
	}
	if cfg.table3 {
		calibrateTable3(&cfg, plan, meta)
	}
	if err := out.Write(tasksHeader(meta)); err != nil {
		return err
	}
	var heap deviceHeap
	inputs, outputs := heap.alloc("task inputs", taskStaging, trace.RoleTemp), heap.alloc("task outputs", taskStaging, trace.RoleTemp)
	if err := writeAll(out, inputs, outputs); err != nil {
		return err
	}
	for i, slot := range plan.order {
		src := plan.sources[slot]
		warps := src.next()
		scaleWarps(warps, plan.scales[slot])
		in, out2 := taskData(&cfg, plan.kinds[slot], src)
		if err := writeTask(out, &cfg, uint64(i+1), plan.kinds[slot], warps, in, out2); err != nil {
			return err
		}
	}
	return nil
}

// The two buffers the tasks' copies name (ids 1 and 2, the heap's first
// allocations): staging areas as large as any task's data (a 3DES packet
// of at most 64 KiB, a 128×128 image), which the host refills for each
// task. Role temp: the host I/O stages do not read them; the explicit
// copies move the data.
const (
	taskInputs  = 1
	taskOutputs = 2
	taskStaging = 1 << 20
)

// taskData is the bytes the task next just returned copies in and out.
func taskData(c *tasksConfig, k *taskKind, src taskSource) (in, out int64) {
	if s, ok := src.(taskIO); ok {
		in, out = s.lastIO()
	} else if k.io != nil {
		in, out = k.io(c)
	}
	return min(in, taskStaging), min(out, taskStaging)
}

// taskSmem is the shared memory a task of kind k declares: none with
// smem=off.
func taskSmem(c *tasksConfig, k *taskKind) int64 {
	if c.noSmem {
		return 0
	}
	return k.smem(c)
}

// writeTask writes task id: its kernel, its launch on stream id, and its
// CTA, whose warp_cycles are given only when the warps differ.
func writeTask(out trace.Sink, c *tasksConfig, id uint64, k *taskKind, warps []int64, in, back int64) error {
	cta := &trace.CTA{Kernel: id, Cycles: longestWarp(warps)}
	for _, w := range warps {
		if w != cta.Cycles {
			cta.WarpCycles = warps
			break
		}
	}
	// Demand: the kind's issue rate over every warp's time, and its input
	// and output, which the task reads from and writes to DRAM once.
	mix := warpMix{ipc: k.rate(c)}
	mix.set(cta, len(warps))
	cta.DRAMBytes = uint64(in + back)
	if in > 0 {
		if err := out.Write(&trace.Memcpy{Dir: trace.DirH2D, Buffer: taskInputs, Bytes: in, Stream: id}); err != nil {
			return err
		}
	}
	if err := writeAll(out,
		&trace.Kernel{
			ID: id, Name: k.name,
			Grid:  [3]uint32{1, 1, 1},
			Block: [3]uint32{uint32(c.threads), 1, 1},
			Regs:  k.regs,
			Smem:  taskSmem(c, k),
		},
		&trace.Launch{Kernel: id, T: 0, Stream: id},
		cta,
	); err != nil || back == 0 {
		return err
	}
	return out.Write(&trace.Memcpy{Dir: trace.DirD2H, Buffer: taskOutputs, Bytes: back, Stream: id})
}

// longestWarp is a task's time: its CTA ends with its longest warp.
func longestWarp(warps []int64) int64 {
	var longest int64
	for _, w := range warps {
		longest = max(longest, w)
	}
	return longest
}

// tasksHeader starts a tasks trace: times in cycles of the 1000 MHz core
// clock of the Maxwell GTX Titan X Pagoda was evaluated on (§6.1, the
// titanx preset), so the cost constants read as that GPU's cycles.
func tasksHeader(meta map[string]string) *trace.Header {
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  1000,
		PageBytes: trace.DefaultPageBytes,
		Source:    "gen:tasks",
		GPU:       "titanx",
		Meta:      meta,
	}
}
