package replaycli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
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

// The issue's --set extremes: dtbl.agt_entries=2^62 (a panic in make),
// 2^40 (out of memory) replay as 2^14 does on the sample's k20c (16 CTAs
// of at most 1024 threads index 2^14 entries), and gpu.clock_mhz=1e-308
// (makespan_us +Inf) is a one-line exit 2 naming the key and its range,
// with no output left.
func TestSetExtremes(t *testing.T) {
	dir := t.TempDir()
	var want string
	for _, n := range []string{"16384", "1099511627776", "4611686018427387904"} {
		code, stdout, stderr := replayCmd(t, "--policy=dtbl", "--set", "dtbl.agt_entries="+n, sample)
		if code != 0 {
			t.Fatalf("agt_entries=%s: exit %d: %s", n, code, stderr)
		}
		if want == "" {
			want = stdout
		} else if stdout != want {
			t.Errorf("agt_entries=%s:\n%s\nwant as 16384:\n%s", n, stdout, want)
		}
	}
	out := filepath.Join(dir, "o")
	code, stdout, stderr := replayCmd(t, "--set", "gpu.clock_mhz=1e-308", "--out", out, "--timeline", filepath.Join(dir, "t.json"), sample)
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "gpu.clock_mhz is 1e-308; must be between 1 and 1000000") {
		t.Errorf("gpu.clock_mhz=1e-308: exit %d, %q %q", code, stdout, stderr)
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

// ctas.stall_cycles is what docs/tables.md says: start − dispatch, plus,
// under the CRCS scoreboard, the pauses at pages during the run, so never
// less than start − dispatch; and the summary's stall_cycles is the sum of
// the rows'. GeMTC and Pagoda wrote 0 on every row (and in the summary)
// while start − dispatch was positive.
func TestStallCyclesAsDocumented(t *testing.T) {
	dir := t.TempDir()
	tasks, hsp := filepath.Join(dir, "tasks.trace.zst"), filepath.Join(dir, "hsp.trace.zst")
	for _, args := range [][]string{
		{"gen", "tasks", "--param", "count=64", "-o", tasks},
		{"gen", "hotspot", "--param", "size=128", "--param", "iterations=4", "-o", hsp},
		{"-q", "--format=csv", "--gpu=titanx", "--policy=hyperq,gemtc,pagoda", "--out", filepath.Join(dir, "tasks"), tasks},
		{"-q", "--format=csv", "--gpu=gk110-64", "--policy=baseline,crcs,ppcs", "--out", filepath.Join(dir, "io"), hsp},
	} {
		if code, _, stderr := replayCmd(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	for _, out := range []string{"tasks", "io"} {
		ctas := readCSV(t, filepath.Join(dir, out, "ctas.csv"))
		sum := map[string]int64{}
		exact := map[string]bool{"hyperq": true, "gemtc": true, "pagoda": true, "baseline": true}
		for _, r := range ctas {
			stall, wait := int64(atoi(t, r["stall_cycles"])), int64(atoi(t, r["start_cycle"])-atoi(t, r["dispatch_cycle"]))
			if stall < wait || exact[r["policy"]] && stall != wait {
				t.Fatalf("%s: %s kernel %s CTA %s: stall_cycles %d, start − dispatch %d", out, r["policy"], r["kernel_id"], r["cta"], stall, wait)
			}
			sum[r["policy"]] += stall
		}
		for _, r := range readCSV(t, filepath.Join(dir, out, "summary.csv")) {
			if got := int64(atoi(t, r["stall_cycles"])); got != sum[r["policy"]] {
				t.Errorf("%s: %s summary stall_cycles %d, the rows sum to %d", out, r["policy"], got, sum[r["policy"]])
			}
		}
		if out == "tasks" && (sum["gemtc"] == 0 || sum["pagoda"] == 0) {
			t.Errorf("tasks: gemtc %d, pagoda %d stall cycles; want their waits", sum["gemtc"], sum["pagoda"])
		}
	}
}
