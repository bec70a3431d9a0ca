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

func (p dtbl) Decide(s *replay.Site, out []replay.Verdict) {
	for i, l := range s.Lanes {
		out[i] = replay.Verdict{Decision: replay.Launch, Hardware: true}
		for j, k := range s.KD {
			if !k.Complete() && k.Name() == l.ChildName && (p.anyShape || k.Block() == l.ChildBlock) {
				out[i] = replay.Verdict{Decision: replay.Coalesce, Target: k, SearchCycles: int64(j + 1)}
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
			return replay.Policy{Name: "dtbl", Sites: dtbl{anyShape: c.DTBL.Match == model.MatchFunction}}
		},
	})
}
