package replaycli

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/gpureplay/gpureplay/convert/nsys"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/trace"
)

const sample = "../samples/bfs-kron12.trace.zst"

// replayCmd runs the command line in-process and returns its exit status,
// stdout and stderr.
func replayCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// The README's main command: three policies into Parquet tables with the
// docs/design.md columns.
func TestReplaySampleWritesAllTables(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := replayCmd(t, "--policy=cdp,flat,threshold", "--set", "launch.threshold=64", "--out", dir, sample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{"cdp", "flat", "threshold"} {
		if !strings.Contains(out, p) {
			t.Errorf("summary does not mention %s:\n%s", p, out)
		}
	}
	for _, table := range results.Tables() {
		got := parquetSchema(t, filepath.Join(dir, table+".parquet"))
		want := results.Schema(table)
		if len(got.Fields()) != len(want.Fields()) {
			t.Fatalf("%s: %d columns, want %d", table, len(got.Fields()), len(want.Fields()))
		}
		for i, f := range want.Fields() {
			g := got.Field(i)
			if g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
				t.Errorf("%s column %d: %s %s, want %s %s", table, i, g.Name, g.Type, f.Name, f.Type)
			}
		}
	}
}

func parquetSchema(t *testing.T, path string) *arrow.Schema {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Schema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// On the sample, flat inlines every site, cdp launches every site, and
// threshold launches exactly the sites whose workload exceeds 64.
func TestSampleDecisions(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := replayCmd(t, "--policy=cdp,flat,threshold", "--set", "launch.threshold=64", "--format=csv", "--quiet", "--out", dir, sample); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readCSV(t, filepath.Join(dir, "launches.csv"))
	count := map[string]int{}
	for _, r := range rows {
		policy, decision := r["policy"], r["decision"]
		workload, err := strconv.Atoi(r["workload"])
		if err != nil {
			t.Fatal(err)
		}
		count[policy]++
		want := map[string]string{"cdp": "launch", "flat": "inline"}[policy]
		if policy == "threshold" {
			want = "inline"
			if workload > 64 {
				want = "launch"
			}
		}
		if decision != want {
			t.Fatalf("%s: site %s lane %s workload %d decided %s, want %s", policy, r["site_id"], r["lane"], workload, decision, want)
		}
	}
	if count["cdp"] == 0 || count["cdp"] != count["flat"] || count["cdp"] != count["threshold"] {
		t.Errorf("every policy should see every site once: %v", count)
	}
	kernels := readCSV(t, filepath.Join(dir, "kernels.csv"))
	for _, k := range kernels {
		if k["policy"] == "flat" && k["origin"] == "device" {
			t.Fatalf("flat ran device kernel %s", k["kernel_id"])
		}
	}
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// The same trace and config give byte-identical tables, in every format.
func TestDeterministicTables(t *testing.T) {
	for _, format := range []string{"parquet", "arrow", "csv"} {
		a, b := t.TempDir(), t.TempDir()
		for _, dir := range []string{a, b} {
			if code, _, stderr := replayCmd(t, "--policy=cdp,flat,threshold", "--format="+format, "--quiet", "--out", dir, sample); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		for _, table := range results.Tables() {
			name := table + "." + format
			x, err := os.ReadFile(filepath.Join(a, name))
			if err != nil {
				t.Fatal(err)
			}
			y, err := os.ReadFile(filepath.Join(b, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x, y) {
				t.Errorf("%s differs between two identical runs", name)
			}
		}
	}
}

// Bad input exits with status 2 and a one-line message naming the file and
// the record, never a Go stack trace.
func TestBadTracesExit2(t *testing.T) {
	dir := t.TempDir()
	// A trace of several zstd blocks, so the damage is in the middle.
	big := filepath.Join(dir, "bfs15.trace.zst")
	if code, _, stderr := replayCmd(t, "gen", "bfs", "--param", "scale=15", "-o", big); code != 0 {
		t.Fatal(stderr)
	}
	good, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.trace.zst")
	os.WriteFile(truncated, good[:len(good)/2], 0o644)
	corrupt := filepath.Join(dir, "corrupt.trace.zst")
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 0xff
	os.WriteFile(corrupt, bad, 0o644)
	undeclared := filepath.Join(dir, "undeclared.jsonl")
	os.WriteFile(undeclared, []byte(`{"type":"header","version":1,"clock_mhz":706}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":2,"t":0,"stream":0}
`), 0o644)
	for _, path := range []string{truncated, corrupt, undeclared} {
		for _, args := range [][]string{{path}, {"inspect", path}, {"dump", path}, {"convert", "--from=jsonl", path, "-o", filepath.Join(dir, "x.trace.zst")}} {
			if args[0] == "convert" && !strings.HasSuffix(path, ".jsonl") {
				continue
			}
			code, _, stderr := replayCmd(t, args...)
			if code != 2 {
				t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "record") || !strings.Contains(stderr, path) || strings.Contains(stderr, "goroutine") {
				t.Errorf("%v: want one line naming the file and the record, got %q", args, stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.trace.zst")); err == nil {
		t.Errorf("a failed convert left its output behind")
	}
}

// Usage mistakes exit 2 and say what would be right.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--policy=nope", sample}, "valid policies: cdp, crcs, dtbl, flat, gemtc, hyperq, klap, overlap1, pagoda, ppcs, spawn, threshold"},
		{[]string{"--set", "gpu.smz=3", sample}, `unknown key "gpu.smz"; nearest: gpu.sms, `},
		{[]string{"--set", "gpu.sms=abc", sample}, "gpu.sms"},
		{[]string{"--policy=klap", "--set", "klap.granularity=grid", sample}, "klap.granularity is grid; want warp, block or kernel"},
		{[]string{"--policy=klap", "--sweep", "klap.granularity=warp,grid", sample}, "want warp, block or kernel"},
		{[]string{"--set", "cdp.streams=percta", sample}, `cdp.streams is "percta"; want traced, child, cta, tail or fire_and_forget`},
		{[]string{"--gpu=nope", sample}, "k20c"},
		{[]string{"--format=xml", "--out", "x", sample}, "parquet"},
		{[]string{"--bogus", sample}, "unknown flag"},
		{[]string{}, "no trace"},
		{[]string{"convert", "--from=nsys2", "x", "-o", "y"}, "supported: accelsim, gpgpusim, jsonl, kineto, nsys"},
		{[]string{"convert", "--from=gpgpusim", "--opt", "inline=grid", "x.log", "-o", "y"}, `gpgpusim option inline is "grid"; want loop, warp, cta or levels`},
		{[]string{"convert", "--from=gpgpusim", "--opt", "loop_share=2", "x.log", "-o", "y"}, `gpgpusim option loop_share is "2"; want a share above 0 and at most 1`},
		{[]string{"gen", "nope", "-o", "x"}, "unknown workload"},
		{[]string{"gen", "bfs", "--param", "scale=99", "-o", "x"}, "scale"},
	}
	for _, c := range cases {
		code, _, stderr := replayCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// JSONL -> binary -> JSONL through the command line gives the same text,
// and dump of the converted trace equals dump of the sample.
func TestConvertDumpRoundTrip(t *testing.T) {
	dir := t.TempDir()
	code, jsonl, stderr := replayCmd(t, "dump", sample)
	if code != 0 {
		t.Fatal(stderr)
	}
	in := filepath.Join(dir, "s.jsonl")
	os.WriteFile(in, []byte(jsonl), 0o644)
	out := filepath.Join(dir, "s.trace.zst")
	if code, _, stderr := replayCmd(t, "convert", "--from=jsonl", in, "-o", out); code != 0 {
		t.Fatal(stderr)
	}
	a, _ := os.ReadFile(sample)
	b, _ := os.ReadFile(out)
	if !bytes.Equal(a, b) {
		t.Errorf("binary -> JSONL -> binary is not byte-identical (%d vs %d bytes)", len(a), len(b))
	}
}

// A JSONL trace whose access and pages records carry at (the trace
// package's fixture) survives convert and dump unchanged: dump gives back
// the text, and converting that again gives the same bytes.
func TestConvertDumpKeepsAt(t *testing.T) {
	const fixture = "../trace/testdata/valid.jsonl"
	text, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(text, []byte(`"type":"pages"`)) || !bytes.Contains(text, []byte(`"at":900}`)) {
		t.Fatal("the fixture has no pages record with an at")
	}
	dir := t.TempDir()
	bin1, bin2, again := filepath.Join(dir, "1.trace.zst"), filepath.Join(dir, "2.trace.zst"), filepath.Join(dir, "d.jsonl")
	if code, _, stderr := replayCmd(t, "convert", "--from=jsonl", fixture, "-o", bin1); code != 0 {
		t.Fatal(stderr)
	}
	code, dumped, stderr := replayCmd(t, "dump", bin1)
	if code != 0 {
		t.Fatal(stderr)
	}
	if dumped != string(text) {
		t.Errorf("dump of the converted fixture differs from it:\n%s", dumped)
	}
	os.WriteFile(again, []byte(dumped), 0o644)
	if code, _, stderr := replayCmd(t, "convert", "--from=jsonl", again, "-o", bin2); code != 0 {
		t.Fatal(stderr)
	}
	a, _ := os.ReadFile(bin1)
	b, _ := os.ReadFile(bin2)
	if !bytes.Equal(a, b) {
		t.Errorf("binary -> JSONL -> binary is not byte-identical (%d vs %d bytes)", len(a), len(b))
	}
}

// inspect --json reports the sample's counts.
func TestInspectJSON(t *testing.T) {
	code, out, stderr := replayCmd(t, "inspect", "--json", sample)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{`"host_kernels": 5`, `"launch_sites": 1039`, `"source": "gen:bfs"`, `"host_index": 5`} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect --json lacks %s:\n%s", want, out)
		}
	}
	// The same records in JSONL have no host index.
	code, text, stderr := replayCmd(t, "dump", sample)
	if code != 0 {
		t.Fatal(stderr)
	}
	jsonl := filepath.Join(t.TempDir(), "sample.jsonl")
	os.WriteFile(jsonl, []byte(text), 0o644)
	if code, out, stderr := replayCmd(t, "inspect", jsonl); code != 0 || !strings.Contains(out, "host index   none") {
		t.Errorf("inspect of JSONL: exit %d, %s%s; want host index none", code, out, stderr)
	}
}

// A trace with sync records and a blocking copy converts from JSONL to
// binary and back unchanged, and inspect counts its syncs, which its host
// index lists with the launch and the copy.
func TestSyncRecordsConvertAndInspect(t *testing.T) {
	const text = `{"type":"header","version":1,"clock_mhz":706}
{"type":"buffer","id":1,"base":0,"bytes":4096,"role":"inout"}
{"type":"sync","op":"record","stream":1,"event":3,"t":1}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":2,"stream":1}
{"type":"sync","op":"wait","stream":2,"event":3,"t":3}
{"type":"cta","kernel":1,"cta":0,"cycles":100}
{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4,"stream":1,"t":4,"blocking":true,"ret":200}
{"type":"sync","op":"stream","stream":2,"t":210,"ret":220}
{"type":"sync","op":"event","event":3,"t":230}
{"type":"sync","op":"device","t":240,"ret":250}
`
	dir := t.TempDir()
	in, bin := filepath.Join(dir, "sync.jsonl"), filepath.Join(dir, "sync.trace.zst")
	os.WriteFile(in, []byte(text), 0o644)
	if code, _, stderr := replayCmd(t, "convert", "--from=jsonl", in, "-o", bin); code != 0 {
		t.Fatalf("convert: exit %d, %s", code, stderr)
	}
	if code, out, stderr := replayCmd(t, "dump", bin); code != 0 || out != text {
		t.Errorf("dump: exit %d, %s\n%s\nwant\n%s", code, stderr, out, text)
	}
	code, out, stderr := replayCmd(t, "inspect", bin)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"records      11\n", "  memcpy     1\n", "  sync       5\n", "host index   7 host operations\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
}

// inspect reads the host index as a replay does: a damaged one (here its
// last record's byte, which the checksum covers) is bad input naming it.
func TestInspectDamagedHostIndex(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-21] ^= 0x40 // the byte before the 20-byte footer
	path := filepath.Join(t.TempDir(), "damaged.trace.zst")
	os.WriteFile(path, data, 0o644)
	code, _, stderr := replayCmd(t, "inspect", path)
	if code != 2 || !strings.Contains(stderr, "host index") {
		t.Errorf("inspect of a damaged host index: exit %d %q, want 2 naming the host index", code, stderr)
	}
}

// --gpu=captured replays on the GPU the trace header records.
func TestCapturedGPU(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "captured.jsonl")
	os.WriteFile(path, []byte(`{"type":"header","version":1,"clock_mhz":1000,"gpu":"testgpu","gpu_spec":{"sms":1,"clock_mhz":1000,"max_ctas_per_sm":1}}
{"type":"kernel","id":1,"name":"k","grid":[2,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":1000}
{"type":"cta","kernel":1,"cta":1,"cycles":1000}
`), 0o644)
	code, _, stderr := replayCmd(t, "--gpu=captured", "--set", "lat.host_issue=0", "--set", "lat.host_launch=0", "--set", "lat.kernel_dispatch=0", "--format=csv", "--quiet", "--out", dir, path)
	if code != 0 {
		t.Fatal(stderr)
	}
	s := readCSV(t, filepath.Join(dir, "summary.csv"))[0]
	// One SM holding one CTA at a time: the two CTAs run back to back.
	if s["gpu"] != "testgpu" || s["makespan_cycles"] != "2000" {
		t.Errorf("captured GPU: gpu %q makespan %s, want testgpu and 2000", s["gpu"], s["makespan_cycles"])
	}
	code, _, stderr = replayCmd(t, "--gpu=captured", sample)
	if code != 2 || !strings.Contains(stderr, "gpu_spec") {
		t.Errorf("a trace without gpu_spec: exit %d %q, want 2 naming gpu_spec", code, stderr)
	}
}

// The listing commands name every policy and preset.
func TestListings(t *testing.T) {
	_, out, _ := replayCmd(t, "policies")
	for _, p := range []string{"cdp (baseline)", "flat", "threshold"} {
		if !strings.Contains(out, p) {
			t.Errorf("replay policies lacks %q:\n%s", p, out)
		}
	}
	_, out, _ = replayCmd(t, "gpus")
	for _, g := range []string{"k20c", "k20c-spawn", "gk110-64", "titanx", "h100"} {
		if !strings.Contains(out, g) {
			t.Errorf("replay gpus lacks %q", g)
		}
	}
	code, out, _ := replayCmd(t, "--help")
	if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--policy") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	for _, c := range commands() {
		if !regexp.MustCompile(`replay ` + c.name + `\b`).MatchString(out) {
			t.Errorf("--help does not list replay %s", c.name)
		}
	}
}

// --sweep replays once per combination (the cartesian product) and names
// it in the params column; --best picks the shortest makespan per policy.
func TestSweepAndBest(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := replayCmd(t, "--policy=flat,threshold", "--sweep", "launch.threshold=16,64,100000",
		"--sweep", "gpu.sms=13,26", "--best", "--format=csv", "--out", dir, sample)
	if code != 0 {
		t.Fatal(stderr)
	}
	rows := readCSV(t, filepath.Join(dir, "summary.csv"))
	if len(rows) != 2*3*2 {
		t.Fatalf("%d summary rows, want 12 (2 policies x 3 thresholds x 2 SM counts)", len(rows))
	}
	if rows[0]["params"] != "launch.threshold=16,gpu.sms=13" || rows[11]["params"] != "launch.threshold=100000,gpu.sms=26" {
		t.Errorf("params order: first %q, last %q", rows[0]["params"], rows[11]["params"])
	}
	best := map[string]int{}
	for _, r := range rows {
		m, _ := strconv.Atoi(r["makespan_cycles"])
		if b, ok := best[r["policy"]]; !ok || m < b {
			best[r["policy"]] = m
		}
	}
	i := strings.Index(out, "best combination")
	if i < 0 {
		t.Fatalf("no best section:\n%s", out)
	}
	for policy, m := range best {
		if !strings.Contains(out[i:], policy) || !strings.Contains(out[i:], strconv.Itoa(m)+" cycles") {
			t.Errorf("best section lacks %s at %d cycles:\n%s", policy, m, out[i:])
		}
	}
	for _, args := range [][]string{
		{"--sweep", "launch.treshold=1,2", sample},
		{"--sweep", "launch.threshold=1,x", sample},
		{"--sweep", "gpu.sms=0", sample},
		{"--sweep", "launch.threshold", sample},
	} {
		if code, _, stderr := replayCmd(t, args...); code != 2 || !strings.Contains(stderr, "--sweep") {
			t.Errorf("%v: exit %d %q, want 2 naming --sweep", args, code, stderr)
		}
	}
}

// Data-loss traps are errors or kept apart: an empty --policy (an unset
// shell variable) must not overwrite tables with empty ones, the baseline
// in a combination changes nothing, and two traces with one file name get
// distinct trace values.
func TestNoSilentDataLoss(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy=", "--out", dir, sample}, "--policy is empty"},
		{[]string{"--policy=flat+cdp", sample}, "changes nothing in the combination flat+cdp"},
	} {
		if code, _, stderr := replayCmd(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused run wrote %d files", len(entries))
	}
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "x.trace.zst"), data, 0o644)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := replayCmd(t, "--quiet", "--format=csv", "--out", out, filepath.Join(a, "x.trace.zst"), filepath.Join(b, "x.trace.zst"))
	if code != 0 || !strings.Contains(stderr, "shares its file name with another trace") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	summary, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
	if !strings.Contains(string(summary), filepath.ToSlash(a)+"/x.trace.zst,cdp") || !strings.Contains(string(summary), filepath.ToSlash(b)+"/x.trace.zst,cdp") {
		t.Errorf("trace values not kept apart:\n%s", summary)
	}
}

