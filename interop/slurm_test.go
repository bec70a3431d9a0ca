package interop

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
)

// TestSlurmStudy runs a study as a Slurm job array on a real (one-node)
// cluster, the way docs/scale-out.md tells a user to: plan, write the
// array script, sbatch it. One array task is cancelled mid-run and run
// again; the study must then be complete, with every replay once, and
// its hive-partitioned dataset must hold exactly the rows of the same
// study replayed in one process with --jobs 1 (DuckDB EXCEPT ALL, both
// ways, every table).
func TestSlurmStudy(t *testing.T) {
	cluster := startSlurm(t)
	tmp := t.TempDir()

	// Three generated traces x four policies x a three-value sweep: 36
	// replays in 9 speedup groups. gc is the slow one (about 0.3 s a
	// replay), so a shard that holds one of its groups runs long enough
	// to be cancelled in the middle.
	var traces []string
	for _, g := range [][]string{
		{"bfs", "--param", "scale=15"},
		{"sssp", "--param", "scale=14"},
		{"gc", "--param", "scale=14"},
	} {
		trace := filepath.Join(tmp, g[0]+".trace.zst")
		run(t, append(append([]string{"gen"}, g...), "-o", trace)...)
		traces = append(traces, trace)
	}
	replayArgs := []string{"--policy=cdp,flat,dtbl,spawn", "--sweep", "gpu.sms=8,13,26"}
	manifest := filepath.Join(tmp, "study.jsonl")
	run(t, append(append(append([]string{"study", "plan"}, replayArgs...), traces...), "-o", manifest)...)
	plan, err := study.ReadManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 36 || study.Groups(plan) != 9 {
		t.Fatalf("plan has %d replays in %d groups, want 36 in 9", len(plan), study.Groups(plan))
	}

	const tasks = 4
	out := filepath.Join(tmp, "out")
	script := filepath.Join(tmp, "study.sbatch")
	run(t, "study", "slurm", manifest, "--out", out, "--array-size", fmt.Sprint(tasks), "--replay", replayBin, "-o", script)

	// The victim is the shard that holds the last group (gc): its first
	// groups finish quickly, and once one of its replays is done it still
	// has a gc group to go.
	victim := study.Shard{I: plan[len(plan)-1].Group % tasks, N: tasks}
	victimIDs := ids(victim.Select(plan))
	job := cluster.run(t, "sbatch", "--parsable", script)
	task := fmt.Sprintf("%s_%d", job, victim.I)
	if !waitFor(2*time.Minute, func() bool { return len(doneParts(out, victim.I)) > 0 }) {
		t.Fatalf("array task %s finished no replay in 2 minutes\n%s", task, taskOutputs(out))
	}
	cluster.run(t, "scancel", task)
	waitJob(t, cluster, job)

	st, err := study.Dataset{Dir: out}.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Missing) == 0 {
		t.Fatalf("array task %s finished before scancel reached it; the test needs longer replays in that shard", task)
	}
	for _, id := range st.Missing {
		if !slices.Contains(victimIDs, id) {
			t.Errorf("replay %d is missing but belongs to a shard that was not cancelled\n%s", id, taskOutputs(out))
		}
	}
	if len(st.Failed) > 0 || len(st.Duplicated) > 0 {
		t.Errorf("after the cancel: failed %v, duplicated %v", st.Failed, st.Duplicated)
	}
	checkNoTempFiles(t, out)
	t.Logf("array task %s cancelled with %d of its %d replays done", task, len(victimIDs)-len(st.Missing), len(victimIDs))

	// Retry the cancelled task alone, as docs/scale-out.md says.
	retry := cluster.run(t, "sbatch", "--parsable", fmt.Sprintf("--array=%d", victim.I), script)
	waitJob(t, cluster, retry)
	status := exec.Command(replayBin, "study", "status", out)
	if msg, err := status.CombinedOutput(); err != nil || !strings.HasSuffix(strings.TrimSpace(string(msg)), "\ncomplete") {
		t.Fatalf("study status after the retry: %v\n%s\n%s", err, msg, taskOutputs(out))
	}
	checkNoTempFiles(t, out)

	// The same study in one process.
	ref := filepath.Join(tmp, "ref")
	run(t, append(append(append([]string{"--jobs", "1", "-q"}, replayArgs...), "--out", ref), traces...)...)
	db := openDB(t)
	filled := 0
	for _, table := range results.Tables() {
		want := fmt.Sprintf("read_parquet('%s')", filepath.Join(ref, table+".parquet"))
		n := count(t, db, "SELECT count(*) FROM "+want)
		parts, _ := filepath.Glob(filepath.Join(out, table, "policy=*", "shard=*", "*.parquet"))
		if len(parts) == 0 {
			if n != 0 {
				t.Errorf("%s: the single run has %d rows, the study no part file", table, n)
			}
			continue
		}
		filled++
		cols := columnNames(table)
		got := fmt.Sprintf("(SELECT %s FROM read_parquet('%s/%s/**/*.parquet', hive_partitioning = true))", cols, out, table)
		want = fmt.Sprintf("(SELECT %s FROM %s)", cols, want)
		if m := count(t, db, "SELECT count(*) FROM "+got); m != n {
			t.Errorf("%s: the study has %d rows, the single run %d", table, m, n)
		}
		for _, q := range []string{got + " EXCEPT ALL " + want, want + " EXCEPT ALL " + got} {
			if d := count(t, db, "SELECT count(*) FROM ("+q+")"); d != 0 {
				t.Errorf("%s: %d rows in %s", table, d, q)
			}
		}
	}
	if filled < 4 {
		t.Errorf("only %d tables have rows; the comparison checks little", filled)
	}

	// The queries docs/scale-out.md shows, on this dataset.
	doc, err := os.ReadFile("../docs/scale-out.md")
	if err != nil {
		t.Fatal(err)
	}
	queries := sqlStatements(string(doc))
	if len(queries) == 0 {
		t.Error("docs/scale-out.md has no ```sql block")
	}
	for _, q := range queries {
		checkQuery(t, db, "docs/scale-out.md", strings.ReplaceAll(q, "'out/", "'"+out+"/"))
	}
}

