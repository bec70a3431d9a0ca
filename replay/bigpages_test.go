package replay_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/trace"
)

// irregularTrace is the shape of a Kineto or nsys import: kernels of
// ctas CTAs each with no access records, and one buffer of bufBytes.
func irregularTrace(kernels, ctas int, bufBytes int64, role string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"header","version":1,"clock_mhz":1000}`+"\n")
	fmt.Fprintf(&b, `{"type":"buffer","id":1,"name":"b","base":0,"bytes":%d,"role":%q}`+"\n", bufBytes, role)
	for k := 1; k <= kernels; k++ {
		fmt.Fprintf(&b, `{"type":"kernel","id":%d,"name":"k","grid":[%d,1,1],"block":[128,1,1],"regs":0,"smem":0}`+"\n", k, ctas)
		fmt.Fprintf(&b, `{"type":"launch","kernel":%d,"t":0,"stream":0}`+"\n", k)
		for c := range ctas {
			fmt.Fprintf(&b, `{"type":"cta","kernel":%d,"cta":%d,"cycles":1000}`+"\n", k, c)
		}
	}
	return b.String()
}

// replayJSONL replays a JSONL trace under policy on preset gpu with sets
// applied.
func replayJSONL(t *testing.T, src, gpu, policy string, sink results.Sink, sets ...string) (*replay.Stats, error) {
	t.Helper()
	cfg, err := model.Preset(gpu)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := policies.New(policy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
	return replay.Run(open, replay.Options{Config: cfg, Policy: pol}, sink)
}

// Kernels without access records reference every page (irregular), and
// a CTA of one gives its references back in one step: 20,000 CTAs over a
// 256 MiB buffer (65,536 pages) replay under crcs and ppcs as fast as
// under cdp, not in CTAs × pages steps (17 s before, 0.04 s after; the
// bound leaves a 50× margin for a loaded machine). The rows are a
// recorder's: each kernel's pages pass on once, when its last CTA ends.
func TestCRCSIrregularCostFollowsKernels(t *testing.T) {
	src := irregularTrace(4, 5000, 256<<20, "inout")
	for _, pol := range []string{"crcs", "ppcs"} {
		rec := &recorder{}
		start := time.Now()
		st, err := replayJSONL(t, src, "k20c", pol, rec)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: 20,000 irregular CTAs over 65,536 pages took %v, want well under 2 s", pol, d)
		}
		if st.CTAs != 20000 {
			t.Errorf("%s: %d CTAs replayed, want 20000", pol, st.CTAs)
		}
		// 65,536 first owners, 3 × 65,536 passes and 65,536 copies back.
		if n := len(rec.pages); n != 5*65536 {
			t.Errorf("%s: %d page rows, want %d", pol, n, 5*65536)
		}
	}
}
