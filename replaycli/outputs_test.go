package replaycli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// No output replaces an input or another output, however it is spelled
// (a symbolic link, a hard link, a linked directory), and the refusal
// comes before any replay: exit 2, one line naming the flag and the path,
// no summary, every file as it was.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.trace.zst"), filepath.Join(dir, "b.trace.zst")
	copyFile(t, sample, a)
	copyFile(t, sample, b)
	out := filepath.Join(dir, "o")
	if code, _, stderr := replayCmd(t, "-q", "--out", out, b); code != 0 {
		t.Fatal(stderr)
	}
	os.Symlink(b, filepath.Join(dir, "link.trace.zst"))
	os.Link(b, filepath.Join(dir, "hard.trace.zst"))
	os.Symlink(dir, filepath.Join(dir, "alias"))
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	fresh := filepath.Join(dir, "fresh")
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		want string
	}{
		// The timeline's file name forgotten: the next trace is not replaced.
		{[]string{"--timeline", a, b}, "--timeline " + a + ": the file exists and is not a timeline"},
		{[]string{"--out", out, "--timeline", filepath.Join(out, "summary.parquet"), b}, "is not a timeline"},
		{[]string{"--out", fresh, "--timeline", filepath.Join(fresh, "kernels.parquet"), b}, "--timeline " + filepath.Join(fresh, "kernels.parquet") + " is also the kernels table in " + fresh},
		{[]string{"--out", fresh, "--format=csv", "--cpuprofile", filepath.Join(fresh, "summary.csv"), b}, "is also the summary table"},
		{[]string{"--cpuprofile", in("hard.trace.zst"), b}, "--cpuprofile " + in("hard.trace.zst") + " is also an input trace"},
		{[]string{"--cpuprofile", in("link.trace.zst"), b}, "is also an input trace"},
		{[]string{"--cpuprofile", in("alias/b.trace.zst"), b}, "is also an input trace"},
		{[]string{"--timeline", in("adir"), b}, "--timeline " + in("adir") + " is a directory"},
		{[]string{"convert", "--from=jsonl", b, "-o", in("alias/b.trace.zst")}, "-o " + in("alias/b.trace.zst") + " is also an input"},
		{[]string{"convert", "--from=jsonl", b, "-o", in("adir")}, "is a directory"},
		{[]string{"gen", "synth", "-o", in("adir")}, "-o " + in("adir") + " is a directory"},
		{[]string{"study", "plan", b, "-o", in("link.trace.zst")}, "-o " + in("link.trace.zst") + " is also an input trace"},
		{[]string{"report", out, "-o", filepath.Join(out, "summary.parquet")}, "is also the summary table in " + out},
		{[]string{"report", out, "-o", in("alias/o/ctas.parquet")}, "is also the ctas table"},
	} {
		before := snapshot(t, dir)
		code, stdout, stderr := replayCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("%v changed the files:\n%s\nwas\n%s", c.args, after, before)
		}
	}
	// A timeline replaces a timeline, and an empty file.
	tl := filepath.Join(dir, "t.json")
	os.WriteFile(tl, nil, 0o644)
	for range 2 {
		if code, _, stderr := replayCmd(t, "-q", "--timeline", tl, b); code != 0 {
			t.Fatalf("replacing a timeline: %s", stderr)
		}
	}
}

// snapshot lists every file under dir with its size and content hash.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(path)
			fmt.Fprintf(&b, "%s %x\n", path, sha256.Sum256(data))
		}
		return nil
	})
	return b.String()
}

