package report

import (
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// testData is one run per policy of each trace, the policies' speedups
// and launch-site counts as given.
func testData(traces []string, params string, policies []string, speedup []float64) *Data {
	d := &Data{}
	for _, tr := range traces {
		for i, pol := range policies {
			d.runs = append(d.runs, &runData{summary: summaryRow{
				run:     run{trace: tr, policy: pol, params: params},
				speedup: speedup[i], makespan: 1000, makespanUS: 1, clockMHz: 1000,
				sites: 1039, launched: int64(100 * i), inlined: 1039 - int64(100*i),
			}})
		}
	}
	return d
}

var sixPolicies = []string{"cdp", "flat", "threshold", "dtbl", "spawn", "ppcs"}

// fills is the set of fill colours of the figure's SVG, other than the
// background's white.
func fills(t *testing.T, f *Figure) []string {
	t.Helper()
	svg, err := f.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`fill:(#[0-9A-F]{6})`).FindAllStringSubmatch(string(svg), -1) {
		if m[1] != "#FFFFFF" && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// The Gantt chart draws each run's kernels in its policy's colour, the
// same as the policy's bar in the speedups chart and nothing else, one
// row per kernel name, the most run time first (issue 54: a thousand
// one-pixel rows, a wait colour and a red that meant launched, inline
// and cdp in three charts).
func TestGanttByNameInPolicyColour(t *testing.T) {
	d := testData([]string{"t"}, "", []string{"cdp", "flat"}, []float64{1, 2})
	for _, rd := range d.runs {
		rd.names = map[string]*nameStats{}
		for k := range 30 {
			name := []string{"expand", "level"}[k%2]
			ks := kernelSpan{id: int64(k), name: name, launch: int64(10 * k), start: int64(10*k + 5), end: int64(10*k + 50 + 100*(k%2))}
			rd.kernels = append(rd.kernels, ks)
			if rd.names[name] == nil {
				rd.names[name] = &nameStats{name: name}
			}
			rd.names[name].add(ks)
		}
	}
	speedups := fills(t, d.speedups())
	for i, rd := range d.runs {
		f := d.gantt(rd, i)
		want := []string{hex(d.policyColor(rd.summary.run.policy))}
		if got := fills(t, f); !slices.Equal(got, want) {
			t.Errorf("%s: Gantt drawn in %v, want %v", rd.summary.run.policy, got, want)
		}
		if !slices.Contains(speedups, want[0]) {
			t.Errorf("%s: the speedups chart has no bar in the Gantt's colour %s (%v)", rd.summary.run.policy, want[0], speedups)
		}
		ticks := f.plot.Y.Tick.Marker.Ticks(0, 1)
		if len(ticks) != 2 || ticks[0].Label != "level" || ticks[1].Label != "expand" {
			t.Errorf("rows %v, want level (most run time) then expand", ticks)
		}
	}
	if d.policyColor("cdp") == d.policyColor("flat") {
		t.Error("two policies share a colour")
	}
	for _, o := range []string{"launched", "inlined", "coalesced"} {
		if slices.Contains(speedups, hex(outcomeColor(o))) {
			t.Errorf("outcome %s is drawn in a policy's colour", o)
		}
	}
}

// layoutOf is where a figure's parts lie: the plot's data area, the
// legend column and the title's lower edge.
func layoutOf(f *Figure) (data, legend draw.Canvas, titleBottom vg.Length) {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}}
	plotArea, legend := f.areas(c)
	data = f.plot.DataCanvas(plotArea)
	titleBottom = plotArea.Max.Y - f.plot.Title.TextStyle.Rectangle(f.plot.Title.Text).Size().Y - f.plot.Title.Padding
	return data, legend, titleBottom
}

// The speedup chart leaves headroom: its axis goes above the tallest bar,
// and the bar's value, written on its side above it, ends below the
// title. On the sample's six policies DTBL's 4.287 was cut off at the top.
func TestSpeedupHeadroom(t *testing.T) {
	speedups := []float64{1, 1.913, 1.468, 4.287, 1.877, 0.998}
	f := testData([]string{"bfs-kron12"}, "", sixPolicies, speedups).speedups()
	tallest := slices.Max(speedups)
	if f.plot.Y.Max <= tallest {
		t.Fatalf("y axis ends at %g, the tallest bar at %g", f.plot.Y.Max, tallest)
	}
	data, _, titleBottom := layoutOf(f)
	_, trY := f.plot.Transforms(&data)
	top := trY(tallest)
	if top >= data.Max.Y {
		t.Errorf("the tallest bar's top %v is not below the data area's %v", top, data.Max.Y)
	}
	label := f.plot.X.Tick.Label // the values' font size is the labels'
	label.Font.Size = 10
	if end := top + 2 + label.Width(fmt.Sprintf("%.2f", tallest)); end > titleBottom {
		t.Errorf("the tallest bar's value ends at %v, above the title's lower edge %v", end, titleBottom)
	}
}

