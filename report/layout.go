package report

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A figure's legend is drawn in a column of its own to the right of the
// plot, never inside the data area: gonum/plot draws a legend in a corner
// of the data area, where it sat on the tallest bars and on lines.

// legendGap is the room between the plot and its legend column.
const legendGap = vg.Length(8)

// figure finishes a figure: the legend its plot collected moves beside
// the plot, and the figure widens by the legend's column so the data
// area keeps the width the figure asked for.
func figure(f Figure) *Figure {
	f.legend = f.plot.Legend
	f.legend.Top, f.legend.Left = true, true
	f.plot.Legend = plot.NewLegend()
	if w := f.legendWidth(); w > 0 {
		f.width += w + legendGap
	}
	return &f
}

// legendWidth is the width of the figure's legend column, 0 without a
// legend.
func (f *Figure) legendWidth() vg.Length {
	return f.legend.Rectangle(draw.Canvas{}).Size().X
}

// areas splits the figure's canvas into the plot's part and the legend
// column, which starts at the top of the data area.
func (f *Figure) areas(c draw.Canvas) (plotArea, legendArea draw.Canvas) {
	w := f.legendWidth()
	if w == 0 {
		return c, draw.Canvas{}
	}
	plotArea = draw.Crop(c, 0, -(w + legendGap), 0, 0)
	legendArea = draw.Crop(c, c.Size().X-w, 0, 0, 0)
	legendArea.Max.Y = f.plot.DataCanvas(plotArea).Max.Y
	return plotArea, legendArea
}

// draw draws the figure on c.
func (f *Figure) draw(c draw.Canvas) {
	if len(f.tiles) > 0 {
		f.drawTiles(c)
		return
	}
	plotArea, legendArea := f.areas(c)
	f.plot.Draw(plotArea)
	if f.legendWidth() > 0 {
		f.legend.Draw(legendArea)
	}
}

// tickGap is the least room between two tick labels of the x axis.
const tickGap = vg.Length(6)

// xTickBoxes is where the x axis's tick labels lie as the figure draws
// them: each label's left and right edge, in the figure's coordinates,
// in axis order.
func (f *Figure) xTickBoxes() [][2]vg.Length {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}}
	plotArea, _ := f.areas(c)
	data := f.plot.DataCanvas(plotArea)
	trX, _ := f.plot.Transforms(&data)
	var boxes [][2]vg.Length
	for _, t := range f.plot.X.Tick.Marker.Ticks(f.plot.X.Min, f.plot.X.Max) {
		if t.Label == "" {
			continue
		}
		x, w := trX(t.Value), f.plot.X.Tick.Label.Width(t.Label)
		boxes = append(boxes, [2]vg.Length{x - w/2, x + w/2})
	}
	return boxes
}

// ticksFit reports whether the x axis's tick labels lie inside the
// figure with at least tickGap between neighbours.
func (f *Figure) ticksFit() bool {
	boxes := f.xTickBoxes()
	for i, b := range boxes {
		if b[0] < 0 || b[1] > f.width {
			return false
		}
		if i > 0 && boxes[i-1][1]+tickGap > b[0] {
			return false
		}
	}
	return true
}

// fitTicks widens a figure with a nominal x axis until its tick labels
// fit side by side (ticksFit), up to 3× its width; beyond that the page
// scales the figure down and the labels would be too small to read.
func (f *Figure) fitTicks() *Figure {
	limit := 3 * f.width
	for !f.ticksFit() && f.width < limit {
		f.width *= 1.1
	}
	return f
}

// runLabels names each run by what tells it apart from the others, one
// line each: its policy, then its trace and its sweep combination where
// those differ between the runs. shared is the trace and combination all
// the runs have in common, for the axis label ("" when none).
func runLabels(rs []run) (labels []string, shared string) {
	traces, params := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		traces[r.trace], params[r.params] = true, true
	}
	for _, r := range rs {
		l := r.policy
		if len(traces) > 1 {
			l += "\n" + r.trace
		}
		if len(params) > 1 && r.params != "" {
			l += "\n" + r.params
		}
		labels = append(labels, l)
	}
	if len(rs) > 0 && len(traces) == 1 {
		shared = rs[0].trace
		if len(params) == 1 && rs[0].params != "" {
			shared += " · " + rs[0].params
		}
	}
	return labels, shared
}

// Small multiples: past maxLines runs a line chart is a grid of small
// charts, one per run on shared axes, rather than a tangle of lines in
// colours too alike to tell apart (or a chart that silently keeps eight).

// tileCols is the columns of a grid of small multiples, and tileHeight
// one tile's height.
const (
	tileCols   = 4
	tileHeight = vg.Length(150)
)

// tiled makes a figure of small multiples, one plot per tile in rows of
// tileCols.
func tiled(f Figure, tiles []*plot.Plot) *Figure {
	f.tiles = tiles
	f.width = 1000
	f.height = tileHeight * vg.Length((len(tiles)+tileCols-1)/tileCols)
	return &f
}

func (f *Figure) drawTiles(c draw.Canvas) {
	rows := (len(f.tiles) + tileCols - 1) / tileCols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, tileCols)
	}
	for i, p := range f.tiles {
		grid[i/tileCols][i%tileCols] = p
	}
	canvases := plot.Align(grid, draw.Tiles{Rows: rows, Cols: tileCols, PadX: 12, PadY: 12, PadTop: 4, PadBottom: 4, PadLeft: 4, PadRight: 4}, c)
	for i, p := range f.tiles {
		p.Draw(canvases[i/tileCols][i%tileCols])
	}
}
