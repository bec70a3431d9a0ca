package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// crcs is Coarse-grained Reference Counting-based Scoreboarding: every
// kernel is launched before the prelude (the paper's OverlappedExec), page
// reference counts decide when each CTA may run, and an SM runs one
// kernel's CTAs at a time. The mechanism itself is the engine's (the
// scoreboard sits beside the Kernel Distributor); the policy turns it on.
func crcs(model.Config) replay.Policy {
	return replay.Policy{Name: "crcs", IO: replay.IOPaged, ExclusiveSMs: true}
}

// overlap1 is the CRCS paper's bound for the state of the art (§5.2): the
// first kernel overlaps the prelude, the last overlaps the postlude, copies
// are free, and the kernels run one after another as written.
func overlap1(model.Config) replay.Policy {
	return replay.Policy{Name: "overlap1", IO: replay.IOOverlapEnds}
}

// crcsKeys are the parameters CRCS and PPCS read: where page references
// come from and the host I/O stages.
var crcsKeys = []string{"crcs.pages", "crcs.share", "crcs.gate", "crcs.irregular", "crcs.profile_cycles", "crcs.l1_flush", "io.model", "io.ssd_mbps", "io.pcie_gbps", "io.page_bytes"}

func init() {
	mustRegister(Info{
		Name:   "crcs",
		Doc:    "dependent kernels overlap each other and the host I/O, gated by per-page reference counts; FIFO CTA order",
		Source: "CRCS paper §3–4.3",
		Keys:   crcsKeys,
		New:    crcs,
	})
	mustRegister(Info{
		Name:   "overlap1",
		Doc:    "only the first kernel overlaps the prelude and only the last the postlude; free copies (the CRCS paper's state-of-the-art bound)",
		Source: "CRCS paper §5.2",
		Keys:   []string{"io.model", "io.ssd_mbps"},
		New:    overlap1,
	})
}
