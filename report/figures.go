package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one chart: a title, a caption, and the plot to render.
type Figure struct {
	Name    string // file name stem for --figures
	Title   string
	Caption string
	plot    *plot.Plot
	legend  plot.Legend // drawn beside the plot (layout.go)
	width   vg.Length
	height  vg.Length
}

// Render writes the figure in format "svg" or "png".
func (f *Figure) Render(format string) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(f.width, f.height, format)
	if err != nil {
		return nil, err
	}
	f.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxLines bounds the runs one line chart draws, so it stays readable.
const maxLines = 8

// Figures builds every figure the data supports, in page order.
func (d *Data) Figures() []*Figure {
	var figs []*Figure
	for _, build := range []func() *Figure{d.speedups, d.occupancy, d.decisions, d.estimates, d.pageReadiness, d.taskLatency} {
		if f := build(); f != nil {
			figs = append(figs, f)
		}
	}
	for i, rd := range d.runs {
		if i == maxLines {
			break
		}
		if f := rd.gantt(i); f != nil {
			figs = append(figs, f)
		}
		if f := rd.stageChart(i); f != nil {
			figs = append(figs, f)
		}
	}
	return figs
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	return p
}

// speedups: each run's speedup over the first policy of its trace and
// combination, grouped by trace.
func (d *Data) speedups() *Figure {
	var groups []string
	var policies []string
	inGroup := map[string][]string{} // a group's policies in run order
	val := map[[2]string]float64{}
	for _, rd := range d.runs {
		s := rd.summary
		g := s.run.trace
		if s.run.params != "" {
			g += " " + s.run.params
		}
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if !slices.Contains(policies, s.run.policy) {
			policies = append(policies, s.run.policy)
		}
		if _, ok := val[[2]string{g, s.run.policy}]; !ok {
			inGroup[g] = append(inGroup[g], s.run.policy)
		}
		val[[2]string{g, s.run.policy}] = s.speedup
	}
	p := newPlot("Speedup over the first policy", "", "speedup (×)")
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // a line through each group's middle bar says nothing
	p.Add(grid)
	// One bar per run, a group's bars side by side around its tick: only
	// the policies the group ran take room in it.
	tallest, widest := 0.0, 0
	legend := map[string]bool{}
	for j, g := range groups {
		present := inGroup[g]
		widest = max(widest, len(present))
		for k, pol := range present {
			v := val[[2]string{g, pol}]
			vs := make(plotter.Values, len(groups))
			vs[j] = v
			b, err := plotter.NewBarChart(vs, speedupBar)
			if err != nil {
				return nil
			}
			b.Color = seriesColor(slices.Index(policies, pol))
			b.LineStyle.Width = 0
			b.Offset = speedupBar * vg.Length(float64(k)-float64(len(present)-1)/2)
			p.Add(b)
			if !legend[pol] {
				legend[pol] = true
				p.Legend.Add(pol, b)
			}
			l, err := valueLabels(plotter.XYLabels{XYs: plotter.XYs{{X: float64(j), Y: v}}, Labels: []string{fmt.Sprintf("%.2f", v)}}, b.Offset)
			if err != nil {
				return nil
			}
			p.Add(l)
			tallest = max(tallest, v)
		}
	}
	// Headroom: the tallest bar ends below the top of the axis, and the
	// labels' glyph boxes make the plot leave room above it for its value.
	p.Y.Min, p.Y.Max = 0, tallest*1.1
	p.NominalX(groups...)
	return figure(Figure{Name: "speedup", Title: "Speedups", Caption: "Each policy's makespan against the first policy's on the same trace and sweep combination (the summary's speedup column), its value above its bar.",
		plot: p, width: vg.Points(float64(max(480, len(groups)*(widest*int(speedupBar)+40)))), height: 300}).fitTicks()
}

// seriesColor is the colour of the i-th policy or run: gonum's soft
// palette, then its dark one, so the first fourteen differ.
func seriesColor(i int) color.Color {
	if n := len(plotutil.SoftColors); i%(2*n) >= n {
		return plotutil.DarkColors[i%n]
	}
	return plotutil.SoftColors[i%len(plotutil.SoftColors)]
}

// speedupBar is a speedup bar's width: room for its value on its side.
const speedupBar = vg.Length(14)

// valueLabels writes each bar's value above it, turned on its side so the
// values of neighbouring bars do not run into each other; offset is the
// bars' shift from their group's tick.
func valueLabels(at plotter.XYLabels, offset vg.Length) (*plotter.Labels, error) {
	l, err := plotter.NewLabels(at)
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Rotation = math.Pi / 2
		l.TextStyle[i].XAlign = text.XLeft
		l.TextStyle[i].YAlign = text.YCenter
	}
	l.Offset = vg.Point{X: offset, Y: 2}
	return l, nil
}

