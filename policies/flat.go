package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// inlineAll is the non-DP ("flat") implementation: each parent thread loops
// over its child's work itself.
type inlineAll struct{}

func (inlineAll) Decide(s *replay.Site, out []replay.Verdict) {
	for i := range out {
		out[i] = replay.Verdict{Decision: replay.Inline}
	}
}

func init() {
	mustRegister(Info{
		Name:   "flat",
		Doc:    "every launch site is inlined: the parent thread does the child's work (non-DP code)",
		Source: "DTBL §5, SPAWN §V",
		New:    func(model.Config) replay.Policy { return replay.Policy{Name: "flat", Sites: inlineAll{}} },
	})
}
