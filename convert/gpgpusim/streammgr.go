package gpgpusim

import (
	"math"
	"strconv"
	"strings"
)

// The simulator's stream manager, recorded for the replay's model of it
// (lat.stream_countdown, lat.stream_passes; docs/model.md, "The
// simulator's stream manager"). At 667834cf a device kernel at its
// stream's head waits gpgpu_kernel_launch_latency + 1 services of the
// stream manager before it goes to the GPU, one stream served a pass of
// the simulation loop, round-robin (stream_manager::front and
// stream_operation::do_operation, src/stream_manager.cc:158-173 and
// 330-369), and a pass is one tick of any clock domain
// (gpgpu_sim::next_clock_domain, src/gpgpu-sim/gpu-sim.cc:1880-1901).

// streamPasses is the simulation loop's passes per 1000 core cycles for
// -gpgpu_clock_domains <core>:<icnt>:<L2>:<DRAM> (MHz): one a tick of
// any domain, and domains of one frequency tick together (their times
// are the same sums of the same period). 0 when the option is not four
// frequencies from 1 to 10^6 MHz. SM7_QV100's 1132:1132:1132:850 makes
// 1000 · (1132 + 850) / 1132 = 1751 (measured in a PTX_SIM_DEBUG=3 log:
// 3,579 countdown lines in 2,044 cycles).
func streamPasses(domains string) int64 {
	f := strings.Split(domains, ":")
	if len(f) != 4 {
		return 0
	}
	seen := map[float64]bool{}
	var sum, core float64
	for i, s := range f {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v >= 1 && v <= 1e6) {
			return 0
		}
		if i == 0 {
			core = v
		}
		if !seen[v] {
			seen[v] = true
			sum += v
		}
	}
	return int64(math.Round(1000 * sum / core))
}

// setStreamManager records the stream manager where the log's launch
// latency is counted down by it (a latency of 0 goes at the first pass,
// and the replay's countdown stays off).
func setStreamManager(set func(k, v string), g gpu) {
	if g.launchLatency <= 0 || g.streamPasses <= 0 {
		return
	}
	set("lat.stream_countdown", strconv.FormatInt(g.launchLatency, 10))
	set("lat.stream_passes", strconv.FormatInt(g.streamPasses, 10))
}
