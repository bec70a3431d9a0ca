package nsys

import "strings"

// knownClocks are boost clocks in MHz of data-centre and workstation GPUs,
// matched against the device name (longest key first, ignoring case), for
// reports whose TARGET_INFO_GPU has no usable clockRate. The figures are
// the vendors' published boost clocks (NVIDIA's architecture whitepapers
// for V100 1530 and A100 1410, product pages and datasheets for the
// rest). H100 uses 1755 MHz, the clock of the project's h100 preset, so
// that --gpu=captured and --gpu=h100 agree. It is the Kineto importer's
// table less the AMD parts, which Nsight Systems does not profile.
var knownClocks = []struct {
	name string
	mhz  float64
}{
	{"RTX 3090 Ti", 1860}, {"RTX 3090", 1695}, {"RTX 3080", 1710},
	{"RTX 4090", 2520}, {"RTX 4080", 2505}, {"RTX A6000", 1800},
	{"RTX 6000 Ada", 2505}, {"TITAN V", 1455}, {"TITAN RTX", 1770},
	{"GH200", 1980}, {"H200", 1980}, {"H100", 1755}, {"H800", 1755},
	{"A100", 1410}, {"A800", 1410}, {"A10G", 1710}, {"A10", 1695},
	{"A30", 1440}, {"A40", 1740}, {"L40S", 2520}, {"L40", 2490},
	{"L4", 2040}, {"V100", 1530}, {"T4", 1590}, {"P100", 1480},
}

// clockFor returns the clock for a device name from knownClocks and the
// entry's key, or DefaultClockMHz and "" when no key occurs in the name.
func clockFor(device string) (mhz float64, key string) {
	name := strings.ToUpper(device)
	for _, c := range knownClocks {
		if strings.Contains(name, strings.ToUpper(c.name)) && len(c.name) > len(key) {
			mhz, key = c.mhz, c.name
		}
	}
	if key == "" {
		return DefaultClockMHz, ""
	}
	return mhz, key
}

// clockRateMHz reads TARGET_INFO_GPU.clockRate. The export schema
// documents it in Hz, but CUDA's cudaDeviceProp.clockRate, which it
// mirrors, is in kHz, and exports have carried either; a GPU core clock
// lies between 100 MHz and 10 GHz, which in Hz, kHz and MHz are three
// disjoint ranges, so the magnitude tells the unit. ok is false for a
// value in none of them.
func clockRateMHz(v int64) (mhz float64, unit string, ok bool) {
	switch {
	case v >= 100e6 && v <= 10e9:
		return float64(v) / 1e6, "Hz", true
	case v >= 100e3 && v <= 10e6:
		return float64(v) / 1e3, "kHz", true
	case v >= 100 && v <= 10e3:
		return float64(v), "MHz", true
	}
	return 0, "", false
}
