package model

import (
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestFromSpec(t *testing.T) {
	base, _ := Preset("k20c")
	spec := &trace.GPUSpec{SMs: 132, ClockMHz: 1755, SmemPerSM: 233472, MaxKernels: 128}
	c := FromSpec(base, "H100 80GB HBM3", spec)

	want := base
	want.GPU.Name = "H100 80GB HBM3"
	want.GPU.SMs = 132
	want.GPU.ClockMHz = 1755
	want.GPU.SmemPerSM = 233472
	want.GPU.MaxKernels = 128
	// Runtime costs keep their duration: 3.5 µs, 5 µs, 3.5 µs, 1 µs at
	// 1755 MHz, the same cycles the h100 preset has; GeMTC's lock holds
	// are device cycles and stay.
	want.Lat.HostIssue = 6143
	want.Lat.HostLaunch = 8775
	want.Pagoda.SpawnCycles = 6143
	want.Pagoda.SchedCycles = 1755
	if c != want {
		t.Errorf("got\n%+v\nwant\n%+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestFromSpecPartialAndNil(t *testing.T) {
	base, _ := Preset("titanx")
	if c := FromSpec(base, "", nil); c != base {
		t.Errorf("nil spec, no name changed the config: %+v", c)
	}
	if c := FromSpec(base, "captured", nil); c.GPU.Name != "captured" || c.GPU.SMs != base.GPU.SMs {
		t.Errorf("nil spec: %+v", c.GPU)
	}
	c := FromSpec(base, "", &trace.GPUSpec{MaxCTAsPerSM: 16, MaxThreadsPerSM: 1536, RegsPerSM: -5})
	want := base
	want.GPU.MaxCTAsPerSM = 16
	want.GPU.MaxThreadsPerSM = 1536
	if c != want {
		t.Errorf("got %+v, want %+v (same clock, so no rescaling; unknown and negative fields kept)", c.GPU, want.GPU)
	}
}