// Runs that could not be told apart in the tables are refused (one file
// given twice, under any path; a policy given twice), and two files of
// one directory that differ only in their extension get distinct trace
// values, so their ctas rows do not merge.
func TestIndistinguishableRuns(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.trace.zst")
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(x, data, 0o644)
	out := filepath.Join(dir, "o")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, x, x}, "are the same trace file"},
		{[]string{"--out", out, x, filepath.Join(dir, ".", "x.trace.zst")}, "are the same trace file"},
		{[]string{"--out", out, "--policy=cdp,flat,cdp", x}, "--policy: cdp given twice"},
	} {
		code, _, stderr := replayCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line saying %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run made %s", out)
	}
	var jsonl bytes.Buffer
	if code := run([]string{"dump", x}, &jsonl, io.Discard); code != 0 {
		t.Fatal("dump failed")
	}
	os.WriteFile(filepath.Join(dir, "x.jsonl"), jsonl.Bytes(), 0o644)
	code, _, stderr := replayCmd(t, "--quiet", "--format=csv", "--out", out, x, filepath.Join(dir, "x.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ctas, _ := os.ReadFile(filepath.Join(out, "ctas.csv"))
	labels := map[string]int{}
	lines := strings.Split(strings.TrimSpace(string(ctas)), "\n")
	for _, l := range lines[1:] {
		labels[strings.SplitN(l, ",", 2)[0]]++
	}
	slash := filepath.ToSlash(dir)
	if len(labels) != 2 || labels[slash+"/x.trace.zst"] != labels[slash+"/x.jsonl"] || labels[slash+"/x.jsonl"] != (len(lines)-1)/2 {
		t.Errorf("ctas trace values %v over %d rows; want the two paths, half the rows each", labels, len(lines)-1)
	}
}

// Hostile grids end in a one-line input error, quickly and in little
// memory: a grid past 2^32 CTAs is refused when declared, and a declared
// grid of 10^9 CTAs costs nothing until its records arrive (here one).
func TestHugeGridsAreInputErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		grid, cta, want string
	}{
		{"[4294967295,65535,65535]", "0", "has more than 2^32 CTAs"},
		{"[1000000000,1,1]", "999999999", "kernel 1 has cta records for 1 of its 1000000000 CTAs"},
	} {
		path := filepath.Join(dir, "huge.jsonl")
		os.WriteFile(path, []byte(`{"type":"header","version":1,"clock_mhz":706}
{"type":"kernel","id":1,"name":"k","grid":`+tc.grid+`,"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":`+tc.cta+`,"cycles":10}
`), 0o644)
		code, _, stderr := replayCmd(t, path)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("grid %s: exit %d, %q; want 2 and one line with %q", tc.grid, code, stderr, tc.want)
		}
	}
}

