package replaycli

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/results"
)

// reportDirs replays the sample under DP policies, a generated pipeline
// under the CRCS policies and generated narrow tasks under the task
// runtimes, each into its own results directory.
func reportDirs(t *testing.T) []string {
	t.Helper()
	root := t.TempDir()
	gen := func(args ...string) string {
		out := filepath.Join(root, args[0]+".trace.zst")
		if code, _, stderr := replayCmd(t, append([]string{"gen"}, append(args, "-o", out)...)...); code != 0 {
			t.Fatalf("gen %v: %s", args, stderr)
		}
		return out
	}
	var dirs []string
	for _, run := range [][]string{
		{"--policy=cdp,flat,dtbl,spawn", sample},
		{"--gpu=gk110-64", "--policy=baseline,crcs,ppcs", gen("hotspot", "--param", "iterations=5")},
		{"--gpu=titanx", "--policy=hyperq,gemtc,pagoda", gen("tasks", "--param", "count=128")},
	} {
		dir := filepath.Join(root, "out", string(rune('a'+len(dirs))))
		if code, _, stderr := replayCmd(t, append(append([]string{"--quiet", "--out", dir}, run[:len(run)-1]...), run[len(run)-1])...); code != 0 {
			t.Fatalf("replay %v: %s", run, stderr)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// The report opens in a real browser with networking off: headless
// Chromium loads it from a file URL, every figure's SVG is in the rendered
// DOM with its marks, nothing is fetched or logged as an error, and the
// screenshot is not blank. Without chromium the test is skipped, except in
// CI, whose .ci/run installs it.
func TestReportInBrowser(t *testing.T) {
	browser := findChromium()
	if browser == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs it")
		}
		t.Skip("no chromium on PATH (apt-get install chromium) to open the report in")
	}
	dirs := reportDirs(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	figs := filepath.Join(dir, "figs")
	code, out, stderr := replayCmd(t, append(append([]string{"report"}, dirs...), "-o", page, "--figures", figs)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "report written to") {
		t.Errorf("stdout: %q", out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(src|href)="(https?:)?//`).Find(html); m != nil {
		t.Errorf("the page refers to the network: %s", m)
	}
	figures := regexp.MustCompile(`<figure class="figure" id="([^"]+)">`).FindAllSubmatch(html, -1)
	want := []string{"speedup", "occupancy", "decisions", "estimates", "pages", "task-latency", "kernels-1", "kernels-5"}
	var ids []string
	for _, f := range figures {
		ids = append(ids, string(f[1]))
	}
	for _, w := range want {
		if !strings.Contains(" "+strings.Join(ids, " ")+" ", " "+w+" ") {
			t.Errorf("no figure %s among %v", w, ids)
		}
		for _, ext := range []string{".svg", ".png"} {
			if st, err := os.Stat(filepath.Join(figs, w+ext)); err != nil || st.Size() < 500 {
				t.Errorf("--figures: %s%s missing or empty", w, ext)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	shot := filepath.Join(dir, "report.png")
	offline := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + filepath.Join(dir, "profile")}
	var dom, logs bytes.Buffer
	cmd := exec.CommandContext(ctx, browser, append(offline, "--dump-dom", "file://"+page)...)
	cmd.Stdout, cmd.Stderr = &dom, &logs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, logs.String())
	}
	for _, id := range ids {
		i := strings.Index(dom.String(), `id="`+id+`"`)
		if i < 0 {
			t.Errorf("figure %s is not in the rendered DOM", id)
			continue
		}
		fig := dom.String()[i:]
		fig = fig[:strings.Index(fig, "</figure>")]
		if !strings.Contains(fig, "<svg") || strings.Count(fig, "<path") < 5 {
			t.Errorf("figure %s rendered without its marks (%d paths)", id, strings.Count(fig, "<path"))
		}
	}
	for _, part := range []string{"Kernels by name", "Against the baseline", "<td class=\"l\">bfs_expand</td>", "against cdp", "against baseline",
		"Where the wait went", `<table id="waits">`, "<th>I/O</th>"} {
		if !strings.Contains(dom.String(), part) {
			t.Errorf("the rendered page has no %q", part)
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "net::ERR") {
			t.Errorf("browser: %s", line)
		}
	}
	cmd = exec.CommandContext(ctx, browser, append(offline, "--hide-scrollbars", "--window-size=1200,2400", "--screenshot="+shot, "file://"+page)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, b)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 20_000 {
		t.Errorf("screenshot missing or blank: %v", err)
	}
	// The ten runs (past eight: small multiples, decisions on their side,
	// tables folded past the third run) make a page a reader scrolls, not
	// the 9,000 px of 16 runs before issue 54.
	tall := filepath.Join(dir, "tall.png")
	cmd = exec.CommandContext(ctx, browser, append(offline, "--hide-scrollbars", "--window-size=1200,16000", "--screenshot="+tall, "file://"+page)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, b)
	}
	if dst := os.Getenv("REPORT_TALL"); dst != "" {
		data, _ := os.ReadFile(tall)
		os.WriteFile(dst, data, 0o644)
	}
	if h := pageHeight(t, tall); h > 8000 {
		t.Errorf("the page is %d px tall at 1200 px wide, want at most 8,000", h)
	}
	if dst := os.Getenv("REPORT_SCREENSHOT"); dst != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(dst, data, 0o644)
	}
}

// pageHeight is the last row of a screenshot that is not white.
func pageHeight(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for y := b.Max.Y - 1; y >= b.Min.Y; y-- {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				return y + 1
			}
		}
	}
	return 0
}

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Bad input: no directory, a directory without tables, and tables of
// another version are each refused with exit status 2 and one line.
func TestReportBadInput(t *testing.T) {
	empty := t.TempDir()
	old := t.TempDir()
	if code, _, stderr := replayCmd(t, "--quiet", "--out", old, sample); code != 0 {
		t.Fatal(stderr)
	}
	// A summary file with another table's columns stands for one written
	// by an older replay.
	data, _ := os.ReadFile(filepath.Join(old, "stages.parquet"))
	os.WriteFile(filepath.Join(old, "summary.parquet"), data, 0o644)
	// A CSV run's --out over a Parquet run's: the report read the
	// Parquet run's rows; the second run says what it leaves beside its
	// own tables.
	mixed := t.TempDir()
	if code, _, stderr := replayCmd(t, "--quiet", "--out", mixed, sample); code != 0 || stderr != "" {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	code, _, stderr := replayCmd(t, "--quiet", "--policy=flat", "--format=csv", "--out", mixed, sample)
	if want := fmt.Sprintf("also holds summary.parquet and %d more, an earlier run's tables in another format", len(results.Tables())-1); code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("a CSV run over a Parquet run's tables: exit %d, %q; want 0 and a note with %q", code, stderr, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", filepath.Join(empty, "nope"), "-o", filepath.Join(empty, "r.html")}, "is not a directory of result tables"},
		{[]string{"report", empty, "-o", filepath.Join(empty, "r.html")}, "no result tables in"},
		{[]string{"report", old, "-o", filepath.Join(empty, "r.html")}, "written by another version of replay"},
		{[]string{"report", empty}, "want -o FILE.html"},
		{[]string{"report", mixed, "-o", filepath.Join(empty, "r.html")}, "holds a table in more than one format (summary.parquet, summary.csv)"},
	} {
		code, _, stderr := replayCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", tc.args[1:], code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(empty, "r.html")); err == nil {
		t.Error("a failed report left a file")
	}
}

// One cause, one exit status: --figures that cannot be written is 2, as
// -o and --out are (it was 1); a damaged table is 2, as any bad input (it
// was 1); a study's dataset is named as one (report suggested replay
// --out DIR for it). Nothing is left behind.
func TestReportExitStatus(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	if code, _, stderr := replayCmd(t, "-q", "--out", out, sample); code != 0 {
		t.Fatal(stderr)
	}
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	data, _ := os.ReadFile(filepath.Join(out, "summary.parquet"))
	os.WriteFile(filepath.Join(bad, "summary.parquet"), data[:len(data)/2], 0o644)
	ds := filepath.Join(dir, "ds")
	os.MkdirAll(filepath.Join(ds, "_study"), 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", out, "-o", filepath.Join(dir, "r.html"), "--figures", filepath.Join(out, "summary.parquet", "figs")}, "--figures: mkdir"},
		{[]string{"report", bad, "-o", filepath.Join(dir, "r.html")}, "summary.parquet"},
		{[]string{"report", ds, "-o", filepath.Join(dir, "r.html")}, "is a study's dataset"},
	} {
		code, stdout, stderr := replayCmd(t, c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a failed report left its page")
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

// The host's wait on the GPU in "Where the wait went": replayed from a
// trace with a blocking copy, an event, a stream and a device sync
// (interop/testdata/hostsync.jsonl), the page has a column per call the
// runs made and their sum, each the syncs table's return − call summed,
// in µs at the run's clock. Results written before the syncs table (no
// syncs.parquet) or with none (a trace without blocking calls) still
// report, without the columns; a damaged syncs table is bad input (2).
func TestReportHostWaits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	if code, _, stderr := replayCmd(t, "-q", "--policy=cdp,flat", "--out", out, "../interop/testdata/hostsync.jsonl"); code != 0 {
		t.Fatal(stderr)
	}
	csvDir := filepath.Join(dir, "csv")
	if code, _, stderr := replayCmd(t, "-q", "--policy=cdp", "--format=csv", "--out", csvDir, "../interop/testdata/hostsync.jsonl"); code != 0 {
		t.Fatal(stderr)
	}
	var wait int64
	for _, r := range readCSV(t, filepath.Join(csvDir, "syncs.csv")) {
		wait += int64(atoi(t, r["return_cycle"]) - atoi(t, r["call_cycle"]))
	}
	s := readCSV(t, filepath.Join(csvDir, "summary.csv"))[0]
	mhz := float64(atoi(t, s["makespan_cycles"])) / mustFloat(t, s["makespan_us"])
	if us := float64(wait) / mhz; us < 10 || us >= 100 {
		t.Fatalf("the calls waited %.3g µs, want 10 to 100 for the check below", us)
	}
	page := filepath.Join(dir, "r.html")
	report := func(args ...string) string {
		t.Helper()
		if code, _, stderr := replayCmd(t, append(append([]string{"report"}, args...), "-o", page)...); code != 0 {
			t.Fatalf("report %v: exit %d: %s", args, code, stderr)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		return string(html)
	}
	html := report(out)
	for _, part := range []string{"<th>host in cudaDeviceSynchronize</th><th>host in cudaStreamSynchronize</th><th>host in cudaEventSynchronize</th><th>host in cudaMemcpy (blocking)</th><th>host waited on the GPU</th>",
		fmt.Sprintf("<td>%.1f (4), ", float64(wait)/mhz)} { // 10 to 100 µs: one decimal
		if !strings.Contains(html, part) {
			t.Errorf("the page has no %q", part)
		}
	}
	if strings.Contains(html, "other calls") {
		t.Error("the page has a column for calls the tables do not name")
	}
	os.Remove(filepath.Join(out, "syncs.parquet"))
	if html := report(out); strings.Contains(html, "host waited") || !strings.Contains(html, "Where the wait went") {
		t.Error("without syncs.parquet: the page has host waits, or no wait table")
	}
	plain := filepath.Join(dir, "plain")
	if code, _, stderr := replayCmd(t, "-q", "--out", plain, sample); code != 0 {
		t.Fatal(stderr)
	}
	if html := report(plain); strings.Contains(html, "host waited") {
		t.Error("an empty syncs table gives host wait columns")
	}
	data, _ := os.ReadFile(filepath.Join(plain, "kernels.parquet"))
	os.WriteFile(filepath.Join(plain, "syncs.parquet"), data[:len(data)/2], 0o644)
	if code, _, stderr := replayCmd(t, "report", plain, "-o", page); code != 2 || !strings.Contains(stderr, "syncs.parquet") {
		t.Errorf("a damaged syncs.parquet: exit %d, %q; want 2 naming it", code, stderr)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
