package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSlowdowns reads gemtc.smem_slowdown: "none" (no task slows) or
// "name:factor" pairs joined by "/", each factor a finite number of at
// least 1 (a version without shared memory is no faster) and each name
// given once. The separator is not a comma so that --sweep, which splits
// its values at commas, keeps a whole list as one value.
func ParseSlowdowns(s string) (map[string]float64, error) {
	m := map[string]float64{}
	if s == "none" {
		return m, nil
	}
	for _, pair := range strings.Split(s, "/") {
		name, f, ok := strings.Cut(pair, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not name:factor; want none or name:factor pairs joined by /", pair)
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 1 || x > 1e6 {
			return nil, fmt.Errorf("%q: factor %q must be a number from 1 to 1e6", pair, f)
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("%s given twice", name)
		}
		m[name] = x
	}
	return m, nil
}