// An output that cannot be written fails at once, before any replay, with
// exit 2 and the path the user gave (never the temporary file's name).
func TestUnwritableOutputsExit2(t *testing.T) {
	dir := t.TempDir()
	nodir := filepath.Join(dir, "missing", "x")
	notdir := filepath.Join(sample, "x") // under a file
	out := filepath.Join(dir, "o")
	if code, _, stderr := replayCmd(t, "-q", "--format=csv", "--out", out, sample); code != 0 {
		t.Fatal(stderr)
	}
	cases := [][]string{
		{"--timeline", nodir, sample},
		{"--timeline", notdir, sample},
		{"--out", notdir, sample},
		{"--cpuprofile", nodir, sample},
		{"gen", "synth", "-o", nodir},
		{"convert", "--from=jsonl", sample, "-o", nodir},
		{"report", out, "-o", nodir},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		cases = append(cases, []string{"--timeline", filepath.Join(ro, "t.json"), sample},
			[]string{"--out", filepath.Join(ro, "o"), sample}, []string{"gen", "synth", "-o", filepath.Join(ro, "x")})
	}
	for _, args := range cases {
		target := args[len(args)-1]
		if !strings.HasPrefix(args[0], "-") || args[0] == "--timeline" || args[0] == "--out" || args[0] == "--cpuprofile" {
			target = args[1]
		}
		if args[0] == "gen" || args[0] == "convert" || args[0] == "report" {
			target = args[len(args)-1]
		}
		code, stdout, stderr := replayCmd(t, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, ".tmp-") ||
			!strings.Contains(stderr, filepath.Dir(target)) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line naming %s", args, code, stdout, stderr, target)
		}
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

// --timeline - writes the timeline to standard output, and the summary to
// standard error; no file named "-" appears.
func TestTimelineToStdout(t *testing.T) {
	code, stdout, stderr := replayCmd(t, "--policy=cdp,flat", "--timeline", "-", sample)
	if code != 0 {
		t.Fatal(stderr)
	}
	var tl struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(stdout), &tl); err != nil || len(tl.TraceEvents) < 1000 {
		t.Errorf("standard output is not a timeline (%d events): %v", len(tl.TraceEvents), err)
	}
	if !strings.Contains(stderr, "makespan(cyc)") || !strings.Contains(stderr, "flat") || strings.Contains(stderr, "timeline written") {
		t.Errorf("standard error: %q, want the summary", stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		os.Remove("-")
		t.Error("a file named - appeared")
	}
	// The same schedule as a timeline file.
	path := filepath.Join(t.TempDir(), "t.json")
	if code, _, stderr := replayCmd(t, "-q", "--policy=cdp,flat", "--timeline", path, sample); code != 0 {
		t.Fatal(stderr)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, []byte(stdout)) {
		t.Error("--timeline - and --timeline FILE differ")
	}
}

// replay report reads a CSV output: the page equals the one from the same
// replays written as Parquet.
func TestReportReadsCSV(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var pages [][]byte
	for _, format := range []string{"parquet", "csv"} {
		os.RemoveAll(out)
		if code, _, stderr := replayCmd(t, "-q", "--policy=cdp,flat,dtbl", "--format", format, "--out", out, sample); code != 0 {
			t.Fatal(stderr)
		}
		page := filepath.Join(dir, format+".html")
		if code, _, stderr := replayCmd(t, "report", out, "-o", page); code != 0 {
			t.Fatalf("report of %s tables: exit %d: %s", format, code, stderr)
		}
		data, _ := os.ReadFile(page)
		pages = append(pages, data)
	}
	if !bytes.Equal(pages[0], pages[1]) || len(pages[0]) < 10000 {
		t.Errorf("the reports of Parquet and CSV tables differ (%d and %d bytes)", len(pages[0]), len(pages[1]))
	}
}

// A file a command reads is never replaced by its output, including the
// files an importer finds for itself (the gpgpusim.config beside a log,
// the kernel files a kernelslist.g names), however the output is spelled:
// exit 2, one line, every file as it was, no temporary file left. The
// empty config shows the rule holds where the check for a file of the
// command's own kind lets an empty file be replaced.
func TestOutputsNeverReplaceWhatTheyRead(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	os.Mkdir(d, 0o755)
	copyFile(t, "../convert/gpgpusim/testdata/real/vecadd.log.xz", filepath.Join(d, "run.log.xz"))
	cfg := filepath.Join(d, "gpgpusim.config")
	os.WriteFile(cfg, nil, 0o644)
	other := filepath.Join(dir, "other.config")
	os.WriteFile(other, nil, 0o644)
	os.Symlink(cfg, filepath.Join(dir, "cfglink"))
	d2 := filepath.Join(dir, "d2")
	os.Mkdir(d2, 0o755)
	for _, f := range []string{"kernelslist.g", "kernel-1.traceg"} {
		copyFile(t, filepath.Join("../convert/accelsim/testdata/golden/v2", f), filepath.Join(d2, f))
	}
	log := filepath.Join(d, "run.log.xz")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--from=gpgpusim", log, "-o", cfg}, "-o " + cfg + " is also an input of this command"},
		{[]string{"convert", "--from=gpgpusim", log, "-o", d + "/../d/./gpgpusim.config"}, "is also an input of this command (" + cfg + ")"},
		{[]string{"convert", "--from=gpgpusim", log, "-o", filepath.Join(dir, "cfglink")}, "is also an input of this command"},
		{[]string{"convert", "--from=gpgpusim", "--opt", "config=" + other, log, "-o", other}, "is also an input of this command"},
		{[]string{"convert", "--from=accelsim", filepath.Join(d2, "kernelslist.g"), "-o", filepath.Join(d2, "kernel-1.traceg")}, "is not a trace"},
	} {
		before := snapshot(t, dir)
		code, stdout, stderr := replayCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("%v changed the files:\n%s\nwas\n%s", c.args, after, before)
		}
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("left %v", left)
	}
	// The same conversion to a new file works, and then replaces its own
	// trace.
	for range 2 {
		if code, _, stderr := replayCmd(t, "convert", "--from=gpgpusim", log, "-o", filepath.Join(d, "a.trace.zst")); code != 0 {
			t.Fatal(stderr)
		}
	}
}

