package interop

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/gpureplay/gpureplay/results"
)

// replayBin is the command line under test, built once by TestMain.
var replayBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "interop")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	replayBin = filepath.Join(dir, "replay")
	// Built in the main module, with its dependency versions, as users build it.
	build := exec.Command("go", "build", "-C", "..", "-o", replayBin, "./cmd/replay")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	code := 1
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building replay:", err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the replay command line and fails the test on a non-zero exit.
func run(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(replayBin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replay %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runs are replays that between them fill every table: launch decisions
// (cdp, dtbl, spawn), a sweep's params column, host I/O stages and page
// events (crcs, ppcs), narrow tasks (hyperq, gemtc, pagoda), and the
// host's blocking calls (syncs, from a JSONL trace in testdata).
type replayCase struct {
	name  string
	gen   []string // replay gen arguments; empty for the shipped sample or trace
	args  []string
	trace string // the trace replayed when gen is empty; the sample if ""
}

var runs = []replayCase{
	{"dp", nil, []string{"--policy=cdp,flat,dtbl,spawn"}, ""},
	{"sweep", nil, []string{"--policy=threshold", "--sweep", "launch.threshold=16,256"}, ""},
	{"io", []string{"hotspot"}, []string{"--gpu=gk110-64", "--policy=baseline,crcs,ppcs"}, ""},
	{"tasks", []string{"tasks", "--param", "kind=mixed", "--param", "count=256"}, []string{"--gpu=titanx", "--policy=hyperq,gemtc,pagoda"}, ""},
	{"syncs", nil, []string{"--policy=cdp,flat", "--sweep", "lat.host_sync=0,500"}, "testdata/hostsync.jsonl"},
}

const sample = "../samples/bfs-kron12.trace.zst"

// writeTables replays c once per format and returns the two output
// directories.
func writeTables(t *testing.T, c replayCase) (parquetDir, csvDir string) {
	tmp := t.TempDir()
	trace := sample
	if c.trace != "" {
		trace = c.trace
	}
	if len(c.gen) > 0 {
		trace = filepath.Join(tmp, c.name+".trace.zst")
		run(t, append(append([]string{"gen"}, c.gen...), "-o", trace)...)
	}
	parquetDir, csvDir = filepath.Join(tmp, "parquet"), filepath.Join(tmp, "csv")
	run(t, append(append([]string{}, c.args...), "--out", parquetDir, trace)...)
	run(t, append(append([]string{}, c.args...), "--format=csv", "--out", csvDir, trace)...)
	return parquetDir, csvDir
}

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// duckType is the DuckDB type each Arrow column type must arrive as.
var duckType = map[arrow.Type]string{
	arrow.STRING:  "VARCHAR",
	arrow.INT32:   "INTEGER",
	arrow.INT64:   "BIGINT",
	arrow.FLOAT64: "DOUBLE",
}

// TestDuckDBReadsEveryTable loads every table of every run in DuckDB,
// from Parquet with the documented column names and types, and from CSV
// (types auto-detected, as a user's query would) with the same rows.
func TestDuckDBReadsEveryTable(t *testing.T) {
	for _, c := range runs {
		t.Run(c.name, func(t *testing.T) {
			pq, csv := writeTables(t, c)
			db := openDB(t)
			filled := 0
			for _, table := range results.Tables() {
				p := filepath.Join(pq, table+".parquet")
				checkColumns(t, db, table, fmt.Sprintf("read_parquet('%s')", p))
				n := count(t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", p))
				if n > 0 {
					filled++
				}
				checkSameRows(t, db, table, p, filepath.Join(csv, table+".csv"), n)
			}
			if filled < 3 {
				t.Errorf("only %d tables have rows; the case checks little", filled)
			}
		})
	}
}

// checkColumns compares DuckDB's view of a table with results.Schema.
func checkColumns(t *testing.T, db *sql.DB, table, from string) {
	t.Helper()
	rows, err := db.Query("DESCRIBE SELECT * FROM " + from)
	if err != nil {
		t.Fatalf("%s: DESCRIBE: %v", table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var got []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%v %v", vals[0], vals[1]))
	}
	var want []string
	for _, f := range results.Schema(table).Fields() {
		want = append(want, f.Name+" "+duckType[f.Type.ID()])
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("%s in DuckDB:\n got %s\nwant %s", table, strings.Join(got, ", "), strings.Join(want, ", "))
	}
}

// checkSameRows reads the CSV with DuckDB's auto-detection, as a user
// would, and requires exactly the Parquet file's n rows, nulls included
// (an empty CSV field is a null).
func checkSameRows(t *testing.T, db *sql.DB, table, parquetPath, csvPath string, n int64) {
	t.Helper()
	csv := fmt.Sprintf("read_csv('%s', header=true)", csvPath)
	if n == 0 {
		csv = fmt.Sprintf("read_csv('%s', header=true, columns=%s)", csvPath, columnTypes(table))
	}
	// CSV cannot tell an empty string from a null, and docs/tables.md says
	// params reads back as null there when no sweep set it.
	csv = fmt.Sprintf("(SELECT * REPLACE (coalesce(params, '') AS params) FROM %s)", csv)
	if got := count(t, db, "SELECT count(*) FROM "+csv); got != n {
		t.Errorf("%s: %d rows in CSV, %d in Parquet", table, got, n)
	}
	for _, q := range []string{
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM read_parquet('%s') EXCEPT ALL SELECT * FROM %s)", parquetPath, csv),
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM read_parquet('%s'))", csv, parquetPath),
	} {
		if d := count(t, db, q); d != 0 {
			t.Errorf("%s: %d rows differ between Parquet and CSV (%s)", table, d, q)
		}
	}
}

// columnTypes is a read_csv columns struct for the table's schema: a CSV
// with a header only gives auto-detection nothing to go on.
func columnTypes(table string) string {
	var parts []string
	for _, f := range results.Schema(table).Fields() {
		parts = append(parts, fmt.Sprintf("'%s': '%s'", f.Name, duckType[f.Type.ID()]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func count(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestDocQueries runs the DuckDB queries of README.md and
// docs/tables.md on the tables of the README's main command, so the
// examples a newcomer copies keep working.
func TestDocQueries(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	run(t, "--policy=cdp,flat,threshold", "--set", "launch.threshold=64", "--out", out, sample)
	db := openDB(t)
	for _, doc := range []string{"../README.md", "../docs/tables.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		queries := sqlStatements(string(text))
		if len(queries) == 0 {
			t.Errorf("%s has no ```sql block", doc)
		}
		for _, q := range queries {
			checkQuery(t, db, doc, strings.ReplaceAll(q, "'out/", "'"+out+"/"))
		}
	}
}

// checkQuery runs q and requires it to return rows.
func checkQuery(t *testing.T, db *sql.DB, doc, q string) {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Errorf("%s: %s: %v", doc, q, err)
		return
	}
	defer rows.Close()
	if !rows.Next() {
		t.Errorf("%s: %s: no rows", doc, q)
	}
}

// sqlStatements returns the statements of a Markdown document's sql
// code blocks, comment lines dropped.
func sqlStatements(doc string) []string {
	var qs []string
	for {
		_, rest, ok := strings.Cut(doc, "```sql\n")
		if !ok {
			return qs
		}
		block, after, _ := strings.Cut(rest, "```")
		var lines []string
		for _, line := range strings.Split(block, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				lines = append(lines, line)
			}
		}
		for _, q := range strings.Split(strings.Join(lines, "\n"), ";") {
			if q = strings.TrimSpace(q); q != "" {
				qs = append(qs, q)
			}
		}
		doc = after
	}
}

// TestSyncsQuery runs docs/tables.md's query of the host's wait per call
// kind on a replay with blocking calls, where the empty syncs tables of
// TestDocQueries give it nothing to sum: per run, its calls and
// wait_cycles are the syncs table's, by call, and every wait_cycles is
// return_cycle − call_cycle.
func TestSyncsQuery(t *testing.T) {
	pq, _ := writeTables(t, runs[len(runs)-1])
	text, err := os.ReadFile("../docs/tables.md")
	if err != nil {
		t.Fatal(err)
	}
	var q string
	for _, s := range sqlStatements(string(text)) {
		if strings.Contains(s, "'out/syncs.parquet'") && strings.Contains(s, "host_wait_cycles") {
			q = strings.ReplaceAll(s, "'out/", "'"+pq+"/")
		}
	}
	if q == "" {
		t.Fatal("docs/tables.md has no query of syncs.parquet's host_wait_cycles")
	}
	db := openDB(t)
	syncs := fmt.Sprintf("read_parquet('%s')", filepath.Join(pq, "syncs.parquet"))
	if n := count(t, db, "SELECT count(*) FROM "+syncs+" WHERE wait_cycles <> return_cycle - call_cycle"); n != 0 {
		t.Errorf("%d syncs rows whose wait_cycles is not return_cycle - call_cycle", n)
	}
	if n := count(t, db, "SELECT count(DISTINCT call) FROM "+syncs); n != 4 {
		t.Errorf("%d call kinds in the syncs table, want 4 (device, stream, event, memcpy)", n)
	}
	check := fmt.Sprintf(`SELECT count(*) FROM (%s) d FULL JOIN
		(SELECT trace, policy, params, call, count(*) AS calls, sum(return_cycle - call_cycle) AS w FROM %s GROUP BY ALL) y
		ON d.trace = y.trace AND d.policy = y.policy AND d.params = y.params AND d.call = y.call
		WHERE d.calls IS DISTINCT FROM y.calls OR d.host_wait_cycles IS DISTINCT FROM y.w`, q, syncs)
	if n := count(t, db, check); n != 0 {
		t.Errorf("%d runs and calls where the docs' query differs from the syncs table", n)
	}
	if n := count(t, db, fmt.Sprintf("SELECT count(*) FROM (%s)", q)); n != 4*4 {
		t.Errorf("the docs' query gives %d rows, want 16 (4 runs of a sweep, 4 call kinds)", n)
	}
}
