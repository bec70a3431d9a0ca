package replaycli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/internal/perfetto"
)

// Perfetto draws an arrow for every launch of a three-policy BFS
// timeline: the file is imported by Perfetto's rules (internal/perfetto:
// its sorter, slice stacks and flow tracker, where v1 flows are keyed by
// category, name and id with no pid), not paired by our own reading, and
// the arrows it keeps are matched one for one against the launches and
// kernels tables: from the parent CTA's slice (or the host's launch call)
// to the child kernel's slice (or the first CTA of the group it
// coalesced into), within one run. Before flow ids were unique across the
// file and each start written before its end, 383 of 1,353 arrows
// survived this import, 309 of them joining two runs.
func TestTimelinePerfettoDrawsEveryLaunch(t *testing.T) {
	dir := t.TempDir()
	tl := filepath.Join(dir, "t.json")
	if code, _, stderr := replayCmd(t, "--policy=cdp,flat,threshold", "--format=csv", "--quiet", "--out", dir, "--timeline", tl, sample); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := checkPerfettoFlows(t, dir, tl); n != 1208 {
		t.Errorf("%d arrows, want 1,208 (1,039 cdp and 154 threshold launches, 3 x 5 host launches)", n)
	}
}

// checkPerfettoFlows imports the timeline at path as Perfetto does and
// checks that its arrows are exactly the launches of the tables in dir
// (launches.csv, kernels.csv): one from each launched or coalesced lane's
// parent CTA to its child, and one from each host launch call to its
// kernel, none dropped and none between runs. It returns the arrows.
func checkPerfettoFlows(t *testing.T, dir, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := perfetto.Import(f)
	if err != nil {
		t.Fatal(err)
	}
	for stat, n := range tr.Stats {
		if n > 0 {
			t.Errorf("%s: Perfetto's import counts %d %s", path, n, stat)
		}
	}
	run := func(pid int) string {
		name, _, _ := strings.Cut(tr.Processes[pid], ": ")
		return name
	}
	var want, got []string
	for _, r := range readCSV(t, filepath.Join(dir, "launches.csv")) {
		name := runName(r)
		switch r["outcome"] {
		case "launched":
			want = append(want, fmt.Sprintf("%s: cta %s/%s -> kernel %s", name, r["parent_kernel_id"], r["parent_cta"], r["child_kernel_id"]))
		case "aggregated":
			want = append(want, fmt.Sprintf("%s: cta %s/%s -> kernel %s", name, r["parent_kernel_id"], r["parent_cta"], r["target_kernel_id"]))
		case "coalesced":
			want = append(want, fmt.Sprintf("%s: cta %s/%s -> group %s", name, r["parent_kernel_id"], r["parent_cta"], r["child_kernel_id"]))
		}
	}
	for _, r := range readCSV(t, filepath.Join(dir, "kernels.csv")) {
		if r["origin"] == "host" {
			want = append(want, fmt.Sprintf("%s: host -> kernel %s", runName(r), r["kernel_id"]))
		}
	}
	arg := func(s perfetto.Slice, key string) string {
		if v, ok := s.Args[key]; ok {
			return fmt.Sprint(v)
		}
		return ""
	}
	for _, fl := range tr.Flows {
		out, in := tr.Slices[fl.Out], tr.Slices[fl.In]
		if run(out.Pid) != run(in.Pid) {
			t.Errorf("an arrow from %q in %q to %q in %q: between two runs", out.Name, tr.Processes[out.Pid], in.Name, tr.Processes[in.Pid])
			continue
		}
		from := "host"
		if c := arg(out, "cta"); c != "" {
			from = "cta " + arg(out, "kernel_id") + "/" + c
		}
		to := "kernel " + arg(in, "kernel_id")
		if g := arg(in, "group_id"); g != "" {
			to = "group " + g
		}
		got = append(got, fmt.Sprintf("%s: %s -> %s", run(out.Pid), from, to))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		missing, extra := diff(want, got), diff(got, want)
		t.Errorf("%s: Perfetto draws %d arrows, the tables have %d launches; %d not drawn (%s), %d not launches (%s)",
			path, len(got), len(want), len(missing), head(missing), len(extra), head(extra))
	}
	return len(got)
}

func runName(r map[string]string) string {
	name := r["trace"] + " · " + r["policy"]
	if r["params"] != "" {
		name += " · " + r["params"]
	}
	return name
}

// diff is a's elements not in b, both sorted, counting repeats.
func diff(a, b []string) []string {
	var out []string
	j := 0
	for _, s := range a {
		for j < len(b) && b[j] < s {
			j++
		}
		if j < len(b) && b[j] == s {
			j++
			continue
		}
		out = append(out, s)
	}
	return out
}

func head(s []string) string {
	if len(s) > 3 {
		return strings.Join(s[:3], "; ") + "; ..."
	}
	return strings.Join(s, "; ")
}

// KLAP's lanes, each with its own arrow into the one aggregated kernel
// its launch went into, and the narrow-task policies' host calls (HyperQ's
// launches, GeMTC's pushes, Pagoda's spawns) are drawn as Perfetto imports
// them too.
func TestTimelinePerfettoAggregatedAndTasks(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.trace.zst")
	if code, _, stderr := replayCmd(t, "gen", "tasks", "--param", "count=64", "-o", tasks); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"klap", []string{"--policy=klap", sample}},
		{"tasks", []string{"--gpu=titanx", "--policy=hyperq,gemtc,pagoda", tasks}},
	} {
		out := filepath.Join(dir, c.name)
		tl := filepath.Join(out, "t.json")
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--format=csv", "--quiet", "--out", out, "--timeline", tl}, c.args...)
		if code, _, stderr := replayCmd(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if n := checkPerfettoFlows(t, out, tl); n == 0 {
			t.Errorf("%s: no arrows", c.name)
		}
	}
}
