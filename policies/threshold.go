package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// threshold is the programmer's static rule of SPAWN §III: launch a child
// only when the thread's workload exceeds THRESHOLD, else loop in the
// parent. Sweeping launch.threshold is SPAWN's Offline-Search.
type threshold struct {
	limit int64
}

func (t threshold) Decide(s *replay.Site, out []replay.Verdict) {
	for i, l := range s.Lanes {
		d := replay.Inline
		if l.Workload > t.limit {
			d = replay.Launch
		}
		out[i] = replay.Verdict{Decision: d}
	}
}

func init() {
	mustRegister(Info{
		Name:   "threshold",
		Doc:    "a site launches iff its workload > launch.threshold, else it is inlined",
		Source: "SPAWN §III",
		Keys:   []string{"launch.threshold", "cdp.launch_servers", "cdp.pending_limit", "cdp.streams"},
		New: func(cfg model.Config) replay.Policy {
			return replay.Policy{Name: "threshold", Sites: threshold{limit: cfg.Launch.Threshold}}
		},
	})
}
