package model

import (
	"strings"
	"testing"
)

func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"gpu.name", "", "gpu.name must not be empty"},
		{"gpu.sms", "0", "gpu.sms is 0; must be at least 1"},
		{"gpu.clock_mhz", "0", "gpu.clock_mhz is 0; must be a positive finite number"},
		{"gpu.clock_mhz", "-706", "gpu.clock_mhz is -706; must be a positive finite number"},
		{"gpu.max_ctas_per_sm", "0", "gpu.max_ctas_per_sm is 0; must be at least 1"},
		{"gpu.max_threads_per_sm", "16", "gpu.max_threads_per_sm is 16; must be at least 32"},
		{"gpu.max_threads_per_sm", "2000", "gpu.max_threads_per_sm is 2000; must be a multiple of 32"},
		{"gpu.regs_per_sm", "0", "gpu.regs_per_sm is 0; must be at least 1"},
		{"gpu.smem_per_sm", "-1", "gpu.smem_per_sm is -1; must be at least 0"},
		{"model.tie_seed", "-1", "model.tie_seed is -1; must be at least 0"},
		{"gpu.max_kernels", "0", "gpu.max_kernels is 0; must be at least 1"},
		{"lat.host_issue", "-1", "lat.host_issue is -1; must be at least 0"},
		{"lat.host_launch", "-1", "lat.host_launch is -1; must be at least 0"},
		{"lat.kernel_dispatch", "-1", "lat.kernel_dispatch is -1; must be at least 0"},
		{"cdp.stream_create", "-1", "cdp.stream_create is -1; must be at least 0"},
		{"cdp.param_b", "-1", "cdp.param_b is -1; must be at least 0"},
		{"cdp.param_a", "-1", "cdp.param_a is -1; must be at least 0"},
		{"cdp.launch_b", "-1", "cdp.launch_b is -1; must be at least 0"},
		{"cdp.launch_a", "-1", "cdp.launch_a is -1; must be at least 0"},
		{"cdp.clock_mhz", "0.5", "cdp.clock_mhz is 0.5; must be 0 (gpu.clock_mhz) or between 1 and 1e6"},
		{"cdp.launch_servers", "-1", "cdp.launch_servers is -1; must be at least 0"},
		{"cdp.launch_servers", "65", "cdp.launch_servers is 65; must be at most 64"},
		{"cdp.pending_limit", "-1", "cdp.pending_limit is -1; must be at least 0"},
		{"cdp.pending_limit", "1073741825", "cdp.pending_limit is 1073741825; must be at most 1073741824"},
		{"launch.threshold", "-1", "launch.threshold is -1; must be at least 0"},
		{"spawn.window", "0", "spawn.window is 0; must be at least 1"},
		{"spawn.overhead_a", "5", "spawn.overhead_a is 5 with spawn.overhead_b -1; both must be -1 (the engine's charge) or neither"},
		{"spawn.overhead_a", "-2", "spawn.overhead_a is -2 with spawn.overhead_b -1; both must be -1 (the engine's charge) or neither"},
		{"spawn.overhead_b", "-2", "spawn.overhead_b is -2 with spawn.overhead_a -1; both must be -1 (the engine's charge) or neither"},
		{"spawn.max_queue", "0", "spawn.max_queue is 0; must be at least 1"},
		{"spawn.ncon", "all", `spawn.ncon is "all"; want window or busy`},
		{"spawn.no_twarp", "cta", `spawn.no_twarp is "cta"; want launch or inline`},
		{"spawn.queue", "site", `spawn.queue is "site"; want arrival or decision`},
		{"dtbl.agt_entries", "0", "dtbl.agt_entries is 0; must be at least 1"},
		{"dtbl.agt_entries", "1000", "dtbl.agt_entries is 1000; must be a power of two"},
		{"dtbl.agt_spill", "-1", "dtbl.agt_spill is -1; must be at least 0"},
		{"dtbl.fallback", "kmu", `dtbl.fallback is "kmu"; want dispatch or instant`},
		{"cdp.streams", "per-warp", `cdp.streams is "per-warp"; want traced, child, cta, tail or fire_and_forget`},
		{"dtbl.spill_loads", "all", `dtbl.spill_loads is "all"; want cta or first`},
		{"io.ssd_mbps", "0", "io.ssd_mbps is 0; must be a positive finite number"},
		{"io.pcie_gbps", "-15.75", "io.pcie_gbps is -15.75; must be a positive finite number"},
		{"io.ssd_mbps", "1e-300", "io.ssd_mbps is 1e-300; must be between 0.001 and 1e+09"},
		{"io.pcie_gbps", "1e-300", "io.pcie_gbps is 1e-300; must be between 1e-06 and 1e+07"},
		{"gpu.dram_gbps", "1e-300", "gpu.dram_gbps is 1e-300; must be between 1e-06 and 1e+07"},
		{"io.ssd_mbps", "2e9", "io.ssd_mbps is 2e+09; must be between 0.001 and 1e+09"},
		{"io.page_bytes", "0", "io.page_bytes is 0; must be at least 1"},
		{"crcs.pages", "all", `crcs.pages is "all"; want ranges or exact`},
		{"gemtc.batch", "0", "gemtc.batch is 0; must be at least 1"},
		{"gemtc.threads", "0", "gemtc.threads is 0; must be at least 1"},
		{"gemtc.result_cycles", "-1", "gemtc.result_cycles is -1; must be at least 0"},
		{"io.memcpy", "pinned", `io.memcpy is "pinned"; want async, sync or legacy`},
		{"gemtc.worker", "thread", `gemtc.worker is "thread"; want warp or block`},
		{"pagoda.spawn", "batch", `pagoda.spawn is "batch"; want pipelined or direct`},
		{"gemtc.smem_slowdown", "dct=1.08", `gemtc.smem_slowdown is "dct=1.08": "dct=1.08" is not name:factor; want none or name:factor pairs joined by /`},
		{"gemtc.smem_slowdown", "dct:0.5", `gemtc.smem_slowdown is "dct:0.5": "dct:0.5": factor "0.5" must be a number from 1 to 1e6`},
		{"gemtc.smem_slowdown", "dct:1.1/dct:1.2", `gemtc.smem_slowdown is "dct:1.1/dct:1.2": dct given twice`},
		{"pagoda.mtbs_per_sm", "0", "pagoda.mtbs_per_sm is 0; must be at least 1"},
		{"pagoda.table_rows", "0", "pagoda.table_rows is 0; must be at least 1"},
		{"pagoda.spawn_cycles", "-1", "pagoda.spawn_cycles is -1; must be at least 0"},
		{"pagoda.sched_cycles", "-1", "pagoda.sched_cycles is -1; must be at least 0"},
		{"pagoda.smem_per_mtb", "-512", "pagoda.smem_per_mtb is -512; must be at least 0"},
		{"pagoda.smem_per_mtb", "1000", "pagoda.smem_per_mtb is 1000; must be 0 or 512 bytes times a power of two"},
		{"pagoda.smem_per_mtb", "1536", "pagoda.smem_per_mtb is 1536; must be 0 or 512 bytes times a power of two"},
		{"output.occupancy_window", "0", "output.occupancy_window is 0; must be at least 1"},
	} {
		c, err := Preset(DefaultPreset)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Set(tc.key, tc.value); err != nil {
			t.Fatalf("Set(%s, %q): %v", tc.key, tc.value, err)
		}
		err = c.Validate()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s=%s: Validate() = %v, want %s", tc.key, tc.value, err, tc.want)
		}
	}
}

