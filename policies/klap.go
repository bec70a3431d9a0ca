package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// klapScopes are klap.granularity's values and the engine's scopes.
var klapScopes = map[string]replay.Aggregation{
	"warp":   replay.AggregateWarp,
	"block":  replay.AggregateBlock,
	"kernel": replay.AggregateKernel,
}

// klap is KLAP's kernel launch aggregation (El Hajj et al., MICRO 2016):
// every lane launches, as under CDP, and the engine fuses the children
// of a warp, a block or a kernel into one aggregated kernel per child
// name (replay/klap.go). The policy decides nothing per site; it picks
// the scope.
func init() {
	mustRegister(Info{
		Name:   "klap",
		Doc:    "the child launches of a warp, a block or a kernel (klap.granularity) are fused into one aggregated kernel per child name",
		Source: "KLAP (El Hajj et al., MICRO 2016), abstract; github.com/illinois-impact/klap src/Transform/AWB, src/Transform/AG",
		Keys:   []string{"cdp.param_a", "cdp.param_b", "cdp.launch_a", "cdp.launch_b", "cdp.stream_create", "cdp.clock_mhz", "cdp.launch_servers", "cdp.pending_limit", "lat.host_issue", "lat.host_launch"},
		Params: []model.Param{{
			Name:    "klap.granularity",
			Default: "block",
			Doc:     "whose child launches one aggregated launch fuses: warp, block (after a barrier) or kernel (launched by the host at the kernel's end)",
			Choices: []string{"warp", "block", "kernel"},
		}},
		New: func(cfg model.Config) replay.Policy {
			g, _ := cfg.Get("klap.granularity")
			return replay.Policy{Name: "klap", Aggregate: klapScopes[g]}
		},
	})
}
