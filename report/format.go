package report

import (
	"math"
	"strconv"
)

// num formats a time in µs for a table: three significant digits below
// 100, whole numbers above, so columns of very different magnitudes stay
// readable.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// signed is num with its sign always written.
func signed(v float64) string {
	if v > 0 {
		return "+" + num(v)
	}
	if v == 0 {
		return "±0"
	}
	return "−" + num(-v)
}

// pct is part over whole as a percentage.
func pct(part, whole float64) string {
	if whole <= 0 {
		return "—"
	}
	return strconv.FormatFloat(100*part/whole, 'f', 1, 64) + "%"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
