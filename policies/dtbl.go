package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// dtbl is Dynamic Thread Block Launch (DTBL §4): each launching lane's
// child becomes an aggregated group, coalesced into an eligible kernel —
// one in the Kernel Distributor, not complete, with the child's kernel name
// (entry PC) and block shape; the launching kernel itself qualifies. With
// no eligible kernel the group is launched as a device kernel by the launch
// hardware (no device-runtime call). The engine carries out coalescing,
// the Aggregated Group Table and the costs. With dtbl.match=function the
// block shape is not compared, as the DTBL authors' simulator matches
// (stream_manager::find_grid, src/stream_manager.cc:521-534 of
// howardwangph/gpgpu-sim-dcc).
type dtbl struct{ anyShape bool }

// Decide writes each verdict's fields into out's zero Verdicts, once,
// and reads each lane in place: a Verdict written whole (its pointers
// each behind the write barrier's test) as a launch and then again as a
// coalesce, and each Lane copied, cost BFS scale 16 some 60 instructions
// a lane (a group is decided at its site and matched again when its
// command arrives).
func (p *dtbl) Decide(s *replay.Site, out []replay.Verdict) {
	lanes, kd := s.Lanes[:len(out)], s.KD // out and lanes of one length, in locals: no index checked
	for i := range out {
		l, v := &lanes[i], &out[i]
		v.Decision, v.Hardware = replay.Launch, true
		for j, k := range kd {
			if !k.Complete() && k.Name() == l.ChildName && (p.anyShape || k.Block() == l.ChildBlock) {
				v.Decision, v.Hardware, v.Target, v.SearchCycles = replay.Coalesce, false, k, int64(j+1)
				break
			}
		}
	}
}

func init() {
	mustRegister(Info{
		Name:   "dtbl",
		Doc:    "launch sites become aggregated groups coalesced into an eligible running kernel (same name and block shape), else device kernels",
		Source: "DTBL §4",
		Keys:   []string{"dtbl.agt_entries", "dtbl.agt_spill", "dtbl.fallback", "dtbl.spill_loads", "dtbl.match", "dtbl.launch_cost", "cdp.param_a", "cdp.launch_a", "cdp.launch_b", "cdp.param_b", "cdp.clock_mhz", "cdp.pending_limit"},
		New: func(c model.Config) replay.Policy {
			return replay.Policy{Name: "dtbl", Sites: &dtbl{anyShape: c.DTBL.Match == model.MatchFunction}}
		},
	})
}
