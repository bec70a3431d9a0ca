package profile

import "testing"

func TestNotConverted(t *testing.T) {
	for _, tc := range []struct {
		counts map[string]int
		want   string
	}{
		{nil, ""},
		{map[string]int{}, ""},
		{map[string]int{"memset": 3}, "not converted: 3 memset"},
		{map[string]int{"runtime:cudaMalloc": 1, "memset": 3, "kernel (other device)": 12, "ac2g": 21},
			"not converted: 21 ac2g, 12 kernel (other device), 3 memset, 1 runtime:cudaMalloc"},
	} {
		if got := NotConverted(tc.counts); got != tc.want {
			t.Errorf("NotConverted(%v) = %q, want %q", tc.counts, got, tc.want)
		}
	}
}
