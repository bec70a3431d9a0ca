package gpgpusim

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// options holds the simulator options a conversion uses, by name without
// the leading '-', as GPGPU-Sim prints them at the top of its output
// ("-gpgpu_n_clusters                      80 # number of ...") and as
// gpgpusim.config sets them ("-gpgpu_n_clusters 80"). A later setting of a
// name replaces an earlier one, as in the simulator.
type options map[string]string

// wanted are the options the importer reads; every other is ignored.
var wanted = map[string]bool{
	"gpgpu_n_clusters": true, "gpgpu_n_cores_per_cluster": true,
	"gpgpu_clock_domains": true, "gpgpu_shader_cta": true,
	"gpgpu_shader_core_pipeline": true, "gpgpu_shader_registers": true,
	"gpgpu_shmem_size": true, "gpgpu_max_concurrent_kernel": true,
	"gpgpu_kernel_launch_latency": true, "gpgpu_TB_launch_latency": true,
	"gpgpu_cdp_enabled": true, "cdp_latency": true, "gpgpu_n_mem": true,
	"gpgpu_dram_buswidth": true, "gpgpu_dram_burst_length": true,
	"gpgpu_n_mem_per_ctrlr": true, "gpgpu_num_sched_per_core": true,
	"gpgpu_concurrent_kernel_sm": true, "gpgpu_num_sp_units": true,
	"ptx_opcode_initiation_fp": true, "dram_data_command_freq_ratio": true,
}

// parseOption reads one option line; ok is false for any other line.
func (o options) parseOption(line string) bool {
	_, ok := o.parseOptionName(line)
	return ok
}

// parseOptionName is parseOption that also returns the option's name.
func (o options) parseOptionName(line string) (string, bool) {
	if len(line) < 2 || line[0] != '-' {
		return "", false
	}
	if i := strings.Index(line, "#"); i >= 0 {
		line = line[:i]
	}
	name, value, _ := strings.Cut(strings.TrimSpace(line[1:]), " ")
	name = strings.TrimSpace(name)
	if !wanted[name] {
		return "", false
	}
	o[name] = strings.TrimSpace(value)
	return name, true
}

