package replaycli

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// beforeContention is what the replay wrote before the contention model
// existed (commit 7777cda) for the shipped sample under
// --policy=cdp,flat,threshold,dtbl,spawn --set launch.threshold=64
// --format=csv: each table's columns of that time, as SHA-256 of the CSV.
var beforeContention = map[string]struct {
	columns []string
	sha256  string
}{
	"summary": {[]string{"trace", "policy", "params", "gpu", "makespan_cycles", "makespan_us", "speedup", "kernels", "device_kernels", "ctas", "launch_sites", "launched", "inlined", "coalesced", "avg_occupancy", "avg_kernel_wait_cycles", "stall_cycles", "busy_cycles"},
		"373e571bca069978d37d1d5f0d3417acc79a35cad555a301508f6c802e692823"},
	"kernels": {[]string{"trace", "policy", "params", "kernel_id", "name", "origin", "parent_kernel_id", "stream", "ctas", "threads_per_cta", "launch_cycle", "ready_cycle", "start_cycle", "end_cycle", "wait_cycles", "coalesced_groups"},
		"1f4959da53fa48506e529415c1c885dae01f433f6b8251ff520a7b0641d1f0ac"},
	"ctas": {[]string{"trace", "policy", "params", "kernel_id", "cta", "sm", "dispatch_cycle", "start_cycle", "end_cycle", "stall_cycles", "group_id"},
		"9e3758ab23e01394be55e2d5df5f06b3ca50f368fff3a87e79e797d157f5d680"},
	"launches": {[]string{"trace", "policy", "params", "site_id", "cycle", "parent_kernel_id", "parent_cta", "warp", "lane", "child_kernel_id", "workload", "decision", "target_kernel_id", "est_child_cycles", "est_parent_cycles"},
		"2c96669923566e42ac17d1731259216dc8fb4f7bb505c4fdad73f7af9c217f0e"},
}

// model.contention=off reproduces the tables of the replay before the
// model, byte for byte in every column they had, on the shipped sample
// as it was until its sites were priced by the lane-loop rule
// (testdata/v1/bfs-kron12.trace.zst: the same records but the sites'
// inline_cycles, and the demands the model would otherwise act on); with
// cdp.launch_servers=0, since the launch servers came after it, and
// SPAWN's fixed Table II estimate (spawn.overhead_a=1721,
// spawn.overhead_b=20210), which later became the engine's charge; and
// DTBL's matching at the site with the first spilled CTA alone paying the
// load (dtbl.fallback=instant, dtbl.spill_loads=first), which later
// became matching at the command's arrival and a load per spilled CTA;
// and SPAWN's n counting a child from the decision (spawn.queue=decision),
// which later became its arrival at the KMU.
func TestContentionOffIsTheOldReplay(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := replayCmd(t, "--policy=cdp,flat,threshold,dtbl,spawn", "--set", "launch.threshold=64",
		"--set", "model.contention=off", "--set", "cdp.launch_servers=0",
		"--set", "spawn.overhead_a=1721", "--set", "spawn.overhead_b=20210",
		"--set", "dtbl.fallback=instant", "--set", "dtbl.spill_loads=first", "--set", "spawn.queue=decision",
		"--format=csv", "--out", dir, filepath.Join("testdata", "v1", "bfs-kron12.trace.zst"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for table, want := range beforeContention {
		if got := projectedSHA(t, filepath.Join(dir, table+".csv"), want.columns); got != want.sha256 {
			t.Errorf("%s: the columns of before the contention model differ (sha256 %s)", table, got)
		}
	}
}

// projectedSHA is the SHA-256 of the CSV file at path cut down to columns,
// in that order, written as encoding/csv writes it.
func projectedSHA(t *testing.T, path string, columns []string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(columns))
	for i, c := range columns {
		if idx[i] = slices.Index(rows[0], c); idx[i] < 0 {
			t.Fatalf("%s: no column %s", path, c)
		}
	}
	h := sha256.New()
	w := csv.NewWriter(h)
	for _, r := range rows {
		out := make([]string, len(idx))
		for i, j := range idx {
			out[i] = r[j]
		}
		w.Write(out)
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}
