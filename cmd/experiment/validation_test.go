package main

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/internal/xztest"
	"github.com/gpureplay/gpureplay/study"
)

// The replay of every committed GPGPU-Sim capture stays within the
// tolerance docs/validation.md states: makespan within 6.5% of the
// simulator's (cdpmulti and cdpqueue 3%), host-only programs within 0.1%. It fails when the
// importer's sites, latencies or placement rule drift (without
// gpu.concurrent_kernel_sm=off, cdpmulti-lat0 is 35% off).
func TestValidationGPGPUSim(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	var out, log bytes.Buffer
	if err := run([]string{"validation-gpgpusim", "--out", dir}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 12 || !strings.HasSuffix(strings.TrimSpace(f[6]), "%") {
			continue
		}
		rows++
		name := strings.TrimSpace(f[1])
		e, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f[6]), "%"), 64)
		if err != nil {
			t.Fatalf("%s: error cell %q", name, f[6])
		}
		limit := 6.5
		switch {
		case strings.Contains(f[2], "(0)"): // no device launches
			limit = 0.1
		case name == "cdpmulti" || strings.HasPrefix(name, "cdpqueue"):
			// Device kernels that wait out GPGPU-Sim's stream manager
			// together (docs/model.md, "The simulator's stream manager"):
			// -10.3% and -27.7% before the replay ran it (issue 74);
			// cdpmulti +4.5% while its blocked heads left the passes to
			// the others (countdown.go).
			limit = 3
		}
		if e > limit || e < -limit {
			t.Errorf("%s: makespan error %.1f%%, over %.1f%%", name, e, limit)
		}
	}
	if rows < 7 {
		t.Errorf("%d capture rows, want 7:\n%s", rows, out.String())
	}
}

// Every what-if prediction stays within its pair's tolerance
// (whatIfTolerance, or the wider one its named mechanism documents): a
// regression test of the model's predictions against GPGPU-Sim's runs of
// the thing predicted, not of the captures against themselves.
func TestValidationWhatIf(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	var out, log bytes.Buffer
	if err := run([]string{"validation-whatif", "--out", dir}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 12 || !strings.HasSuffix(strings.TrimSpace(f[7]), "%") {
			continue
		}
		from, to := strings.TrimSpace(f[2]), strings.TrimSpace(f[3])
		var pair *whatIf
		for i := range whatIfPairs {
			if whatIfPairs[i].from == from && whatIfPairs[i].to == to {
				pair = &whatIfPairs[i]
			}
		}
		if pair == nil {
			t.Fatalf("row %s -> %s is no pair of whatIfPairs", from, to)
		}
		rows++
		e, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f[7]), "%"), 64)
		if err != nil {
			t.Fatalf("%s -> %s: error cell %q", from, to, f[7])
		}
		if e > pair.tolerance() || e < -pair.tolerance() {
			t.Errorf("%s -> %s: makespan error %.1f%%, over %.0f%%", from, to, e, pair.tolerance())
		}
	}
	if rows != len(whatIfPairs) {
		t.Errorf("%d pair rows, want %d:\n%s", rows, len(whatIfPairs), out.String())
	}
}

// The DTBL runs of the DTBL authors' simulator predicted from their CDP
// twins (docs/validation.md, "DTBL against its authors' simulator"):
// with the simulator's keys each prediction is within 10% of its cycles
// but the four pairs whose CTAs ran at another concurrency, and every
// error (the fork's keys, the default, the self-replay) stays within a
// point of the value the doc gives, so a change to the importer or the
// model that moves one is seen.
func TestValidationDTBLFork(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	var out, log bytes.Buffer
	if err := run([]string{"validation-dtbl-fork", "--out", dir}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// errors: the fork's keys, the default, the self-replay (percent).
	want := map[string][3]float64{
		"balanced-dtbl":            {-17.3, -47.9, 0},
		"skewed-dtbl":              {-9.6, -34.1, 0},
		"nested-dtbl":              {-3.1, -48.0, 0},
		"cdp-dtbl":                 {-3.3, -53.1, 0},
		"balanced-dtbl-maxk32":     {0, -30.9, 0},
		"nested-dtbl-maxk32":       {-0.2, -45.5, 0},
		"balanced-dtbl-cdplat0":    {-33.4, -32.1, 0},
		"balanced-dtbl-launch5000": {1.6, -28.5, 21.0},
		"balanced-dtbl-smk":        {-17.3, -47.9, 0},
		"balanced-dtbl-kq8":        {-17.3, -47.9, -0.1},
		// Dragon_li's programs (issue 73).
		"dragonli-bfs-tree-dtbl":     {0, -51.4, 0},
		"dragonli-sssp-tree-dtbl":    {0, -52.4, 0},
		"dragonli-bfs-tree400-dtbl":  {-0.1, -64.4, 0},
		"dragonli-bfs-tree1000-dtbl": {-3.0, -50.2, 0},
		"dragonli-sssp-rmat11-dtbl":  {-1.3, -49.0, 0},
		"dragonli-join-30720-dtbl":   {-0.3, -55.0, 0},
	}
	concurrency := map[string]bool{"balanced-dtbl": true, "balanced-dtbl-smk": true, "balanced-dtbl-kq8": true, "balanced-dtbl-cdplat0": true}
	pct := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
		if err != nil {
			t.Fatalf("error cell %q", s)
		}
		return v
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 16 {
			continue
		}
		name := strings.TrimSpace(f[2])
		w, ok := want[name]
		if !ok {
			continue
		}
		rows++
		got := [3]float64{pct(f[7]), pct(f[10]), pct(f[13])}
		for i, g := range got {
			if g > w[i]+1 || g < w[i]-1 {
				t.Errorf("%s: error %d is %+.1f%%, want %+.1f%% within a point", name, i, g, w[i])
			}
		}
		if !concurrency[name] && (got[0] > 10 || got[0] < -10) {
			t.Errorf("%s: the fork's keys predict %+.1f%%, over 10%%", name, got[0])
		}
	}
	if rows != len(want) {
		t.Errorf("%d pair rows, want %d:\n%s", rows, len(want), out.String())
	}
	if !strings.Contains(out.String(), "| balanced-cdp | balanced-flat | 26340 | 27683 | `inline=cta` | +5.1% |") {
		t.Errorf("the flat prediction moved:\n%s", out.String())
	}
	checkForkHeadlines(t, out.String())
}

