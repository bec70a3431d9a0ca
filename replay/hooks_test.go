package replay_test

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// twoKernels: K1 (stream 0, one CTA of 1000 cycles) and K2 (stream 1, one
// CTA of 500 cycles) on one SM. With host_issue 10, host_launch 100 and
// dispatch 283, K1 is ready at 393 and K2 at 403.
const twoKernels = `{"type":"header","version":1,"clock_mhz":706}
{"type":"kernel","id":1,"name":"a","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":0}
{"type":"cta","kernel":1,"cta":0,"cycles":1000}
{"type":"kernel","id":2,"name":"b","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":2,"t":0,"stream":1}
{"type":"cta","kernel":2,"cta":0,"cycles":500}`

func testConfig(t *testing.T, sms int) model.Config {
	t.Helper()
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	cfg.GPU.SMs = sms
	cfg.Lat.HostIssue, cfg.Lat.HostLaunch, cfg.Lat.KernelDispatch = 10, 100, 283
	return cfg
}

func replayString(t *testing.T, src string, cfg model.Config, pol replay.Policy) (*recorder, *replay.Stats) {
	t.Helper()
	open := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
	rec := &recorder{}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, st
}

// afterFirst is a gate that holds kernel 2's CTAs until a CTA of kernel 1
// has finished; it learns that as an Observer.
type afterFirst struct{ done bool }

func (g *afterFirst) MayStart(k *replay.Kernel, cta uint64) bool { return k.ID() != 2 || g.done }
func (g *afterFirst) CTAStarted(*replay.CTAEvent)                {}
func (g *afterFirst) CTAFinished(ev *replay.CTAEvent) {
	if ev.Kernel.ID() == 1 {
		g.done = true
	}
}

// A gated CTA is placed (dispatch 403), sits on its SM stalled until the
// gate opens at 1393, and reports 990 stall cycles.
func TestGateStallsCTA(t *testing.T) {
	g := &afterFirst{}
	rec, st := replayString(t, twoKernels, testConfig(t, 1), replay.Policy{Name: "gated", Gate: g, Observer: g})
	c := rec.CTAs[len(rec.CTAs)-1]
	if c.KernelID != 2 || c.DispatchCycle != 403 || c.StartCycle != 1393 || c.EndCycle != 1893 || c.StallCycles != 990 {
		t.Errorf("kernel 2's CTA: got %+v, want dispatch 403, start 1393, end 1893, stall 990", c)
	}
	if st.StallCycles != 990 || st.MakespanCycles != 1893 {
		t.Errorf("stats: stall %d makespan %d, want 990 and 1893", st.StallCycles, st.MakespanCycles)
	}
}

// lastSM places every CTA on the highest-numbered SM that has room.
type lastSM struct{}

func (lastSM) Place(d *replay.Dispatch) {
	for _, k := range d.Pending() {
		for sm := d.SMs() - 1; sm >= 0 && k.Remaining() > 0; sm-- {
			for k.Remaining() > 0 && d.Fits(k, sm) {
				d.Place(k, sm)
			}
		}
	}
}

// A Placer replaces round-robin placement.
func TestPlacerChoosesSM(t *testing.T) {
	rec, _ := replayString(t, twoKernels, testConfig(t, 4), replay.Policy{Name: "last", Placer: lastSM{}})
	for _, c := range rec.CTAs {
		if c.SM != 3 {
			t.Errorf("kernel %d CTA %d on SM %d, want 3", c.KernelID, c.CTA, c.SM)
		}
	}
}

// A gate that never opens is a deadlock that names the held CTAs.
func TestGateDeadlock(t *testing.T) {
	never := replay.Policy{Name: "never", Gate: gateFunc(func(k *replay.Kernel, _ uint64) bool { return k.ID() != 2 })}
	open := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(twoKernels)), nil }
	_, err := replay.Run(open, replay.Options{Config: testConfig(t, 1), Policy: never}, &recorder{})
	if err == nil || !strings.Contains(err.Error(), "kernel 2 has 1 CTA(s) placed but held by policy never") {
		t.Fatalf("got %v, want a deadlock naming kernel 2's held CTA", err)
	}
	if !replay.IsInputError(err) {
		t.Errorf("a deadlock should be reported as the input's problem")
	}
}

type gateFunc func(k *replay.Kernel, cta uint64) bool

func (f gateFunc) MayStart(k *replay.Kernel, cta uint64) bool { return f(k, cta) }
