package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars is a plot.Plotter of horizontal bars, one row each: a kernel's
// wait and run, or a host stage. gonum/plot has no Gantt chart; this draws
// rectangles in data coordinates and reports its range.
type bars struct {
	rows []barRow
}

type barRow struct {
	y          float64
	start, end float64
	color      color.Color
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	h := vg.Length(0)
	if len(b.rows) > 0 {
		// Rows are one unit apart: fill 80% of that.
		h = (trY(1) - trY(0)) * 0.4
	}
	for _, r := range b.rows {
		x0, x1, y := trX(r.start), trX(r.end), trY(r.y)
		if x1-x0 < 0.5 {
			x1 = x0 + 0.5 // a zero-length span is still visible
		}
		c.FillPolygon(r.color, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y - h}, {X: x1, Y: y - h}, {X: x1, Y: y + h}, {X: x0, Y: y + h}}))
	}
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(b.rows) == 0 {
		return 0, 1, 0, 1
	}
	xmin, xmax = b.rows[0].start, b.rows[0].end
	ymin, ymax = b.rows[0].y, b.rows[0].y
	for _, r := range b.rows {
		xmin, xmax = min(xmin, r.start), max(xmax, r.end)
		ymin, ymax = min(ymin, r.y), max(ymax, r.y)
	}
	return xmin, xmax, ymin - 1, ymax + 1
}
