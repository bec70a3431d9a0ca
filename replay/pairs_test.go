package replay_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// smallParams keeps the generators whose default traces are large quick
// enough to replay many times over.
var smallParams = map[string][]string{
	"synth": {"kernels=4", "ctas=200", "site_rate=0.2"},
	"join":  {"r_tuples=8192", "s_tuples=8192"},
}

// replayPairs replays every generator's trace (smallParams) under each of
// the policies on k20c, with prefetch, once through each sink pair gives,
// between set(true) and set(false): the tests that a switch of the engine
// changes no total and no row. check compares the pair; a replay that
// fails is TestEveryGeneratorUnderEveryPolicy's, and skipped here as long
// as both fail alike.
func replayPairs(t *testing.T, pols []string, set func(bool), pair func() (a, b tables.Sink), check func(gen, pol string, a, b *replay.Stats, ra, rb tables.Sink)) {
	t.Helper()
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	defer set(true)
	for _, g := range samples.List() {
		data := generateBytes(t, g.Name, smallParams[g.Name]...)
		for _, name := range pols {
			run := func(on bool, sink tables.Sink) (*replay.Stats, error) {
				pol, err := policies.New(name, cfg)
				if err != nil {
					t.Fatal(err)
				}
				set(on)
				open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
				return replay.Run(open, replay.Options{Config: cfg, Policy: pol, Ahead: readAhead(true)}, sink)
			}
			ra, rb := pair()
			a, errA := run(true, ra)
			b, errB := run(false, rb)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s under %s: errors %v and %v", g.Name, name, errA, errB)
			}
			if errA == nil {
				check(g.Name, name, a, b, ra, rb)
			}
		}
	}
}