// readConfigFile adds a gpgpusim.config's settings to o, where o has none
// for them (the log's own printout wins).
func (o options) readConfigFile(name string, r io.Reader) error {
	file := options{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		file.parseOption(strings.TrimSpace(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		return &Error{File: name, Msg: "reading the config", Err: err}
	}
	for k, v := range file {
		if _, ok := o[k]; !ok {
			o[k] = v
		}
	}
	return nil
}

// gpu is what a conversion takes from the options: the captured GPU and
// the simulator's launch latencies.
type gpu struct {
	spec          trace.GPUSpec
	dramClockMHz  float64
	dramGBps      float64 // 0 when the options do not give it
	issueWidth    int
	launchLatency int64    // gpgpu_kernel_launch_latency
	streamPasses  int64    // the simulation loop's passes per 1000 core cycles (streammgr.go)
	tbLatency     int64    // gpgpu_TB_launch_latency
	cdp           bool     // gpgpu_cdp_enabled
	concurrentSM  bool     // gpgpu_concurrent_kernel_sm
	fp32Rate      float64  // FP32 FMA warp instructions an SM can start a cycle; 0 if unknown
	cdpLatency    [5]int64 // stream create, param b, param a, launch b, launch a
	dramAtomBytes int64    // bytes one DRAM access counted in the stats moves
}

// gpu checks and converts the options; name is the file for errors, and
// lines the log line of each option the log printed (an option from a
// gpgpusim.config has none). The bounds are the replay's own (model's
// Ranges), so a log that converts replays with --gpu=captured.
func (o options) gpu(name string, lines map[string]int) (gpu, error) {
	var g gpu
	bad := func(key, why string) error {
		return &Error{File: name, Line: lines[key], Msg: fmt.Sprintf("option -%s %q: %s", key, o[key], why)}
	}
	need := func(key string) (string, error) {
		v, ok := o[key]
		if !ok {
			return "", &Error{File: name, Msg: fmt.Sprintf("the simulator's option -%s is not in the log (GPGPU-Sim prints its options first) and no gpgpusim.config gives it; pass --opt config=PATH", key)}
		}
		return v, nil
	}
	integer := func(key string, lo, hi int64) (int64, error) {
		v, err := need(key)
		if err != nil {
			return 0, err
		}
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || n < lo || n > hi {
			return 0, bad(key, fmt.Sprintf("want a whole number from %d to %d", lo, hi))
		}
		return n, nil
	}
	optional := func(key string, def, lo, hi int64) (int64, error) {
		if _, ok := o[key]; !ok {
			return def, nil
		}
		return integer(key, lo, hi)
	}
	clusters, err := integer("gpgpu_n_clusters", 1, model.MaxSMs)
	if err != nil {
		return g, err
	}
	perCluster, err := optional("gpgpu_n_cores_per_cluster", 1, 1, 1<<10)
	if err != nil {
		return g, err
	}
	if clusters*perCluster > model.MaxSMs {
		return g, bad("gpgpu_n_cores_per_cluster", fmt.Sprintf("more than %d SMs in all", model.MaxSMs))
	}
	g.spec.SMs = int(clusters * perCluster)
	v, err := need("gpgpu_clock_domains")
	if err != nil {
		return g, err
	}
	clocks := strings.Split(v, ":")
	core, perr := strconv.ParseFloat(clocks[0], 64)
	if perr != nil || !(core >= 1 && core <= 1e6) {
		return g, bad("gpgpu_clock_domains", "want <core MHz>:<icnt MHz>:<L2 MHz>:<DRAM MHz>, the core clock from 1 to 10^6")
	}
	g.spec.ClockMHz = core
	g.streamPasses = streamPasses(v)
	if len(clocks) == 4 {
		if d, err := strconv.ParseFloat(clocks[3], 64); err == nil && d > 0 && d <= 1e6 {
			g.dramClockMHz = d
		}
	}
	if n, err := integer("gpgpu_shader_cta", 1, 1<<12); err != nil {
		return g, err
	} else {
		g.spec.MaxCTAsPerSM = int(n)
	}
	v, err = need("gpgpu_shader_core_pipeline")
	if err != nil {
		return g, err
	}
	threads, warp, _ := strings.Cut(v, ":")
	nt, e1 := strconv.Atoi(threads)
	ws, e2 := strconv.Atoi(warp)
	if e1 != nil || e2 != nil || nt < 32 || nt > 1<<22 || nt%32 != 0 || ws != 32 {
		return g, bad("gpgpu_shader_core_pipeline", "want <threads per SM>:32, the threads a multiple of 32 from 32 to 2^22 (the replay's warps are 32 threads)")
	}
	g.spec.MaxThreadsPerSM = nt
	if n, err := integer("gpgpu_shader_registers", 1, 255<<22); err != nil {
		return g, err
	} else {
		g.spec.RegsPerSM = int(n)
	}
	if n, err := integer("gpgpu_shmem_size", 0, 1<<40); err != nil {
		return g, err
	} else {
		g.spec.SmemPerSM = n
	}
	if n, err := optional("gpgpu_max_concurrent_kernel", 0, 0, 1<<16); err != nil {
		return g, err
	} else {
		g.spec.MaxKernels = int(n)
	}
	if g.launchLatency, err = optional("gpgpu_kernel_launch_latency", 0, 0, 1<<40); err != nil {
		return g, err
	}
	if g.tbLatency, err = optional("gpgpu_TB_launch_latency", 0, 0, 1<<40); err != nil {
		return g, err
	}
	if n, err := optional("gpgpu_concurrent_kernel_sm", 0, 0, 1); err != nil {
		return g, err
	} else {
		g.concurrentSM = n == 1 // the simulator's default is 0
	}
	if n, err := optional("gpgpu_cdp_enabled", 0, 0, 1); err != nil {
		return g, err
	} else {
		g.cdp = n == 1
	}
	g.cdpLatency = [5]int64{7200, 8000, 100, 12000, 1600} // the simulator's default
	if v, ok := o["cdp_latency"]; ok {
		f := strings.Split(v, ",")
		if len(f) != 5 {
			return g, bad("cdp_latency", "want five cycle counts")
		}
		for i, s := range f {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil || n < 0 || n > 1<<30 {
				return g, bad("cdp_latency", "want five cycle counts from 0 to 2^30")
			}
			g.cdpLatency[i] = n
		}
	}
	if n, err := optional("gpgpu_num_sched_per_core", 0, 1, 64); err != nil {
		return g, err
	} else {
		g.issueWidth = int(n)
	}
	// The FP32 pipes: -gpgpu_num_sp_units units, each starting a warp's FMA
	// every initiation interval (-ptx_opcode_initiation_fp's MAD entry).
	if units, err := optional("gpgpu_num_sp_units", 0, 1, 1<<10); err == nil && units > 0 {
		if f := strings.Split(o["ptx_opcode_initiation_fp"], ","); len(f) == 5 {
			if ii, err := strconv.Atoi(strings.TrimSpace(f[3])); err == nil && ii > 0 {
				g.fp32Rate = float64(units) / float64(ii)
			}
		}
	}
	// DRAM: the stats count accesses of dram_atom_size = burst length ×
	// bus width × chips per controller bytes (gpu-sim.cc); each channel
	// moves bus width × chips bytes per data-bus beat, and the data bus
	// beats dram_data_command_freq_ratio times per DRAM (command) clock:
	// 2 for DDR (the default), 4 for GDDR6's QDR (SM86_RTX3070).
	bus, err1 := optional("gpgpu_dram_buswidth", 0, 1, 1<<10)
	burst, err2 := optional("gpgpu_dram_burst_length", 0, 1, 1<<10)
	chips, err3 := optional("gpgpu_n_mem_per_ctrlr", 1, 1, 1<<10)
	mems, err4 := optional("gpgpu_n_mem", 0, 1, 1<<16)
	ratio, err5 := optional("dram_data_command_freq_ratio", 2, 1, 64)
	for _, e := range []error{err1, err2, err3, err4, err5} {
		if e != nil {
			return g, e
		}
	}
	g.dramAtomBytes = bus * burst * chips
	if mems > 0 && bus > 0 && g.dramClockMHz > 0 {
		g.dramGBps = math.Round(float64(mems*bus*chips*ratio)*g.dramClockMHz/1000*1000) / 1000
	}
	return g, nil
}
