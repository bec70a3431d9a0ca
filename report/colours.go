package report

import (
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotutil"
)

// One colour means one thing across the page: a hue is a policy (the
// same in every chart: its bars, its lines, its Gantt chart), and a
// shade of grey is what a launching lane did. Nothing else is coloured:
// a chart of one run's stages or waits draws in the run's policy colour
// or in neutral grey.

// policyColor is the colour of a policy of the report: by its first
// appearance among the runs.
func (d *Data) policyColor(policy string) color.Color {
	var seen []string
	for _, rd := range d.runs {
		if p := rd.summary.run.policy; !slices.Contains(seen, p) {
			seen = append(seen, p)
		}
	}
	return seriesColor(max(0, slices.Index(seen, policy)))
}

// seriesColor is the colour of the i-th policy: gonum's soft palette, then
// its dark one, so the first fourteen differ.
func seriesColor(i int) color.Color {
	if n := len(plotutil.SoftColors); i%(2*n) >= n {
		return plotutil.DarkColors[i%n]
	}
	return plotutil.SoftColors[i%len(plotutil.SoftColors)]
}

// outcomeColor is the grey of what a launching lane did (the summary's
// launched, inlined and coalesced; the launches table's decision launch,
// inline and coalesce): dark, light and between.
func outcomeColor(outcome string) color.Color {
	switch outcome {
	case "launched", "launch", "aggregated":
		return color.Gray{Y: 0x40}
	case "inlined", "inline":
		return color.Gray{Y: 0xb8}
	}
	return color.Gray{Y: 0x80}
}

// neutral draws what has no meaning of its own (a stage's bar).
var neutral = color.Gray{Y: 0x99}
