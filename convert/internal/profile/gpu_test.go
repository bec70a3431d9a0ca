package profile

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

func TestCaptured(t *testing.T) {
	spec := &trace.GPUSpec{SMs: 108, ClockMHz: 1410, MaxCTAsPerSM: 32, MaxThreadsPerSM: 2048, RegsPerSM: 65536, SmemPerSM: 167936}
	g := Captured("NVIDIA A100", spec, "clock table (A100)")
	m := g.Model
	if g.Name != "NVIDIA A100" || g.Spec != spec || g.Clock != "clock table (A100)" ||
		m.SMs != 108 || m.ClockMHz != 1410 || m.MaxCTAsPerSM != 32 || m.MaxThreadsPerSM != 2048 || m.RegsPerSM != 65536 || m.SmemPerSM != 167936 {
		t.Errorf("Captured = %+v, model %+v", g, m)
	}
}

func TestFromPreset(t *testing.T) {
	g, err := FromPreset("k20c", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := trace.GPUSpec{SMs: 13, ClockMHz: 706, MaxCTAsPerSM: 16, MaxThreadsPerSM: 2048, RegsPerSM: 65536, SmemPerSM: 48 << 10, MaxKernels: 32}
	if *g.Spec != want || g.Clock != "preset k20c" || g.Name != g.Model.Name || g.Model.SMs != 13 {
		t.Errorf("FromPreset(k20c) = %+v, spec %+v", g, g.Spec)
	}
	g, err = FromPreset("k20c", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if g.Spec.ClockMHz != 1000 || g.Model.ClockMHz != 1000 || g.Clock != "option clock_mhz" {
		t.Errorf("FromPreset(k20c, 1000) = %+v, spec %+v", g, g.Spec)
	}
	if _, err := FromPreset("no-such-gpu", 0); err == nil {
		t.Error("an unknown preset was accepted")
	}
}

// TestPresetHint: the hint names every preset, each of which FromPreset
// accepts, so a user can copy any of them.
func TestPresetHint(t *testing.T) {
	hint := PresetHint()
	for _, p := range model.Presets() {
		if !strings.Contains(hint, " "+p.Name) {
			t.Errorf("hint %q does not name preset %s", hint, p.Name)
		}
		if _, err := FromPreset(p.Name, 0); err != nil {
			t.Errorf("FromPreset(%s): %v", p.Name, err)
		}
	}
}
