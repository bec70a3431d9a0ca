package kineto

import (
	"math"
	"sort"
)

// overlapping counts the kept kernels that started while a kernel of
// another stream was still running on the captured GPU. Such kernels
// shared the SMs, so the wave estimate, which gives each kernel the whole
// GPU, makes their CTAs too short, and a replay of the trace need not
// reproduce the profile's timeline; the count tells the user so.
func (pl *plan) overlapping() int {
	var ks []*gpuOp
	for _, op := range pl.ops {
		if !op.copy {
			ks = append(ks, op)
		}
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].ts < ks[j].ts })
	if len(ks) == 0 {
		return 0
	}
	// last is the stream whose kernels so far end latest, and when;
	// other the same over the remaining streams (none: end MinInt64).
	type run struct {
		stream ident
		end    int64
	}
	last := run{ks[0].stream, ks[0].end()}
	other := run{end: math.MinInt64}
	n := 0
	for _, k := range ks[1:] {
		prev := last
		if k.stream == last.stream {
			prev = other
		}
		if prev.end > k.ts {
			n++
		}
		end := k.end()
		switch {
		case k.stream == last.stream:
			last.end = max(last.end, end)
		case end > last.end:
			last, other = run{k.stream, end}, last
		case end > other.end:
			other = run{k.stream, end}
		}
	}
	return n
}

// end is when op ended on the GPU (ns), saturating: dur is never
// negative, but ts may be near the int64 limit.
func (op *gpuOp) end() int64 {
	if op.ts > math.MaxInt64-op.dur {
		return math.MaxInt64
	}
	return op.ts + op.dur
}
