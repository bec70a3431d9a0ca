package gpgpusim

import (
	"fmt"
	"strings"
)

// Options are the assumptions a conversion makes where the log is silent.
//
// Config names a gpgpusim.config to read the simulated GPU from when the
// log does not print its options (GPGPU-Sim prints every option at the
// top of its output, and those win); Convert defaults it to the
// gpgpusim.config beside the log, if there is one. GPU is the name the
// header gives the captured GPU (--gpu=captured replays on it).
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	Config string
	GPU    string
	// Inline is how a flat version of the program does a child's work
	// in its parent (inline_cycles): "lane", the launching thread loops
	// over the child's threads (SPAWN's and DTBL's flat codes), or "cta",
	// the parent CTA's threads share them, each taking the child threads
	// it stands for.
	Inline string
	// Measured, when set, is called with each kernel's measured run as its
	// records are written: what the simulator did, for comparing a replay
	// with it (cmd/experiment's validation does).
	Measured func(Kernel)
}

// Kernel is one kernel's run as the log measured it, in the simulator's
// cycles.
type Kernel struct {
	ID, Parent uint64 // Parent is 0 for a host launch
	Name       string
	Launch     int64 // the host's push, or the device launch's cycle (an upper bound; see launchCycle)
	Start, End int64 // its first CTA's start and its last CTA's end, children not included
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options { return Options{GPU: "gpgpusim", Inline: "lane"} }

// Set sets the option named key (config, gpu, inline) from its text form, so a
// command line can expose every option as key=value.
func (o *Options) Set(key, value string) error {
	switch key {
	case "config":
		o.Config = value
	case "gpu":
		if strings.TrimSpace(value) == "" {
			return fmt.Errorf("gpgpusim option gpu: want a name")
		}
		o.GPU = value
	case "inline":
		if value != "lane" && value != "cta" {
			return fmt.Errorf("gpgpusim option inline is %q; want lane or cta", value)
		}
		o.Inline = value
	default:
		return fmt.Errorf("unknown gpgpusim option %q; known: config, gpu, inline", key)
	}
	return nil
}