// Wrong exit statuses and confusing messages: each is exit 2 with one
// line that says what is wrong in the user's terms.
func TestBadInputMessages(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trace.zst")
	data, _ := os.ReadFile(sample)
	copy(data, "XXXX")
	os.WriteFile(bad, data, 0o644)
	gpu := filepath.Join(dir, "gpu.json")
	os.WriteFile(gpu, []byte(`{"gpu.sms":20}`), 0o644)
	// A pipe read twice gave its second reader nothing ("launches no
	// kernel"), a FIFO hung at the second open; both are refused before
	// any open (nothing writes to fifo: an open would block).
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogusflag"}, "replay: unknown flag: --bogusflag (see replay --help)"},
		{[]string{dir}, "is a directory, not a trace"},
		{[]string{fifo}, fifo + " is a pipe, not a file: a replay reads its trace more than once"},
		{[]string{"--policy=cdp,flat", os.DevNull}, os.DevNull + " is a device, not a file"},
		{[]string{"study", "plan", fifo, "-o", filepath.Join(dir, "study.jsonl")}, fifo + " is a pipe, not a file"},
		{[]string{"--out", "/proc/nope/out", sample}, "--out /proc/nope/out:"},
		{[]string{bad}, "not a zstd stream"},
		{[]string{"--gpu=" + gpu, sample}, `a GPU file nests keys by section, as the presets do: write {"gpu": {"sms": ...}}, not "gpu.sms"`},
	} {
		code, _, stderr := replayCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Values that overflowed int64 silently (a negative makespan, exit 0) or
// ran for minutes are refused at the edge with exit 2 and one line; a
// dispatch latency of 10^12 cycles replays with a table of few rows.
func TestNoSilentOverflow(t *testing.T) {
	dir := t.TempDir()
	write := func(name, header, launchT, cycles string) string {
		p := filepath.Join(dir, name+".jsonl")
		os.WriteFile(p, []byte(`{"type":"header","version":1,"clock_mhz":`+header+`}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":`+launchT+`,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":`+cycles+`}
`), 0o644)
		return p
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{write("t", "706", "9223372036854775807", "10")}, "want 0 to 1099511627776 (2^40) cycles"},
		{[]string{write("c", "706", "0", "9200000000000000000")}, "takes 9200000000000000000 cycles; want 0 to 1099511627776 (2^40)"},
		{[]string{write("slow", "0.001", "0", "10")}, "would grow 7.06e+05-fold, more than 1024"},
		{[]string{write("fast", "1e300", "0", "10")}, "clock_mhz 1e+300 must be between 0.001 and 1e+06"},
		{[]string{"--set", "gpu.sms=1000000000", sample}, "gpu.sms is 1000000000; must be at most 65536"},
		{[]string{"--set", "cdp.launch_a=9000000000000000000", sample}, "cdp.launch_a is 9000000000000000000; must be at most 1099511627776"},
	} {
		code, _, stderr := replayCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := replayCmd(t, "--quiet", "--format=csv", "--out", out, "--set", "lat.kernel_dispatch=1000000000000", sample); code != 0 {
		t.Errorf("a 10^12-cycle dispatch: exit %d, %s", code, stderr)
	}
	// Its idle spans are one occupancy row per SM each, not 2·10^8 windows.
	if occ, _ := os.ReadFile(filepath.Join(out, "occupancy.csv")); strings.Count(string(occ), "\n") > 2000 {
		t.Errorf("a 10^12-cycle dispatch wrote %d occupancy rows", strings.Count(string(occ), "\n"))
	}
}

// The progress line reads as simulated time, so a long idle stretch shows
// movement even with no CTA finishing.
func TestSimulatedTime(t *testing.T) {
	for _, tc := range []struct {
		cycles int64
		mhz    float64
		want   string
	}{{1400, 1400, "1µs"}, {14_000_000_000, 1400, "10s"}, {7_060_000, 706, "10ms"}, {5, 0, "5 cycles"}} {
		if got := simulated(tc.cycles, tc.mhz); got != tc.want {
			t.Errorf("simulated(%d, %g) = %q, want %q", tc.cycles, tc.mhz, got, tc.want)
		}
	}
}

// Newcomer friction: --version, gen --list WORKLOAD, the captured GPU's
// missing SM count, the help naming every importer.
func TestFriction(t *testing.T) {
	if code, out, _ := replayCmd(t, "--version"); code != 0 || !strings.HasPrefix(out, "replay (gpureplay) ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	code, out, _ := replayCmd(t, "gen", "--list", "bfs")
	if code != 0 || !strings.HasPrefix(out, "bfs\t") || strings.Contains(out, "\nsssp\t") {
		t.Errorf("gen --list bfs: exit %d:\n%s", code, out)
	}
	if code, _, stderr := replayCmd(t, "gen", "--list", "nope"); code != 2 || !strings.Contains(stderr, `unknown workload "nope"`) {
		t.Errorf("gen --list nope: exit %d, %q", code, stderr)
	}
	_, out, _ = replayCmd(t, "--help")
	for name := range importers {
		if !strings.Contains(out, name) {
			t.Errorf("replay --help does not name the importer %s:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "--version") {
		t.Errorf("replay --help does not name --version:\n%s", out)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	os.WriteFile(path, []byte(`{"type":"header","version":1,"clock_mhz":1400,"gpu":"sm_80","gpu_spec":{"max_ctas_per_sm":32}}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":10}
`), 0o644)
	if code, _, stderr := replayCmd(t, "--gpu=captured", "--quiet", path); code != 0 || !strings.Contains(stderr, "records no SM count; replaying on 13 SMs") {
		t.Errorf("--gpu=captured without an SM count: exit %d, %q", code, stderr)
	}
	if _, _, stderr := replayCmd(t, "--gpu=captured", "--set", "gpu.sms=108", "--quiet", path); strings.Contains(stderr, "no SM count") {
		t.Errorf("the note stays when gpu.sms is set: %q", stderr)
	}
	// A command line refused says one thing: the note comes only once
	// every check has passed (it came before the refusal, two lines), and
	// not at all where a sweep gives the SM count.
	if code, _, stderr := replayCmd(t, "--gpu=captured", "--policy=bogus", path); code != 2 || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "no SM count") {
		t.Errorf("a refused command line: exit %d, %q", code, stderr)
	}
	if _, _, stderr := replayCmd(t, "--gpu=captured", "--sweep", "gpu.sms=8,16", "--quiet", path); strings.Contains(stderr, "no SM count") {
		t.Errorf("the note stays when gpu.sms is swept: %q", stderr)
	}
}

// Contradictory or empty input is refused rather than replayed into
// meaningless numbers, and sweeps say when they cannot differ; a
// single-policy sweep's speedups are against its first combination.
func TestContradictionsAndSweeps(t *testing.T) {
	dir := t.TempDir()
	header := filepath.Join(dir, "header.jsonl")
	os.WriteFile(header, []byte(`{"type":"header","version":1,"clock_mhz":706}`+"\n"), 0o644)
	warps := filepath.Join(dir, "warps.jsonl")
	os.WriteFile(warps, []byte(`{"type":"header","version":1,"clock_mhz":706}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[64,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":10,"warp_cycles":[10,20]}
`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{header}, "launches no kernel: nothing to replay"},
		{[]string{warps}, "takes 10 cycles but its longest warp 20"},
		{[]string{"--policy=threshold", "--sweep", "launch.threshold=16,64,16", sample}, "value 16 given twice"},
		{[]string{"--policy=threshold", "--sweep", "launch.threshold=64,064", sample}, "--sweep launch.threshold: values 64 and 064 are equal"},
		{[]string{"--sweep", "gpu.clock_mhz=706,706.0", sample}, "--sweep gpu.clock_mhz: values 706 and 706.0 are equal"},
		{[]string{"--sweep", "lat.host_issue=" + upTo(1001), "--sweep", "cdp.launch_a=" + upTo(1000), sample}, "replay: 1,001,000 replays asked for (1 trace × 1001 lat.host_issue values × 1000 cdp.launch_a values × 1 policy): one command runs at most 1,000,000;"},
		{[]string{"study", "plan", "--policy=cdp,flat", "--sweep", "lat.host_issue=" + upTo(1000), "--sweep", "cdp.launch_a=" + upTo(500), sample, warps, "-o", filepath.Join(dir, "study.jsonl")}, "replay: 2,000,000 replays asked for (2 traces × 1000 lat.host_issue values × 500 cdp.launch_a values × 2 policies)"},
		{[]string{"--policy=threshold", "--set", "launch.threshold=32", "--sweep", "launch.threshold=16,64", sample}, "--sweep launch.threshold and --set launch.threshold"},
	} {
		if code, _, stderr := replayCmd(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	_, _, stderr := replayCmd(t, "--policy=cdp,flat", "--sweep", "spawn.window=512,1024", "--quiet", sample)
	if !strings.Contains(stderr, "no chosen policy (cdp, flat) reads spawn.window") {
		t.Errorf("no warning for a sweep no policy reads: %q", stderr)
	}
	_, out, _ := replayCmd(t, "--policy=threshold", "--sweep", "launch.threshold=16,256", sample)
	if !strings.Contains(out, "1.000x") || !strings.Contains(out, "1.823x") {
		t.Errorf("single-policy sweep: speedups not against the first combination:\n%s", out)
	}
}

// A message quoting a huge field stays one line of bounded length.
func TestLongMessagesAreCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	os.WriteFile(path, []byte(`{"type":"header","version":1,"clock_mhz":706}
{"type":"buffer","id":1,"name":"x","bytes":10,"role":"`+strings.Repeat("a", 1<<20)+`"}
`), 0o644)
	code, _, stderr := replayCmd(t, path)
	if code != 2 || len(stderr) > 1000 || !strings.Contains(stderr, "bytes left out") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("exit %d, %d bytes of stderr", code, len(stderr))
	}
}

// A copy larger than a trace may declare fails the conversion (exit 2, a
// message naming the line, no file) instead of converting and then failing
// every replay. The Accel-Sim importer refuses it itself; convert's
// validation of every importer's output (trace.CheckedSink, tested in
// trace) is the net for what an importer misses.
func TestConvertRefusesAHugeCopy(t *testing.T) {
	dir := t.TempDir()
	kernel, err := os.ReadFile("../convert/accelsim/testdata/golden/v4/kernel-1.traceg")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "kernel-1.traceg"), kernel, 0o644)
	list := filepath.Join(dir, "kernelslist.g")
	os.WriteFile(list, []byte("MemcpyHtoD,0x00007f4000000000,99999999999999\nkernel-1.traceg\n"), 0o644)
	out := filepath.Join(dir, "o.trace.zst")
	code, _, stderr := replayCmd(t, "convert", "--from=accelsim", list, "-o", out)
	if code != 2 || !strings.Contains(stderr, "kernelslist.g:1:") || !strings.Contains(stderr, "99999999999999 bytes") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed conversion left its output")
	}
}

// An importer's refusal of a file another --from reads says what the file
// is: an Nsight Systems export given to the Kineto importer said only
// "not valid JSON", a trace given to the Accel-Sim one quoted its binary
// bytes as a line. Exit 2 and one line, as before; a file the importer
// takes, or one that is neither, gets no hint.
func TestConvertNamesWhatTheInputIs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "report.sqlite")
	os.WriteFile(db, append([]byte(nsys.Magic), make([]byte, 100)...), 0o644)
	text := filepath.Join(dir, "notes.json")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	for _, tc := range []struct {
		from, in, want string
	}{
		{"kineto", db, "(" + db + " is an SQLite database: --from=nsys reads Nsight Systems exports)"},
		{"gpgpusim", db, "is an SQLite database: --from=nsys"},
		{"accelsim", sample, "(" + sample + " is a gpureplay trace already: replay it as it is)"},
		{"nsys", sample, "is a gpureplay trace already"},
		{"kineto", text, ""},
		{"nsys", db, ""},
	} {
		code, _, stderr := replayCmd(t, "convert", "--from="+tc.from, tc.in, "-o", filepath.Join(dir, "o.trace.zst"))
		hinted := strings.Contains(stderr, " is an SQLite database") || strings.Contains(stderr, " is a gpureplay trace already")
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || tc.want != "" && !strings.Contains(stderr, tc.want) || tc.want == "" && hinted {
			t.Errorf("--from=%s %s: exit %d, %q; want 2 and one line with %q", tc.from, filepath.Base(tc.in), code, stderr, tc.want)
		}
	}
}

