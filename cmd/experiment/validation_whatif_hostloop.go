package main

import "fmt"

// The host-loop pairs (docs/validation.md, "What-if predictions"): our
// programs whose host waits for the GPU before its next launch
// (validation/gpgpusim/hostloop/README.md) — frontier loops that copy a
// count back with a blocking cudaMemcpy and size the next launch from it,
// a loop with a cudaDeviceSynchronize between two kernels, two streams
// ordered by an event with the host polling the event and a stream, and
// Rodinia's BFS (github.com/yuhc/gpu-rodinia 9c10d3e, cuda/bfs), whose
// host copies its stop flag back every iteration — each run at 80 and 20
// SMs and at launch latency 5000 and 0. Each run predicts its neighbours
// along both axes, both ways: the direction in which the GPU gets faster
// is the one a replay that kept the captured host times could not show.
// No constant was set from them: all are held out.
func init() {
	whatIfPairs = append(whatIfPairs, hostLoopPairs()...)
}

// hostLoopPrograms are the host-loop captures' program names.
// eventstreams' host waits by polling (cudaEventQuery, cudaStreamQuery),
// since in this GPGPU-Sim build cudaEventSynchronize does not wait and
// cudaStreamSynchronize returns at once for a created stream
// (validation/gpgpusim/hostloop/README.md); the importer reads its
// records and waits from the PTX_SIM_DEBUG=3 log and the host's waits
// from where it took over on an idle GPU (convert/gpgpusim: events.go,
// sync.go's idlePush).
var hostLoopPrograms = []string{"frontier", "frontierbig", "syncloop", "eventstreams", "rodiniabfs"}

// perSMSharing is why frontierbig's predictions across machine shapes
// miss: its widest levels' CTAs slow down as more of them share an SM.
const perSMSharing = "capture A's CTA cycles are its CTAs' time at A's residency: frontierbig's widest level (183 CTAs) runs a median 4,844 cycles a CTA on 80 SMs, about 2.3 CTAs an SM, and 7,679 on 20, about 9 an SM (the next level 4,420 and 6,726), where its warps share an SM's schedulers and memory pipeline over their atomics. The host's part holds: every launch after a copy back issues when the predicted level ends, and the launch-latency pairs of the same runs are within 0.2%. The contention model (model.contention=on, off in GPGPU-Sim imports) moves 80 → 20 SMs at latency 0 from 45,593 to 46,188 against B's 52,210: it prices issue slots and DRAM bytes, not this sharing"

// hostLoopRests is what a host-loop prediction rests on.
const hostLoopRests = "measured cycles; the host's waits as the log shows them"

// hostLoopPairs predicts each run of each program from the run that
// differs in one axis: SMs (80 or 20) or launch latency (5000 or 0, the
// model's lat.kernel_dispatch 5001 or 1, as the other launch-latency
// pairs).
func hostLoopPairs() []whatIf {
	type run struct {
		sms, lat int
	}
	name := func(p string, r run) string { return fmt.Sprintf("%s-sm%d-lat%d", p, r.sms, r.lat) }
	var out []whatIf
	for _, p := range hostLoopPrograms {
		for _, lat := range []int{5000, 0} {
			for _, sms := range [][2]int{{80, 20}, {20, 80}} {
				w := whatIf{kind: "host loop: machine shape", from: name(p, run{sms[0], lat}), to: name(p, run{sms[1], lat}),
					policy: "cdp", sets: []string{fmt.Sprintf("gpu.sms=%d", sms[1])}, restsOn: hostLoopRests}
				switch {
				case p == "frontierbig":
					w.tol, w.why = 16, perSMSharing
				}
				out = append(out, w)
			}
		}
		for _, sms := range []int{80, 20} {
			for _, lat := range [][2]int{{5000, 0}, {0, 5000}} {
				w := whatIf{kind: "host loop: launch latency", from: name(p, run{sms, lat[0]}), to: name(p, run{sms, lat[1]}),
					policy: "cdp", sets: []string{fmt.Sprintf("lat.kernel_dispatch=%d", lat[1]+1)}, restsOn: hostLoopRests}
				out = append(out, w)
			}
		}
	}
	return out
}
