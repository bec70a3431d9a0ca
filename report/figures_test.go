package report

import (
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"strings"
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

// The Gantt chart's caption names the colours its bars are drawn in: a
// run of waiting host kernels draws only the wait and host colours, one
// of device kernels only the wait and device colours, and the caption
// says which is which (issue 39 item 14: it said blue for host and red
// for device while host bars were red and device bars green).
func TestGanttCaptionNamesItsColours(t *testing.T) {
	for _, origin := range []string{"host", "device"} {
		rd := &runData{summary: summaryRow{run: run{trace: "t", policy: "cdp"}, clockMHz: 1000}}
		for k := range 3 {
			rd.kernels = append(rd.kernels, kernelSpan{id: int64(k), origin: origin, launch: int64(10 * k), start: int64(10*k + 5), end: int64(10*k + 50)})
		}
		f := rd.gantt(0)
		kind := hostSwatch
		if origin == "device" {
			kind = deviceSwatch
		}
		want := []string{hex(waitSwatch.color), hex(kind.color)}
		slices.Sort(want)
		if got := fills(t, f); !slices.Equal(got, want) {
			t.Errorf("%s kernels drawn in %v, want %v (%s and %s)", origin, got, want, waitSwatch.name, kind.name)
		}
		for _, phrase := range []string{waitSwatch.name + " while it waits", kind.name + " for a " + origin + " kernel"} {
			if !strings.Contains(f.Caption, phrase) {
				t.Errorf("caption %q does not say %q", f.Caption, phrase)
			}
		}
	}
	if hex(hostSwatch.color) == hex(deviceSwatch.color) || hostSwatch.name == deviceSwatch.name {
		t.Error("host and device kernels share a colour")
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
// traces with long names, which widen the figure.
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
