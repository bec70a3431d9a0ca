package nsys

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
)

// DefaultClockMHz (1400) is the clock assumed for a GPU whose report
// gives no usable clockRate and whose name the clock table does not know:
// a typical boost clock of data-centre GPUs (the figure the Kineto and
// Accel-Sim importers assume too).
const DefaultClockMHz = profile.DefaultClockMHz

// Options are the assumptions a conversion makes where the report is
// silent or ambiguous: which of several GPUs to convert, and the clock
// that nanoseconds become cycles at.
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	// ClockMHz is the clock that nanoseconds become cycles at (the
	// header's clock_mhz and the captured GPU's clock for
	// --gpu=captured). 0, the default, takes TARGET_INFO_GPU.clockRate,
	// else the clock table (see the package doc), else DefaultClockMHz.
	// Key "clock_mhz".
	ClockMHz float64
	// Device is the CUDA device (the kernels' deviceId) whose kernels and
	// copies are converted; other devices' events are counted as unused.
	// -1, the default, takes the device with the most kernels (the
	// lowest id on a tie). Key "device".
	Device int64
	// GPU names a model preset (replay gpus) that stands in for the
	// device when TARGET_INFO_GPU cannot describe it (no such table, no
	// row for the device, or a limit missing): its limits give the wave
	// estimate and the header's gpu_spec, and its clock is used unless
	// ClockMHz is set. Empty, the default, makes such a report an error.
	// Key "gpu".
	GPU string
	// Names chooses the kernel name written to the trace: "demangled"
	// (the default; demangledName, the full signature with templates) or
	// "short" (shortName, the base function name). Either falls back to
	// the other when its column is missing or its string is absent.
	// Key "names".
	Names string
}

// The values of Options.Names.
const (
	NamesDemangled = "demangled"
	NamesShort     = "short"
)

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options { return Options{Device: -1, Names: NamesDemangled} }

// Set sets the option named key (clock_mhz, device, gpu, names) from its
// text form, so a command line can expose every option as key=value. An
// unknown key or a value out of range is an error that says what is
// allowed.
func (o *Options) Set(key, value string) error {
	switch key {
	case "clock_mhz":
		v, ok := profile.ParseClockMHz(value)
		if !ok {
			return fmt.Errorf("nsys option clock_mhz=%q: want a number > 0 (or 0 for the report's clockRate)", value)
		}
		o.ClockMHz = v
	case "device":
		v, ok := profile.ParseDevice(value)
		if !ok {
			return fmt.Errorf("nsys option device=%q: want a device number (or -1 for the one with the most kernels)", value)
		}
		o.Device = v
	case "gpu":
		if _, err := model.Preset(value); err != nil {
			return fmt.Errorf("nsys option gpu=%q: %v", value, err)
		}
		o.GPU = value
	case "names":
		if value != NamesDemangled && value != NamesShort {
			return fmt.Errorf("nsys option names=%q: want %s or %s", value, NamesDemangled, NamesShort)
		}
		o.Names = value
	default:
		return fmt.Errorf("unknown nsys option %q; valid: clock_mhz, device, gpu, names", key)
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
		"names=" + o.Names,
	}, " ")
}
