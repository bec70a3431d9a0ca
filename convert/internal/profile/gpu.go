package profile

import (
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// GPU is the captured GPU as an importer records it. The header carries
// Name and Spec, so `replay --gpu=captured` replays on the machine the
// profile came from; the wave estimate works on Model, the same limits
// as the replay's occupancy model; Clock says where the clock came from,
// since profiles record times and the clock that turns them into cycles
// is often an assumption.
type GPU struct {
	Name  string         // the header's gpu
	Spec  *trace.GPUSpec // the header's gpu_spec, clock included
	Model model.GPU      // Spec as an occupancy model
	Clock string         // where Spec.ClockMHz came from
}

// Captured describes a device the profile gives the limits of.
func Captured(name string, spec *trace.GPUSpec, clock string) GPU {
	return GPU{Name: name, Spec: spec, Clock: clock, Model: model.GPU{
		Name:            name,
		SMs:             spec.SMs,
		ClockMHz:        spec.ClockMHz,
		MaxCTAsPerSM:    spec.MaxCTAsPerSM,
		MaxThreadsPerSM: spec.MaxThreadsPerSM,
		RegsPerSM:       spec.RegsPerSM,
		SmemPerSM:       spec.SmemPerSM,
		MaxKernels:      spec.MaxKernels,
	}}
}

// PresetHint tells the user of an importer whose profile does not
// describe its device how to name one, listing the presets, so that the
// error is the last step rather than the first of two.
func PresetHint() string {
	var names []string
	for _, p := range model.Presets() {
		names = append(names, p.Name)
	}
	return "set the gpu option to a preset to assume one: --opt gpu=NAME, NAME one of " + strings.Join(names, ", ")
}

// FromPreset stands the model preset named preset in for a device the
// profile does not describe (no device properties, or one limit
// missing), at clockMHz when it is positive (the importer's clock_mhz
// option) and at the preset's clock otherwise.
func FromPreset(preset string, clockMHz float64) (GPU, error) {
	cfg, err := model.Preset(preset)
	if err != nil {
		return GPU{}, err
	}
	g, src := cfg.GPU, "preset "+preset
	if clockMHz > 0 {
		g.ClockMHz, src = clockMHz, "option clock_mhz"
	}
	spec := &trace.GPUSpec{
		SMs: g.SMs, ClockMHz: g.ClockMHz, MaxCTAsPerSM: g.MaxCTAsPerSM, MaxThreadsPerSM: g.MaxThreadsPerSM,
		RegsPerSM: g.RegsPerSM, SmemPerSM: g.SmemPerSM, MaxKernels: g.MaxKernels,
	}
	return GPU{Name: g.Name, Spec: spec, Model: g, Clock: src}, nil
}
