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

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: label(lo, 0)}}
	}
	step := niceStep((hi - lo) / 5)
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
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
