package replay

import (
	"fmt"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// specWindow holds, under ordered_trees, the specs of the open segment's
// host CTAs from `from` on that records have reached and that are not
// handed over yet: the host kernel's records come in CTA order and its
// CTAs' trees too, so the window is the CTAs between the trees handed
// over and the host kernel's records (one or two in a trace written tree
// after tree; the grid where all the host kernel's records come first, as
// every generator writes them).
//
// Its storage has no pointers where it can do without: a CTA's entry
// (slimSpec, 24 bytes, half a ctaSpec) holds its cycles and demand, and
// the parts a ctaSpec keeps behind pointers, per-warp cycles and rare
// parts, sit in rare, used only by the CTAs that have them. So a window
// of a grid of plain CTAs costs 24 bytes a CTA (4M CTAs: 96 MB, not 192)
// that the collector need not scan. rare is emptied whenever the window
// is (its entries are cleared as their CTAs are taken out), so it holds
// at most the window's CTAs that have rare parts since the window last
// emptied, within the kernel's grid. It lives on the tree reader's
// goroutine. Specs leave it as they are held, slims and rare parts apart
// (take), and so wait in the engine's queue (specQueue).
type specWindow struct {
	from  uint64
	slims []slimSpec
	head  int // slims[head] is CTA from's
	rare  []rareSpec
}

func (w *specWindow) reset() {
	clear(w.slims)
	clear(w.rare)
	w.from, w.slims, w.head, w.rare = 0, w.slims[:0], 0, w.rare[:0]
}

// len is how many specs the window holds.
func (w *specWindow) len() int { return len(w.slims) - w.head }

// slot is CTA i's entry in the window, grown to hold it.
func (w *specWindow) slot(i uint64) (*slimSpec, error) {
	if i < w.from {
		return nil, fmt.Errorf("host CTA %d: a record for it after its launch tree was complete", i)
	}
	at := w.head + int(i-w.from)
	if at >= len(w.slims) {
		w.compact()
		at = w.head + int(i-w.from)
	}
	if at == len(w.slims) {
		// The next CTA's, as records in CTA order ask: one entry
		// appended, without append's clearing of a run of them.
		w.slims = append(w.slims, slimSpec{})
	} else if at > len(w.slims) {
		w.slims = append(w.slims, make([]slimSpec, at+1-len(w.slims))...)
	}
	return &w.slims[at], nil
}

// record files cta record r as CTA i's (ctaRecord.fill); r.warps become
// the window's.
func (w *specWindow) record(i uint64, r *ctaRecord) error {
	e, err := w.slot(i)
	if err != nil {
		return err
	}
	s := w.spec(e)
	r.fill(&s)
	w.set(e, &s)
	return nil
}

// appendPlain files cta record c, rescaled with clk, as record does,
// where that is the window's next entry and c has no per-warp cycles of
// its own (ownWarps, plainSlim): the host kernel's records in CTA order,
// as every generator and importer writes them. It reports whether it
// did; where it did not, record takes the record. About 90 instructions
// a CTA fewer than record on uniform (scripts/instructions.sh --quick).
func (w *specWindow) appendPlain(c *trace.CTA, clk clock) bool {
	if c.CTA < w.from || w.head+int(c.CTA-w.from) != len(w.slims) || ownWarps(c) {
		return false
	}
	w.compact()
	w.slims = append(w.slims, plainSlim(c, clk))
	return true
}

// next is the CTA whose entry the window would append next: the one
// after those it holds.
func (w *specWindow) next() uint64 { return w.from + uint64(w.len()) }

// appendPlains files plain records cs as the entries of the CTAs from
// next on, as appendPlain files each: the records a trace.Validator's
// PlainCTAs hands over, which are those CTAs' and have no per-warp
// cycles. It rescales their cycles in place, where the clock asks, in a
// pass of its own: the clock's test once a run, not a CTA (uniform and
// synth --quick: 8 instructions a CTA fewer).
func (w *specWindow) appendPlains(cs []trace.PlainCTA, clk clock) {
	w.compact()
	at := len(w.slims)
	w.slims = slices.Grow(w.slims, len(cs))[:at+len(cs)]
	out := w.slims[at:]
	if !clk.unit {
		for i := range cs {
			cs[i].Cycles = clk.scale(cs[i].Cycles)
		}
	}
	for i := range cs {
		c := &cs[i]
		out[i] = slimOf(c.Cycles, c.Insts, c.DRAMBytes)
	}
}

// extra returns CTA i's rare parts, creating them on first use.
func (w *specWindow) extra(i uint64) (*ctaExtra, error) {
	e, err := w.slot(i)
	if err != nil {
		return nil, err
	}
	r := w.rareOf(e)
	if r.x == nil {
		r.x = &ctaExtra{}
	}
	return r.x, nil
}

// rareOf is e's rare parts, made on first use.
func (w *specWindow) rareOf(e *slimSpec) *rareSpec {
	if e.rare == 0 {
		w.rare = append(w.rare, rareSpec{})
		e.rare = int32(len(w.rare))
	}
	return &w.rare[e.rare-1]
}

// spec is the ctaSpec entry e stands for.
func (w *specWindow) spec(e *slimSpec) ctaSpec {
	var s ctaSpec
	e.expand(&s)
	if e.rare != 0 {
		w.rare[e.rare-1].expand(&s)
	}
	return s
}

// set makes entry e stand for s.
func (w *specWindow) set(e *slimSpec, s *ctaSpec) {
	e.slim(s)
	if e.rare != 0 || s.hasRare() {
		w.rareOf(e).setRare(s)
	}
}

// take appends to dst the specs the window holds of CTAs from up to n
// (exclusive), the first of them (those after have no record yet), but
// at most most, and moves the window past them: to n, or to the CTA after
// the last spec taken where most stopped it short, which it returns. The
// rare parts of those that have them go to rare, in CTA order, and their
// slims' rare is 1: a queue of the specs (specQueue) takes the next rare
// parts for each such slim. Their rare parts are cleared, not the slims
// taken (shiftDown). Every host CTA passes through here once, so dst
// grows once and the specs are copied as they are held, a run at a time:
// 11 instructions a CTA on synth, against 48 turning each into a ctaSpec.
func (w *specWindow) take(dst []slimSpec, rare []rareSpec, n uint64, most int) ([]slimSpec, []rareSpec, uint64) {
	have := min(uint64(w.len()), n-w.from)
	if have > uint64(most) {
		have = uint64(most)
		n = w.from + have
	}
	at := len(dst)
	dst = slices.Grow(dst, int(have))[:at+int(have)]
	out := dst[at:]
	taken := w.slims[w.head : w.head+int(have)]
	copy(out, taken)
	if len(w.rare) > 0 { // else no entry has rare parts: a test a take, not a CTA (uniform, synth --quick: 11, 12 fewer)
		for j := range out {
			if r := out[j].rare; r != 0 {
				rare = append(rare, w.rare[r-1])
				w.rare[r-1] = rareSpec{}
				out[j].rare = 1
			}
		}
	}
	if w.head += int(have); w.head == len(w.slims) {
		w.slims, w.head, w.rare = w.slims[:0], 0, w.rare[:0]
	}
	w.from = n
	return dst, rare, n
}

// compact moves the entries held to the front of the storage once those
// taken out fill half of it, so the storage follows what it holds. It
// runs where entries come (slot, appendPlain, appendPlains), not where
// they are taken out (take), so that a window drained at its segment's
// end, all its host kernel's grid where its records come first, moves
// none of its entries (scripts/instructions.sh --quick synth and
// uniform: 3 and 2 instructions a CTA fewer).
func (w *specWindow) compact() { w.slims, w.head = shiftDown(w.slims, w.head) }
