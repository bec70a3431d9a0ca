package model

import (
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// shared holds the values every preset has: the papers' cycle counts and
// the policy knobs that do not depend on the GPU.
var shared = map[string]string{
	"gpu.cta_issue_interval":  "0",
	"lat.kernel_dispatch":     "283",
	"cdp.param_b":             "8023",
	"cdp.param_a":             "129",
	"cdp.launch_b":            "12187",
	"cdp.launch_a":            "1592",
	"cdp.launch_servers":      "1",
	"cdp.clock_mhz":           "706",
	"cdp.pending_limit":       "0",
	"cdp.streams":             "traced",
	"launch.threshold":        "128",
	"spawn.window":            "1024",
	"spawn.overhead_a":        "-1",
	"spawn.overhead_b":        "-1",
	"spawn.max_queue":         "65536",
	"spawn.ncon":              "window",
	"spawn.no_twarp":          "launch",
	"spawn.queue":             "arrival",
	"dtbl.agt_entries":        "1024",
	"dtbl.agt_spill":          "140",
	"dtbl.fallback":           "dispatch",
	"dtbl.spill_loads":        "cta",
	"dtbl.match":              "shape",
	"dtbl.launch_cost":        "front",
	"io.ssd_mbps":             "500",
	"io.pcie_gbps":            "15.75",
	"io.page_bytes":           "4096",
	"io.copy_latency":         "0",
	"crcs.pages":              "ranges",
	"crcs.share":              "available",
	"crcs.gate":               "access",
	"crcs.irregular":          "ready",
	"crcs.profile_cycles":     "400",
	"crcs.l1_flush":           "256",
	"gemtc.threads":           "128",
	"io.memcpy":               "async",
	"gemtc.batch":             "1000",
	"gemtc.worker":            "warp",
	"gemtc.dequeue_cycles":    "1035",
	"gemtc.result_cycles":     "621",
	"gemtc.smem_slowdown":     "dct:1.08/matmul:1.26",
	"pagoda.table_rows":       "32",
	"pagoda.spawn":            "pipelined",
	"output.occupancy_window": "5000",
	"lat.host_threads":        "1",
	"lat.host_sync":           "0",
	"lat.stream_countdown":    "0", // GPGPU-Sim's stream manager: off on every preset
	"lat.stream_passes":       "0",
	"gpu.issue_width":         "4",
	"model.contention":        "on",
	"model.tie_seed":          "0",
}

// perPreset holds docs/design.md §5's table and the clock-derived host costs
// (3.5 µs issue, 5 µs launch, 3.5 µs spawn, 1 µs schedule).
var perPreset = map[string]map[string]string{
	"k20c": {
		"io.model": "none", "gpu.name": "k20c", "gpu.dram_gbps": "208", "gpu.concurrent_kernel_sm": "on", "gpu.sms": "13", "gpu.clock_mhz": "706", "gpu.max_ctas_per_sm": "16",
		"gpu.max_threads_per_sm": "2048", "gpu.regs_per_sm": "65536", "gpu.smem_per_sm": "49152", "gpu.max_kernels": "32",
		"lat.host_issue": "2471", "lat.host_launch": "3530", "pagoda.spawn_cycles": "2471", "pagoda.sched_cycles": "706",
		"pagoda.mtbs_per_sm": "2", "pagoda.smem_per_mtb": "16384",
		"cdp.stream_create": "7165", "cdp.launch_servers": "0", // DTBL §5.1: calls "interleaved for all the warps"
	},
	"k20c-spawn": {
		"io.model": "none", "gpu.name": "k20c-spawn", "gpu.dram_gbps": "208", "gpu.concurrent_kernel_sm": "on", "gpu.sms": "13", "gpu.clock_mhz": "1400", "gpu.max_ctas_per_sm": "16",
		"gpu.max_threads_per_sm": "2048", "gpu.regs_per_sm": "65536", "gpu.smem_per_sm": "49152", "gpu.max_kernels": "32",
		"lat.host_issue": "4900", "lat.host_launch": "7000", "pagoda.spawn_cycles": "4900", "pagoda.sched_cycles": "1400",
		"pagoda.mtbs_per_sm": "2", "pagoda.smem_per_mtb": "16384",
		"cdp.stream_create": "0",
	},
	"gk110-64": {
		"io.model": "stages", "gpu.name": "gk110-64", "gpu.dram_gbps": "307.2", "gpu.concurrent_kernel_sm": "on", "gpu.sms": "64", "gpu.clock_mhz": "700", "gpu.max_ctas_per_sm": "8",
		"gpu.max_threads_per_sm": "1024", "gpu.regs_per_sm": "32768", "gpu.smem_per_sm": "16384", "gpu.max_kernels": "32",
		"lat.host_issue": "2450", "lat.host_launch": "3500", "pagoda.spawn_cycles": "2450", "pagoda.sched_cycles": "700",
		"pagoda.mtbs_per_sm": "1", "pagoda.smem_per_mtb": "16384",
		"cdp.stream_create": "7165",
	},
	"titanx": {
		"io.model": "none", "gpu.name": "titanx", "gpu.dram_gbps": "336.5", "gpu.concurrent_kernel_sm": "on", "gpu.sms": "24", "gpu.clock_mhz": "1000", "gpu.max_ctas_per_sm": "32",
		"gpu.max_threads_per_sm": "2048", "gpu.regs_per_sm": "65536", "gpu.smem_per_sm": "98304", "gpu.max_kernels": "32",
		"lat.host_issue": "3500", "lat.host_launch": "5000", "pagoda.spawn_cycles": "3500", "pagoda.sched_cycles": "1000",
		"pagoda.mtbs_per_sm": "2", "pagoda.smem_per_mtb": "32768",
		"cdp.stream_create": "7165",
	},
	"h100": {
		"io.model": "none", "gpu.name": "h100", "gpu.dram_gbps": "3350", "gpu.concurrent_kernel_sm": "on", "gpu.sms": "132", "gpu.clock_mhz": "1755", "gpu.max_ctas_per_sm": "32",
		"gpu.max_threads_per_sm": "2048", "gpu.regs_per_sm": "65536", "gpu.smem_per_sm": "233472", "gpu.max_kernels": "128",
		"lat.host_issue": "6143", "lat.host_launch": "8775", "pagoda.spawn_cycles": "6143", "pagoda.sched_cycles": "1755",
		"pagoda.mtbs_per_sm": "2", "pagoda.smem_per_mtb": "32768",
		"cdp.stream_create": "7165",
	},
}

func TestPresetValues(t *testing.T) {
	for name, own := range perPreset {
		t.Run(name, func(t *testing.T) {
			c, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			for _, k := range Keys() {
				want, ok := own[k]
				if !ok {
					want, ok = shared[k]
				}
				if !ok {
					t.Errorf("%s: no expected value in the test table", k)
					continue
				}
				if got, _ := c.Get(k); got != want {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
		})
	}
}

// The Pagoda MasterKernel (1024-thread MTBs at 32 registers per thread,
// Pagoda §6.1) must be resident on every preset.
func TestPresetMasterKernelFits(t *testing.T) {
	for _, p := range Presets() {
		c, err := Preset(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		n, limit := c.GPU.CTAsPerSM(32*WarpSize, 32, c.Pagoda.SmemPerMTB)
		if int64(n) < c.Pagoda.MTBsPerSM {
			t.Errorf("%s: %d MTBs fit (limit %s), want %d", p.Name, n, limit, c.Pagoda.MTBsPerSM)
		}
	}
}

func TestPresetRegistryMatchesFiles(t *testing.T) {
	files, err := fs.Glob(presetFiles, "presets/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var fromFiles []string
	for _, f := range files {
		fromFiles = append(fromFiles, strings.TrimSuffix(strings.TrimPrefix(f, "presets/"), ".json"))
	}
	sort.Strings(fromFiles)
	var listed []string
	for _, p := range Presets() {
		listed = append(listed, p.Name)
		if p.Source == "" || p.Line == "" || strings.Contains(p.Line, "\n") {
			t.Errorf("%s: want a source and a one-line description, got %+v", p.Name, p)
		}
	}
	if !sort.StringsAreSorted(listed) {
		t.Errorf("Presets not sorted: %v", listed)
	}
	if strings.Join(listed, " ") != strings.Join(fromFiles, " ") {
		t.Errorf("registry %v, embedded files %v", listed, fromFiles)
	}
	if len(listed) != len(perPreset) {
		t.Errorf("%d presets, test table has %d", len(listed), len(perPreset))
	}
	if !isPreset(DefaultPreset) {
		t.Errorf("DefaultPreset %q is not a preset", DefaultPreset)
	}
}

func TestPresetsReturnsCopy(t *testing.T) {
	p := Presets()
	p[0].Name = "changed"
	if Presets()[0].Name == "changed" {
		t.Error("Presets exposes its backing array")
	}
}

func TestPresetUnknown(t *testing.T) {
	for _, name := range []string{"k20", "", "../presets/k20c", "presets/k20c.json"} {
		_, err := Preset(name)
		if err == nil || !strings.Contains(err.Error(), "unknown GPU preset") || !strings.Contains(err.Error(), "k20c-spawn") {
			t.Errorf("Preset(%q) error = %v, want unknown preset listing presets", name, err)
		}
	}
}

// TestSpawnOverheadIsTableII checks that under k20c-spawn the SPAWN
// controller's derived t_overhead and the engine's charge for x launching
// lanes are one number: SPAWN Table II's 20210 + 1721·x in cycles of the
// clock it was measured at, which is the charge itself with cdp.clock_mhz
// = 0 and, at the default 706, each of Table 3's costs converted to 1400
// MHz: 8023 → 15910, 129 → 256, 12187 → 24167, 1592 → 3157 (x·1400/706
// rounded half up), so 40077 + 3413·x.
func TestSpawnOverheadIsTableII(t *testing.T) {
	c, err := Preset("k20c-spawn")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		clock float64
		a, b  int64
	}{{0, 1721, 20210}, {1400, 1721, 20210}, {706, 3413, 40077}} {
		c.CDP.ClockMHz = tc.clock
		for x := int64(1); x <= 32; x++ {
			want := tc.b + tc.a*x
			if got := c.SpawnOverhead(x, true); got != want {
				t.Errorf("cdp.clock_mhz=%v x=%d: t_overhead %d; want %d", tc.clock, x, got, want)
			}
			if got := c.LaunchCosts().APICost(x, true); got != want {
				t.Errorf("cdp.clock_mhz=%v x=%d: engine charge %d; want %d", tc.clock, x, got, want)
			}
		}
	}
	c.Spawn.OverheadA, c.Spawn.OverheadB = 1, 2
	if got := c.SpawnOverhead(3, true); got != 5 {
		t.Errorf("set overhead 1·3+2: %d; want 5", got)
	}
}

// TestLaunchCostsKeepTheirTime: on a preset at the measuring clock the
// costs are Table 3's; elsewhere they keep their K20c duration.
func TestLaunchCostsKeepTheirTime(t *testing.T) {
	for _, tc := range []struct {
		preset string
		want   CDP
	}{
		{"k20c", CDP{StreamCreate: 7165, ParamB: 8023, ParamA: 129, LaunchB: 12187, LaunchA: 1592}},
		// ·700/706: 7104.1, 7954.8, 127.9, 12083.4, 1578.47 → nearest.
		{"gk110-64", CDP{StreamCreate: 7104, ParamB: 7955, ParamA: 128, LaunchB: 12083, LaunchA: 1578}},
	} {
		c, err := Preset(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		got := c.LaunchCosts()
		got.ClockMHz, got.LaunchServers, got.PendingLimit, got.Streams = 0, 0, 0, ""
		if got != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.preset, got, tc.want)
		}
	}
}

// A warp that creates no stream (its children go into its CTA's default
// stream) pays DTBL Table 3's costs less cudaStreamCreateWithFlags:
// on k20c, 8023+129 + 12187+1592 = 21931 for one lane, against 29096.
func TestAPICostWithoutStream(t *testing.T) {
	c, err := Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	d := c.LaunchCosts()
	if got, want := d.APICost(1, false), int64(21931); got != want {
		t.Errorf("no creation: %d; want %d", got, want)
	}
	if got, want := d.APICost(1, true), int64(29096); got != want {
		t.Errorf("with creation: %d; want %d", got, want)
	}
	if got, want := c.SpawnOverhead(1, false), int64(21931); got != want {
		t.Errorf("SPAWN's t_overhead with no creation: %d; want %d", got, want)
	}
}

// TestConfigIsFlat holds Config to what Preset's decode-once relies on:
// a copy of a Config shares nothing with the original, so a caller that
// changes its preset (--set) changes no other caller's.
func TestConfigIsFlat(t *testing.T) {
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				walk(path+"."+f.Name, f.Type)
			}
		case reflect.Array:
			walk(path+"[]", ty.Elem())
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
			t.Errorf("%s is a %s: a copy of a Config would share it", path, ty.Kind())
		}
	}
	walk("Config", reflect.TypeOf(Config{}))
}

// TestPresetCopies changes a preset as --set does and loads it again: the
// second load is the preset's own values, not the first caller's.
func TestPresetCopies(t *testing.T) {
	for _, p := range Presets() {
		a, err := Preset(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		want := a
		a.GPU.SMs++
		if err := a.Set("gpu.clock_mhz", "123"); err != nil {
			t.Fatal(err)
		}
		b, err := Load(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if b != want {
			t.Errorf("%s: loaded again after a caller changed its copy: %+v, want %+v", p.Name, b, want)
		}
	}
	if _, err := Preset("k20"); err == nil {
		t.Error("Preset(k20): no error")
	}
}
