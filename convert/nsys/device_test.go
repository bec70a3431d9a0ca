package nsys

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestDeviceOption converts the fixture's second GPU and counts the first
// one's events as unused.
func TestDeviceOption(t *testing.T) {
	o := DefaultOptions()
	if err := o.Set("device", "1"); err != nil {
		t.Fatal(err)
	}
	recs, sum := convertFixture(t, baseFixture(), o)
	want := []string{
		"header Tesla T4 clock 1590",
		"kernel 1 void gemm<float>(float const*, float*, int) grid [1 1 1] block [32 1 1] regs 8 smem 0",
		"launch 1 stream 7 t 0 after []",
		"ctas 1 cycles 1590",
	}
	if got := outline(recs); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	const unused = "not converted: 1 cuda_event (other device), 3 kernel (other device), 3 memcpy (other device), 1 memset (other device), 1 runtime:cudaMalloc, 2 synchronization (other device)"
	if !strings.HasSuffix(sum.String(), unused) {
		t.Errorf("summary %s\nwant it to end %s", sum, unused)
	}
	if h := recs[0].(*trace.Header); h.GPUSpec.SMs != 40 || h.GPUSpec.MaxThreadsPerSM != 1024 || h.GPUSpec.MaxCTAsPerSM != 16 {
		t.Errorf("spec %+v", h.GPUSpec)
	}
}

// TestClock checks where the clock comes from: the option, clockRate in
// whichever unit the export wrote it, the clock table, the default.
func TestClock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rate  any    // TARGET_INFO_GPU.clockRate of device 0
		gpu   string // its name
		opt   string // clock_mhz option
		mhz   float64
		where string
	}{
		{"Hz", 1410000000, "NVIDIA A100-SXM4-40GB", "", 1410, "TARGET_INFO_GPU.clockRate (Hz)"},
		{"kHz", 1755000, "NVIDIA H100 80GB HBM3", "", 1755, "TARGET_INFO_GPU.clockRate (kHz)"},
		{"MHz", 1530, "Tesla V100-SXM2-16GB", "", 1530, "TARGET_INFO_GPU.clockRate (MHz)"},
		{"option", 1410000000, "NVIDIA A100-SXM4-40GB", "1000", 1000, "option clock_mhz"},
		{"NULL rate", nil, "NVIDIA A100-SXM4-40GB", "", 1410, "clock table (A100)"},
		{"implausible rate", 42, "NVIDIA L40S", "", 2520, "clock table (L40S)"},
		{"unknown GPU", 0, "Mystery GPU", "", DefaultClockMHz, "default (no usable clockRate; device not in the clock table)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := baseFixture()
			f.loosen()
			f[tabGPU].rows[0]["clockRate"], f[tabGPU].rows[0]["name"] = tc.rate, tc.gpu
			o := DefaultOptions()
			if tc.opt != "" {
				if err := o.Set("clock_mhz", tc.opt); err != nil {
					t.Fatal(err)
				}
			}
			recs, sum := convertFixture(t, f, o)
			h := recs[0].(*trace.Header)
			if sum.ClockMHz != tc.mhz || sum.Clock != tc.where || h.ClockMHz != tc.mhz || h.GPUSpec.ClockMHz != tc.mhz || h.Meta["clock_source"] != tc.where {
				t.Errorf("clock %g MHz from %q (header %g, spec %g); want %g from %q", sum.ClockMHz, sum.Clock, h.ClockMHz, h.GPUSpec.ClockMHz, tc.mhz, tc.where)
			}
		})
	}
}

// olderGPUTables gives f the device tables of some older exports of
// Nsight Systems (no export metadata table): TARGET_INFO_GPU with names
// only, keyed by deviceId, and the A100's limits in TARGET_INFO_CUDA_GPU,
// its clock in kHz.
func olderGPUTables(f fixture) {
	f[tabGPU] = &table{cols: []string{"vmId INTEGER NOT NULL", "deviceId INTEGER NOT NULL", "name TEXT",
		"busLocation TEXT", "isDiscrete INTEGER"}}
	f.add(tabGPU, map[string]any{"vmId": 0, "deviceId": 0, "name": "NVIDIA A100-SXM4-40GB", "busLocation": "0000:07:00.0", "isDiscrete": 1})
	f[tabCUDAGPU] = &table{cols: []string{"vmId INTEGER NOT NULL", "name TEXT NOT NULL", "numThreadsPerWarp INTEGER NOT NULL",
		"coreClockRate INTEGER NOT NULL", "numMultiprocessors INTEGER NOT NULL", "maxWarpsPerMultiprocessor INTEGER NOT NULL",
		"maxBlocksPerMultiprocessor INTEGER NOT NULL", "computeCapabilityMajor INTEGER NOT NULL",
		"computeCapabilityMinor INTEGER NOT NULL", "deviceId INTEGER NOT NULL", "pid INTEGER",
		"maxSharedMemoryPerMultiprocessor INTEGER", "maxRegistersPerMultiprocessor INTEGER"}}
	f.add(tabCUDAGPU, map[string]any{"vmId": 0, "name": "NVIDIA A100-SXM4-40GB", "numThreadsPerWarp": 32,
		"coreClockRate": 1410000, "numMultiprocessors": 108, "maxWarpsPerMultiprocessor": 64,
		"maxBlocksPerMultiprocessor": 32, "computeCapabilityMajor": 8, "computeCapabilityMinor": 0,
		"deviceId": 0, "pid": 4242, "maxSharedMemoryPerMultiprocessor": 167936, "maxRegistersPerMultiprocessor": 65536})
}

