package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// cdp is the baseline: the engine's own hardware behaviour, CUDA Dynamic
// Parallelism launching a device kernel at every site.
func init() {
	mustRegister(Info{
		Name:    "cdp",
		Aliases: []string{"baseline"},
		Doc:     "every launch site launches a device kernel (CUDA Dynamic Parallelism)",
		Source:  "DTBL §2.4, SPAWN §II",
		Keys:    []string{"cdp.param_a", "cdp.param_b", "cdp.launch_a", "cdp.launch_b", "cdp.stream_create", "cdp.clock_mhz", "cdp.launch_servers", "cdp.pending_limit", "cdp.streams"},
		New:     func(model.Config) replay.Policy { return replay.Policy{Name: "cdp"} },
	})
}
