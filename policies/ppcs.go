package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// ppcs is the Pipeline Parallelism-aware CTA Scheduler (CRCS paper §4.4)
// on top of CRCS: while the prelude runs, it only fills completely idle
// SMs, each with the kernel whose page share most exceeds its SM share, so
// every kernel gets SMs in proportion to the data it can work on.
type ppcs struct {
	fifo   replay.RoundRobin
	spread bool // the first kernel has been spread over the SMs
}

// Place implements replay.Placer. After the prelude, or for a single
// kernel, it is the FIFO scheduler: waiting for idle SMs only pays while
// data is still arriving (§4.4).
func (p *ppcs) Place(d *replay.Dispatch) {
	if d.PreludeOver() || d.HostKernels() <= 1 {
		p.fifo.Place(d)
		return
	}
	placed := false
	for sm := 0; sm < d.SMs(); sm++ {
		if !d.Idle(sm) {
			continue
		}
		k := p.choose(d)
		if k == nil {
			return
		}
		for k.Remaining() > 0 && d.Fits(k, sm) && (!p.spread || !d.NextWaitsOnUnplaced(k)) {
			d.Place(k, sm)
			placed = true
		}
	}
	p.spread = p.spread || placed
}

// choose picks the kernel for an idle SM. §4.4: "At first, CTAs from the
// first kernel are scheduled at all SMs in a round-robin manner", so the
// first placing round takes the oldest kernel; from then on "the scheduler
// computes the SM share and page share of each kernel and chooses the
// kernel that has the maximum value of (page share−SM share)", over every
// kernel with CTAs to place, a kernel with no page share included (it
// then loses only to one the data favours); the oldest wins a tie.
//
// Candidates are the kernels whose next CTA cannot wait for an older
// kernel's CTA that is not placed yet (Dispatch.NextWaitsOnUnplaced), and
// Place fills the SM only with such CTAs. The page share counts only
// pages "initialized by the prelude and transferred", so the oldest
// kernel, waiting for the prelude, has next to none, and younger kernels
// win the idle SMs; CTAs of theirs that need pages the oldest kernel's
// unplaced CTAs will make stop there, their SM never becomes completely
// idle again, and once every SM is held so, the oldest kernel, which all
// of them wait for, can never be placed: the HotSpot generator's trace
// deadlocked at io.ssd_mbps from 220 to 255. With the rule, every placed
// CTA waits only for placed CTAs (and arriving pages), so SMs keep
// becoming idle, and the oldest kernel with CTAs to place, never waiting
// on an older unplaced one, is always a candidate.
func (p *ppcs) choose(d *replay.Dispatch) *replay.Kernel {
	var best *replay.Kernel
	var bestScore float64
	for _, k := range d.Pending() {
		if k.Remaining() == 0 {
			continue
		}
		if !p.spread {
			return k
		}
		if d.NextWaitsOnUnplaced(k) {
			continue
		}
		if s := d.PageShare(k) - d.SMShare(k); best == nil || s > bestScore {
			best, bestScore = k, s
		}
	}
	return best
}

func init() {
	mustRegister(Info{
		Name:   "ppcs",
		Doc:    "crcs with the pipeline-aware CTA scheduler: idle SMs go to the kernel whose page share most exceeds its SM share",
		Source: "CRCS paper §4.4",
		Keys:   crcsKeys,
		New: func(cfg model.Config) replay.Policy {
			p := crcs(cfg)
			p.Name, p.Placer = "ppcs", &ppcs{}
			return p
		},
	})
}
