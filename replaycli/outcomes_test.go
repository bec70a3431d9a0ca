package replaycli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// The launches table agrees with the summary row for row: on the sample,
// under every policy that replays it (and DTBL under both fallbacks and
// two event orders within a cycle), the lanes of each run counted by
// outcome are the summary's launched, inlined and coalesced, and a lane
// has a target_kernel_id exactly when it coalesced. Under DTBL's default
// dtbl.fallback=dispatch most lanes' site verdict is launch but they
// coalesce when their command arrives (issue 39 item 7: every row said
// launch while the summary said 6 launched, 1,033 coalesced). The
// timeline written by the same command, imported by Perfetto's rules,
// draws exactly one arrow per launched, coalesced or aggregated lane and
// per host launch.
func TestSampleOutcomesMatchSummary(t *testing.T) {
	for _, args := range [][]string{
		{"--policy=cdp,crcs,dtbl,flat,overlap1,ppcs,spawn,threshold"},
		{"--policy=dtbl", "--sweep", "model.tie_seed=0,1,4", "--sweep", "dtbl.fallback=dispatch,instant"},
	} {
		dir := t.TempDir()
		tl := filepath.Join(dir, "timeline.json")
		args = append(args, "--format=csv", "--quiet", "--out", dir, "--timeline", tl, sample)
		if code, _, stderr := replayCmd(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		type counts struct{ sites, launched, inlined, coalesced int }
		got := map[string]*counts{}
		for _, r := range readCSV(t, filepath.Join(dir, "launches.csv")) {
			run := r["policy"] + " " + r["params"]
			c := got[run]
			if c == nil {
				c = &counts{}
				got[run] = c
			}
			c.sites++
			switch r["outcome"] {
			case "launched":
				c.launched++
			case "inlined":
				c.inlined++
			case "coalesced":
				c.coalesced++
			default:
				t.Fatalf("%s: site %s lane %s: outcome %q", run, r["site_id"], r["lane"], r["outcome"])
			}
			if (r["target_kernel_id"] != "") != (r["outcome"] == "coalesced") {
				t.Fatalf("%s: site %s lane %s: outcome %s with target_kernel_id %q", run, r["site_id"], r["lane"], r["outcome"], r["target_kernel_id"])
			}
		}
		summary := readCSV(t, filepath.Join(dir, "summary.csv"))
		for _, s := range summary {
			run := s["policy"] + " " + s["params"]
			want := counts{atoi(t, s["launch_sites"]), atoi(t, s["launched"]), atoi(t, s["inlined"]), atoi(t, s["coalesced"])}
			if want.sites == 0 {
				t.Fatalf("%s: the sample has no launch sites", run)
			}
			if c := got[run]; c == nil || *c != want {
				t.Errorf("%s: launches table's outcomes %+v, summary %+v", run, c, want)
			}
		}
		if len(got) != len(summary) {
			t.Errorf("%v: launch rows for %d runs, %d summary rows", args, len(got), len(summary))
		}
		checkPerfettoFlows(t, dir, tl)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(fmt.Errorf("not an integer: %q", s))
	}
	return n
}
