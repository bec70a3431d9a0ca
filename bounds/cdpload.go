package bounds

import (
	"math"
	"math/bits"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// gpuLoad is what a set of CTAs and kernels holds and asks of the GPU
// (the CDP floor's room, entries and demand, cdpfloor.go): each CTA's SM
// room × its chain, each kernel's Kernel Distributor hold, and the CTAs'
// instructions and DRAM bytes under the contention model.
type gpuLoad struct {
	area        [4]wide // CTA slots, warps, registers, smem, each × cycles held
	entries     int64   // the Kernel Distributor entries' summed hold
	insts, dram float64 // the CTAs' demand as the contention model charges it
}

// cta adds a CTA needing n for chain cycles, raising its kernel's entry
// hold by hold and asking insts and dram.
func (l *gpuLoad) cta(n replay.Need, chain, hold int64, insts, dram float64) {
	for i, use := range [4]int64{1, int64(n.Warps), int64(n.Regs), n.Smem} {
		l.area[i].add(use, chain)
	}
	l.entries += hold
	l.insts += insts
	l.dram += dram
}

// cycles is the least time the load takes on g: per resource, its sum
// over what g holds or serves at once, rounded up (the demand only with
// the contention model on).
func (l *gpuLoad) cycles(g model.GPU, contention bool) int64 {
	sms := int64(g.SMs)
	var floor int64
	caps := [4]int64{int64(g.MaxCTAsPerSM), int64(g.MaxWarpsPerSM()), int64(g.RegsPerSM), g.SmemPerSM}
	for i, c := range caps {
		floor = max(floor, l.area[i].ceilDiv(c*sms))
	}
	if n := int64(g.MaxKernels); n > 0 {
		floor = max(floor, (l.entries+n-1)/n)
	}
	if contention {
		floor = max(floor, demandFloor(l.insts, float64(sms)*g.IssueWidth), demandFloor(l.dram, g.DRAMBytesPerCycle()))
	}
	return floor
}

// demandFloor is the least makespan M in which a total demand can be
// served at most rate a cycle, allowing for how the model rounds: a job
// ends once its progress is within contention.tolerance of its work,
// 10^-6 + 10^-12·v cycles at an SM's virtual clock v ≤ M, so of a job of
// w ≥ 1 cycles' work at least w·(1 - 10^-6 - 10^-12·M) is served. With
// L = total / rate, M ≥ L·(1 - 10^-6)/(1 + 10^-12·L); a further 10^-8
// and a cycle cover the float sums.
func demandFloor(total, rate float64) int64 {
	if !(rate > 0) || !(total > 0) {
		return 0
	}
	l := total / rate
	return max(0, int64(math.Floor(l*(1-1e-6-1e-8)/(1+1e-12*l)))-1)
}

// wide is an unsigned 128-bit sum: a trace's CTAs × cycles × room can
// pass 2^63.
type wide struct{ hi, lo uint64 }

// add adds a·b, both non-negative.
func (w *wide) add(a, b int64) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, lo, 0)
	w.hi += hi + carry
}

// ceilDiv is the sum over d rounded up, capped at the largest int64; 0
// for d ≤ 0 (no limit).
func (w wide) ceilDiv(d int64) int64 {
	if d <= 0 {
		return 0
	}
	if w.hi >= uint64(d) {
		return math.MaxInt64
	}
	q, r := bits.Div64(w.hi, w.lo, uint64(d))
	if r > 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}