// TestOlderGPUTable converts the fixture with its A100 described as
// some older exports describe it: the same trace as from
// TARGET_INFO_GPU, the clock from coreClockRate in kHz.
func TestOlderGPUTable(t *testing.T) {
	want, _ := convertFixture(t, baseFixture(), DefaultOptions())
	f := baseFixture()
	olderGPUTables(f)
	got, sum := convertFixture(t, f, DefaultOptions())
	if !reflect.DeepEqual(outline(got), outline(want)) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(outline(got), "\n"), strings.Join(outline(want), "\n"))
	}
	if g, w := got[0].(*trace.Header).GPUSpec, want[0].(*trace.Header).GPUSpec; *g != *w {
		t.Errorf("spec %+v, want %+v", g, w)
	}
	if sum.Clock != "TARGET_INFO_CUDA_GPU.coreClockRate (kHz)" {
		t.Errorf("clock from %q", sum.Clock)
	}
}

// TestGPUInfo checks how the device's TARGET_INFO_GPU row is found and
// read: by cuDevice, through TARGET_INFO_CUDA_DEVICE, by id; the compute
// capability standing in for maxBlocksPerSm; a preset standing in for
// the whole row.
func TestGPUInfo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(fixture)
		opts   []string
		gpu    string
		ctas   int
		clock  string
	}{
		{"cuDevice", func(f fixture) {}, nil, "NVIDIA A100-SXM4-40GB", 32, "TARGET_INFO_GPU.clockRate (Hz)"},
		{"by id", func(f fixture) { f.drop(tabGPU, "cuDevice") }, nil, "NVIDIA A100-SXM4-40GB", 32, "TARGET_INFO_GPU.clockRate (Hz)"},
		{"through TARGET_INFO_CUDA_DEVICE", func(f fixture) {
			f.drop(tabGPU, "cuDevice")
			f[tabCUDADev] = &table{cols: []string{"gpuId INTEGER", "cudaId INTEGER", "pid INTEGER"}}
			f.add(tabCUDADev, map[string]any{"gpuId": 1, "cudaId": 0, "pid": 4242})
		}, nil, "Tesla T4", 16, "TARGET_INFO_GPU.clockRate (Hz)"},
		{"compute capability", func(f fixture) { f.drop(tabGPU, "maxBlocksPerSm"); f[tabGPU].rows[0]["computeMinor"] = 6 }, nil, "NVIDIA A100-SXM4-40GB", 16, "TARGET_INFO_GPU.clockRate (Hz)"},
		{"unknown compute capability", func(f fixture) { f.drop(tabGPU, "maxBlocksPerSm"); f[tabGPU].rows[0]["computeMajor"] = 42 }, nil, "NVIDIA A100-SXM4-40GB", 32, "TARGET_INFO_GPU.clockRate (Hz)"},
		{"preset for a missing table", func(f fixture) { delete(f, tabGPU) }, []string{"gpu=h100"}, "h100", 32, "preset h100"},
		{"preset for a missing limit", func(f fixture) { f.drop(tabGPU, "maxShmemPerSm") }, []string{"gpu=h100", "clock_mhz=1000"}, "h100", 32, "option clock_mhz"},
		{"complete row beats preset", func(f fixture) {}, []string{"gpu=k20c"}, "NVIDIA A100-SXM4-40GB", 32, "TARGET_INFO_GPU.clockRate (Hz)"},
		// TARGET_INFO_CUDA_GPU has a row per process: another process's
		// device 0 (a T4, listed first) is not the kernels' device 0.
		{"the kernels' process's row", func(f fixture) {
			olderGPUTables(f)
			t4 := maps.Clone(f[tabCUDAGPU].rows[0])
			t4["pid"], t4["name"], t4["numMultiprocessors"], t4["maxBlocksPerMultiprocessor"] = 1111, "Tesla T4", 40, 16
			f[tabCUDAGPU].rows = append([]map[string]any{t4}, f[tabCUDAGPU].rows...)
		}, nil, "NVIDIA A100-SXM4-40GB", 32, "TARGET_INFO_CUDA_GPU.coreClockRate (kHz)"},
		// A clock rate that is no integer counts as none.
		{"text clock rate", func(f fixture) { olderGPUTables(f); f[tabCUDAGPU].rows[0]["coreClockRate"] = "fast" }, nil, "NVIDIA A100-SXM4-40GB", 32, "clock table (A100)"},
		// A TARGET_INFO_GPU row without the limits gives way to a
		// TARGET_INFO_CUDA_GPU row with them.
		{"limits from TARGET_INFO_CUDA_GPU", func(f fixture) {
			g := f[tabGPU]
			olderGPUTables(f)
			f[tabGPU] = g
			f.drop(tabGPU, "smCount")
		}, nil, "NVIDIA A100-SXM4-40GB", 32, "TARGET_INFO_CUDA_GPU.coreClockRate (kHz)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := baseFixture()
			tc.change(f)
			o := DefaultOptions()
			for _, kv := range tc.opts {
				k, v, _ := strings.Cut(kv, "=")
				if err := o.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			recs, sum := convertFixture(t, f, o)
			h := recs[0].(*trace.Header)
			if h.GPU != tc.gpu || h.GPUSpec.MaxCTAsPerSM != tc.ctas || sum.Clock != tc.clock {
				t.Errorf("gpu %q, %d CTAs per SM, clock from %q; want %q, %d, %q", h.GPU, h.GPUSpec.MaxCTAsPerSM, sum.Clock, tc.gpu, tc.ctas, tc.clock)
			}
		})
	}
}
