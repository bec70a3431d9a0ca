package replay_test

import (
	"fmt"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// warpTimes records every finished CTA's warp times (CTAEvent.WarpTimes)
// and their sum and count (CTAEvent.WarpTimeSum, what SPAWN's t_warp
// averages), and inlines every site but kernel 1's.
type warpTimes struct {
	got  map[string][]int64
	sums map[string][2]int64
}

func (w *warpTimes) Decide(s *replay.Site, out []replay.Verdict) {
	for i := range out {
		out[i] = replay.Verdict{Decision: replay.Inline}
		if s.ParentKernel == 1 {
			out[i].Decision = replay.Launch
		}
	}
}
func (w *warpTimes) CTAStarted(*replay.CTAEvent) {}
func (w *warpTimes) CTAFinished(ev *replay.CTAEvent) {
	key := fmt.Sprintf("%d/%d", ev.Kernel.ID(), ev.CTA)
	ev.WarpTimes(func(c int64) { w.got[key] = append(w.got[key], c) })
	sum, n := ev.WarpTimeSum()
	w.sums[key] = [2]int64{sum, n}
}

// Warp times under the contention model, one SM issuing 4 warp
// instructions a cycle. Kernel 4 (host, stream 1): two CTAs of warps of
// 500 and 1000 cycles asking 4 instructions a cycle each, together 8:
// both run at half speed from 403 to 2403, and each warp takes its own
// cycles at that rate, 1000 and 2000 (before, their cycles alone). Kernel
// 1 (no demand) launches kernel 2, whose CTA asks 0.2 instructions a
// cycle alone: its warp 0 reaches a site at 200, inlines 300, runs its
// last 200 and ends after 700; warp 1, without sites, after its 1000.
// Before, a shared CTA with sites reported its warps' ends as 0, so their
// times were minus the CTA's start, and SPAWN's t_warp went negative.
func TestWarpTimesShared(t *testing.T) {
	const src = `{"type":"header","version":1,"clock_mhz":706}
{"type":"kernel","id":1,"name":"parent","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":1000}
{"type":"kernel","id":2,"name":"child","grid":[1,1,1],"block":[64,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":100},"workload":10,"inline_cycles":100}
{"type":"cta","kernel":2,"cta":0,"cycles":1000,"warp_cycles":[400,1000],"insts":200}
{"type":"kernel","id":3,"name":"grandchild","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":3,"parent":{"kernel":2,"cta":0,"warp":0,"lane":0,"at":200},"workload":3,"inline_cycles":300}
{"type":"cta","kernel":3,"cta":0,"cycles":100}
{"type":"kernel","id":4,"name":"busy","grid":[2,1,1],"block":[64,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":4,"t":0,"stream":1}
{"type":"cta","kernel":4,"cta":0,"cycles":1000,"warp_cycles":[500,1000],"insts":4000}
{"type":"cta","kernel":4,"cta":1,"cycles":1000,"warp_cycles":[500,1000],"insts":4000}`
	cfg := testConfig(t, 1)
	cfg.GPU.IssueWidth = 4
	w := &warpTimes{got: map[string][]int64{}, sums: map[string][2]int64{}}
	rec, _ := replayString(t, src, cfg, replay.Policy{Name: "warps", Sites: w, Observer: w})
	for key, ts := range w.got {
		var sum int64
		for _, c := range ts {
			sum += c
		}
		if got, want := w.sums[key], [2]int64{sum, int64(len(ts))}; got != want {
			t.Errorf("CTA %s: WarpTimeSum %d over %d warps, want %d over %d (WarpTimes %v)", key, got[0], got[1], want[0], want[1], ts)
		}
	}
	for key, want := range map[string][]int64{"2/0": {700, 1000}, "4/0": {1000, 2000}, "4/1": {1000, 2000}} {
		if fmt.Sprint(w.got[key]) != fmt.Sprint(want) {
			t.Errorf("CTA %s: warp times %v, want %v", key, w.got[key], want)
		}
	}
	for _, c := range rec.CTAs {
		if c.KernelID == 4 && (c.StartCycle != 403 || c.EndCycle != 2403) {
			t.Errorf("kernel 4 CTA %d ran %d..%d, want 403..2403", c.CTA, c.StartCycle, c.EndCycle)
		}
	}
}