// A GPGPU-Sim log of a CDP program converts, and replays on the captured
// GPU under cdp within 0.5% of the simulator's 33055 cycles; a log cut
// short exits 2 naming the kernel and line, and leaves no output.
func TestConvertGPGPUSim(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cdp.trace.zst")
	code, _, stderr := replayCmd(t, "convert", "--from=gpgpusim", "../convert/gpgpusim/testdata/real/cdp.log.xz", "-o", out)
	if code != 0 || !strings.Contains(stderr, "5 kernels (4 launched from the device") {
		t.Fatalf("convert: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := replayCmd(t, "--gpu=captured", "--policy=cdp", out)
	if code != 0 {
		t.Fatalf("replay: exit %d, %q", code, stderr)
	}
	var makespan int64
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "cdp" {
			makespan, _ = strconv.ParseInt(f[2], 10, 64)
		}
	}
	if makespan < 33054-165 || makespan > 33054+165 {
		t.Errorf("makespan %d, want GPGPU-Sim's 33054 within 0.5%%:\n%s", makespan, stdout)
	}
	cut := filepath.Join(dir, "cut.log")
	os.WriteFile(cut, []byte("-gpgpu_n_clusters 1\n-gpgpu_shader_cta 4\n-gpgpu_shader_core_pipeline 1024:32\n-gpgpu_shader_registers 32768\n-gpgpu_shmem_size 49152\n-gpgpu_clock_domains 1000.0:1000.0:1000.0:500.0\nGPGPU-Sim PTX: pushing kernel '_Z1kv' to stream 0, gridDim= (1,1,1) blockDim = (64,1,1)\n"), 0o644)
	bad := filepath.Join(dir, "bad.trace.zst")
	code, _, stderr = replayCmd(t, "convert", "--from=gpgpusim", cut, "-o", bad)
	if code != 2 || !strings.Contains(stderr, "cut.log:7: the log ends before kernel 1 (_Z1kv)") {
		t.Errorf("cut log: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a failed conversion left its output")
	}
}

// Host stream ids fit the kernels table's int64 stream column: 2^63-1
// reads back as itself, and a larger id (2^64-1, which showed as -1) is
// refused with a one-line input error.
func TestStreamIDRange(t *testing.T) {
	dir := t.TempDir()
	trace := func(stream string) string {
		path := filepath.Join(dir, "s"+stream+".jsonl")
		os.WriteFile(path, []byte(`{"type":"header","version":1,"clock_mhz":706}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":`+stream+`}
{"type":"cta","kernel":1,"cta":0,"cycles":10}
`), 0o644)
		return path
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := replayCmd(t, "--quiet", "--format=csv", "--out", out, trace("9223372036854775807")); code != 0 {
		t.Fatalf("stream 2^63-1: exit %d: %s", code, stderr)
	}
	kernels, _ := os.ReadFile(filepath.Join(out, "kernels.csv"))
	if !strings.Contains(string(kernels), ",host,,9223372036854775807,") {
		t.Errorf("stream 2^63-1 not kept:\n%s", kernels)
	}
	code, _, stderr := replayCmd(t, "--quiet", trace("18446744073709551615"))
	if code != 2 || !strings.Contains(stderr, "host launch of kernel 1 on stream 18446744073709551615; want a stream id from 0 to 2^63-1") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("stream 2^64-1: exit %d, %q; want 2 and one line", code, stderr)
	}
}

// Spaces around a swept key or value are not part of it: the params
// column reads launch.threshold=16, not launch.threshold= 16.
func TestSweepSpaces(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := replayCmd(t, "-q", "--format=csv", "--out", dir, "--policy=threshold", "--sweep", " launch.threshold= 16, 32 ", sample); code != 0 {
		t.Fatal(stderr)
	}
	var got []string
	for _, r := range readCSV(t, filepath.Join(dir, "summary.csv")) {
		got = append(got, r["params"])
	}
	if strings.Join(got, ";") != "launch.threshold=16;launch.threshold=32" {
		t.Errorf("params %q", got)
	}
	if code, _, stderr := replayCmd(t, "--policy=threshold", "--sweep", "launch.threshold=16,,32", sample); code != 2 || !strings.Contains(stderr, "value 2 is empty") {
		t.Errorf("an empty value: exit %d, %q", code, stderr)
	}
}

// upTo is the values 1, 2, ..., n of a --sweep.
func upTo(n int) string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprint(i + 1)
	}
	return strings.Join(vs, ",")
}

