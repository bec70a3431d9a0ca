package replay_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/policies/policytest"
	"github.com/gpureplay/gpureplay/replay"
)

// TestGolden runs every case in testdata/*.txt (the format is package
// policytest's). Expected values are computed by hand in the comments
// above each case. Beyond policytest.Replay, each case must give the same
// rows with the trace read on a goroutine of its own and from a binary
// trace's host index.
func TestGolden(t *testing.T) {
	policytest.Files(t, "testdata/*.txt", runCase)
}

// runCase replays one case and renders the tables it asks for.
func runCase(t *testing.T, c policytest.Case) []string {
	cfg, err := c.Config()
	if err != nil {
		t.Fatalf("line %d: %v", c.Line, err)
	}
	src := strings.Join(c.Trace, "\n")
	jsonl := c.JSONL()
	run := func(open replay.Opener, prefetch bool) []string {
		pol, err := policies.New(c.Arg("policy", "cdp"), cfg)
		if p, ok := testPolicies[c.Args["policy"]]; ok {
			pol, err = p, nil
		}
		if err != nil {
			t.Fatalf("line %d: %v", c.Line, err)
		}
		return policytest.Run(c, replay.Options{Config: cfg, Policy: pol, Ahead: readAhead(prefetch)}, open)
	}
	got := run(jsonl, false)
	// Reading the trace on a goroutine of its own changes nothing.
	if pre := run(jsonl, true); !slices.Equal(pre, got) {
		t.Errorf("line %d: with Options.Ahead the case gives\n%s\nwithout\n%s", c.Line, strings.Join(pre, "\n"), strings.Join(got, "\n"))
	}
	// Nor does taking the host operations from a binary trace's host
	// index. A trace error names its record in either encoding's terms
	// (a line, a byte offset), so then both must fail.
	if data, ok := binaryOf(src); ok {
		for _, prefetch := range []bool{false, true} {
			ix := run(openIndexed(data, nil), prefetch)
			same := slices.Equal(ix, got)
			if strings.HasPrefix(strings.Join(got, ""), "error: trace:") {
				same = strings.HasPrefix(strings.Join(ix, ""), "error: trace:")
			}
			if !same {
				t.Errorf("line %d: from the host index (prefetch %v) the case gives\n%s\nfrom JSONL\n%s", c.Line, prefetch, strings.Join(ix, "\n"), strings.Join(got, "\n"))
			}
		}
	}
	return got
}

// testPolicies are mechanisms only the golden cases use, to reach engine
// behaviour no real policy provokes.
var testPolicies = map[string]replay.Policy{
	// never-2 never lets kernel 2's CTAs start: a deadlock.
	"never-2": {Name: "never-2", Gate: gateFunc(func(k *replay.Kernel, _ uint64) bool { return k.ID() != 2 })},
}

// recorder keeps a replay's rows in memory (the golden cases' renderer's).
type recorder = policytest.Recorder
