package kineto

import (
	"strconv"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
)

// The timing mapping: the t of every launch and copy, chosen so that a
// replay on the captured GPU starts each kernel when the profile says it
// started (see "Timing" in the package doc, and profile.Schedule).

// schedule sets the t of every kept op, in cycles, from the ops'
// profiled starts on the GPU, counted from the first op's place in
// program order (pl.base: its call's start, or its own start); the first op's issue becomes t = 0 (pl.origin cycles after
// pl.base). A blocking copy is aimed no later than its captured return
// allows (boundBlocking).
func (pl *plan) schedule() error {
	if len(pl.ops) == 0 {
		return nil
	}
	pl.base = pl.ops[0].order.host
	ops := make([]profile.Op, len(pl.ops))
	for i, op := range pl.ops {
		ops[i] = profile.Op{Start: profile.CyclesBetween(pl.base, op.ts, pl.gpu.Spec.ClockMHz), Kind: profile.Kernel}
		if op.copy {
			ops[i].Kind = profile.Copy
		}
	}
	if err := pl.boundBlocking(ops); err != nil {
		return err
	}
	ts, origin := profile.Schedule(ops, pl.lat)
	for i, op := range pl.ops {
		op.t = ts[i]
	}
	pl.origin = origin
	return nil
}

// cycles converts nanoseconds to cycles at the header clock.
func (pl *plan) cycles(ns int64) int64 { return profile.Cycles(ns, pl.gpu.Spec.ClockMHz) }

// originMicros is the profile time that t = 0 stands for, as Kineto
// writes ts (microseconds, up to three decimals), for the header's meta.
func (pl *plan) originMicros() string {
	ns := profile.AddCycles(pl.base, pl.origin, pl.gpu.Spec.ClockMHz)
	return strconv.FormatFloat(float64(ns)/1e3, 'f', -1, 64)
}
