package replaycli

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
)

// replay params lists every key with its unit and range, meaning, readers
// and defaults per preset; --policy keeps the keys that policy reads and
// those every replay reads; --gpu one preset's default; an unknown key
// names the nearest.
func TestParams(t *testing.T) {
	code, out, stderr := replayCmd(t, "params")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, k := range model.Keys() {
		if !strings.Contains(out, "\n"+k+"  (") && !strings.HasPrefix(out, k+"  (") {
			t.Errorf("params does not list %s with its unit or range", k)
		}
	}
	for _, want := range []string{
		"gpu.sms  (SMs; 1 to 65536)  read by every replay\n    streaming multiprocessors\n    default gk110-64 64, h100 132, k20c 13, k20c-spawn 13, titanx 24\n",
		"spawn.window  (cycles; 1 to 2^40)  read by spawn\n",
		"klap.granularity  (warp, block or kernel)  read by klap\n",
		"cdp.pending_limit  (launches; 0 to 2^30)  read by every replay (listed by cdp, dtbl, klap, spawn, threshold)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("params lacks %q", want)
		}
	}
	_, spawn, _ := replayCmd(t, "params", "--policy=spawn", "--gpu=k20c-spawn")
	if !strings.Contains(spawn, "spawn.max_queue") || strings.Contains(spawn, "dtbl.") || strings.Contains(spawn, "pagoda.") ||
		!strings.Contains(spawn, "gpu.clock_mhz  (MHz; 1 to 1000000)  read by every replay\n    the replay GPU's clock: a trace's cycles are converted to it\n    default k20c-spawn 1400\n") {
		t.Errorf("params --policy=spawn --gpu=k20c-spawn:\n%s", spawn)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"params", "gpu.smz"}, `unknown key "gpu.smz"; nearest: gpu.sms`},
		{[]string{"params", "--policy=nope"}, `unknown policy "nope"`},
		{[]string{"params", "--gpu=nope"}, "k20c"},
		{[]string{"--set", "threshold=64", sample}, `unknown key "threshold"; nearest: launch.threshold`},
	} {
		if code, _, stderr := replayCmd(t, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
