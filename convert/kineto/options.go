package kineto

import (
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
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
// The fields are those every profile importer shares (clock_mhz, device,
// gpu). For a Kineto trace, ClockMHz 0 (the default) looks the device name
// up in the clock table (see the package doc) and falls back to
// DefaultClockMHz; Device is the kernel events' args.device, else pid,
// and −1 (the default) takes the device of the first kernel launched;
// GPU stands in for a device the trace has no deviceProperties for (older
// and bare-array traces have none) or whose deviceProperties lack a limit
// the estimate needs; complete deviceProperties are the measured GPU and
// win.
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	profile.Common
}

var keys = profile.Keys{Importer: "kineto", ClockZero: "the clock table", DeviceAny: "the first kernel's"}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options { return Options{profile.Common{Device: -1}} }

// Set sets the option named key (clock_mhz, device, gpu) from its text form, so
// a command line can expose every option as key=value. An unknown key or a
// value out of range is an error that says what is allowed.
func (o *Options) Set(key, value string) error {
	if handled, err := o.Common.Set(keys, key, value); handled {
		return err
	}
	return keys.Unknown(key)
}

// String gives the options as space-separated key=value pairs; the
// converter records it in the trace header's meta.
func (o Options) String() string { return strings.Join(o.Pairs(), " ") }
