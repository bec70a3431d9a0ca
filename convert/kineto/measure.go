package kineto

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
)

// The measured timing: what the profile shows of the launch path and of
// the copies replaces the model's defaults for --gpu=captured, by the
// rules the Nsight Systems importer uses (convert/internal/profile):
//
//   - launch: over the kernels launched while the GPU was idle (every
//     kernel, copy and memset of the device that started before the
//     kernel had ended by its launch call's start), at least
//     profile.MinIdleLaunches, the median time from the call's start to
//     the kernel's start is lat.host_issue + lat.host_launch +
//     lat.kernel_dispatch; set.lat.host_launch makes it so
//     (profile.IdleLaunchReady, Latency.WithReady), and the timing
//     mapping uses it;
//   - copies: io.copy_latency and io.pcie_gbps from the copies' GPU
//     durations and bytes (profile.FitCopies), the pageable or the pinned
//     ones, whichever took the more GPU time ("Pageable" in the event's
//     name says which);
//   - a blocking copy's issue is held no later than where the replay's
//     wait returns by the captured return (boundBlocking).

// measureLaunch sets pl.launch (and pl.lat) from the kernels of the
// converted device launched while its GPU was idle, where there are
// enough of them. The GPU's activity is every kernel and copy event of
// the device (those not converted too: a device-to-device copy occupies
// the GPU as well) and its memsets.
func (pl *plan) measureLaunch(p *capture) {
	var launches, spans [][2]int64
	for _, op := range p.ops {
		if op.device != pl.device {
			continue
		}
		spans = append(spans, [2]int64{op.ts, op.ts + op.dur})
		if !op.copy && op.call != nil {
			launches = append(launches, [2]int64{op.call.ts, op.ts})
		}
	}
	spans = append(spans, p.memsets[pl.device]...)
	if len(launches) < profile.MinIdleLaunches {
		return
	}
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	if m, ok := profile.IdleLaunchReady(launches, spans); ok {
		pl.launch, pl.hasLaunch = m, true
		pl.lat = pl.lat.WithReady(pl.cycles(m.ReadyNs))
	}
}

// fitCopies measures the copy latency and rate from the converted
// copies' GPU durations.
func (pl *plan) fitCopies() {
	var samples []profile.CopySample
	for _, op := range pl.ops {
		if op.copy {
			samples = append(samples, profile.CopySample{Bytes: bytesOf(op), Dur: op.dur, Pageable: strings.Contains(op.name, "Pageable")})
		}
	}
	pl.copies = profile.FitCopies(samples)
}

// boundBlocking moves the GPU start (cycles after pl.base) the timing
// mapping aims each blocking copy at, starts[i] for pl.ops[i], no later
// than
//
//	max(call + ready, ret − lat.host_sync − the copy's time)
//
// with the copy's time io.copy_latency + bytes / io.pcie_gbps and the
// host sync cost as the header sets them for --gpu=captured (measured,
// else the model's), ready the copy's latency to the GPU. A replay holds
// the host from a blocking copy's issue until the copy is done and
// lat.host_sync after (docs/model.md, "The host waits"), so that is the
// latest issue at which a copy with nothing ahead of it returns by its
// captured return, and no issue comes before its call. A pageable
// host-to-device cudaMemcpyAsync returns once its buffer is staged,
// before its transfer ends, which the model's transfer stands for;
// issued at the t its GPU start gives, it would return late by its
// transfer and move the host's later calls with it. A copy that waited
// on the GPU (behind its stream's kernels) keeps the t its GPU start
// gives, the earlier.
func (pl *plan) boundBlocking(starts []profile.Op) error {
	b, err := profile.NewBlockingCopy(pl.gpu.Name, pl.gpu.Spec, pl.copies, pl.hostSync, pl.hostSyncN, pl.lat)
	if err != nil {
		return errorf(pl.file, -1, -1, "the replay model's copy timing: %v", err)
	}
	mhz := pl.gpu.Spec.ClockMHz
	for i, op := range pl.ops {
		if !op.copy || !copyBlocks(op) {
			continue
		}
		call := profile.CyclesBetween(pl.base, op.call.ts, mhz)
		ret := profile.CyclesBetween(pl.base, op.call.ts+op.call.dur, mhz)
		starts[i].Start = min(starts[i].Start, b.LatestIssue(call, ret, true, bytesOf(op)))
	}
	return nil
}

// recordMeasured adds the measured timing to the header's meta: the
// copy fit's settings (profile.CopyFit.Record) and, where the launch
// path was measured, set.lat.host_launch with launch_ready_ns (the
// median idle launch's call-to-start time) and idle_launches (over how
// many), as the Nsight Systems importer writes them.
func (pl *plan) recordMeasured(meta map[string]string) {
	pl.copies.Record(meta, pl.gpu.Spec.ClockMHz)
	if pl.hasLaunch {
		meta[model.SetPrefix+"lat.host_launch"] = strconv.FormatInt(pl.lat.Launch, 10)
		meta["launch_ready_ns"] = strconv.FormatInt(pl.launch.ReadyNs, 10)
		meta["idle_launches"] = strconv.Itoa(pl.launch.N)
	}
}
