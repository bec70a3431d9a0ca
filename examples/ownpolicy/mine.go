package main

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
)

// Mine registers policy "mine": a launch site launches a lane's child
// kernel only when the child's workload is at least mine.k times the warps
// running on the parent CTA's SM at that cycle, and otherwise the parent
// lane does the child's work itself (inlines it).
//
// Why: a child kernel's CTAs compete for the SMs its parent already
// keeps busy. On an SM with few running warps a launch adds parallelism
// the SM has room for, so even a small child is worth its launch cost; on
// a crowded SM it adds waiting, so only a child with much work is. The
// rule is the threshold policy's (launch iff workload > launch.threshold)
// with a threshold that follows the parent's SM: mine.k × running warps.
//
// "Running" is a warp of a CTA that has started and not finished
// (replay.Observer), the parent's own warps included, counted per SM; a
// CTA's warps are its block's threads / 32, rounded up.
var Mine = policies.Info{
	Name:   "mine",
	Doc:    "a site launches iff its workload >= mine.k x the warps running on the parent's SM, else it is inlined",
	Source: "examples/ownpolicy (docs/policies.md)",
	Params: []model.Param{{
		Name:    "mine.k",
		Default: 1,
		Doc:     "workload a launched child needs per warp running on its parent's SM",
		Check: func(v any) string {
			if v.(int64) < 0 {
				return "must be at least 0"
			}
			return ""
		},
	}},
	New: func(cfg model.Config) replay.Policy {
		m := &mine{k: cfg.Int("mine.k"), sm: map[cta]int{}, warps: make([]int64, cfg.GPU.SMs)}
		// One value at two decision points: Sites decides, Observer
		// keeps the per-SM counts the decisions read.
		return replay.Policy{Name: "mine", Sites: m, Observer: m}
	},
}

// mine is one replay's state: built by New for each replay, so replays
// running at once (--jobs) share nothing.
type mine struct {
	k     int64
	sm    map[cta]int // running CTA -> its SM; only CTAs in flight
	warps []int64     // warps running on each SM
}

// cta names a CTA of a kernel as a Site names its parent.
type cta struct{ kernel, index uint64 }

func warpsOf(k *replay.Kernel) int64 {
	b := k.Block()
	return (int64(b[0])*int64(b[1])*int64(b[2]) + 31) / 32
}

func (m *mine) CTAStarted(ev *replay.CTAEvent) {
	m.warps[ev.SM] += warpsOf(ev.Kernel)
	if !ev.Group { // "mine" decides every site and never coalesces
		m.sm[cta{ev.Kernel.ID(), ev.CTA}] = ev.SM
	}
}

func (m *mine) CTAFinished(ev *replay.CTAEvent) {
	m.warps[ev.SM] -= warpsOf(ev.Kernel)
	if !ev.Group {
		delete(m.sm, cta{ev.Kernel.ID(), ev.CTA})
	}
}

// Decide is called with every lane of a warp that reaches a launch
// statement together; the parent CTA is running, so it has an SM.
func (m *mine) Decide(s *replay.Site, out []replay.Verdict) {
	running := m.warps[m.sm[cta{s.ParentKernel, s.ParentCTA}]]
	for i, l := range s.Lanes {
		d := replay.Inline
		if l.Workload >= m.k*running {
			d = replay.Launch
		}
		out[i] = replay.Verdict{Decision: d}
	}
}
