package replaycli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
)

// hostile registers, once, out-of-tree policies that each break one
// promise a policy makes to the engine (the bad policies).
var hostile = sync.OnceFunc(func() {
	sites := func(name string, decide func(s *replay.Site, out []replay.Verdict)) {
		must(policies.Register(policies.Info{Name: name, Doc: "hostile", New: func(model.Config) replay.Policy {
			return replay.Policy{Name: name, Sites: decideFunc(decide)}
		}}))
	}
	sites("panic-decide", func(*replay.Site, []replay.Verdict) { panic("boom in Decide") })
	sites("nan-estimate", func(s *replay.Site, out []replay.Verdict) {
		nan := math.NaN()
		for i := range out {
			out[i] = replay.Verdict{Decision: replay.Launch, EstChildCycles: &nan}
		}
	})
	sites("negative-search", func(s *replay.Site, out []replay.Verdict) {
		for i, l := range s.Lanes {
			out[i] = replay.Verdict{Decision: replay.Launch, Hardware: true} // as DTBL: its children reach the KD soon
			for _, k := range s.KD {
				if !k.Complete() && k.Name() == l.ChildName && k.Block() == l.ChildBlock {
					out[i] = replay.Verdict{Decision: replay.Coalesce, Target: k, SearchCycles: -5}
				}
			}
		}
	})
	must(policies.Register(policies.Info{Name: "panic-maystart", Doc: "hostile", New: func(model.Config) replay.Policy {
		return replay.Policy{Name: "panic-maystart", Gate: gateFunc(func(*replay.Kernel, uint64) bool { panic("boom in MayStart") })}
	}}))
	must(policies.Register(policies.Info{Name: "panic-finished", Doc: "hostile", New: func(model.Config) replay.Policy {
		return replay.Policy{Name: "panic-finished", Observer: finishedFunc(func(*replay.CTAEvent) { panic("boom in CTAFinished") })}
	}}))
	must(policies.Register(policies.Info{Name: "panic-new", Doc: "hostile", New: func(model.Config) replay.Policy { panic("boom in New") }}))
	must(policies.Register(policies.Info{Name: "panic-check", Doc: "hostile",
		Params: []model.Param{{Name: "panicchk.k", Default: 0, Doc: "panics at 7", Check: func(v any) string {
			if v.(int64) == 7 {
				panic("boom in Check")
			}
			return ""
		}}},
		New: func(model.Config) replay.Policy {
			return replay.Policy{Name: "panic-check", Gate: gateFunc(func(*replay.Kernel, uint64) bool { return true })}
		}}))
	place := func(name string, pick func(d *replay.Dispatch) int) {
		must(policies.Register(policies.Info{Name: name, Doc: "hostile", New: func(model.Config) replay.Policy {
			return replay.Policy{Name: name, Placer: placeFunc(func(d *replay.Dispatch) {
				for _, k := range d.Pending() {
					for k.Remaining() > 0 {
						d.Place(k, pick(d))
					}
				}
			})}
		}}))
	}
	place("place-beyond", func(d *replay.Dispatch) int { return d.SMs() + 5 })
	place("place-ignoring-fits", func(*replay.Dispatch) int { return 0 })
})

func must(err error) {
	if err != nil {
		panic(err)
	}
}

type decideFunc func(s *replay.Site, out []replay.Verdict)

func (f decideFunc) Decide(s *replay.Site, out []replay.Verdict) { f(s, out) }

type gateFunc func(k *replay.Kernel, cta uint64) bool

func (f gateFunc) MayStart(k *replay.Kernel, cta uint64) bool { return f(k, cta) }

type finishedFunc func(ev *replay.CTAEvent)

func (finishedFunc) CTAStarted(*replay.CTAEvent)       {}
func (f finishedFunc) CTAFinished(ev *replay.CTAEvent) { f(ev) }

type placeFunc func(d *replay.Dispatch)

func (f placeFunc) Place(d *replay.Dispatch) { f(d) }

// A policy's panic is its own defect: exit 1, one line "policy NAME: HOOK
// panicked: ...", no table or timeline and no temporary file left, where
// the process died with a Go panic and exit 2. A decision the engine
// cannot carry out (a CTA on SM 21 of 13, 18 CTAs on a 16-CTA SM, a
// negative search, a NaN estimate) is a one-line exit 2 naming the
// policy and the decision, where it indexed out of range, replayed an
// impossible schedule with exit 0 or wrote NaN into the launches table.
func TestPolicyFaults(t *testing.T) {
	hostile()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--policy=panic-decide"}, 1, "policy panic-decide: Decide panicked: boom in Decide"},
		{[]string{"--policy=panic-maystart"}, 1, "policy panic-maystart: MayStart panicked: boom in MayStart"},
		{[]string{"--policy=panic-finished", "--jobs=2", "--sweep", "gpu.sms=8,13"}, 1, "policy panic-finished: CTAFinished panicked: boom in CTAFinished"},
		{[]string{"--policy=panic-new"}, 1, "policy panic-new: New panicked: boom in New"},
		{[]string{"--policy=cdp", "--set", "panicchk.k=7"}, 1, "policy panic-check: Param panicchk.k Check panicked: boom in Check"},
		{[]string{"--policy=place-beyond"}, 2, "policy place-beyond: Place: kernel 1's CTA on SM 18; the GPU has SMs 0 to 12"},
		{[]string{"--policy=place-ignoring-fits"}, 2, "policy place-ignoring-fits: Place: kernel 5's CTA on SM 0, where Fits says it does not fit"},
		{[]string{"--policy=negative-search"}, 2, "policy negative-search: Decide: site"},
		{[]string{"--policy=negative-search"}, 2, "coalesce searching -5 cycles"},
		{[]string{"--policy=nan-estimate"}, 2, "EstChildCycles is NaN; want a finite number"},
	} {
		dir := t.TempDir()
		args := append(c.args, "-q", "--out", filepath.Join(dir, "o"), "--timeline", filepath.Join(dir, "t.json"), sample)
		code, stdout, stderr := replayCmd(t, args...)
		if code != c.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
		if left := temps(t, dir); len(left) > 0 {
			t.Errorf("%v left %v", c.args, left)
		}
		if s := snapshot(t, dir); s != "" {
			t.Errorf("%v left files:\n%s", c.args, s)
		}
	}
	// The stock policies are untouched by the checks.
	if code, _, stderr := replayCmd(t, "-q", "--policy=cdp,dtbl,ppcs,spawn", sample); code != 0 {
		t.Errorf("stock policies: %s", stderr)
	}
}

// klap+dtbl is refused before anything runs, as spawn+spawn is, where it
// failed at its first coalescing lane with an empty --out directory left;
// and a replay that fails leaves no --out directory it made.
func TestRefusedBeforeRunning(t *testing.T) {
	hostile()
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	code, _, stderr := replayCmd(t, "--policy=klap+dtbl", "--out", out, sample)
	if code != 2 || !strings.Contains(stderr, "policy klap aggregates launches and dtbl coalesces them") || strings.Contains(stderr, sample) {
		t.Errorf("klap+dtbl: exit %d, %q", code, stderr)
	}
	code, _, stderr = replayCmd(t, "--policy=place-beyond", "--out", out, sample)
	if code != 2 {
		t.Errorf("place-beyond: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was left", out)
	}
}