// A plan is refused past maxReplays, where it is made: at the bound it is
// made, past it (a product past int64 too) it is said how many and of
// what.
func TestPlanSize(t *testing.T) {
	axis := func(key string, n int) study.Axis { return study.Axis{Key: key, Values: make([]string, n)} }
	if err := checkPlanSize(1, []study.Axis{axis("a", 1000), axis("b", 1000)}, 1); err != nil {
		t.Errorf("1,000,000 replays: %v", err)
	}
	if err := checkPlanSize(2, []study.Axis{axis("a", 1000)}, 500); err != nil {
		t.Errorf("2 traces × 1000 values × 500 policies: %v", err)
	}
	if err := checkPlanSize(3, nil, 0); err != nil {
		t.Errorf("3 traces, no sweep, the default policy: %v", err)
	}
	var huge []study.Axis
	for range 7 {
		huge = append(huge, axis("k", 1000))
	}
	for _, tc := range []struct {
		traces   int
		axes     []study.Axis
		policies int
		want     string
	}{
		{1, []study.Axis{axis("a", 1000), axis("b", 1001)}, 1, "1,001,000 replays asked for (1 trace × 1000 a values × 1001 b values × 1 policy)"},
		{1, []study.Axis{axis("a", 1000), axis("b", 1000)}, 0, ""},
		{3, []study.Axis{axis("a", 1)}, 400_000, "1,200,000 replays asked for (3 traces × 1 a value × 400000 policies)"},
		{1, huge, 12, "12,000,000,000,000,000,000,000 replays asked for"},
	} {
		err := checkPlanSize(tc.traces, tc.axes, tc.policies)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d traces, %d policies: %v", tc.traces, tc.policies, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%d traces, %d policies: %v; want %q", tc.traces, tc.policies, err, tc.want)
		}
	}
}

