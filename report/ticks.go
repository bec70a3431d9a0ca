package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks labels an axis every 1, 2 or 5 times a power of ten, about
// five times along it, with as many decimals as the step needs: gonum's
// default labels only some of its ticks (often the two ends, "0.00" and
// "250.00"), which says little about where a bar or a line lies.
type niceTicks struct{}

// Ticks implements plot.Ticker. The ticks are numbered, not summed, so
// they end for every finite range: a step below the resolution of the
// values (1 and 1.0000000000000002 are a step of 5e-17 apart, which
// adding to 1 leaves 1) labels the two ends instead (issue 75: the loop
// v += step never ended).
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: label(lo, 0)}}
	}
	step := niceStep((hi - lo) / 5)
	first, last := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
	// Below 2^50 steps from 0, n·step for consecutive n are distinct
	// values; above, or where the step underflowed, they need not be.
	const exact = 1 << 50
	if !(step > 0) || !(math.Abs(first) < exact && math.Abs(last) < exact) || last < first || last-first > 20 {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)}, {Value: hi, Label: strconv.FormatFloat(hi, 'g', -1, 64)}}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for n := first; n <= last; n++ {
		v := n * step
		ticks = append(ticks, plot.Tick{Value: v, Label: label(v, decimals)})
		if minor := v + step/2; minor < hi {
			ticks = append(ticks, plot.Tick{Value: minor})
		}
	}
	return ticks
}

// niceStep rounds a step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func label(v float64, decimals int) string {
	if math.Abs(v) < 1e-12 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}
