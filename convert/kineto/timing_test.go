package kineto

import (
	"math"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestSchedule checks the backward pass at 1000 MHz (1 ns = 1 cycle) with
// a host issue of 100 cycles, 200 to the GPU and 5 to dispatch.
func TestSchedule(t *testing.T) {
	op := func(call, start int64, copy bool) *gpuOp {
		return &gpuOp{ts: start, copy: copy, call: &hostCall{ts: call}}
	}
	for _, tc := range []struct {
		name string
		ops  []*gpuOp
		want []int64
	}{
		// Idle GPU: each op is ready exactly at its start, 305 cycles
		// (300 for a copy) after its issue, whatever its call's start.
		{"idle", []*gpuOp{op(0, 1000, false), op(1100, 2000, true), op(2100, 2500, false)},
			[]int64{0, 1005, 1500}},
		// Queued: the kernels after the first started back to back 10
		// cycles apart; the host needs 100 per issue, so they are issued
		// 100 apart (the host's pace), the last just in time.
		{"queued", []*gpuOp{op(0, 400, false), op(10, 5000, false), op(20, 5010, false), op(30, 5020, false)},
			[]int64{0, 4420, 4520, 4620}},
		// A launch whose kernel started before the previous one's (another
		// stream) keeps its program order, a host issue later.
		{"reordered", []*gpuOp{op(0, 3000, false), op(10, 1000, false)},
			[]int64{0, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &plan{ops: tc.ops, spec: &trace.GPUSpec{ClockMHz: 1000}, lat: latency{issue: 100, launch: 200, dispatch: 5}}
			pl.schedule()
			var got []int64
			for _, op := range pl.ops {
				got = append(got, op.t)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("t = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestScheduleExtremes feeds times at the ends of the int64 range: t must
// stay non-negative and in program order.
func TestScheduleExtremes(t *testing.T) {
	ops := []*gpuOp{
		{ts: math.MaxInt64, call: &hostCall{ts: math.MinInt64}},
		{ts: math.MinInt64, copy: true},
		{ts: 0, call: &hostCall{ts: 0}},
	}
	pl := &plan{ops: ops, spec: &trace.GPUSpec{ClockMHz: 1e12}, lat: latency{issue: maxCycles, launch: maxCycles, dispatch: maxCycles}}
	pl.schedule()
	for i, op := range ops {
		if op.t < 0 || i > 0 && op.t < ops[i-1].t {
			t.Errorf("op %d: t = %d after %d", i, op.t, ops[max(i-1, 0)].t)
		}
	}
	if s := pl.originMicros(); s == "" {
		t.Error("no origin")
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