// Every figure with a legend draws it beside the data area, never on it,
// and the decisions chart's run labels do not overlap: six runs of one
// trace (the trace goes to the axis title), and twelve runs over three
// traces with long names, past maxLines, which lie one per row.
func TestLegendsAndLabelsClear(t *testing.T) {
	long := []string{"bfs-graph500-scale20-weighted", "sssp-citation-network-large", "mandelbrot-4096-tiles"}
	for _, d := range []*Data{
		testData([]string{"bfs-kron12"}, "", sixPolicies, []float64{1, 2, 3, 4, 5, 6}),
		testData(long, "launch.threshold=64", sixPolicies[:4], []float64{1, 2, 3, 4}),
	} {
		for _, f := range []*Figure{d.speedups(), d.decisions()} {
			data, legend, _ := layoutOf(f)
			if legend.Min.X < data.Max.X || legend.Max.Y > data.Max.Y+0.01 {
				t.Errorf("%s: legend %v overlaps the data area %v", f.Name, legend.Rectangle, data.Rectangle)
			}
			if f.legendWidth() == 0 {
				t.Errorf("%s: no legend", f.Name)
			}
		}
		f := d.decisions()
		if len(d.runs) > maxLines {
			checkRowLabels(t, f, len(d.runs))
			continue
		}
		boxes := f.xTickBoxes()
		if len(boxes) != len(d.runs) {
			t.Fatalf("decisions: %d tick labels for %d runs", len(boxes), len(d.runs))
		}
		for i := 1; i < len(boxes); i++ {
			if boxes[i-1][1] >= boxes[i][0] {
				t.Errorf("decisions: labels %d %v and %d %v overlap", i-1, boxes[i-1], i, boxes[i])
			}
		}
		if boxes[0][0] < 0 || boxes[len(boxes)-1][1] > f.width {
			t.Errorf("decisions: labels %v outside the figure's width %v", boxes, f.width)
		}
	}
}

// checkRowLabels checks a chart with a row per run (the decisions chart
// past maxLines runs): a label per run, each at full size with room for
// its line between its neighbours.
func checkRowLabels(t *testing.T, f *Figure, runs int) {
	t.Helper()
	data, _, _ := layoutOf(f)
	_, trY := f.plot.Transforms(&data)
	var ys []vg.Length
	for _, tk := range f.plot.Y.Tick.Marker.Ticks(f.plot.Y.Min, f.plot.Y.Max) {
		if tk.Label != "" {
			ys = append(ys, trY(tk.Value))
		}
	}
	if len(ys) != runs {
		t.Fatalf("decisions: %d row labels for %d runs", len(ys), runs)
	}
	h := f.plot.Y.Tick.Label.Height("x")
	for i := 1; i < len(ys); i++ {
		if d := ys[i] - ys[i-1]; d < h {
			t.Errorf("decisions: rows %d and %d %v apart, labels %v high", i-1, i, d, h)
		}
	}
	if f.plot.Y.Tick.Label.Font.Size < 10 {
		t.Errorf("decisions: row labels of %v", f.plot.Y.Tick.Label.Font.Size)
	}
}

// runLabels keeps what tells runs apart and moves what they share to the
// axis title.
func TestRunLabels(t *testing.T) {
	for _, c := range []struct {
		runs   []run
		labels []string
		shared string
	}{
		{[]run{{trace: "a", policy: "cdp"}, {trace: "a", policy: "dtbl"}}, []string{"cdp", "dtbl"}, "a"},
		{[]run{{trace: "a", policy: "cdp", params: "k=1"}, {trace: "a", policy: "cdp", params: "k=2"}}, []string{"cdp\nk=1", "cdp\nk=2"}, "a"},
		{[]run{{trace: "a", policy: "cdp", params: "k=1"}, {trace: "b", policy: "cdp", params: "k=1"}}, []string{"cdp\na", "cdp\nb"}, ""},
		{[]run{{trace: "a", policy: "cdp", params: "k=1"}}, []string{"cdp"}, "a · k=1"},
	} {
		labels, shared := runLabels(c.runs)
		if !slices.Equal(labels, c.labels) || shared != c.shared {
			t.Errorf("runLabels(%v) = %q, %q; want %q, %q", c.runs, labels, shared, c.labels, c.shared)
		}
	}
}
