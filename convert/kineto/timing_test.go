package kineto

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// TestSchedule checks the plan's side of the timing mapping at 1000 MHz
// (1 ns = 1 cycle) with a host issue of 100 cycles, 200 to the GPU and 5
// to dispatch: GPU starts count from the first op's host start, whatever
// the later calls' starts, and the origin is the profile time of the
// first op's issue. (profile.Schedule's own cases are in its package.)
func TestSchedule(t *testing.T) {
	op := func(call, start int64, copy bool) *gpuOp {
		return &gpuOp{ts: start, copy: copy, call: &hostCall{ts: call}}
	}
	ops := []*gpuOp{op(5000, 6000, false), op(1100, 7000, true), op(9999, 7500, false)}
	pl := &plan{ops: ops, gpu: profile.GPU{Spec: &trace.GPUSpec{ClockMHz: 1000}}, lat: profile.Latency{Issue: 100, Launch: 200, Dispatch: 5}}
	pl.schedule()
	var got []int64
	for _, op := range pl.ops {
		got = append(got, op.t)
	}
	if want := []int64{0, 1005, 1500}; !reflect.DeepEqual(got, want) {
		t.Errorf("t = %v, want %v", got, want)
	}
	if got := pl.originMicros(); got != "5.695" { // 6000 - 305 ns
		t.Errorf("origin %s µs, want 5.695", got)
	}
}

// TestScheduleExtremes feeds times at the ends of the int64 range: t must
// stay non-negative and in program order, and the origin be a number.
func TestScheduleExtremes(t *testing.T) {
	ops := []*gpuOp{
		{ts: math.MaxInt64, call: &hostCall{ts: math.MinInt64}},
		{ts: math.MinInt64, copy: true},
		{ts: 0, call: &hostCall{ts: 0}},
	}
	huge := profile.Latency{Issue: math.MaxInt64, Launch: math.MaxInt64, Dispatch: math.MaxInt64}
	pl := &plan{ops: ops, gpu: profile.GPU{Spec: &trace.GPUSpec{ClockMHz: 1e12}}, lat: huge}
	pl.schedule()
	for i, op := range ops {
		if op.t < 0 || i > 0 && op.t < ops[i-1].t {
			t.Errorf("op %d: t = %d after %d", i, op.t, ops[max(i-1, 0)].t)
		}
	}
	if _, err := strconv.ParseFloat(pl.originMicros(), 64); err != nil {
		t.Errorf("origin: %v", err)
	}
}

// TestOverlapping counts kernels that start while another stream's kernel
// runs: back to back in one stream is no overlap, touching ends are none
// either, and a kernel overlapping the stream that ends second-latest
// counts.
func TestOverlapping(t *testing.T) {
	k := func(stream string, ts, dur int64) *gpuOp { return &gpuOp{stream: ident(stream), ts: ts, dur: dur} }
	for _, tc := range []struct {
		name string
		ops  []*gpuOp
		want int
	}{
		{"one stream", []*gpuOp{k("7", 0, 10), k("7", 5, 10), k("7", 20, 1)}, 0},
		{"touching", []*gpuOp{k("7", 0, 10), k("8", 10, 5), k("7", 15, 5)}, 0},
		{"concurrent", []*gpuOp{k("7", 0, 10), k("8", 5, 10)}, 1},
		{"same start", []*gpuOp{k("8", 3, 4), k("7", 3, 4)}, 1},
		{"second stream", []*gpuOp{k("7", 0, 100), k("8", 10, 70), k("7", 70, 1)}, 2},
		{"behind the latest", []*gpuOp{k("8", 0, 50), k("7", 60, 100), k("7", 40, 5)}, 1},
		{"copies ignored", []*gpuOp{k("7", 0, 10), {stream: "8", ts: 5, dur: 10, copy: true}}, 0},
		{"none", nil, 0},
	} {
		if got := (&plan{ops: tc.ops}).overlapping(); got != tc.want {
			t.Errorf("%s: %d overlapping, want %d", tc.name, got, tc.want)
		}
	}
}