// Every numeric key has a rule: setting any one of them to -1 (-2 where -1
// is a documented value) is an error that names that key, so a key added to
// Config without a rule fails here.
func TestValidateCoversEveryNumericKey(t *testing.T) {
	base, _ := Preset(DefaultPreset)
	sentinel := map[string]bool{"spawn.overhead_a": true, "spawn.overhead_b": true}
	for _, k := range Keys() {
		if keyByName[k].kind.String() == "string" {
			continue
		}
		c := base
		bad := "-1"
		if sentinel[k] {
			bad = "-2"
		}
		if err := c.Set(k, bad); err != nil {
			t.Fatal(err)
		}
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), k+" ") {
			t.Errorf("%s=%s: Validate() = %v, want an error naming %s", k, bad, err, k)
		}
	}
}

func TestValidateAcceptsEdges(t *testing.T) {
	c, _ := Preset(DefaultPreset)
	for k, v := range map[string]string{
		"gpu.sms": "1", "gpu.max_threads_per_sm": "32", "gpu.smem_per_sm": "0",
		"lat.host_issue": "0", "launch.threshold": "0", "dtbl.agt_entries": "1",
		"pagoda.smem_per_mtb": "0", "crcs.pages": "exact", "io.page_bytes": "1",
	} {
		if err := c.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	c.Pagoda.SmemPerMTB = 512
	if err := c.Validate(); err != nil {
		t.Errorf("smem_per_mtb 512: Validate() = %v", err)
	}
}
