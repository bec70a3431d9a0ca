package kineto

import (
	"cmp"
	"math"
	"slices"
)

// Program order: the order the host issued the GPU ops in, which the
// trace's records follow and a replay issues them in.
//
// An op with a host call was issued when that call started. An op
// without one was issued before the profile began or its call was lost:
// Kineto's warm-up collects activities and then drops those that started
// before the profile's window, so a kernel launched during the warm-up
// that runs inside the window keeps its GPU event and loses its launch
// (HTA's negative_queue_length_values_check trace: 705 of 6,080 kernels
// and 140 copies, every one ahead, on its stream, of every op whose call
// the profile has; its trace_diff test trace: 546 kernels, 38 copies); a
// profile can also lack a driver-API launch (NCCL, Triton) mid-run.
//
// CUDA runs a stream's ops in the order they were issued, so such an op
// was issued after the op that ran before it on its stream and before
// the next one with a call. Between those bounds it is put at its own
// start on the GPU, the latest the host can have issued it; the timing
// mapping (timing.go) then moves its issue back by the launch latency,
// as it does every op's. At the bounds, ties go to the order the ops
// started on the GPU. Ordering it by its GPU start alone would put it
// after ops of its stream launched while it waited in the stream's queue
// (the two HTA traces: 19 and 105 pairs of one stream's ops swapped),
// and a replay would run them first; putting it right after the op
// before it would issue an op lost mid-run, on a stream of its own, long
// before it ran.

// orderKey places an op in program order: by host, the start of its call
// or, for an op without one, its GPU start within the bounds above; then
// by rank, its place in the order the ops started on the GPU.
type orderKey struct {
	host int64
	rank int
}

func (a orderKey) compare(b orderKey) int {
	if c := cmp.Compare(a.host, b.host); c != 0 {
		return c
	}
	return cmp.Compare(a.rank, b.rank)
}

// programOrder sorts ops into program order (see above).
func programOrder(ops []*gpuOp) {
	type streamOf struct{ device, stream ident }
	byStart := slices.Clone(ops)
	slices.SortStableFunc(byStart, func(a, b *gpuOp) int { return cmp.Compare(a.ts, b.ts) })
	// Backwards: the call of the next op with one on each stream, held
	// in the call-less ops' keys until the forward pass.
	next := map[streamOf]int64{}
	for i := len(byStart) - 1; i >= 0; i-- {
		op := byStart[i]
		s := streamOf{op.device, op.stream}
		if op.call != nil {
			next[s] = op.call.ts
			continue
		}
		op.order.host = math.MaxInt64
		if h, ok := next[s]; ok {
			op.order.host = h
		}
	}
	last := map[streamOf]int64{}
	for rank, op := range byStart {
		s := streamOf{op.device, op.stream}
		if op.call != nil {
			op.order = orderKey{host: op.call.ts, rank: rank}
		} else {
			host := min(op.ts, op.order.host)
			if prev, ok := last[s]; ok {
				host = max(host, prev)
			}
			op.order = orderKey{host: host, rank: rank}
		}
		last[s] = op.order.host
	}
	slices.SortFunc(ops, func(a, b *gpuOp) int { return a.order.compare(b.order) })
}
