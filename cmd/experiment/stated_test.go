package main

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// A generator parameter withParams adds replaces the benchmark's own of
// the same name (a stated value in place of a measured one), and the
// others stay in order.
func TestWithParamsReplaces(t *testing.T) {
	bs := []benchmark{
		{name: "s", gen: "sssp", params: []string{"graph=kron", "loop_cycles=209", "scale=14"}},
		{name: "b", gen: "bfs", params: []string{"scale=14"}},
	}
	got := withParams(bs, map[string][]string{"sssp": {"loop_cycles=788"}, "*": {"seed=2"}})
	if want := []string{"graph=kron", "scale=14", "seed=2", "loop_cycles=788"}; !slices.Equal(got[0].params, want) {
		t.Errorf("sssp params %v, want %v", got[0].params, want)
	}
	if want := []string{"scale=14", "seed=2"}; !slices.Equal(got[1].params, want) {
		t.Errorf("bfs params %v, want %v", got[1].params, want)
	}
	if !slices.Equal(bs[0].params, []string{"graph=kron", "loop_cycles=209", "scale=14"}) {
		t.Errorf("withParams changed its input: %v", bs[0].params)
	}
}

// Outcomes filed twice under the same settings are kept once, so a point
// that reuses the main run's outcomes does not count them twice.
func TestRunCacheAddsOnce(t *testing.T) {
	b := benchmark{name: "a", gen: "g", params: []string{"x=1"}}
	outs := []outcome{stat(b, "flat", 10, 0), stat(b, "cdp", 5, 1)}
	c := runCache{}
	c.add([]string{"k=v"}, outs)
	c.add([]string{"k=v"}, outs)
	if got := c[c.key([]string{"k=v"}, b)]; len(got) != 2 {
		t.Errorf("cache holds %d outcomes for a, want 2", len(got))
	}
	if _, ok := c[c.key(nil, b)]; ok {
		t.Error("outcomes found under other settings")
	}
}

// A mean of a speedup over a column the paper did not run a benchmark
// under leaves that benchmark out and says so in its cell (Pagoda's
// SLUD has no GeMTC version); other columns' means keep it.
func TestMeanLeavesOutNotRun(t *testing.T) {
	a := benchmark{name: "fb"}
	slud := benchmark{name: "slud", notUnder: []string{"gemtc"}}
	outs := []outcome{
		stat(a, "hyperq", 400, 0), stat(a, "gemtc", 800, 0), stat(a, "pagoda", 200, 0),
		stat(slud, "hyperq", 900, 0), stat(slud, "gemtc", 100, 0), stat(slud, "pagoda", 100, 0),
	}
	if got := geoSpeedup(outs, "pagoda", "gemtc"); math.Abs(got-4) > 1e-12 {
		t.Errorf("Pagoda over GeMTC %.4f, want 4 (fb alone)", got)
	}
	if got := geoSpeedup(outs, "pagoda", "hyperq"); math.Abs(got-math.Sqrt(2*9)) > 1e-12 {
		t.Errorf("Pagoda over HyperQ %.4f, want %.4f (both)", got, math.Sqrt(2*9))
	}
	x := &experiment{policies: []string{"hyperq", "gemtc", "pagoda"}, paperMean: map[string]string{}}
	var buf bytes.Buffer
	x.meanRows(&buf, outs, "")
	want := "| **geometric mean** | | **0.50×** (without slud) | **4.24×** |"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("mean rows:\n%s\nwant %s", buf.String(), want)
	}
}

// The scorecard prints under each headline the same headline judged with
// the stated value: every mean, and a claim about one benchmark only
// where the stated value changes that benchmark.
func TestScorecardStatedRows(t *testing.T) {
	a := benchmark{name: "a", gen: "ga"}
	b := benchmark{name: "b", gen: "gb"}
	x := &experiment{
		benchmarks: []benchmark{a, b},
		headlines: []headline{
			{claim: "mean", source: "§1", lo: 2, unit: "×", band: 0.3, value: speedupOf("new", "old"), restsOn: "measured: a"},
			{claim: "b alone", source: "§2", lo: 2, unit: "×", band: 0.3, value: speedupOf("new", "old"), bench: "b", restsOn: "measured: b"},
			{claim: "a alone", source: "§3", lo: 2, unit: "×", band: 0.3, value: speedupOf("new", "old"), bench: "a", restsOn: "measured: a"},
		},
		stated: &statedValue{label: "a's cost as the paper states it", short: "a's stated cost", params: map[string][]string{"ga": {"cost=2"}}},
	}
	record := []outcome{stat(a, "old", 200, 0), stat(a, "new", 100, 0), stat(b, "old", 200, 0), stat(b, "new", 100, 0)}
	y := x.withStated()
	if y.benchmarks[0].params[0] != "cost=2" || len(y.benchmarks[1].params) != 0 {
		t.Fatalf("stated benchmarks %v", y.benchmarks)
	}
	stated := []outcome{stat(y.benchmarks[0], "old", 400, 0), stat(y.benchmarks[0], "new", 100, 0), stat(b, "old", 200, 0), stat(b, "new", 100, 0)}
	x.beside = &besideRun{x: y, own: stated}
	var buf bytes.Buffer
	printScorecard(&buf, x, record)
	lines := strings.Split(buf.String(), "\n")
	var claims []string
	for _, l := range lines[2:] {
		if cells := strings.Split(l, " | "); strings.HasPrefix(l, "| ") && len(cells) > 2 {
			claims = append(claims, strings.TrimPrefix(cells[0], "| ")+" "+cells[2])
		}
	}
	want := []string{"mean 2.00×", "↳ stated: a's stated cost 2.83×", "b alone 2.00×", "a alone 2.00×", "↳ stated: a's stated cost 4.00×"}
	if !slices.Equal(claims, want) {
		t.Errorf("scorecard rows %q, want %q\n%s", claims, want, buf.String())
	}
	if !strings.Contains(buf.String(), "the row above's, but stated: a's cost as the paper states it") {
		t.Errorf("stated rows do not say what they rest on:\n%s", buf.String())
	}
}

// The grid varies a generator's parent-loop cost only where it is
// invented: the generator's default, not set by the experiment (the
// spawn experiments set the premise's) and not measured (sssp's).
func TestInventedLoops(t *testing.T) {
	names := func(bs []benchmark) []string {
		var got []string
		for _, u := range inventedLoops(bs) {
			got = append(got, u.name+" "+u.choices[0].label+", "+u.choices[1].label+", "+u.choices[2].label)
		}
		return got
	}
	want := []string{
		"bfs loop_cycles 40 (the generator's, invented; sites by the lane-loop rule), 20 (×0.5), 80 (×2)",
		"gc loop_cycles 50 (the generator's, invented; sites by the lane-loop rule), 25 (×0.5), 100 (×2)",
		"join loop_cycles 40 (the generator's, invented; sites by the lane-loop rule), 20 (×0.5), 80 (×2)",
	}
	if got := names(dtblExperiment.benchmarks); !slices.Equal(got, want) {
		t.Errorf("dtbl's invented loops %q, want %q", got, want)
	}
	if got := names(spawnExperiment.benchmarks); len(got) != 0 {
		t.Errorf("spawn's invented loops %q, want none (the premise's and sssp's measured)", got)
	}
	u := inventedLoops(dtblExperiment.benchmarks)[0]
	if p := u.choices[1].params["bfs"]; !slices.Equal(p, []string{"loop_cycles=20"}) {
		t.Errorf("bfs ×0.5 params %v", p)
	}
}
