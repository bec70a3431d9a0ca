package replay_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/policies/policytest"
	"github.com/gpureplay/gpureplay/replay"
)

// TestGoldenState runs the cases of testdata/state/*.txt, which step a
// replay: `until=T1,T2,...` fires every event up to each cycle in turn,
// and after each prints `at T` and the state of the components state=
// names (kd, sms, streams, launchpath: replay.Stepper.Show); then the
// run goes on to its end and the tables show= names follow, as in
// TestGolden's cases.
func TestGoldenState(t *testing.T) {
	policytest.Files(t, "testdata/state/*.txt", func(t *testing.T, c policytest.Case) []string {
		rec := &recorder{}
		s, err := replay.NewStepper(c.JSONL(), c.Options(t), rec)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		var out []string
		for _, u := range strings.Split(c.Arg("until", ""), ",") {
			at, err := strconv.ParseInt(u, 10, 64)
			if err != nil {
				t.Fatalf("line %d: until=%q: want cycles", c.Line, c.Arg("until", ""))
			}
			if _, err := s.Until(at); err != nil {
				return append(out, "error: "+err.Error())
			}
			out = append(out, fmt.Sprintf("at %d (last event %d)", at, s.Now()))
			for _, what := range strings.Split(c.Arg("state", "kd,sms,streams"), ",") {
				lines, err := s.Show(what)
				if err != nil {
					t.Fatalf("line %d: %v", c.Line, err)
				}
				out = append(out, lines...)
			}
		}
		st, err := s.Finish()
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		return append(out, rec.Render(st, bounds.Bounds{}, c.Show())...)
	})
}
