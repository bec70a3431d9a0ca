package nsys

import (
	"strings"
	"testing"
)

func TestOptionsSet(t *testing.T) {
	o := DefaultOptions()
	for _, kv := range [][2]string{{"clock_mhz", "1530.5"}, {"device", "3"}, {"gpu", "h100"}, {"names", "short"}} {
		if err := o.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if got, want := o.String(), "clock_mhz=1530.5 device=3 gpu=h100 names=short"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, tc := range [][3]string{
		{"clock_mhz", "-1", "want a number > 0"},
		{"clock_mhz", "NaN", "want a number > 0"},
		{"device", "-2", "want a device number"},
		{"device", "gpu0", "want a device number"},
		{"gpu", "no-such-gpu", `gpu="no-such-gpu"`},
		{"names", "mangled", "want demangled or short"},
		{"clock", "1", "unknown nsys option \"clock\"; valid: clock_mhz, device, gpu, names"},
	} {
		if err := o.Set(tc[0], tc[1]); err == nil || !strings.Contains(err.Error(), tc[2]) {
			t.Errorf("Set(%s, %s) = %v, want an error containing %q", tc[0], tc[1], err, tc[2])
		}
	}
}

// TestKernelColumns keeps the kernel query's column names in step with
// the indexes readKernel uses.
func TestKernelColumns(t *testing.T) {
	if len(kernelNames) != kName+1 || kernelNames[kGridX] != "gridX" || kernelNames[kDynamic] != "dynamicSharedMemory" {
		t.Errorf("kernelNames %q do not match the k* indexes", kernelNames)
	}
}

func TestClockRateUnits(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		mhz  float64
		unit string
	}{
		{1410000000, 1410, "Hz"}, {100000000, 100, "Hz"}, {10000000000, 10000, "Hz"},
		{1410000, 1410, "kHz"}, {1410, 1410, "MHz"},
		{99, 0, ""}, {50000, 0, ""}, {50000000, 0, ""}, {-1410000, 0, ""}, {1 << 62, 0, ""},
	} {
		mhz, unit, ok := clockRateMHz(tc.v)
		if mhz != tc.mhz || unit != tc.unit || ok != (tc.unit != "") {
			t.Errorf("clockRateMHz(%d) = %g %q %v, want %g %q", tc.v, mhz, unit, ok, tc.mhz, tc.unit)
		}
	}
}
