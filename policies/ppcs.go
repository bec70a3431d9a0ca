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
	fifo replay.RoundRobin
}

// Place implements replay.Placer. After the prelude, or for a single
// kernel, it is the FIFO scheduler: waiting for idle SMs only pays while
// data is still arriving (§4.4).
func (p *ppcs) Place(d *replay.Dispatch) {
	if d.PreludeOver() || d.HostKernels() <= 1 {
		p.fifo.Place(d)
		return
	}
	for sm := 0; sm < d.SMs(); sm++ {
		if !d.Idle(sm) {
			continue
		}
		k := choose(d)
		if k == nil {
			return
		}
		for k.Remaining() > 0 && d.Fits(k, sm) {
			d.Place(k, sm)
		}
	}
}

// choose picks the kernel with the largest page share − SM share among
// those that own ready pages; the oldest wins a tie. While no kernel owns a
// ready page (the prelude's start) it picks the oldest, which spreads the
// first kernel over all SMs as the paper describes.
func choose(d *replay.Dispatch) *replay.Kernel {
	var best, oldest *replay.Kernel
	var bestScore float64
	for _, k := range d.Pending() {
		if k.Remaining() == 0 {
			continue
		}
		if oldest == nil {
			oldest = k
		}
		share := d.PageShare(k)
		if share == 0 {
			continue
		}
		if s := share - d.SMShare(k); best == nil || s > bestScore {
			best, bestScore = k, s
		}
	}
	if best == nil {
		return oldest
	}
	return best
}

func init() {
	register(&Info{
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