// -o of convert, gen and report replaces only a file of its own kind (a
// trace, a report) or an empty one, as --timeline does: a results table,
// a log or a trace given as a report's name stays as it was.
func TestOutputReplacesOnlyItsOwnKind(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	if code, _, stderr := replayCmd(t, "-q", "--out", out, sample); code != 0 {
		t.Fatal(stderr)
	}
	tr := filepath.Join(dir, "a.trace.zst")
	copyFile(t, sample, tr)
	table := filepath.Join(out, "summary.parquet")
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	zlog := filepath.Join(dir, "run.log.zst")
	copyFile(t, sample, zlog) // zstd, but named as a log: a trace all the same
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "synth", "-o", table}, "-o " + table + ": the file exists and is not a trace"},
		{[]string{"gen", "synth", "-o", notes}, "is not a trace"},
		{[]string{"convert", "--from=jsonl", sample, "-o", notes}, "is not a trace"},
		{[]string{"report", out, "-o", tr}, "-o " + tr + ": the file exists and is not a report"},
		{[]string{"report", out, "-o", notes}, "is not a report"},
	} {
		before := snapshot(t, dir)
		code, stdout, stderr := replayCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("%v changed the files", c.args)
		}
	}
	// Each replaces its own kind, and an empty file.
	empty := filepath.Join(dir, "empty")
	for _, args := range [][]string{
		{"gen", "synth", "-o", tr},
		{"gen", "synth", "-o", zlog},
		{"convert", "--from=jsonl", sample, "-o", tr},
		{"report", out, "-o", filepath.Join(dir, "r.html")},
		{"report", out, "-o", filepath.Join(dir, "r.html")},
		{"gen", "synth", "-o", empty},
	} {
		if args[len(args)-1] == empty {
			os.WriteFile(empty, nil, 0o644)
		}
		if code, _, stderr := replayCmd(t, args...); code != 0 {
			t.Errorf("%v: %s", args, stderr)
		}
	}
}
