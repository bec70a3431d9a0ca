package study

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/results"
)

func spec(policies ...string) Spec {
	return Spec{
		Traces:   []string{"a/bfs.trace.zst", "b/bfs.trace.zst", "sssp.jsonl"},
		GPU:      "k20c",
		Sets:     []string{"lat.host_issue=0"},
		Sweeps:   []Axis{{"gpu.sms", []string{"8", "13"}}, {"launch.threshold", []string{"16"}}},
		Policies: policies,
	}
}

// With several policies a group is one trace and combination; with one,
// one trace (every combination is compared with the first).
func TestExpandGroups(t *testing.T) {
	for _, c := range []struct {
		policies []string
		groups   []int
	}{
		{[]string{"cdp", "flat"}, []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}},
		{[]string{"threshold"}, []int{0, 0, 1, 1, 2, 2}},
	} {
		plan := Expand(spec(c.policies...))
		var groups []int
		for i, r := range plan {
			if r.ID != i {
				t.Errorf("replay %d has id %d", i, r.ID)
			}
			groups = append(groups, r.Group)
		}
		if !reflect.DeepEqual(groups, c.groups) {
			t.Errorf("%v: groups %v, want %v", c.policies, groups, c.groups)
		}
	}
	plan := Expand(spec("cdp", "flat"))
	first, last := plan[0], plan[len(plan)-1]
	if first.Name != "a/bfs.trace.zst" || first.Params() != "gpu.sms=8,launch.threshold=16" || first.Policy != "cdp" {
		t.Errorf("first replay %+v", first)
	}
	if last.Name != "sssp" || last.Params() != "gpu.sms=13,launch.threshold=16" || last.Policy != "flat" {
		t.Errorf("last replay %+v", last)
	}
}

// Trace values are short names unless shared; shared ones become the
// paths, which stay apart even where a path equals another file's short
// name.
func TestTraceNames(t *testing.T) {
	for _, c := range []struct{ paths, want []string }{
		{[]string{"a/x.trace.zst", "b/y.jsonl"}, []string{"x", "y"}},
		{[]string{"a/x.trace.zst", "./b/x.trace.zst"}, []string{"a/x.trace.zst", "b/x.trace.zst"}},
		{[]string{"d2/x.trace.zst", "d2/x.jsonl", "y.jsonl"}, []string{"d2/x.trace.zst", "d2/x.jsonl", "y"}},
		{[]string{"x.jsonl", "x.trace.zst", "x.jsonl.json"}, []string{"x.jsonl", "x.trace.zst", "x.jsonl.json"}},
	} {
		if got := TraceNames(c.paths); !reflect.DeepEqual(got, c.want) {
			t.Errorf("TraceNames(%q) = %q, want %q", c.paths, got, c.want)
		}
	}
}

func TestManifestRoundTrip(t *testing.T) {
	plan := Expand(spec("cdp", "flat"))
	path := filepath.Join(t.TempDir(), "m.jsonl")
	var buf bytes.Buffer
	if err := WriteManifest(&buf, plan); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, plan) {
		t.Errorf("read back %+v\nwant %+v", got, plan)
	}
}

// A manifest that is not a plan is refused, naming the line and the fault.
func TestManifestErrors(t *testing.T) {
	ok := `{"id":0,"group":0,"trace":"t","name":"t","gpu":"k20c","policy":"cdp"}`
	for _, c := range []struct{ text, want string }{
		{"", "lists no replay"},
		{"{", ":1: not a replay"},
		{`{"id":0,"group":0,"trace":"t","name":"t","gpu":"k20c","policy":"cdp","x":1}`, `:1: not a replay: json: unknown field "x"`},
		{`{"id":1,"group":0,"trace":"t","name":"t","gpu":"k20c","policy":"cdp"}`, ":1: replay id 1 where 0 was due"},
		{`{"id":0,"group":0,"trace":"t","name":"t","gpu":"k20c"}`, ":1: replay 0: trace, name, gpu and policy are required"},
		{ok + "\n\n" + `{"id":1,"group":2,"trace":"t","name":"t","gpu":"k20c","policy":"cdp"}`, ":3: replay 1: group 2 where 1 was due"},
	} {
		path := filepath.Join(t.TempDir(), "m.jsonl")
		os.WriteFile(path, []byte(c.text), 0o644)
		_, err := ReadManifest(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%q: error %v, want %s%s", c.text, err, path, c.want)
		}
	}
}

