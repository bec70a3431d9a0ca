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
// kernel, none dropped and none between runs; and one from the kernel
// that released each blocking call of syncs.csv that a kernel released
// to the call's "released" slice. It returns the arrows.
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
	for _, r := range readCSV(t, filepath.Join(dir, "syncs.csv")) {
		if r["last_kernel_id"] != "" {
			want = append(want, fmt.Sprintf("%s: kernel %s -> sync %s", runName(r), r["last_kernel_id"], r["seq"]))
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
		if in.Name == "released" {
			got = append(got, fmt.Sprintf("%s: kernel %s -> sync %s", run(out.Pid), arg(out, "kernel_id"), arg(in, "seq")))
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

// A trace of the host's blocking calls (a blocking copy, an event, a
// stream and a device sync; interop/testdata/hostsync.jsonl) under two
// policies, and with --jobs 2: the syncs table has a row per blocking
// call, byte-identical whatever the workers, and the timeline draws each
// as a slice on its host thread's track, with an arrow from the kernel
// that released it.
func TestTimelineDrawsTheHostsSyncs(t *testing.T) {
	const trace = "../interop/testdata/hostsync.jsonl"
	dir := t.TempDir()
	tl := filepath.Join(dir, "t.json")
	if code, _, stderr := replayCmd(t, "--policy=cdp,flat", "--format=csv", "--quiet", "--out", dir, "--timeline", tl, trace); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readCSV(t, filepath.Join(dir, "syncs.csv"))
	var calls []string
	released := 0
	for _, r := range rows {
		calls = append(calls, r["policy"]+" "+r["seq"]+" "+r["call"])
		if r["last_kernel_id"] != "" {
			released++
		}
	}
	want := []string{"cdp 2 memcpy", "cdp 6 event", "cdp 7 stream", "cdp 8 device", "flat 2 memcpy", "flat 6 event", "flat 7 stream", "flat 8 device"}
	if !slices.Equal(calls, want) {
		t.Errorf("syncs rows %q, want %q", calls, want)
	}
	if released != 4 {
		t.Errorf("%d calls released by a kernel, want 4 (the event and stream syncs of each run)", released)
	}
	if n := checkPerfettoFlows(t, dir, tl); n != 2*3+released {
		t.Errorf("%d arrows, want %d (3 host launches and %d releases)", n, 2*3+released, released)
	}
	data, err := os.ReadFile(tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cudaMemcpy (blocking)", "cudaEventSynchronize", "cudaStreamSynchronize", "cudaDeviceSynchronize", "host thread 0"} {
		if n := strings.Count(string(data), `"`+name+`"`); n != 2 {
			t.Errorf("%q %d times in the timeline, want 2 (once a run)", name, n)
		}
	}
	jobs := t.TempDir()
	if code, _, stderr := replayCmd(t, "--policy=cdp,flat", "--jobs", "2", "--format=csv", "--quiet", "--out", jobs, trace); code != 0 {
		t.Fatalf("--jobs 2: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "syncs.csv"))
	b, _ := os.ReadFile(filepath.Join(jobs, "syncs.csv"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("syncs.csv with --jobs 2:\n%s\nwith one worker:\n%s", b, a)
	}
}
