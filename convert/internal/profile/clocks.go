package profile

import "strings"

// DefaultClockMHz is the clock assumed for a GPU whose profile records
// no clock and whose name the clock table does not know: a typical boost
// clock of the data-centre GPUs profiles come from (the same figure the
// Accel-Sim importer assumes).
const DefaultClockMHz = 1400

// knownClocks are boost clocks in MHz, matched against the device name
// (longest key first, ignoring case). The figures are the vendors'
// published boost clocks: NVIDIA's architecture whitepapers (V100 1530,
// A100 1410) and product pages/datasheets for the rest; AMD's Instinct
// product pages for MI100/MI210/MI250X/MI300X (which only the PyTorch
// profiler sees). H100 uses 1755 MHz, the clock of the project's h100
// preset (public H100 specs), so --gpu=captured and --gpu=h100 agree;
// set clock_mhz=1980 for an H100 SXM5 running at its full boost.
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
	{"MI300X", 2100}, {"MI250X", 1700}, {"MI250", 1700}, {"MI210", 1700},
	{"MI100", 1502},
}

// ClockFor returns the boost clock of the GPU a device name names and
// the clock table's key that matched it, or DefaultClockMHz and "" when
// no key occurs in the name. Profiles record times, not cycles, and
// often no clock; a trace needs one, and a GPU's boost clock is what it
// runs kernels at under load.
func ClockFor(device string) (mhz float64, key string) {
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
