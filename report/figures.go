package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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
	tiles   []*plot.Plot // small multiples, drawn in a grid instead of plot (layout.go)
	legend  plot.Legend  // drawn beside the plot (layout.go)
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
			break // the per-name tables cover every run
		}
		if f := d.gantt(rd, i); f != nil {
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
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
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
	if !slices.ContainsFunc(groups, func(g string) bool { return len(inGroup[g]) > 1 }) {
		return nil // each run its own baseline: every bar would be 1
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
			b.Color = d.policyColor(pol)
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

// occupancy: resident warps on the GPU over time as a share of its
// capacity, per run: lines up to maxLines runs, small multiples beyond.
func (d *Data) occupancy() *Figure {
	pts := func(rd *runData) plotter.XYs {
		capacity := rd.capacity()
		if capacity <= 0 {
			return nil
		}
		bin := rd.occBin()
		var pts plotter.XYs
		for b, wc := range rd.occupancy {
			if int64(b)*bin >= rd.summary.makespan {
				break
			}
			pts = append(pts, plotter.XY{X: rd.us(int64(b) * bin), Y: 100 * wc / float64(bin) / capacity})
		}
		return pts
	}
	const y = "resident warps (% of capacity)"
	caption := "Resident warps summed over the SMs (the occupancy table) as a share of the GPU's capacity (SMs × warps an SM holds; the summary's occupancy is this line's mean), time-averaged over 400 equal bins of each run."
	if d.manyRuns() {
		tiles := d.smallMultiples(pts, "time (µs)", y)
		if len(tiles) == 0 {
			return nil
		}
		return tiled(Figure{Name: "occupancy", Title: "Occupancy over time", Caption: caption + " One chart per run, on shared axes."}, tiles)
	}
	p := newPlot("Resident warps over time", "time (µs)", y)
	if d.lines(p, pts) == 0 {
		return nil
	}
	p.Y.Min = 0
	return figure(Figure{Name: "occupancy", Title: "Occupancy over time", Caption: caption, plot: p, width: 720, height: 320})
}

// manyRuns reports whether the runs are too many for one line chart.
func (d *Data) manyRuns() bool { return len(d.runs) > maxLines }

// lines adds one line per run for which pts gives points, each in its
// policy's colour (dashed for a second run of the same policy) with the
// run in the legend, and returns how many it added.
func (d *Data) lines(p *plot.Plot, pts func(*runData) plotter.XYs) int {
	n := 0
	seen := map[string]int{}
	for _, rd := range d.runs {
		xy := pts(rd)
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		pol := rd.summary.run.policy
		l.Color = d.policyColor(pol)
		if k := seen[pol]; k > 0 {
			l.Dashes = []vg.Length{vg.Length(2 + 2*k), 2}
		}
		seen[pol]++
		l.Width = 1.5
		p.Add(l)
		p.Legend.Add(rd.summary.run.label(), l)
		n++
	}
	return n
}

// smallMultiples is one small plot per run for which pts gives points,
// all on the same axes, each titled by its run.
func (d *Data) smallMultiples(pts func(*runData) plotter.XYs, x, y string) []*plot.Plot {
	var tiles []*plot.Plot
	xmax, ymax := 0.0, 0.0
	for _, rd := range d.runs {
		xy := pts(rd)
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		l.Color = d.policyColor(rd.summary.run.policy)
		l.Width = 1.5
		p := newPlot(rd.summary.run.label(), x, y)
		p.Title.TextStyle.Font.Size = 9
		p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = 8, 8
		p.Add(l)
		for _, pt := range xy {
			xmax, ymax = max(xmax, pt.X), max(ymax, pt.Y)
		}
		tiles = append(tiles, p)
	}
	for _, p := range tiles {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, xmax, 0, ymax*1.05
	}
	return tiles
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
	// Past maxLines runs the bars lie on their side, one row per run,
	// so each run's label has a line of its own at full size: side by
	// side they would shrink to illegible.
	horizontal := len(runs) > maxLines
	p := newPlot("Launch-site decisions", shared, "launching lanes")
	if horizontal {
		p = newPlot("Launch-site decisions", "launching lanes", shared)
		for i := range labels {
			labels[i] = strings.ReplaceAll(labels[i], "\n", " · ")
		}
		// The first run at the top, as in the summary table.
		slices.Reverse(labels)
		for _, v := range []plotter.Values{launched, inlined, coalesced} {
			slices.Reverse(v)
		}
	}
	var below *plotter.BarChart
	for _, v := range []struct {
		name string
		vs   plotter.Values
	}{{"launched", launched}, {"inlined", inlined}, {"coalesced", coalesced}} {
		if slices.Max(v.vs) == 0 {
			continue // an outcome no run had takes no legend entry
		}
		b, err := plotter.NewBarChart(v.vs, 16)
		if err != nil {
			return nil
		}
		b.Horizontal = horizontal
		b.Color = outcomeColor(v.name)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(v.name, b)
	}
	caption := "Launching lanes per run by what they did (the summary's counts): launched as a device kernel (dark grey), inlined by the parent (light grey), or coalesced into a running kernel (mid grey, DTBL)."
	top := 1.05 * slices.Max(sum(launched, inlined, coalesced)) // headroom, as for speedups
	if horizontal {
		p.X.Min, p.X.Max = 0, top
		p.NominalY(labels...)
		return figure(Figure{Name: "decisions", Title: "Launch decisions", Caption: caption,
			plot: p, width: 720, height: vg.Points(float64(80 + 20*len(labels)))})
	}
	p.Y.Min, p.Y.Max = 0, top
	p.NominalX(labels...)
	return figure(Figure{Name: "decisions", Title: "Launch decisions", Caption: caption,
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
	for _, k := range keys {
		s, err := plotter.NewScatter(byDecision[k])
		if err != nil {
			continue
		}
		s.Color = outcomeColor(k)
		s.GlyphStyle.Radius = 1.5
		p.Add(s)
		p.Legend.Add(k, s)
	}
	diagonal := plotter.NewFunction(func(x float64) float64 { return x })
	diagonal.Color = color.Gray{Y: 0x60}
	diagonal.Dashes = []vg.Length{4, 3}
	p.Add(diagonal)
	p.Legend.Add("parent = child", diagonal)
	return figure(Figure{Name: "estimates", Title: "SPAWN's estimates against outcomes", Caption: "Each launching lane's estimated child and parent times (launches table), in grey by the decision taken (launch dark, inline light); below the dashed diagonal the controller expected launching to pay.",
		plot: p, width: 520, height: 420})
}

// pageReadiness: pages on the GPU over time (CRCS runs).
func (d *Data) pageReadiness() *Figure {
	return d.lineFigure("pages", "Page readiness (host I/O)", "Pages that have crossed PCIe and are ready on the GPU, over time (the pages table's ready events).",
		"Pages ready on the GPU", "time (µs)", "pages ready", func(rd *runData) plotter.XYs {
			r := slices.Clone(rd.ready)
			slices.Sort(r)
			pts := make(plotter.XYs, len(r))
			for i, c := range r {
				pts[i] = plotter.XY{X: rd.us(c), Y: float64(i + 1)}
			}
			return pts
		})
}

// taskLatency: the distribution of task latencies per task-policy run.
func (d *Data) taskLatency() *Figure {
	return d.lineFigure("task-latency", "Task latency distribution", "Cumulative distribution of task latency (kernel end − launch) for the narrow-task policies (past 65,536 tasks, of a systematic sample of at least 32,768 of them, every n-th in the kernels table's order).",
		"Task latency", "latency (µs)", "fraction of tasks", func(rd *runData) plotter.XYs {
			if len(rd.latencies.vals) == 0 {
				return nil
			}
			l := slices.Clone(rd.latencies.vals)
			slices.Sort(l)
			step := max(1, len(l)/500)
			var pts plotter.XYs
			for i := 0; i < len(l); i += step {
				pts = append(pts, plotter.XY{X: rd.us(l[i]), Y: float64(i+1) / float64(len(l))})
			}
			return append(pts, plotter.XY{X: rd.us(l[len(l)-1]), Y: 1})
		})
}

// lineFigure is a line per run that pts gives points for, or past
// maxLines runs small multiples; nil when no run has points.
func (d *Data) lineFigure(name, title, caption, plotTitle, x, y string, pts func(*runData) plotter.XYs) *Figure {
	if d.manyRuns() {
		tiles := d.smallMultiples(pts, x, y)
		if len(tiles) == 0 {
			return nil
		}
		return tiled(Figure{Name: name, Title: title, Caption: caption + " One chart per run, on shared axes."}, tiles)
	}
	p := newPlot(plotTitle, x, y)
	if d.lines(p, pts) == 0 {
		return nil
	}
	return figure(Figure{Name: name, Title: title, Caption: caption, plot: p, width: 720, height: 320})
}

// gantt: the run's timeline, one row per kernel name (the maxNames names
// with the most run time, the rest on one row) with its kernels running,
// so a run of a thousand kernels is a dozen readable rows rather than a
// thousand one-pixel ones; above them, where the run has host I/O, a row
// per host stage on the same time axis. Waits are in the per-name table
// and the timeline.
func (d *Data) gantt(rd *runData, i int) *Figure {
	if len(rd.kernels) == 0 {
		return nil
	}
	var names []string
	stageRow := map[string]int{}
	if rd.hostIO() {
		for _, s := range rd.stages {
			if _, ok := stageRow[s.name]; !ok {
				stageRow[s.name] = len(names)
				names = append(names, s.name)
			}
		}
	}
	stages := len(names)
	row := map[string]int{}
	for j, n := range rd.byName() {
		if j == maxNames {
			names = append(names, "(other names)")
			break
		}
		row[n.name] = len(names)
		names = append(names, n.name)
	}
	y := func(r int) float64 { return float64(len(names) - 1 - r) }
	b := &bars{}
	for _, s := range rd.stages {
		if r, ok := stageRow[s.name]; ok {
			b.rows = append(b.rows, barRow{y(r), rd.us(s.start), rd.us(s.end), neutral})
		}
	}
	col := d.policyColor(rd.summary.run.policy)
	for _, k := range rd.kernels {
		if k.start < 0 || k.end < k.start {
			continue
		}
		r, ok := row[k.name]
		if !ok {
			r = len(names) - 1
		}
		b.rows = append(b.rows, barRow{y(r), rd.us(k.start), rd.us(k.end), col})
	}
	p := newPlot(rd.summary.run.label(), "time (µs)", "")
	p.Add(b)
	ticks := make([]plot.Tick, len(names))
	for j, n := range names {
		ticks[j] = plot.Tick{Value: y(j), Label: n}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min = 0
	caption := "Each kernel from its first CTA to its completion, on its name's row (the names with the most run time first), in the policy's colour; kernels of one name that run at once overlap."
	if stages > 0 {
		caption = "The host's stages (the stages table: prelude and postlude I/O, the h2d and d2h copy engines, the kernels' span) in grey, then each kernel from its first CTA to its completion on its name's row (the names with the most run time first), in the policy's colour."
	}
	caption += fmt.Sprintf(" %d kernels", len(rd.kernels))
	if int64(len(rd.kernels)) < rd.summary.kernels {
		caption += fmt.Sprintf(", the first by launch of %d", rd.summary.kernels)
	}
	if d.manyRuns() {
		caption += fmt.Sprintf("; charts for the first %d of %d runs, the tables above cover all", maxLines, len(d.runs))
	}
	return figure(Figure{Name: fmt.Sprintf("kernels-%d", i+1), Title: "Timeline — " + rd.summary.run.label(), Caption: caption + ".",
		plot: p, width: 720, height: vg.Points(float64(70 + 20*len(names)))})
}

// hostIO reports whether the run has host I/O stages: a run without has
// one stage, its kernels' span, which says nothing the makespan does not.
func (rd *runData) hostIO() bool {
	return slices.ContainsFunc(rd.stages, func(s span) bool { return s.name != "kernels" })
}

// us converts a run's cycles to microseconds (cycles when the clock is
// unknown).
func (rd *runData) us(cycles int64) float64 { return rd.usF(float64(cycles)) }

func (rd *runData) usF(cycles float64) float64 {
	if rd.summary.clockMHz <= 0 {
		return cycles
	}
	return cycles / rd.summary.clockMHz
}