// A task runtime (gemtc, pagoda) refuses a trace whose host waits for
// the GPU; where the trace's host index lists such a call, the command
// is refused before any replay runs, naming every such policy, where the
// first replay to reach the sync stopped the others and their rows were
// lost. The trace here syncs once, after its first kernel. A study's
// plan is not refused: its run keeps going and lists the failure.
func TestTaskPoliciesRefusedAtPlan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "syncs.trace.zst")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := trace.NewWriter(f)
	for _, rec := range []trace.Record{
		&trace.Header{Version: 1, ClockMHz: 706, GPU: "k20c"},
		&trace.Kernel{ID: 1, Name: "k", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}},
		&trace.Launch{Kernel: 1, Stream: 1},
		&trace.CTA{Kernel: 1, Cycles: 100},
		&trace.Sync{Op: trace.SyncStream, Stream: 1, T: 500},
		&trace.Kernel{ID: 2, Name: "k", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}},
		&trace.Launch{Kernel: 2, Stream: 1, T: 600},
		&trace.CTA{Kernel: 2, Cycles: 100},
	} {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := replayCmd(t, "--policy=cdp,gemtc,hyperq,pagoda", "--out", out, path)
	want := path + " (gemtc, pagoda): stream sync at t=500: task runtimes run the host loop of Pagoda's Fig. 1a"
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "leave gemtc and pagoda out of --policy") || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s: %v; want none made", out, err)
	}
	if code, _, stderr := replayCmd(t, "--policy=cdp,hyperq", path); code != 0 {
		t.Errorf("the hardware policies: exit %d, %s", code, stderr)
	}
	// A study keeps going past a failed replay and lists it: its plan
	// takes the task runtimes.
	if code, _, stderr := replayCmd(t, "study", "plan", "--policy=cdp,gemtc", path, "-o", filepath.Join(dir, "study.jsonl")); code != 0 {
		t.Errorf("study plan: exit %d, %s", code, stderr)
	}
}
