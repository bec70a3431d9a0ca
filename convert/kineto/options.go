package kineto

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
)

// DefaultClockMHz (1400) is the clock assumed for a GPU the clock table
// does not know: a typical boost clock of the data-centre GPUs PyTorch
// profiles come from (the figure the Nsight Systems and Accel-Sim
// importers assume too).
const DefaultClockMHz = profile.DefaultClockMHz

// Options are the assumptions a conversion makes where the trace is silent.
// Kineto records times in microseconds but no clock, and trace cycles need
// one; a trace may also hold several GPUs while a gpureplay trace describes
// one.
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	// ClockMHz is the clock that microseconds become cycles at (the
	// header's clock_mhz and the captured GPU's clock for --gpu=captured).
	// 0, the default, looks the device name up in the clock table (see
	// the package doc) and falls back to DefaultClockMHz. Key "clock_mhz".
	ClockMHz float64
	// Device is the device (the kernel events' args.device, else pid)
	// whose kernels and copies are converted; events of other devices are
	// counted as unused. -1, the default, takes the device of the first
	// kernel launched. Key "device".
	Device int64
	// GPU names a model preset (replay gpus) that stands in for the
	// device when the trace has no deviceProperties for it, as older and
	// bare-array traces do not: its limits give the wave estimate and
	// the header's gpu_spec, and its clock is used unless ClockMHz is
	// set. Empty, the default, makes such a trace an error. Key "gpu".
	GPU string
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options { return Options{Device: -1} }

// Set sets the option named key (clock_mhz, device, gpu) from its text form, so
// a command line can expose every option as key=value. An unknown key or a
// value out of range is an error that says what is allowed.
func (o *Options) Set(key, value string) error {
	switch key {
	case "clock_mhz":
		v, ok := profile.ParseClockMHz(value)
		if !ok {
			return fmt.Errorf("kineto option clock_mhz=%q: want a number > 0 (or 0 for the clock table)", value)
		}
		o.ClockMHz = v
	case "device":
		v, ok := profile.ParseDevice(value)
		if !ok {
			return fmt.Errorf("kineto option device=%q: want a device number (or -1 for the first kernel's)", value)
		}
		o.Device = v
	case "gpu":
		if _, err := model.Preset(value); err != nil {
			return fmt.Errorf("kineto option gpu=%q: %v", value, err)
		}
		o.GPU = value
	default:
		return fmt.Errorf("unknown kineto option %q; valid: clock_mhz, device, gpu", key)
	}
	return nil
}

// String gives the options as space-separated key=value pairs; the
// converter records it in the trace header's meta.
func (o Options) String() string {
	return strings.Join([]string{
		"clock_mhz=" + strconv.FormatFloat(o.ClockMHz, 'g', -1, 64),
		"device=" + strconv.FormatInt(o.Device, 10),
		"gpu=" + o.GPU,
	}, " ")
}