// The shards of a plan hold every replay once, whole groups each.
func TestShardsPartitionThePlan(t *testing.T) {
	plan := Expand(spec("cdp", "flat"))
	for n := 1; n <= 8; n++ {
		seen := map[int]int{}
		for i := range n {
			for _, r := range (Shard{i, n}).Select(plan) {
				seen[r.ID]++
				if r.Group%n != i {
					t.Errorf("shard %d/%d holds replay %d of group %d", i, n, r.ID, r.Group)
				}
			}
		}
		for _, r := range plan {
			if seen[r.ID] != 1 {
				t.Errorf("%d shards: replay %d held %d times", n, r.ID, seen[r.ID])
			}
		}
	}
	for _, s := range []string{"", "1", "2/2", "-1/3", "a/3", "0/0", "1/2/3"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) succeeded", s)
		}
	}
	if s, err := ParseShard("3/4"); err != nil || s != (Shard{3, 4}) {
		t.Errorf("ParseShard(3/4) = %v, %v", s, err)
	}
}

// touch creates a part file of the dataset.
func touch(t *testing.T, d Dataset, table, policy string, shard, id int) string {
	t.Helper()
	p := d.Part(table, policy, shard, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// write writes replay r's parts of every table, with no rows, in shard,
// as a replay that ran to the end does.
func write(t *testing.T, d Dataset, r Replay, shard int) {
	t.Helper()
	w, err := d.Open(r, r.Policy, shard)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Status reads done (a summary part and every table's part whole),
// failed (an error file, whatever parts exist), corrupt, missing and
// duplicated (parts in two shards) replays.
func TestDatasetStatus(t *testing.T) {
	plan := Expand(spec("cdp", "flat"))[:6]
	d := Dataset{Dir: t.TempDir(), Format: results.Parquet}
	if _, err := d.Status(); err == nil || !strings.Contains(err.Error(), "not a study's output") {
		t.Fatalf("Status of an empty directory: %v", err)
	}
	if err := d.Claim(plan); err != nil {
		t.Fatal(err)
	}
	if err := d.Claim(plan); err != nil {
		t.Fatalf("second Claim of the same plan: %v", err)
	}
	if err := d.Claim(plan[:4]); err == nil || !strings.Contains(err.Error(), "another study") {
		t.Fatalf("Claim of another plan: %v", err)
	}
	write(t, d, plan[0], 0)
	touch(t, d, "kernels", "flat", 0, 1) // cut short: no summary part
	write(t, d, plan[2], 1)
	write(t, d, plan[2], 0) // also in another shard's files
	touch(t, d, "summary", "cdp", 0, 4)
	if err := d.Settle(plan[4], errors.New("trace: boom"), nil); err != nil {
		t.Fatal(err)
	}
	st, err := d.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Done, []int{0, 2}) || !reflect.DeepEqual(st.Missing, []int{1, 3, 5}) ||
		!reflect.DeepEqual(st.Failed, map[int]string{4: "trace: boom"}) || !reflect.DeepEqual(st.Duplicated, []int{2}) {
		t.Errorf("status: done %v missing %v failed %v duplicated %v", st.Done, st.Missing, st.Failed, st.Duplicated)
	}
	if st.Complete() {
		t.Error("an incomplete study is complete")
	}

	// Shard 1 of 2 reruns group 1 (replays 2, 3): the stale part of
	// replay 2 in shard 0's files goes once the replay is written anew.
	mine := (Shard{1, 2}).Select(plan)
	stale, err := d.Elsewhere(mine, 1)
	if err != nil {
		t.Fatal(err)
	}
	var shard0 []string
	for _, table := range results.Tables() {
		shard0 = append(shard0, d.Part(table, "cdp", 0, 2))
	}
	if want := map[int][]string{2: shard0}; !reflect.DeepEqual(stale, want) {
		t.Errorf("Elsewhere: %v, want %v", stale, want)
	}
	for _, r := range plan {
		write(t, d, r, int(r.Group%2))
		if err := d.Settle(r, nil, stale[r.ID]); err != nil {
			t.Fatal(err)
		}
	}
	write(t, d, plan[0], 0) // a replay rerun in its own shard replaces its files
	st, err = d.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !st.Complete() || len(st.Failed) > 0 {
		t.Errorf("after the reruns: done %v missing %v failed %v duplicated %v", st.Done, st.Missing, st.Failed, st.Duplicated)
	}

	// A part overwritten with garbage, one cut short and one removed make
	// their replays corrupt, not done; writing them anew mends them.
	os.WriteFile(d.Part("ctas", "flat", 0, 1), []byte("garbage"), 0o644)
	pq, _ := os.ReadFile(d.Part("kernels", "cdp", 1, 2))
	os.WriteFile(d.Part("kernels", "cdp", 1, 2), pq[:len(pq)-5], 0o644)
	os.Remove(d.Part("pages", "flat", 1, 3))
	st, err = d.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Corrupt) != 3 || !strings.Contains(st.Corrupt[1], "part-1.parquet: not a whole Parquet file") ||
		!strings.Contains(st.Corrupt[2], "part-2.parquet: not a whole Parquet file") || st.Corrupt[3] != "no part of table pages" ||
		!reflect.DeepEqual(st.Done, []int{0, 4, 5}) || st.Complete() {
		t.Errorf("corrupt parts: done %v corrupt %v", st.Done, st.Corrupt)
	}
	for _, r := range plan[1:4] {
		write(t, d, r, int(r.Group%2))
	}
	if st, err = d.Status(); err != nil || !st.Complete() {
		t.Errorf("after writing the corrupt replays anew: done %v corrupt %v (%v)", st.Done, st.Corrupt, err)
	}
}

// A CSV part is whole when its header is the table's and its last row
// ends with a newline.
func TestDatasetStatusCSV(t *testing.T) {
	plan := Expand(spec("cdp"))[:1]
	d := Dataset{Dir: t.TempDir(), Format: results.CSV}
	if err := d.Claim(plan); err != nil {
		t.Fatal(err)
	}
	write(t, d, plan[0], 0)
	if st, err := d.Status(); err != nil || !st.Complete() {
		t.Fatalf("whole CSV parts: done %v corrupt %v (%v)", st.Done, st.Corrupt, err)
	}
	p := d.Part("summary", "cdp", 0, 0)
	b, _ := os.ReadFile(p)
	for _, c := range []struct{ data, want string }{
		{string(b[:len(b)-1]), "cut short"},
		{"garbage\n", "header \"garbage\""},
		{"", "no CSV header line"},
	} {
		os.WriteFile(p, []byte(c.data), 0o644)
		if st, err := d.Status(); err != nil || !strings.Contains(st.Corrupt[0], c.want) {
			t.Errorf("summary part %q: corrupt %v (%v), want %q", c.data, st.Corrupt, err, c.want)
		}
	}
}

func TestSlurmScript(t *testing.T) {
	var b strings.Builder
	job := SlurmJob{
		Replay: "/opt/bin/replay", Manifest: "/home/me/my study.jsonl",
		Out:   Dataset{Dir: "/scratch/out", Format: results.Parquet},
		Tasks: 4, Jobs: 2, MemMB: 512, Name: "s", Partition: "gpu", Extra: []string{"--account=lab"},
		Groups: 9, Replays: 36,
	}
	if err := job.WriteScript(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n",
		"\n#SBATCH --array=0-3\n",
		"\n#SBATCH --cpus-per-task=2\n",
		"\n#SBATCH --mem=512M\n",
		"\n#SBATCH --output=/scratch/out/_study/slurm/%A_%a.out\n",
		"\n#SBATCH --partition=gpu\n",
		"\n#SBATCH --account=lab\n",
		"\nexec /opt/bin/replay study run '/home/me/my study.jsonl' --out /scratch/out --format parquet --shard \"${SLURM_ARRAY_TASK_ID}/4\" --jobs \"${SLURM_CPUS_PER_TASK:-2}\"\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "--time") {
		t.Errorf("script asks for a time limit nobody set:\n%s", b.String())
	}
}

// A header setting (meta "set.KEY") out of its range names the trace
// under --gpu=captured, where it named only the key (issue 75); a --set
// of the key replaces it, and a --set out of range is the command
// line's, not the trace's.
func TestCapturedSettingNamesTheTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	trace := `{"type":"header","version":1,"clock_mhz":706,"gpu":"x","gpu_spec":{"sms":4},"meta":{"set.lat.host_sync":"-5"}}
{"type":"kernel","id":1,"name":"p","grid":[1,1,1],"block":[32,1,1]}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":100}
`
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Replay{Trace: path, GPU: "captured"}.Config()
	if want := path + ": --gpu=captured: the trace header's lat.host_sync is -5; must be at least 0"; err == nil || err.Error() != want || !IsInputError(err) {
		t.Errorf("got %v; want %q", err, want)
	}
	if _, err := (Replay{Trace: path, GPU: "captured", Sets: []string{"lat.host_sync=3"}}).Config(); err != nil {
		t.Errorf("--set lat.host_sync=3: %v", err)
	}
	_, err = Replay{Trace: path, GPU: "captured", Sets: []string{"lat.host_sync=3", "gpu.sms=0"}}.Config()
	if err == nil || strings.Contains(err.Error(), path) {
		t.Errorf("--set gpu.sms=0: %v; want the key's error, not the trace's", err)
	}
}