// checkForkHeadlines holds the headline table (dtbl-fork's, on the
// results page): the fork's measured speedups of Dragon_li's programs
// exactly (they are times.tsv's cycles), and the replay's prediction of
// each within a point of the error the page gives.
func checkForkHeadlines(t *testing.T, out string) {
	t.Helper()
	// measured DTBL over CDP and over flat; the prediction's errors
	// (the fork's keys over CDP, over flat).
	want := map[string]struct {
		overCDP, overFlat string
		errCDP, errFlat   float64
	}{
		"BFS":                {"1.40×", "1.30×", 3.0, -17.7},
		"SSSP":               {"1.12×", "3.04×", 1.3, 65.2},
		"JOIN":               {"1.10×", "0.50×", -8.7, -35.6},
		"**geometric mean**": {"**1.20×**", "**1.26×**", -1.6, -4.3},
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "|")
		if len(f) != 15 {
			continue
		}
		w, ok := want[strings.TrimSpace(f[1])]
		if !ok {
			continue
		}
		rows++
		name := strings.TrimSpace(f[1])
		if got := strings.TrimSpace(f[6]); got != w.overCDP {
			t.Errorf("%s: DTBL over CDP on the fork %s, want %s", name, got, w.overCDP)
		}
		if got := strings.TrimSpace(f[11]); got != w.overFlat {
			t.Errorf("%s: DTBL over flat on the fork %s, want %s", name, got, w.overFlat)
		}
		for _, c := range []struct {
			cell string
			want float64
		}{{f[8], w.errCDP}, {f[13], w.errFlat}} {
			v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(c.cell), "%"), 64)
			if err != nil || v > c.want+1 || v < c.want-1 {
				t.Errorf("%s: predicted speedup's error %q, want %+.1f%% within a point", name, c.cell, c.want)
			}
		}
	}
	if rows != len(want) {
		t.Errorf("%d headline rows, want %d:\n%s", rows, len(want), out)
	}
	if !strings.Contains(out, "| paper (§5.2 (C)") {
		t.Errorf("the headline table has no paper row:\n%s", out)
	}
}

