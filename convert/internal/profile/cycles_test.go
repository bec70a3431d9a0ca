package profile

import (
	"math"
	"testing"
)

func TestCycles(t *testing.T) {
	for _, tc := range []struct {
		ns   int64
		mhz  float64
		want int64
	}{
		{1000, 1410, 1410}, {1, 1410, 1}, {-1000, 1000, -1000}, {333, 1500, 500}, {1, 500, 1}, // 0.5 rounds away from zero
		{math.MaxInt64, 1410, MaxCycles}, {math.MinInt64, 1410, -MaxCycles}, {5, math.NaN(), 0},
	} {
		if got := Cycles(tc.ns, tc.mhz); got != tc.want {
			t.Errorf("Cycles(%d, %g) = %d, want %d", tc.ns, tc.mhz, got, tc.want)
		}
	}
	if got := CyclesBetween(math.MinInt64, math.MaxInt64, 1000); got != MaxCycles {
		t.Errorf("CyclesBetween across the int64 range = %d, want MaxCycles", got)
	}
	if got := CyclesBetween(math.MaxInt64, math.MinInt64, 1000); got != -MaxCycles {
		t.Errorf("CyclesBetween backwards across the int64 range = %d, want -MaxCycles", got)
	}
	if got := CyclesBetween(5000, 3000, 1000); got != -2000 {
		t.Errorf("CyclesBetween(5000, 3000) = %d, want -2000", got)
	}
}

func TestAddCycles(t *testing.T) {
	for _, tc := range []struct {
		ns, cycles int64
		mhz        float64
		want       int64
	}{
		{1000, 1410, 1410, 2000}, {1000, -1410, 1410, 0}, {7, 0, 1e-12, 7},
		{math.MaxInt64 - 1, 10, 1000, math.MaxInt64}, {math.MinInt64 + 1, -10, 1000, math.MinInt64},
		{0, MaxCycles, 1e-3, 9e18}, {5, 1, math.NaN(), 5},
	} {
		if got := AddCycles(tc.ns, tc.cycles, tc.mhz); got != tc.want {
			t.Errorf("AddCycles(%d, %d, %g) = %d, want %d", tc.ns, tc.cycles, tc.mhz, got, tc.want)
		}
	}
}
