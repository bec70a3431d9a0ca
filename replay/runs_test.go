package replay_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// A binary trace's runs of cta records are read as runs (the Validator's
// CTAs; with Options.Ahead the Prefetcher's batch) and filed a run at a
// step. JSONL has no such way: each record is read and filed on its
// own. The schedule must not notice: the same records replay to the same
// rows and summary either way, with and without Ahead.
func TestRunsReplayAsRecords(t *testing.T) {
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	for name, params := range map[string][]string{
		"bfs":   {"scale=12"},
		"synth": {"kernels=3", "ctas=2000", "site_rate=0.1"},
		"amr":   nil,
	} {
		binary := generateBytes(t, name, params...)
		recs, err := trace.ReadAll(trace.NewValidator(mustReader(t, binary)))
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		w := trace.NewJSONLWriter(&text)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		jsonl := func() (trace.Source, error) { return trace.NewJSONLReader(bytes.NewReader(text.Bytes())), nil }
		for _, pol := range []string{"cdp", "dtbl", "flat"} {
			sa, ra := replayRows(t, cfg, pol, jsonl, false)
			for _, prefetch := range []bool{false, true} {
				sb, rb := replayRows(t, cfg, pol, binaryOpener(binary), prefetch)
				if *sa != *sb || !reflect.DeepEqual(ra, rb) {
					t.Errorf("%s under %s (Ahead %v): binary and JSONL reading differ (makespan %d vs %d)", name, pol, prefetch, sb.MakespanCycles, sa.MakespanCycles)
				}
			}
		}
	}
}
