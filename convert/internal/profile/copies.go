package profile

import (
	"math"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// The copy fit measures the model's copy timing from a profile's copies:
// the model moves an explicit copy in io.copy_latency + bytes /
// io.pcie_gbps on its direction's copy engine (docs/model.md, "Explicit
// copies"), one latency and one rate for both directions. FitCopies
// chooses the two from the copies' GPU durations:
//
//   - the copies measured are those of one host memory kind, pageable or
//     pinned, whichever took the more GPU time: the two run at different
//     rates (pageable copies are staged through a pinned buffer), the
//     model has one, and the kind that dominates the time is the one a
//     replay's span depends on;
//   - latency: the median of (duration − bytes / rate) over the small
//     copies (at most SmallCopyBytes, whose bytes take a small part of
//     their time), pooled over both directions, where there are at least
//     MinFitCopies of them;
//   - rate: Σ bytes / Σ (duration − latency) over the other copies, both
//     directions, where there is at least one: the rate at which the
//     model spends on them the GPU time they took in all (the latency is
//     0 here when it was not measured). A sum needs no more than one
//     copy to hold the copies' GPU time, and the model's assumed rate,
//     which a capture without a fit replays at, is another machine's
//     (gpu3's one 4 MB pageable copy ran at 5.3 GB/s, CUDATutorial's
//     102 MB one at 10.6, against the model's 15.75);
//   - the latency's (dur − bytes / rate) uses the rate measured from a
//     first latency, the small copies' median duration; the rate then
//     uses the final latency.
//
// Its limits: per-direction differences average out (saxpy's host-to-
// device copies ran at 14.1 GB/s, its device-to-host ones at 13.3); a
// capture whose copies are all of one size cannot tell latency from
// rate, so a capture without small copies gets a rate alone, which then
// includes their latency; copies of the other memory kind replay at the
// measured kind's rate.

// SmallCopyBytes is the largest copy whose duration measures the copy
// latency: 4 KiB cross PCIe 3.0 in about 0.3 µs, against a latency of
// about 1 µs.
const SmallCopyBytes = 4096

// MinFitCopies is the fewest small copies a latency is measured from: a
// median of fewer is one copy's or a mean of two.
const MinFitCopies = 3

// CopySample is one host↔device copy as the profile shows it on the GPU.
type CopySample struct {
	Bytes    int64
	Dur      int64 // its GPU duration, ns
	Pageable bool  // the host side is pageable memory
}

// CopyFit is what FitCopies measured.
type CopyFit struct {
	// Pageable says which copies were measured: the pageable ones, else
	// the pinned ones.
	Pageable bool
	// Latency is io.copy_latency in ns, measured over LatencyN small
	// copies where LatencyN > 0.
	Latency  float64
	LatencyN int
	// GBps is io.pcie_gbps, measured over GBpsN larger copies where
	// GBpsN > 0.
	GBps  float64
	GBpsN int
}

// FitCopies measures the copy latency and rate from samples (see the
// rule above). Samples with a negative duration or no bytes are left out.
func FitCopies(samples []CopySample) CopyFit {
	var timeOf [2]float64 // GPU time of the pinned, pageable copies
	for _, s := range samples {
		if s.Dur >= 0 && s.Bytes > 0 {
			timeOf[b2i(s.Pageable)] += float64(s.Dur)
		}
	}
	f := CopyFit{Pageable: timeOf[1] > timeOf[0]}
	var small, large []CopySample
	for _, s := range samples {
		if s.Dur < 0 || s.Bytes <= 0 || s.Pageable != f.Pageable {
			continue
		}
		if s.Bytes <= SmallCopyBytes {
			small = append(small, s)
		} else {
			large = append(large, s)
		}
	}
	if len(small) >= MinFitCopies {
		f.Latency, f.LatencyN = medianLatency(small, 0), len(small)
	}
	rate := func(lat float64) (float64, bool) {
		if len(large) == 0 {
			return 0, false
		}
		var bytes, ns float64
		for _, s := range large {
			bytes += float64(s.Bytes)
			ns += float64(s.Dur) - lat
		}
		if !(ns > 0) {
			return 0, false
		}
		return bytes / ns, true // bytes/ns is GB/s
	}
	if gbps, ok := rate(f.Latency); ok {
		if f.LatencyN > 0 {
			f.Latency = medianLatency(small, gbps)
			gbps, ok = rate(f.Latency)
		}
		if ok {
			f.GBps, f.GBpsN = gbps, len(large)
		}
	}
	return f
}

// medianLatency is the median over copies of duration − bytes / gbps
// (gbps 0: the duration), in ns.
func medianLatency(copies []CopySample, gbps float64) float64 {
	v := make([]float64, len(copies))
	for i, s := range copies {
		v[i] = float64(s.Dur)
		if gbps > 0 {
			v[i] -= float64(s.Bytes) / gbps
		}
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return max(v[n/2], 0)
	}
	return max((v[n/2-1]+v[n/2])/2, 0)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Record adds what was measured to a trace header's meta: the model
// settings set.io.copy_latency (cycles at mhz) and set.io.pcie_gbps,
// which --gpu=captured applies, each where measured, with how many
// copies each came from (copy_latency_copies, pcie_copies) and which
// memory kind (copy_memory: pageable or pinned).
func (f CopyFit) Record(meta map[string]string, mhz float64) {
	if f.LatencyN == 0 && f.GBpsN == 0 {
		return
	}
	meta["copy_memory"] = "pinned"
	if f.Pageable {
		meta["copy_memory"] = "pageable"
	}
	if f.LatencyN > 0 {
		c := min(math.Round(f.Latency*mhz/1e3), float64(model.MaxCost))
		if c != c { // NaN: a clock no option or report should give
			c = 0
		}
		meta[model.SetPrefix+"io.copy_latency"] = strconv.FormatInt(int64(c), 10)
		meta["copy_latency_copies"] = strconv.Itoa(f.LatencyN)
	}
	if f.GBpsN > 0 {
		// The model's range: 1 kB/s to 10 PB/s.
		gbps := min(max(f.GBps, model.MinMBps/1000), 1e7)
		meta[model.SetPrefix+"io.pcie_gbps"] = strconv.FormatFloat(gbps, 'g', 6, 64)
		meta["pcie_copies"] = strconv.Itoa(f.GBpsN)
	}
}

// BlockingCopy is how a replay times a copy that blocks its caller, from
// the model's defaults for the captured GPU and what the capture
// measured: its copy fit, its lat.host_sync (where hostSyncN calls gave
// one) and its latencies.
type BlockingCopy struct {
	latency, gbps, mhz float64 // the copy's fixed cycles and rate, the clock
	hostSync, ready    int64   // the call's own cost after its wait; a copy's trip to the GPU
}

// NewBlockingCopy is the timing of a blocking copy on the GPU name and
// spec describe.
func NewBlockingCopy(name string, spec *trace.GPUSpec, fit CopyFit, hostSync int64, hostSyncN int, lat Latency) (BlockingCopy, error) {
	base, err := model.Preset(model.DefaultPreset)
	if err != nil {
		return BlockingCopy{}, err
	}
	cfg := model.FromSpec(base, name, spec)
	b := BlockingCopy{latency: float64(cfg.IO.CopyLatency), gbps: cfg.IO.PCIeGBps, mhz: spec.ClockMHz,
		hostSync: cfg.Lat.HostSync, ready: lat.Ready(Copy)}
	if fit.LatencyN > 0 {
		b.latency = fit.Latency * b.mhz / 1e3
	}
	if fit.GBpsN > 0 {
		b.gbps = fit.GBps
	}
	if hostSyncN > 0 {
		b.hostSync = hostSync
	}
	return b, nil
}

// LatestIssue is the latest issue (cycles) of a blocking copy of bytes,
// called at call and returned at ret, at which a replay returns it by
// ret (its call's own cost, its fixed cycles and its bytes after its
// issue, with nothing ahead of it), and never before its call reaches
// the GPU: a copy whose call returned before its transfer ended (a
// pageable host-to-device copy returns once its buffer is staged)
// would otherwise return late by its transfer, and the host's later
// calls with it. Without a ret, its call's trip.
func (b BlockingCopy) LatestIssue(call, ret int64, hasRet bool, bytes int64) int64 {
	at := call + b.ready
	if hasRet {
		took := min(b.latency+float64(bytes)*b.mhz/(1000*b.gbps), MaxCycles)
		at = max(at, ret-b.hostSync-int64(math.Round(took)))
	}
	return at
}
