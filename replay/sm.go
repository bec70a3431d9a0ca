package replay

import (
	"math/bits"

	"github.com/gpureplay/gpureplay/model"
)

// need is what one CTA of a kernel occupies on an SM. The validated trace
// bounds a CTA to 1024 threads of at most 255 registers (32 warps, 2^18
// registers), so 32 bits hold both.
type need struct {
	warps int32
	regs  int32
	smem  int64
}

// sm is one streaming multiprocessor's free resources plus its occupancy
// accounting. Resources are reserved when a CTA is placed and released when
// it ends.
type sm struct {
	id     int
	kernel *Kernel // the kernel of the resident CTAs (the first placed), nil when idle
	ctas   int     // resident CTAs
	warps  int     // resident warps
	regs   int
	smem   int64
	slots  uint64 // CTA slots in use (bit i: slot i)
	occ    occAccum

	// Under CRCS (costs.go): the kernel whose CTAs it ran last, and until
	// when its L1 is being flushed for another kernel's.
	last       *Kernel
	flushUntil int64
}

// takeSlot claims the lowest free CTA slot. Beyond 64 resident CTAs slots
// are numbered by count, which only blurs the hardware thread ids DTBL
// hashes.
func (s *sm) takeSlot() int {
	if s.slots == ^uint64(0) {
		return 64 + s.ctas
	}
	i := bits.TrailingZeros64(^s.slots)
	s.slots |= 1 << i
	return i
}

func (s *sm) freeSlot(i int) {
	if i < 64 {
		s.slots &^= 1 << i
	}
}

// fits reports whether one more CTA with n fits under all four SM limits.
func (s *sm) fits(g *model.GPU, n need) bool {
	return s.ctas < g.MaxCTAsPerSM &&
		(s.warps+int(n.warps))*model.WarpSize <= g.MaxThreadsPerSM &&
		s.regs+int(n.regs) <= g.RegsPerSM &&
		s.smem+n.smem <= g.SmemPerSM
}

// noteSlots records in e.open whether SM s has a free CTA slot, after
// its resident CTAs changed.
func (e *engine) noteSlots(s *sm) {
	e.open.put(s.id, s.ctas < e.cfg.GPU.MaxCTAsPerSM)
}

func (s *sm) reserve(n need) {
	s.ctas++
	s.warps += int(n.warps)
	s.regs += int(n.regs)
	s.smem += n.smem
}

func (s *sm) release(n need) {
	s.ctas--
	s.warps -= int(n.warps)
	s.regs -= int(n.regs)
	s.smem -= n.smem
}

// idle reports whether no CTA is resident: PPCS-style schedulers only use
// completely idle SMs.
func (s *sm) idle() bool { return s.ctas == 0 }