func ids(plan []study.Replay) []int {
	var out []int
	for _, r := range plan {
		out = append(out, r.ID)
	}
	return out
}

// doneParts lists the summary parts a shard has written: its finished
// replays.
func doneParts(out string, shard int) []string {
	parts, _ := filepath.Glob(filepath.Join(out, "summary", "policy=*", fmt.Sprintf("shard=%d", shard), "part-*.parquet"))
	return parts
}

// waitJob waits until Slurm no longer lists the job (all its array tasks
// ended, however).
func waitJob(t *testing.T, cluster *miniSlurm, job string) {
	t.Helper()
	if !waitFor(5*time.Minute, func() bool { return cluster.run(t, "squeue", "-h", "-j", job) == "" }) {
		t.Fatalf("job %s still queued or running after 5 minutes:\n%s", job, cluster.run(t, "squeue", "-j", job))
	}
}

// taskOutputs returns what the array tasks printed, for a failure message.
func taskOutputs(out string) string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(out, "_study", "slurm", "*.out"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), data)
	}
	return b.String()
}

// checkNoTempFiles fails the test if a temporary (dot) file is left in the
// dataset: a cancelled task removes its unfinished files.
func checkNoTempFiles(t *testing.T, out string) {
	t.Helper()
	filepath.WalkDir(out, func(path string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", path)
		}
		return nil
	})
}

// columnNames is the table's documented columns, comma separated, so the
// study (whose hive partitioning adds a shard column) and the single run
// are compared on the same columns in the same order.
func columnNames(table string) string {
	var names []string
	for _, f := range results.Schema(table).Fields() {
		names = append(names, `"`+f.Name+`"`)
	}
	return strings.Join(names, ", ")
}
