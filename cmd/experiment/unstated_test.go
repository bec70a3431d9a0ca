package main

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
)

// grid of a two-valued and a three-valued input: 2·3 = 6 points, the
// first all first choices (the experiment's own run, no sets or params),
// the last input varying fastest, each point with its choices' sets and
// params together.
func TestGrid(t *testing.T) {
	ps := grid([]unstated{launchServers("1"), joinSpread})
	var labels []string
	for _, p := range ps {
		labels = append(labels, p.label())
	}
	want := []string{
		"cdp.launch_servers 1 (the preset's), join sigma 0.01 (the generator's)",
		"cdp.launch_servers 1 (the preset's), join sigma 0.005",
		"cdp.launch_servers 1 (the preset's), join sigma 0.02",
		"cdp.launch_servers 0, join sigma 0.01 (the generator's)",
		"cdp.launch_servers 0, join sigma 0.005",
		"cdp.launch_servers 0, join sigma 0.02",
	}
	if !slices.Equal(labels, want) {
		t.Fatalf("labels:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(want, "\n"))
	}
	if len(ps[0].sets) != 0 || len(ps[0].params) != 0 {
		t.Errorf("first point sets %v params %v, want none", ps[0].sets, ps[0].params)
	}
	if p := ps[5]; !slices.Equal(p.sets, []string{"cdp.launch_servers=0"}) || !slices.Equal(p.params["join"], []string{"sigma=0.02"}) {
		t.Errorf("last point sets %v params %v", p.sets, p.params)
	}
}

// Every experiment's unstated inputs have the experiment's own setting
// first, with nothing of its own to set, so the main run stands for it.
func TestUnstatedFirstChoiceIsOwn(t *testing.T) {
	for name, x := range experiments {
		for _, u := range x.unstated {
			if len(u.choices) < 2 {
				t.Errorf("%s: %s has %d choices, want at least 2", name, u.name, len(u.choices))
				continue
			}
			if c := u.choices[0]; len(c.sets) > 0 || len(c.params) > 0 {
				t.Errorf("%s: %s's first choice sets %v params %v", name, u.name, c.sets, c.params)
			}
		}
	}
}

// acrossLine: a bound outside the band at both points is "cannot be
// reached"; inside it at the second point, the headline is open with
// that point's setting; with no grid, nothing is printed.
func TestAcrossLine(t *testing.T) {
	x := &experiment{unstated: []unstated{launchServers("1")}}
	x.points = grid(x.unstated)
	values := map[string]float64{"cdp.launch_servers 1 (the preset's)": 11.5, "cdp.launch_servers 0": 9}
	eval := func(top float64) func(p point) reach {
		return func(p point) reach {
			v := values[p.label()]
			return reach{value: fmt.Sprintf("%g", v), out: v > top}
		}
	}
	var buf bytes.Buffer
	acrossLine(&buf, x, "gap", eval(5.2))
	wantFindings(t, buf.String(),
		"gap, across the inputs no paper states (cdp.launch_servers ∈ {1 (the preset's); 0}): 11.5 (cdp.launch_servers 1 (the preset's)); 9 (cdp.launch_servers 0).",
		"Outside the band at every one: the headline cannot be reached.")

	buf.Reset()
	acrossLine(&buf, x, "gap", eval(10))
	wantFindings(t, buf.String(), "Open: the bound reaches the band with cdp.launch_servers 0.")
	if strings.Contains(buf.String(), "cannot be reached") {
		t.Errorf("open bound said out of reach:\n%s", buf.String())
	}

	buf.Reset()
	acrossLine(&buf, &experiment{}, "gap", eval(5.2))
	if buf.Len() != 0 {
		t.Errorf("no grid printed %q", buf.String())
	}
}

// table3Call by hand. Two tasks, each a copy in, a launch and a copy back
// (HostCycles: 4 copy calls at 3500 cycles), inputs 1000 and outputs 600
// cycles on their engines, tasks' times 32000 over 32 kernel slots:
// C = max(1000, 600) + 32000/32 = 2000, 6 calls. Asynchronous copies on
// 4 threads: c ≤ 4·2000 / 6 = 1333.3; synchronous, less the waits
// 1000 + 600: (8000 − 1600) / 6 = 1066.7; on 2 threads (4000 − 1600) / 6 = 400.
func TestTable3Call(t *testing.T) {
	cfg, err := model.Load("titanx")
	if err != nil {
		t.Fatal(err)
	}
	cfg.GPU.MaxKernels = 32
	cfg.Lat.HostIssue = 3500
	w := bounds.TaskWork{Tasks: 2, HostCycles: 4 * 3500, H2DCycles: 1000, D2HCycles: 600, TaskCycles: 32000}
	for _, c := range []struct {
		threads int64
		sync    bool
		want    float64
	}{{4, false, 8000.0 / 6}, {4, true, 6400.0 / 6}, {2, true, 400}, {2, false, 4000.0 / 6}} {
		if got := table3Call(cfg, w, c.threads, c.sync); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%d threads, sync %v: %v, want %v", c.threads, c.sync, got, c.want)
		}
	}
	if got := table3Call(cfg, bounds.TaskWork{}, 4, false); !math.IsNaN(got) {
		t.Errorf("no calls: %v, want NaN", got)
	}
}

// The scorecard's bound column: SPAWN's gap bound at two points, a least
// gap of 11.5% and 9% against the band's 5.2%: out of reach at both;
// with 4% at the second point (launch servers 0), open there; no grid or
// no bound, a dash.
func TestBoundCell(t *testing.T) {
	ps := grid([]unstated{launchServers("1")})
	gaps := []float64{11.5, 9}
	h := spawnGap
	h.bound = func(h headline, p point) reach {
		v := gaps[slices.IndexFunc(ps, func(q point) bool { return q.label() == p.label() })]
		return reach{value: fmt.Sprintf("%g%%", v), out: v > h.hi*(1+h.band)}
	}
	if got, want := h.boundCell(ps), "cannot be reached (all 2 settings)"; got != want {
		t.Errorf("both out: %q, want %q", got, want)
	}
	gaps[1] = 4
	if got, want := h.boundCell(ps), "open: reached with cdp.launch_servers 0"; got != want {
		t.Errorf("one in: %q, want %q", got, want)
	}
	if got := h.boundCell(nil); got != "—" {
		t.Errorf("no grid: %q", got)
	}
	if got := dtblHeadlines[0].boundCell(ps); got != "—" {
		t.Errorf("no bound: %q", got)
	}
}
