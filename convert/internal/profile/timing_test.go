package profile

import (
	"math"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// TestSchedule checks the backward pass with a host issue of 100 cycles,
// 200 to the GPU and 5 to dispatch.
func TestSchedule(t *testing.T) {
	lat := Latency{Issue: 100, Launch: 200, Dispatch: 5}
	k := func(start int64) Op { return Op{Start: start, Kind: Kernel} }
	for _, tc := range []struct {
		name   string
		ops    []Op
		want   []int64
		origin int64
	}{
		// Idle GPU: each op is ready exactly at its start, 305 cycles
		// (300 for a copy) after its issue.
		{"idle", []Op{k(1000), {Start: 2000, Kind: Copy}, k(2500)}, []int64{0, 1005, 1500}, 695},
		// Queued: the kernels after the first started back to back 10
		// cycles apart; the host needs 100 per issue, so they are issued
		// 100 apart (the host's pace), the last just in time.
		{"queued", []Op{k(400), k(5000), k(5010), k(5020)}, []int64{0, 4420, 4520, 4620}, 95},
		// A launch whose kernel started before the previous one's (another
		// stream) keeps its program order, a host issue later.
		{"reordered", []Op{k(3000), k(1000)}, []int64{0, 100}, 595},
		{"none", nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, origin := Schedule(tc.ops, lat)
			if !reflect.DeepEqual(got, tc.want) || origin != tc.origin {
				t.Errorf("t = %v from %d, want %v from %d", got, origin, tc.want, tc.origin)
			}
		})
	}
}

// TestScheduleExtremes feeds starts and latencies at the ends of the
// int64 range: t must stay non-negative and in program order.
func TestScheduleExtremes(t *testing.T) {
	ops := []Op{{Start: math.MaxInt64}, {Start: math.MinInt64, Kind: Copy}, {Start: 0}, {Start: -MaxCycles}}
	for _, lat := range []Latency{
		{Issue: math.MaxInt64, Launch: math.MaxInt64, Dispatch: math.MaxInt64},
		{Issue: -1, Launch: math.MinInt64, Dispatch: 0},
	} {
		ts, _ := Schedule(ops, lat)
		for i, v := range ts {
			if v < 0 || i > 0 && v < ts[i-1] {
				t.Errorf("latency %+v: op %d: t = %d after %d", lat, i, v, ts[max(i-1, 0)])
			}
		}
	}
}

// TestAssumedLatency checks that the latencies are those `replay
// --gpu=captured` builds, host costs rescaled to the captured clock, and
// that they land in the header's meta.
func TestAssumedLatency(t *testing.T) {
	spec := &trace.GPUSpec{SMs: 108, ClockMHz: 1410, MaxCTAsPerSM: 32, MaxThreadsPerSM: 2048, RegsPerSM: 65536, SmemPerSM: 167936}
	lat, err := AssumedLatency("NVIDIA A100", spec)
	if err != nil {
		t.Fatal(err)
	}
	base, err := model.Preset(model.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	c := model.FromSpec(base, "NVIDIA A100", spec).Lat
	if lat != (Latency{Issue: c.HostIssue, Launch: c.HostLaunch, Dispatch: c.KernelDispatch}) || lat.Issue <= 0 || lat.Dispatch != 283 {
		t.Errorf("AssumedLatency = %+v, the captured configuration has %+v", lat, c)
	}
	if lat.Ready(Copy) != lat.Issue+lat.Launch || lat.Ready(Kernel) != lat.Issue+lat.Launch+283 {
		t.Errorf("ready: copy %d, kernel %d", lat.Ready(Copy), lat.Ready(Kernel))
	}
	meta := map[string]string{}
	(Latency{Issue: 1, Launch: 2, Dispatch: 3}).Record(meta)
	if want := map[string]string{"lat.host_issue": "1", "lat.host_launch": "2", "lat.kernel_dispatch": "3"}; !reflect.DeepEqual(meta, want) {
		t.Errorf("meta %v, want %v", meta, want)
	}
}
