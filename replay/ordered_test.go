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
// the same under every dynamic-parallelism policy, and with Options.Ahead,
// where an ordered trace's trees are filed on a goroutine of their own
// (treeAhead) and a plain one's on the engine's.
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
		plain := writeBinary(t, recs)
		for _, pol := range []string{"cdp", "dtbl", "spawn", "flat", "threshold"} {
			run := func(data []byte, prefetch bool) (*replay.Stats, *recorder) {
				return replayRows(t, cfg, pol, binaryOpener(data), prefetch)
			}
			sa, ra := run(ordered, false)
			for _, v := range []struct {
				what     string
				data     []byte
				prefetch bool
			}{{"plain", plain, false}, {"ordered, prefetched,", ordered, true}, {"plain, prefetched,", plain, true}} {
				sb, rb := run(v.data, v.prefetch)
				if *sa != *sb || !reflect.DeepEqual(ra, rb) {
					t.Errorf("%s under %s: ordered and %s reading differ (makespan %d vs %d)", name, pol, v.what, sa.MakespanCycles, sb.MakespanCycles)
				}
			}
		}
	}
}

// replayRows replays the trace open opens under policy pol, with or
// without Options.Ahead, and returns its summary and every row.
func replayRows(t *testing.T, cfg model.Config, pol string, open replay.Opener, prefetch bool) (*replay.Stats, *recorder) {
	t.Helper()
	p, err := policies.New(pol, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: p, Ahead: readAhead(prefetch)}, rec)
	if err != nil {
		t.Fatalf("under %s: %v", pol, err)
	}
	return st, rec
}

// binaryOpener opens the binary trace data.
func binaryOpener(data []byte) replay.Opener {
	return func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
}

func mustReader(t *testing.T, data []byte) *trace.Reader {
	t.Helper()
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A trace that fails halfway through a launch tree fails alike whether its
// trees are filed on the engine's goroutine or ahead of it on their own
// (Options.Ahead): the error surfaces when the engine needs what lies past it,
// not when the reader ahead first meets it.
func TestOrderedTreesFailTheSame(t *testing.T) {
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	good := generateBytes(t, "bfs", "scale=12")
	// A record two thirds of the way through breaks a rule: a cta record
	// of a device kernel names a CTA outside its grid, or a device
	// kernel's first has cycles not its longest warp's, or a device
	// kernel's declaration or launch is out of range (the records the
	// tree reader reads as pairs and runs, trace.Validator.Child).
	for name, bad := range map[string]func(trace.Record) bool{
		"cta outside the grid": func(r trace.Record) bool {
			c, ok := r.(*trace.CTA)
			if ok && c.CTA > 0 {
				c.CTA += 1 << 20
			}
			return ok && c.CTA > 0
		},
		"first cta's cycles": func(r trace.Record) bool {
			c, ok := r.(*trace.CTA)
			if ok && c.CTA == 0 && c.Kernel > 20 {
				c.Cycles++
			}
			return ok && c.CTA == 0 && c.Kernel > 20
		},
		"registers": func(r trace.Record) bool {
			k, ok := r.(*trace.Kernel)
			if ok {
				k.Regs = 300
			}
			return ok
		},
		"workload": func(r trace.Record) bool {
			l, ok := r.(*trace.Launch)
			if ok && l.Parent != nil {
				l.Workload = -1
			}
			return ok && l.Parent != nil
		},
	} {
		recs, err := trace.ReadAll(trace.NewValidator(mustReader(t, good)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 2 * len(recs) / 3; !bad(recs[i]); i++ {
		}
		failTheSame(t, cfg, name, writeBinary(t, recs))
	}
}

// failTheSame replays bad, a trace with a record that breaks a rule,
// with and without Ahead: both must fail, with the same error.
func failTheSame(t *testing.T, cfg model.Config, name string, bad []byte) {
	t.Helper()
	var errs [2]string
	for i, prefetch := range []bool{false, true} {
		p, err := policies.New("cdp", cfg)
		if err != nil {
			t.Fatal(err)
		}
		open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(bad)) }
		_, err = replay.Run(open, replay.Options{Config: cfg, Policy: p, Ahead: readAhead(prefetch)}, &recorder{})
		if err == nil {
			t.Fatalf("%s, prefetch %v: the replay of a bad trace succeeded", name, prefetch)
		}
		errs[i] = err.Error()
	}
	if errs[0] != errs[1] {
		t.Errorf("%s: without Ahead: %s\nwith: %s", name, errs[0], errs[1])
	}
	t.Log(errs[0])
}

// writeBinary writes recs as a binary trace.
func writeBinary(t *testing.T, recs []trace.Record) []byte {
	t.Helper()
	return encode(t, func(w *trace.Writer) error {
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return nil
	})
}
