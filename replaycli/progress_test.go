package replaycli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/study"
)

// Without a terminal, replay prints no progress unless --progress asks
// for it; then a batch log gets lines with the replays done, their rate
// and time left, the replay running, and a last line at the end.
func TestProgressLines(t *testing.T) {
	_, _, quiet := replayCmd(t, "-q", "--policy=cdp,flat,threshold", sample)
	if strings.Contains(quiet, "progress") {
		t.Errorf("progress without --progress: %q", quiet)
	}
	code, _, stderr := replayCmd(t, "-q", "--jobs=1", "--progress=1ns", "--policy=cdp,flat,threshold", sample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	line := regexp.MustCompile(`^replay: progress: [0-3]/3 replays done \((no replay done yet|[0-9.e+]+ replays/min, about [0-9hms.]+ left)\); (bfs-kron12 (cdp|flat|threshold): [0-9]+ CTAs replayed, [0-9.µmsh]+ simulated; )?[0-9hms.]+ elapsed$`)
	for _, l := range lines[:len(lines)-1] {
		if !line.MatchString(l) {
			t.Errorf("progress line %q", l)
		}
	}
	if len(lines) < 4 || !strings.Contains(stderr, "left);") {
		t.Errorf("want a line per finished replay, with the rate:\n%s", stderr)
	}
	if last := lines[len(lines)-1]; !regexp.MustCompile(`^replay: progress: 3/3 replays done in [0-9hms.]+$`).MatchString(last) {
		t.Errorf("last line %q", last)
	}
}

// A report from a running replay names it, its CTAs and simulated time,
// at most once per interval.
func TestProgressReport(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 2, 1<<62)
	r := study.Replay{Name: "t", Policy: "cdp"}
	p.update(r, 100, 706)
	if buf.Len() != 0 {
		t.Errorf("a line before the interval: %q", buf.String())
	}
	p.every = 1
	p.update(r, 100, 706)
	if want := "replay: progress: 0/2 replays done (no replay done yet); t cdp: 100 CTAs replayed, 706 cycles simulated; 0s elapsed\n"; buf.String() != want {
		t.Errorf("line %q, want %q", buf.String(), want)
	}
}

// TestCPUProfileHz checks GPUREPLAY_CPUPROFILE_HZ: a rate out of range
// or not a number is refused, naming the variable, and a rate in range
// gives a profile whose period is that rate's.
func TestCPUProfileHz(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"x", "0", "-5", "20000"} {
		t.Setenv("GPUREPLAY_CPUPROFILE_HZ", bad)
		if stop, err := startCPUProfile(filepath.Join(dir, "bad.prof")); err == nil {
			stop()
			t.Errorf("GPUREPLAY_CPUPROFILE_HZ=%s: no error", bad)
		} else if !strings.Contains(err.Error(), "GPUREPLAY_CPUPROFILE_HZ") {
			t.Errorf("GPUREPLAY_CPUPROFILE_HZ=%s: error %q names no variable", bad, err)
		}
	}
	t.Setenv("GPUREPLAY_CPUPROFILE_HZ", "250")
	path := filepath.Join(dir, "cpu.prof")
	stop, err := startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	out, err := exec.Command("go", "tool", "pprof", "-raw", path).CombinedOutput()
	if err != nil {
		t.Skipf("go tool pprof: %v", err)
	}
	if !strings.Contains(string(out), "Period: 4000000") {
		t.Errorf("profile at 250 a second: want period 4000000 ns, pprof -raw says:\n%s", out)
	}
}
