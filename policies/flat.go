package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

func init() {
	mustRegister(Info{
		Name:   "flat",
		Doc:    "every launch site is inlined: the parent thread does the child's work (non-DP code)",
		Source: "DTBL §5, SPAWN §V",
		New:    func(model.Config) replay.Policy { return replay.Policy{Name: "flat", Sites: replay.InlineAll{}} },
	})
}
