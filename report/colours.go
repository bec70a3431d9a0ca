package report

import (
	"image/color"
	"slices"
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

// seriesColor is the colour of the i-th policy: twelve hues far apart
// (Tableau's ten, its grey replaced, and two more), no grey among them,
// as grey means an outcome or nothing; past twelve they repeat.
func seriesColor(i int) color.Color {
	return palette[i%len(palette)]
}

var palette = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x59a14f), rgb(0xb07aa1), rgb(0x76b7b2),
	rgb(0xedc948), rgb(0xff9da7), rgb(0x9c755f), rgb(0x17becf), rgb(0xbcbd22), rgb(0x7f3c8d),
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
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
