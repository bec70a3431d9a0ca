package replay_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// A trace that declares ordered_trees is read a host CTA's tree at a time;
// the same records without the declaration are read a launch tree at a
// time. The schedule must not notice: every table row and the summary are
// the same under every dynamic-parallelism policy.
func TestOrderedTreesReplayTheSame(t *testing.T) {
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	gens := map[string][]string{
		"bfs":   {"scale=12"},
		"amr":   nil,
		"gc":    nil,
		"join":  nil,
		"synth": {"kernels=3", "ctas=300", "site_rate=0.3"},
	}
	for name, params := range gens {
		ordered := generateBytes(t, name, params...)
		recs, err := trace.ReadAll(trace.NewValidator(mustReader(t, ordered)))
		if err != nil {
			t.Fatal(err)
		}
		h := recs[0].(*trace.Header)
		if !h.OrderedTrees {
			t.Fatalf("%s: the generator does not declare ordered_trees", name)
		}
		h.OrderedTrees = false
		var buf bytes.Buffer
		w := trace.NewWriter(&buf)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		plain := buf.Bytes()
		for _, pol := range []string{"cdp", "dtbl", "spawn", "flat", "threshold"} {
			run := func(data []byte) (*replay.Stats, *recorder) {
				p, err := policies.New(pol, cfg)
				if err != nil {
					t.Fatal(err)
				}
				rec := &recorder{}
				open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
				st, err := replay.Run(open, replay.Options{Config: cfg, Policy: p}, rec)
				if err != nil {
					t.Fatalf("%s under %s: %v", name, pol, err)
				}
				return st, rec
			}
			sa, ra := run(ordered)
			sb, rb := run(plain)
			if *sa != *sb || !reflect.DeepEqual(ra, rb) {
				t.Errorf("%s under %s: ordered and plain reading differ (makespan %d vs %d)", name, pol, sa.MakespanCycles, sb.MakespanCycles)
			}
		}
	}
}

func mustReader(t *testing.T, data []byte) *trace.Reader {
	t.Helper()
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