// occupancy: resident warps on the GPU over time, per run.
func (d *Data) occupancy() *Figure {
	p := newPlot("Resident warps over time", "time (µs)", "resident warps (time-averaged per window)")
	n := d.lines(p, func(rd *runData) plotter.XYs {
		bin := rd.occBin()
		var pts plotter.XYs
		for b, wc := range rd.occupancy {
			if int64(b)*bin >= rd.summary.makespan {
				break
			}
			pts = append(pts, plotter.XY{X: rd.us(int64(b) * bin), Y: wc / float64(bin)})
		}
		if slices.ContainsFunc(pts, func(xy plotter.XY) bool { return xy.Y > 0 }) {
			return pts
		}
		return nil
	})
	if n == 0 {
		return nil
	}
	return figure(Figure{Name: "occupancy", Title: "Occupancy over time", Caption: "Resident warps summed over the SMs (the occupancy table), time-averaged over 400 equal bins of each run, for up to eight runs.",
		plot: p, width: 720, height: 320})
}

// lines adds one line per run for which pts gives points, up to maxLines,
// each in its own colour with the run in the legend, and returns how many
// it added.
func (d *Data) lines(p *plot.Plot, pts func(*runData) plotter.XYs) int {
	n := 0
	for _, rd := range d.runs {
		if n == maxLines {
			break
		}
		xy := pts(rd)
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		l.Color = seriesColor(n)
		p.Add(l)
		p.Legend.Add(rd.summary.run.label(), l)
		n++
	}
	return n
}

