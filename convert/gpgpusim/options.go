package gpgpusim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

// Options are the assumptions a conversion makes where the log is silent.
//
// Config names a gpgpusim.config to read the simulated GPU from when the
// log does not print its options (GPGPU-Sim prints every option at the
// top of its output, and those win); Convert defaults it to the
// gpgpusim.config beside the log, if there is one. GPU is the name the
// header gives the captured GPU (--gpu=captured replays on it).
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	Config string
	GPU    string
	// Inline names the flat code whose work in the parent inline_cycles
	// prices (write.go, "Inlined work"): "loop", the launching thread
	// loops over the child tree's threads one at a time, each at its
	// warp's time (SPAWN's in-parent execution, Fig. 3b line 10, and
	// Dragon_li's Reg codes; the default); "warp", the launching warp's
	// lanes share the child's threads, 32 at a time (a warp-cooperative
	// flat code); "cta", the parent CTA's threads share them, each taking
	// the child threads it stands for; "levels", no lane inlines anything:
	// a level-by-level flat code (Dragon_li's AmrReg, amrReg.h:35-85 at
	// 1397e03) runs every device-launched kernel at depth d of a host
	// kernel's tree as part of one host kernel for depth d, launched once
	// depth d−1's has ended (write.go, writeLevels).
	Inline string
	// CTAOnce is the cycles of a CTA's measured run that a CTA pays once
	// (its placement, first loads, the wait for its slowest warp) and a
	// loop iteration of a flat code would not: inline_cycles counts each
	// CTA of a child's tree as its cycles less CTAOnce. 0 by default; a
	// GPU's figure is measured as the intercept of a kernel's CTA cycles
	// against its work (docs/calibration.md).
	CTAOnce int64
	// LoopShare is the share of a child warp's time past CTAOnce that one
	// of its threads takes alone (Inline "loop"): 1 by default, SPAWN's
	// estimate (t_parent = workload × t_warp); below 1 where a lone
	// thread escapes what its warp's lanes pay together (the 32 lanes'
	// memory transactions and same-address atomics, serialised in the
	// warp's time; a diverged warp's other paths). Measured per GPU and
	// code from a flat run (docs/calibration.md).
	LoopShare float64
	// LoopAccesses is the memory instructions of the flat code's loop body
	// that send one access for each of a warp's lanes, their addresses
	// apart (Inline "loop"): counted on the flat code, not measured. Each
	// lane of a warp's launch beyond the first, looping beside it in the
	// flat code, adds one access to each of them an iteration, and the
	// SM's load/store unit sends one a cycle (write.go, price). 0 by
	// default: every lane priced as if it looped alone.
	LoopAccesses int64
	// Syncs writes the host's waits for the GPU as sync records (see
	// sync.go): on by default; off writes host launches at the cycles
	// the log shows and nothing of what the host waited for, as before.
	Syncs bool
	// Measured, when set, is called with each kernel's measured run as its
	// records are written: what the simulator did, for comparing a replay
	// with it (cmd/experiment's validation does).
	Measured func(Kernel)
}

// Kernel is one kernel's run as the log measured it, in the simulator's
// cycles.
type Kernel struct {
	ID, Parent uint64 // Parent is 0 for a host launch
	Name       string
	Launch     int64 // the host's push, or the device launch's cycle (an upper bound; see launchCycle)
	Start, End int64 // its first CTA's start and its last CTA's end, children not included
}

// maxLoopAccesses bounds loop_accesses: a loop body of more memory
// instructions than a kernel has room for is a mistake, and the bound
// keeps a lane's price (accesses × lanes × threads) from overflowing
// before it is capped at trace.MaxCycles.
const maxLoopAccesses = 1 << 16

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{GPU: "gpgpusim", Inline: "loop", LoopShare: 1, Syncs: true}
}

// Set sets the option named key (config, gpu, inline, cta_once,
// loop_share, loop_accesses, syncs) from its text form, so a
// command line can expose every option as key=value.
func (o *Options) Set(key, value string) error {
	switch key {
	case "config":
		o.Config = value
	case "gpu":
		if strings.TrimSpace(value) == "" {
			return fmt.Errorf("gpgpusim option gpu: want a name")
		}
		o.GPU = value
	case "inline":
		switch value {
		case "loop", "warp", "cta", "levels":
		case "lane":
			return fmt.Errorf("gpgpusim option inline is %q, a name retired: want loop (a lane looping over the child's threads) or warp (its warp sharing them, what lane priced)", value)
		default:
			return fmt.Errorf("gpgpusim option inline is %q; want loop, warp, cta or levels", value)
		}
		o.Inline = value
	case "cta_once":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 || n > trace.MaxCycles {
			return fmt.Errorf("gpgpusim option cta_once is %q; want cycles from 0 to 2^40", value)
		}
		o.CTAOnce = n
	case "loop_share":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return fmt.Errorf("gpgpusim option loop_share is %q; want a share above 0 and at most 1", value)
		}
		o.LoopShare = f
	case "loop_accesses":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 || n > maxLoopAccesses {
			return fmt.Errorf("gpgpusim option loop_accesses is %q; want the loop body's per-lane memory instructions, from 0 to %d", value, maxLoopAccesses)
		}
		o.LoopAccesses = n
	case "loop_crowd":
		return fmt.Errorf("gpgpusim option loop_crowd is retired: want loop_accesses (the flat loop body's memory instructions that send an access a lane, counted on its code), which prices what a further lane adds")
	case "syncs":
		switch value {
		case "on":
			o.Syncs = true
		case "off":
			o.Syncs = false
		default:
			return fmt.Errorf("gpgpusim option syncs is %q; want on or off", value)
		}
	default:
		return fmt.Errorf("unknown gpgpusim option %q; known: config, gpu, inline, cta_once, loop_share, loop_accesses, syncs", key)
	}
	return nil
}
