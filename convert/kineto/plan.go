package kineto

import (
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// plan is what will be written: the kept GPU ops in program order (by the
// start of their host call; see programOrder) on one device, each with
// its t, and the captured GPU.
type plan struct {
	file     string
	device   ident
	gpu      profile.GPU // the captured GPU
	ops      []*gpuOp
	syncs    []*hostSync      // the sync calls converted, in call order (syncs.go)
	host     []hostOp         // ops and syncs in program order
	lat      profile.Latency  // what a replay adds to a launch
	base     int64            // profile time (ns) the mapping counts from
	origin   int64            // cycles after base that become t = 0
	streams  map[ident]uint64 // Kineto stream → trace stream
	unused   map[string]int   // events not converted, by category
	uncalled int              // kept ops without a host call (programOrder)
	// The measured timing (measure.go): the launch path over the idle
	// launches, where hasLaunch (lat then has it); the copies' latency
	// and rate; lat.host_sync over hostSyncN blocking calls (cycles).
	launch    profile.MeasuredLaunch
	hasLaunch bool
	copies    profile.CopyFit
	hostSync  int64
	hostSyncN int
	opts      Options
}

// makePlan matches GPU ops to their host calls, picks the device, and
// orders what is kept.
func makePlan(file string, p *capture, o Options) (*plan, error) {
	for _, op := range p.ops {
		if c := p.calls[op.corr]; c != nil && op.corr != "" {
			op.call, c.used = c, true
			if c.op == nil {
				c.op = op
			}
			if c.args.Stream != "" && op.args.Stream == "" {
				op.stream = c.args.Stream
			}
		}
	}
	programOrder(p.ops)
	pl := &plan{file: file, unused: p.unused, opts: o, streams: map[ident]uint64{}}
	if err := pl.pickDevice(p); err != nil {
		return nil, err
	}
	for _, op := range p.ops {
		if err := pl.keep(op); err != nil {
			return nil, err
		}
	}
	if pl.unused[unusedShapeless] > 0 && !slices.ContainsFunc(pl.ops, func(op *gpuOp) bool { return !op.copy }) {
		return nil, errorf(file, -1, -1, "no kernel of device %s can be converted: each has neither a launch call nor a grid and block of its own", pl.device)
	}
	pl.collectSyncs(p)
	pl.numberStreams()
	pl.programOrderSyncs()
	pl.dropIdleSyncs() // before hostSyncCost: its median is over the syncs written
	p.unusedCalls()
	p.unusedSyncEvents()
	lat, err := profile.AssumedLatency(pl.gpu.Name, pl.gpu.Spec)
	if err != nil {
		return nil, errorf(file, -1, -1, "the replay model's launch latency: %v", err)
	}
	pl.lat = lat
	pl.measureLaunch(p)
	pl.fitCopies()
	pl.hostSync, pl.hostSyncN, _ = pl.hostSyncCost()
	if err := pl.schedule(); err != nil {
		return nil, err
	}
	pl.scheduleSyncs()
	return pl, nil
}

// pickDevice chooses the device to convert and its properties and clock.
func (pl *plan) pickDevice(p *capture) error {
	if pl.opts.Device >= 0 {
		for _, op := range p.ops {
			if v, ok := op.device.int(); ok && v == pl.opts.Device {
				pl.device = op.device
				break
			}
		}
	} else if k := firstLaunched(p.ops); k != nil {
		pl.device = k.device
	}
	if pl.device == "" {
		if pl.opts.Device >= 0 {
			return errorf(pl.file, -1, -1, "no kernel events on device %d", pl.opts.Device)
		}
		return errorf(pl.file, -1, -1, "no kernel events (ph \"X\", cat \"kernel\"): not a Kineto GPU trace")
	}
	props := p.props[pl.device]
	if props == nil {
		return pl.presetDevice()
	}
	clock, key := profile.ClockFor(props.Name)
	var src string
	switch {
	case pl.opts.ClockMHz > 0:
		clock, src = pl.opts.ClockMHz, "option clock_mhz"
	case key != "":
		src = "clock table (" + key + ")"
	default:
		src = "default (device not in the clock table)"
	}
	spec, missing := props.spec(clock)
	if spec == nil {
		if pl.opts.GPU != "" {
			return pl.presetDevice()
		}
		return errorf(pl.file, -1, -1, "deviceProperties of device %s has no %s; the per-CTA estimate needs it (%s)", pl.device, missing, profile.PresetHint())
	}
	pl.gpu = profile.Captured(props.Name, spec, src)
	return nil
}

// presetDevice stands Options.GPU's preset in for a device the trace has
// no deviceProperties for, or whose deviceProperties lack a limit the
// estimate needs. Complete deviceProperties describe the GPU the
// durations were measured on, so the option never overrides them: the
// wave estimate must use the captured GPU (replay --gpu=PRESET then
// replays on another).
func (pl *plan) presetDevice() error {
	if pl.opts.GPU == "" {
		return errorf(pl.file, -1, -1, "deviceProperties has no entry for device %s; the per-CTA estimate needs its numSms and limits (%s)", pl.device, profile.PresetHint())
	}
	g, err := profile.FromPreset(pl.opts.GPU, pl.opts.ClockMHz)
	pl.gpu = g
	return err
}

// firstLaunched is the first kernel of ops (in program order) whose
// launch call the profile has, else the first kernel: a kernel without a
// call sorts by its GPU start (programOrder), which says less about the
// program than a launch does, and on ROCm it cannot be converted.
func firstLaunched(ops []*gpuOp) *gpuOp {
	var first *gpuOp
	for _, op := range ops {
		switch {
		case op.copy:
		case op.call != nil:
			return op
		case first == nil:
			first = op
		}
	}
	return first
}

// unusedShapeless counts the kernels keep drops for having neither a
// launch call nor a grid and block of their own.
const unusedShapeless = "kernel (no launch call, no grid or block)"

// keep adds op to the plan if it is on the chosen device and the trace
// format can express it, and counts it as unused otherwise.
func (pl *plan) keep(op *gpuOp) error {
	cat := "kernel"
	if op.copy {
		cat = "gpu_memcpy"
	}
	switch {
	case op.device != pl.device:
		pl.unused[cat+" (other device)"]++
		return nil
	case op.copy && (copyDir(op) == "" || bytesOf(op) <= 0):
		pl.unused["gpu_memcpy:"+op.name]++
		return nil
	case !op.copy && op.call == nil && !(firstDim(op.args.Grid, op.args.GridDim).set && firstDim(op.args.Block, op.args.BlockDim).set):
		pl.unused[unusedShapeless]++
		return nil
	}
	if op.call == nil {
		pl.uncalled++
	}
	pl.ops = append(pl.ops, op)
	return nil
}

// numberStreams maps Kineto streams to trace stream ids: a stream that is
// a non-negative integer (decimal or hex) keeps its number; others
// (negative tids, names) get 2^32 + k in order of first use, by the ops
// and then by the syncs.
func (pl *plan) numberStreams() {
	next := uint64(1) << 32
	number := func(s ident) {
		if _, ok := pl.streams[s]; ok {
			return
		}
		if v, ok := s.uint(); ok && v < 1<<32 {
			pl.streams[s] = v
			return
		}
		pl.streams[s] = next
		next++
	}
	for _, op := range pl.ops {
		number(op.stream)
	}
	for _, s := range pl.syncs {
		if s.stream != "" {
			number(s.stream)
		}
	}
}

// copyDir is the trace direction of a Kineto memcpy: by its name
// ("Memcpy HtoD (Pageable -> Device)", ROCm "Memcpy DtoH (Device ->
// Host)" or "CopyHostToDevice"), else by the kind a ROCm export records
// ("HtoD" on the event; hipMemcpyKind 1 host-to-device or 2
// device-to-host on its hipMemcpy* call, as roctracer's Kineto logger
// writes it where its event name carries no direction). "" for
// device-to-device, peer, host-to-host and unknown copies, which have no
// trace record.
func copyDir(op *gpuOp) string {
	name := op.name
	switch {
	case strings.Contains(name, "HtoD") || strings.Contains(name, "HostToDevice") || op.args.Kind == "HtoD":
		return trace.DirH2D
	case strings.Contains(name, "DtoH") || strings.Contains(name, "DeviceToHost") || op.args.Kind == "DtoH":
		return trace.DirD2H
	}
	if op.call != nil && op.args.Kind == "" {
		switch op.call.args.Kind {
		case "1":
			return trace.DirH2D
		case "2":
			return trace.DirD2H
		}
	}
	return ""
}

// bytesOf is a copy's size from its args.bytes, else from its host call's
// bytes or size (where ROCm exports keep it), or -1 when none says.
func bytesOf(op *gpuOp) int64 {
	id := op.args.Bytes
	if id == "" && op.call != nil {
		id = firstIdent(op.call.args.Bytes, op.call.args.Size)
	}
	v, ok := id.uint()
	if !ok || v > 1<<62 {
		return -1
	}
	return int64(v)
}