// decisions: how each run's launch sites were decided.
func (d *Data) decisions() *Figure {
	var runs []run
	var launched, inlined, coalesced plotter.Values
	for _, rd := range d.runs {
		s := rd.summary
		if s.sites == 0 {
			continue
		}
		runs = append(runs, s.run)
		launched = append(launched, float64(s.launched))
		inlined = append(inlined, float64(s.inlined))
		coalesced = append(coalesced, float64(s.coalesced))
	}
	if len(runs) == 0 {
		return nil
	}
	labels, shared := runLabels(runs)
	p := newPlot("Launch-site decisions", shared, "launching lanes")
	var below *plotter.BarChart
	for i, v := range []struct {
		name string
		vs   plotter.Values
	}{{"launched", launched}, {"inlined", inlined}, {"coalesced", coalesced}} {
		b, err := plotter.NewBarChart(v.vs, 24)
		if err != nil {
			return nil
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(v.name, b)
	}
	p.Y.Min, p.Y.Max = 0, 1.05*slices.Max(sum(launched, inlined, coalesced)) // headroom, as for speedups
	p.NominalX(labels...)
	return figure(Figure{Name: "decisions", Title: "Launch decisions", Caption: "Launching lanes per run by what they did (the summary's counts): launched as a device kernel, inlined by the parent, or coalesced into a running kernel (DTBL).",
		plot: p, width: vg.Points(float64(max(480, 70*len(labels)))), height: 320}).fitTicks()
}

// sum is the element-wise sum of equally long value lists.
func sum(vs ...plotter.Values) plotter.Values {
	out := make(plotter.Values, len(vs[0]))
	for _, v := range vs {
		for i, x := range v {
			out[i] += x
		}
	}
	return out
}

// estimates: a controller's estimates of child and parent time per lane,
// by outcome (SPAWN).
func (d *Data) estimates() *Figure {
	p := newPlot("Controller estimates", "estimated child time (cycles)", "estimated parent time (cycles)")
	byDecision := map[string]plotter.XYs{}
	for _, rd := range d.runs {
		for _, e := range rd.estimates {
			byDecision[e.decision] = append(byDecision[e.decision], plotter.XY{X: e.child, Y: e.parent})
		}
	}
	if len(byDecision) == 0 {
		return nil
	}
	keys := make([]string, 0, len(byDecision))
	for k := range byDecision {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		s, err := plotter.NewScatter(byDecision[k])
		if err != nil {
			continue
		}
		s.Color = plotutil.Color(i)
		s.GlyphStyle.Radius = 1.5
		p.Add(s)
		p.Legend.Add(k, s)
	}
	return figure(Figure{Name: "estimates", Title: "SPAWN's estimates against outcomes", Caption: "Each launching lane's estimated child and parent times (launches table), coloured by the decision taken: below the diagonal the controller expected launching to pay.",
		plot: p, width: 520, height: 420})
}

// pageReadiness: pages on the GPU over time (CRCS runs).
func (d *Data) pageReadiness() *Figure {
	p := newPlot("Pages ready on the GPU", "time (µs)", "pages ready")
	n := d.lines(p, func(rd *runData) plotter.XYs {
		r := slices.Clone(rd.ready)
		slices.Sort(r)
		pts := make(plotter.XYs, len(r))
		for i, c := range r {
			pts[i] = plotter.XY{X: rd.us(c), Y: float64(i + 1)}
		}
		return pts
	})
	if n == 0 {
		return nil
	}
	return figure(Figure{Name: "pages", Title: "Page readiness (host I/O)", Caption: "Pages that have crossed PCIe and are ready on the GPU, over time (the pages table's ready events).",
		plot: p, width: 720, height: 320})
}

// taskLatency: the distribution of task latencies per task-policy run.
func (d *Data) taskLatency() *Figure {
	p := newPlot("Task latency", "latency (µs)", "fraction of tasks")
	n := d.lines(p, func(rd *runData) plotter.XYs {
		if len(rd.latencies) == 0 {
			return nil
		}
		l := slices.Clone(rd.latencies)
		slices.Sort(l)
		step := max(1, len(l)/500)
		var pts plotter.XYs
		for i := 0; i < len(l); i += step {
			pts = append(pts, plotter.XY{X: rd.us(l[i]), Y: float64(i+1) / float64(len(l))})
		}
		return append(pts, plotter.XY{X: rd.us(l[len(l)-1]), Y: 1})
	})
	if n == 0 {
		return nil
	}
	return figure(Figure{Name: "task-latency", Title: "Task latency distribution", Caption: "Cumulative distribution of task latency (kernel end − launch) for the narrow-task policies.",
		plot: p, width: 720, height: 320})
}

// The Gantt chart's colours, each with the name its caption calls it by,
// so the caption cannot name other colours than the bars have.
var (
	waitSwatch   = swatch{"grey", color.Gray{Y: 190}}
	hostSwatch   = swatch{"blue", plotutil.SoftColors[2]}
	deviceSwatch = swatch{"red", plotutil.SoftColors[0]}
)

// swatch is a colour a figure draws with and its name in the caption.
type swatch struct {
	name  string
	color color.Color
}

// gantt: the run's first kernels by launch, waiting then running.
func (rd *runData) gantt(i int) *Figure {
	if len(rd.kernels) == 0 {
		return nil
	}
	b := &bars{}
	var names []string
	for j, k := range rd.kernels {
		y := float64(len(rd.kernels) - 1 - j)
		if k.start > k.launch {
			b.rows = append(b.rows, barRow{y, rd.us(k.launch), rd.us(k.start), waitSwatch.color})
		}
		c := hostSwatch.color
		if k.origin == "device" {
			c = deviceSwatch.color
		}
		b.rows = append(b.rows, barRow{y, rd.us(max(k.start, k.launch)), rd.us(k.end), c})
		names = append(names, fmt.Sprintf("%d", k.id))
	}
	p := newPlot("Kernels: "+rd.summary.run.label(), "time (µs)", "kernel (by launch)")
	p.Add(b)
	p.HideY()
	caption := fmt.Sprintf("Each kernel from launch to completion: %s while it waits (launch to first CTA), then %s for a host kernel, %s for a device kernel. The first %d kernels by launch.",
		waitSwatch.name, hostSwatch.name, deviceSwatch.name, len(rd.kernels))
	return figure(Figure{Name: fmt.Sprintf("kernels-%d", i+1), Title: "Kernel Gantt chart — " + rd.summary.run.label(), Caption: caption,
		plot: p, width: 720, height: vg.Points(float64(min(600, 120+3*len(names))))})
}

// stageChart: the host I/O stages and copy engines of a run.
func (rd *runData) stageChart(i int) *Figure {
	if len(rd.stages) == 0 {
		return nil
	}
	b := &bars{}
	var names []string
	for j, s := range rd.stages {
		b.rows = append(b.rows, barRow{float64(len(rd.stages) - 1 - j), rd.us(s.start), rd.us(s.end), plotutil.Color(j)})
		names = append(names, s.name)
	}
	p := newPlot("Stages: "+rd.summary.run.label(), "time (µs)", "")
	p.Add(b)
	ticks := make([]plot.Tick, len(names))
	for j, n := range names {
		ticks[j] = plot.Tick{Value: float64(len(names) - 1 - j), Label: n}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return figure(Figure{Name: fmt.Sprintf("stages-%d", i+1), Title: "Host stages — " + rd.summary.run.label(), Caption: "The stages table: host I/O (prelude, postlude), the copy engines (h2d, d2h) and the kernels' span.",
		plot: p, width: 720, height: vg.Points(float64(100 + 28*len(names)))})
}

// us converts a run's cycles to microseconds (cycles when the clock is
// unknown).
func (rd *runData) us(cycles int64) float64 {
	if rd.summary.clockMHz <= 0 {
		return float64(cycles)
	}
	return float64(cycles) / rd.summary.clockMHz
}
