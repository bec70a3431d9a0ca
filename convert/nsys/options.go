package nsys

import (
	"fmt"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
)

// DefaultClockMHz (1400) is the clock assumed for a GPU whose report
// gives no usable clockRate and whose name the clock table does not know:
// a typical boost clock of data-centre GPUs (the figure the Kineto and
// Accel-Sim importers assume too).
const DefaultClockMHz = profile.DefaultClockMHz

// Options are the assumptions a conversion makes where the report is
// silent or ambiguous: which of several GPUs to convert, the clock that
// nanoseconds become cycles at, and which kernel name to write.
//
// The first fields are those every profile importer shares (clock_mhz,
// device, gpu). For an Nsight Systems report, ClockMHz 0 (the default)
// takes TARGET_INFO_GPU.clockRate, else the clock table (see the package
// doc), else DefaultClockMHz; Device is the kernels' deviceId, and −1
// (the default) takes the device with the most kernels (the lowest id on
// a tie); GPU stands in for a device TARGET_INFO_GPU cannot describe (no
// such table, no row for the device, or a limit missing).
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	profile.Common
	// Names chooses the kernel name written to the trace: "demangled"
	// (the default; demangledName, the full signature with templates) or
	// "short" (shortName, the base function name). Either falls back to
	// the other when its column is missing or its string is absent.
	// Key "names".
	Names string
}

var keys = profile.Keys{Importer: "nsys", ClockZero: "the report's clockRate", DeviceAny: "the one with the most kernels", Extra: []string{"names"}}

// The values of Options.Names.
const (
	NamesDemangled = "demangled"
	NamesShort     = "short"
)

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{Common: profile.Common{Device: -1}, Names: NamesDemangled}
}

// Set sets the option named key (clock_mhz, device, gpu, names) from its
// text form, so a command line can expose every option as key=value. An
// unknown key or a value out of range is an error that says what is
// allowed.
func (o *Options) Set(key, value string) error {
	if handled, err := o.Common.Set(keys, key, value); handled {
		return err
	}
	if key != "names" {
		return keys.Unknown(key)
	}
	if value != NamesDemangled && value != NamesShort {
		return fmt.Errorf("nsys option names=%q: want %s or %s", value, NamesDemangled, NamesShort)
	}
	o.Names = value
	return nil
}

// String gives the options as space-separated key=value pairs; the
// converter records it in the trace header's meta.
func (o Options) String() string {
	return strings.Join(append(o.Pairs(), "names="+o.Names), " ")
}
