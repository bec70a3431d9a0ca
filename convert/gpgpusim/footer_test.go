package gpgpusim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/internal/xztest"
)

// readLog returns a real log's text.
func readLog(t *testing.T, name string) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := b.ReadFrom(xztest.Open(t, "testdata/real/"+name+".log.xz")); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The hostile edits of a real log (imbalance: two kernels, two statistics
// blocks) are refused with an error naming the line, where they converted
// to a wrong or partial trace: a first block's gpu_tot_sim_cycle set to
// 2^32 (the makespan became 4,294,976,062 cycles instead of 20,711), the
// log cut between the launch trees (1 of 2 kernels) or before the first
// push (0), and the end-of-run line alone removed.
func TestRealLogEdits(t *testing.T) {
	log := readLog(t, "imbalance")
	if _, err := convertString(log, DefaultOptions()); err != nil {
		t.Fatalf("the log itself: %v", err)
	}
	second := strings.Index(log, "GPGPU-Sim PTX: pushing kernel")
	second += strings.Index(log[second+1:], "GPGPU-Sim PTX: pushing kernel") + 1
	first := strings.Index(log, "GPGPU-Sim PTX: pushing kernel")
	for _, c := range []struct {
		name, log, want string
	}{
		{"tot far ahead", strings.Replace(log, "gpu_tot_sim_cycle = 7025", "gpu_tot_sim_cycle = 4294967296", 1),
			"gpu_tot_sim_cycle 4294967296 is not the previous block's 0 plus this block's gpu_sim_cycle 7025"},
		{"tot far ahead, no gpu_sim_cycle", strings.Replace(strings.Replace(log, "gpu_tot_sim_cycle = 7025", "gpu_tot_sim_cycle = 4294967296", 1), "gpu_sim_cycle = 7025", "", 1),
			"comes after a statistics block whose gpu_tot_sim_cycle is 4294967296"},
		{"cut between trees", log[:second], "the log ends without GPGPU-Sim's end-of-run line (GPGPU-Sim: *** exit detected ***) after 1 kernels"},
		{"cut before the first push", log[:first], "after 0 kernels"},
		{"no end-of-run line", strings.Replace(log, "GPGPU-Sim: *** exit detected ***", "", 1), "after 2 kernels"},
	} {
		_, err := convertString(c.log, DefaultOptions())
		if _, ok := err.(*Error); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *Error containing %q", c.name, err, c.want)
		}
	}
}

// A byte of a kernel's name or the simulator's version that is not UTF-8
// (a damaged log) is written as U+FFFD, as the Accel-Sim importer writes
// one; the trace writer refused the string, naming its output record
// ("record 1 (header), byte offset 9"), not the log's line. The kernel's
// CTAs and statistics still match its launch, by the name as the log
// spells it.
func TestRealLogNotUTF8(t *testing.T) {
	log := readLog(t, "imbalance")
	log = strings.ReplaceAll(log, "_Z9imbalancePfi", "_Z9imbal\xffancePfi")
	log = strings.Replace(log, "gpgpu-sim_git-commit-667834cf", "gpgpu-sim_git-commit-\xfe67834cf", 1)
	got, err := convertString(log, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "\"name\":\"_Z9imbal\ufffdancePfi\""); n != 2 {
		t.Errorf("%d kernel records named _Z9imbal\\ufffdancePfi, want 2", n)
	}
	if !strings.Contains(got, "\"gpgpusim.version\":\"4.2.0  [build gpgpu-sim_git-commit-\ufffd67834cf_modified_0.0]\"") {
		t.Errorf("the version not written with U+FFFD:\n%.600s", got)
	}
}
