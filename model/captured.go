package model

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

// FromSpec is the configuration for --gpu=captured: base with every GPU
// limit the trace's importer recorded (the non-zero fields of spec)
// replacing base's, and gpu.name set to name when name is not empty. What
// the spec does not know — and everything outside the GPU section — stays
// as in base. A nil spec changes only the name.
//
// When the spec changes the clock, the four runtime costs that are
// defined as times rather than cycles (lat.host_issue, lat.host_launch,
// pagoda.spawn_cycles, pagoda.sched_cycles; see the package doc) are
// rescaled so they keep their duration in microseconds. The device-side
// latencies measured in cycles by the papers stay in cycles; cdp.* keep
// theirs in cdp.clock_mhz's cycles, which the engine converts to the new
// clock (Config.LaunchCosts).
func FromSpec(base Config, name string, spec *trace.GPUSpec) Config {
	c := base
	if name != "" {
		c.GPU.Name = name
	}
	if spec == nil {
		return c
	}
	if spec.ClockMHz > 0 && !math.IsInf(spec.ClockMHz, 0) {
		c.GPU.ClockMHz = spec.ClockMHz
		if base.GPU.ClockMHz > 0 {
			from, to := base.GPU.ClockMHz, spec.ClockMHz
			c.Lat.HostIssue = rescale(base.Lat.HostIssue, from, to)
			c.Lat.HostLaunch = rescale(base.Lat.HostLaunch, from, to)
			c.Lat.HostSync = rescale(base.Lat.HostSync, from, to)
			c.Pagoda.SpawnCycles = rescale(base.Pagoda.SpawnCycles, from, to)
			c.Pagoda.SchedCycles = rescale(base.Pagoda.SchedCycles, from, to)
		}
	}
	override(&c.GPU.SMs, spec.SMs)
	override(&c.GPU.MaxCTAsPerSM, spec.MaxCTAsPerSM)
	override(&c.GPU.MaxThreadsPerSM, spec.MaxThreadsPerSM)
	override(&c.GPU.RegsPerSM, spec.RegsPerSM)
	override(&c.GPU.SmemPerSM, spec.SmemPerSM)
	override(&c.GPU.MaxKernels, spec.MaxKernels)
	return c
}

// SetPrefix marks the header meta keys that are model settings an
// importer measured from the captured machine ("set.lat.kernel_dispatch":
// "5001"): FromHeader applies them after the GPU spec, so --gpu=captured
// replays with them, and a --set on the command line still overrides them.
const SetPrefix = "set."

// FromHeader is FromSpec with the header's GPU and spec, then every meta
// setting under SetPrefix, in key order. A setting the model refuses is an
// error naming its key.
func FromHeader(base Config, h *trace.Header) (Config, error) {
	c := FromSpec(base, h.GPU, h.GPUSpec)
	var keys []string
	for k := range h.Meta {
		if strings.HasPrefix(k, SetPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := c.Set(strings.TrimPrefix(k, SetPrefix), h.Meta[k]); err != nil {
			return c, fmt.Errorf("header meta %q: %w", k, err)
		}
	}
	return c, nil
}

// override sets *dst to v when the importer knew it (v > 0).
func override[T int | int64](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}

// rescale converts a cycle count at fromMHz to the same duration at toMHz,
// rounding half away from zero (as the presets' conversions do); it
// saturates rather than wrapping for absurd ratios.
func rescale(cycles int64, fromMHz, toMHz float64) int64 {
	x := math.Round(float64(cycles) * toMHz / fromMHz)
	if x >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(x)
}
