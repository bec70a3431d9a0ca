package profile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/model"
)

// Common holds the options every profile importer takes, so that
// clock_mhz, device and gpu parse, validate and print alike whichever tool
// the profile came from. Each importer embeds it in its Options and says
// there what 0 and −1 mean for its format.
type Common struct {
	// ClockMHz is the clock that profile times become cycles at (the
	// header's clock_mhz and the captured GPU's clock for --gpu=captured);
	// 0 leaves the choice to the importer. Key "clock_mhz".
	ClockMHz float64
	// Device is the device whose kernels and copies are converted; other
	// devices' events are counted as unused. −1 leaves the choice to the
	// importer. Key "device".
	Device int64
	// GPU names a model preset (replay gpus) that stands in for the
	// device when the profile cannot describe it: its limits give the wave
	// estimate and the header's gpu_spec, and its clock is used unless
	// ClockMHz is set. Empty makes such a profile an error. Key "gpu".
	GPU string
}

// Keys words an importer's messages about its options: its name, what a
// clock_mhz of 0 and a device of −1 choose, and the keys it takes beyond
// Common's, so that an error tells the user what is allowed.
type Keys struct {
	Importer  string
	ClockZero string
	DeviceAny string
	Extra     []string
}

// Set sets clock_mhz, device or gpu from its text form. handled is false
// for any other key, which the importer then tries itself.
func (c *Common) Set(k Keys, key, value string) (handled bool, err error) {
	switch key {
	case "clock_mhz":
		v, ok := ParseClockMHz(value)
		if !ok {
			return true, fmt.Errorf("%s option clock_mhz=%q: want a number > 0 (or 0 for %s)", k.Importer, value, k.ClockZero)
		}
		c.ClockMHz = v
	case "device":
		v, ok := ParseDevice(value)
		if !ok {
			return true, fmt.Errorf("%s option device=%q: want a device number (or -1 for %s)", k.Importer, value, k.DeviceAny)
		}
		c.Device = v
	case "gpu":
		if _, err := model.Preset(value); err != nil {
			return true, fmt.Errorf("%s option gpu=%q: %v", k.Importer, value, err)
		}
		c.GPU = value
	default:
		return false, nil
	}
	return true, nil
}

// Unknown is the error for a key the importer does not take; it lists
// the ones it does.
func (k Keys) Unknown(key string) error {
	valid := append([]string{"clock_mhz", "device", "gpu"}, k.Extra...)
	return fmt.Errorf("unknown %s option %q; valid: %s", k.Importer, key, strings.Join(valid, ", "))
}

// Pairs gives the options as key=value pairs, in the order of Common's
// fields, for the converted trace's meta.
func (c Common) Pairs() []string {
	return []string{
		"clock_mhz=" + strconv.FormatFloat(c.ClockMHz, 'g', -1, 64),
		"device=" + strconv.FormatInt(c.Device, 10),
		"gpu=" + c.GPU,
	}
}

// ParseClockMHz reads a clock_mhz option: a finite number ≥ 0, where 0
// means "take the clock from the profile or the table".
func ParseClockMHz(value string) (mhz float64, ok bool) {
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}

// ParseDevice reads a device option: a device number, or −1 for the
// importer's default choice.
func ParseDevice(value string) (device int64, ok bool) {
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil || v < -1 {
		return 0, false
	}
	return v, true
}
