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
// the profile has; its trace_diff test trace: 546 kernels, 38 copies).
// CUDA runs a stream's ops in the order they were issued, so such an op
// was issued after the op that ran before it on its stream and before
// the one after. It is put right after the one before; one that no op of
// its stream with a call ran before goes ahead of every op with a call,
// these in the order they started on the GPU. Ordering it by its own GPU
// start instead would put it after ops of its stream launched while it
// waited in the stream's queue (the two HTA traces: 19 and 105 pairs of
// one stream's ops swapped), and a replay would run them first.

// orderKey places an op in program order: by host, the start of its
// call, or for an op without one that of the op before it on its stream
// (math.MinInt64 when that is none or has none either), then by after: 0
// for an op with a call, and for one without its rank by GPU start, so
// that call-less ops after one host time keep their streams' order.
type orderKey struct {
	host  int64
	after int
}

func (a orderKey) compare(b orderKey) int {
	if c := cmp.Compare(a.host, b.host); c != 0 {
		return c
	}
	return cmp.Compare(a.after, b.after)
}

// programOrder sorts ops into program order (see above), stably: ops
// with calls that start together keep their file order, as the kernels
// of one CUDA graph launch do.
func programOrder(ops []*gpuOp) {
	type streamOf struct{ device, stream ident }
	byStart := slices.Clone(ops)
	slices.SortStableFunc(byStart, func(a, b *gpuOp) int { return cmp.Compare(a.ts, b.ts) })
	last := map[streamOf]orderKey{}
	for rank, op := range byStart {
		s := streamOf{op.device, op.stream}
		if op.call != nil {
			op.order = orderKey{host: op.call.ts}
		} else {
			op.order = orderKey{host: math.MinInt64, after: rank}
			if prev, ok := last[s]; ok {
				op.order.host = prev.host
			}
		}
		last[s] = op.order
	}
	slices.SortStableFunc(ops, func(a, b *gpuOp) int { return a.order.compare(b.order) })
}
