package profile

import "testing"

func TestMaxCTAsPerSM(t *testing.T) {
	for _, tc := range []struct{ major, minor, want int }{
		{3, 5, 16}, {5, 2, 32}, {7, 0, 32}, {7, 5, 16}, {8, 0, 32}, {8, 6, 16}, {8, 9, 24}, {9, 0, 32}, {10, 0, 32},
		{4, 2, DefaultMaxCTAsPerSM}, {8, 1, DefaultMaxCTAsPerSM}, {0, 80, DefaultMaxCTAsPerSM}, {-1, -1, DefaultMaxCTAsPerSM},
	} {
		if got := MaxCTAsPerSM(tc.major, tc.minor); got != tc.want {
			t.Errorf("MaxCTAsPerSM(%d, %d) = %d, want %d", tc.major, tc.minor, got, tc.want)
		}
	}
}
