package profile

import "testing"

func TestClockFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		mhz  float64
		key  string
	}{
		{"NVIDIA A100-PG509-200", 1410, "A100"}, {"NVIDIA A100-SXM4-80GB", 1410, "A100"},
		{"NVIDIA A10", 1695, "A10"}, {"NVIDIA A10G", 1710, "A10G"}, {"NVIDIA H100 80GB HBM3", 1755, "H100"},
		{"Tesla V100-SXM2-32GB", 1530, "V100"}, {"NVIDIA GeForce RTX 3090", 1695, "RTX 3090"},
		{"NVIDIA GeForce RTX 3090 Ti", 1860, "RTX 3090 Ti"}, {"NVIDIA L40S", 2520, "L40S"}, {"NVIDIA L4", 2040, "L4"},
		{"nvidia gh200 480gb", 1980, "GH200"}, {"AMD Instinct MI250X", 1700, "MI250X"},
		{"Some Future GPU", DefaultClockMHz, ""}, {"", DefaultClockMHz, ""},
	} {
		if mhz, key := ClockFor(tc.name); mhz != tc.mhz || key != tc.key {
			t.Errorf("ClockFor(%q) = %v, %q; want %v, %q", tc.name, mhz, key, tc.mhz, tc.key)
		}
	}
}