// Each Dragon_li CDP capture replays as GPGPU-Sim ran it: every host
// kernel's span, its children's included, within 0.5% of the
// simulator's, and the makespan within 0.1%. The replay holds an SM to
// ⌈CTAs/SMs⌉ of a small grid with one kernel an SM at a time, as
// GPGPU-Sim does (docs/model.md, "CTA placement"); packing a small
// child's CTAs onto the SMs that drained first, it put rmat11's second
// relaxation at 0.77× the simulator's and the tree3 capture's third at
// 0.87×. The generators' held-out tests (samples) are held to these
// replays. AMR's, whose level-2 children the log names only by their
// function and CTA, replays −0.14% since the importer gives a launch to
// the first of those siblings' CTAs to finish after it
// (convert/gpgpusim/siblings.go); +8.0%, a level's span up to +9.2%,
// while it gave each to the one that started first.
func TestDragonliCapturesReplayAsRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	logs, err := filepath.Glob(filepath.Join(validationDir, "gpgpusim", "whatif", "dragonli-*-cdp.log.xz"))
	if err != nil || len(logs) < 10 {
		t.Fatalf("%d Dragon_li CDP captures (%v)", len(logs), err)
	}
	for _, log := range logs {
		name := strings.TrimSuffix(filepath.Base(log), ".log.xz")
		c, err := convertCapture(log, dir, gpgpusim.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := study.CapturedConfig(c.trace)
		if err != nil {
			t.Fatal(err)
		}
		st, kernels, err := replayFile(cfg, "cdp", c.trace)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		span, makespan := 0.005, 0.001
		if name == "dragonli-amr-cdp" {
			makespan = 0.002 // -0.14% today
		}
		t.Logf("%s: makespan %d, GPGPU-Sim %d", name, st.MakespanCycles, c.end)
		if e := float64(st.MakespanCycles)/float64(c.end) - 1; e > makespan || e < -makespan {
			t.Errorf("%s: makespan %d, GPGPU-Sim %d (%+.1f%%)", name, st.MakespanCycles, c.end, 100*e)
		}
		for _, k := range kernels {
			m, ok := c.measured[k.KernelID]
			if !ok || m.Parent != 0 {
				continue
			}
			sim := float64(c.ends[k.KernelID] - m.Start)
			if e := float64(k.EndCycle-k.StartCycle)/sim - 1; e > span || e < -span {
				t.Errorf("%s: kernel %d spans %d cycles, GPGPU-Sim %.0f (%+.1f%%)", name, k.KernelID, k.EndCycle-k.StartCycle, sim, 100*e)
			}
		}
	}
}

// The stream manager's countdown against GPGPU-Sim's own: a rerun of
// cdpmulti on 40 SMs logging each kernel's push, countdown's end and
// launch (validation/gpgpusim/whatif/README.md,
// cdpmulti-sm40-streammgr). The log says what docs/model.md quotes: each
// grandchild goes to the GPU after exactly 5,001 services, and the
// children that wait for a kernel slot, their countdowns done, are
// served up to 1,319 times more, so they share the passes. The replay
// of capture cdpmulti on 40 SMs gives its grandchildren their Kernel
// Distributor entries when the simulator launched them: the 10th, 50th
// and 90th percentiles within 2% (+0.2%, -0.6% and -1.0% today; +2.8%,
// +10.5% and +10.5% while the heads waiting for an entry left the
// passes to the others).
func TestCountdownAgainstStreamManagerLog(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	zr := xztest.Open(t, filepath.Join(validationDir, "gpgpusim", "whatif", "cdpmulti-sm40-streammgr.txt.xz"))
	var simLaunch []int64
	var childExtra uint64
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		var uid, served uint64
		var cycle int64
		if n, _ := fmt.Sscanf(sc.Text(), "SMLOG launch uid %d served %d cycle %d", &uid, &served, &cycle); n != 3 || uid < 2 {
			continue
		}
		switch {
		case uid >= 258: // the grandchildren (the README says why)
			if served != 5001 {
				t.Errorf("grandchild %d launched after %d services, want 5001", uid, served)
			}
			simLaunch = append(simLaunch, cycle)
		default:
			childExtra = max(childExtra, served-5001)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(simLaunch) != 128 || childExtra != 1319 {
		t.Fatalf("log: %d grandchildren launched, a child's most services past 5,001 %d; want 128 and 1,319", len(simLaunch), childExtra)
	}
	c, err := convertCapture(filepath.Join(validationDir, "gpgpusim", "captures", "cdpmulti.log.xz"), dir, gpgpusim.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := study.CapturedConfig(c.trace)
	if err != nil {
		t.Fatal(err)
	}
	cfg.GPU.SMs = 40
	_, kernels, err := replayFile(cfg, "cdp", c.trace)
	if err != nil {
		t.Fatal(err)
	}
	origin := map[uint64]string{}
	for _, k := range kernels {
		origin[k.KernelID] = k.Origin
	}
	var entry []int64
	for _, k := range kernels {
		if k.ParentKernelID != nil && origin[*k.ParentKernelID] == "device" {
			entry = append(entry, k.ReadyCycle-cfg.Lat.KernelDispatch)
		}
	}
	if len(entry) != len(simLaunch) {
		t.Fatalf("replay: %d grandchildren, the log %d", len(entry), len(simLaunch))
	}
	slices.Sort(entry)
	slices.Sort(simLaunch)
	for _, p := range []float64{0.1, 0.5, 0.9} {
		i := int(p * float64(len(entry)-1))
		e := float64(entry[i])/float64(simLaunch[i]) - 1
		t.Logf("grandchildren's entries, %.0fth percentile: replay %d, GPGPU-Sim %d (%+.1f%%)", 100*p, entry[i], simLaunch[i], 100*e)
		if e > 0.02 || e < -0.02 {
			t.Errorf("grandchildren's entries, %.0fth percentile: replay %d, GPGPU-Sim %d (%+.1f%%), want within 2%%", 100*p, entry[i], simLaunch[i], 100*e)
		}
	}
}
