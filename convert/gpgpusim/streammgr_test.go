package gpgpusim

import "testing"

// streamPasses counts one pass a tick of any clock domain, domains of
// one frequency ticking together.
func TestStreamPasses(t *testing.T) {
	for _, c := range []struct {
		domains string
		want    int64
	}{
		{"1132.0:1132.0:1132.0:850.0", 1751}, // SM7_QV100: 1000·(1132+850)/1132 = 1750.9
		{"1000.0:1000.0:1000.0:500.0", 1500}, // the golden cases' GPU
		{"837.0:837.0:837.0:1502.0", 2795},   // SM3_KEPLER_TITAN: 1000·(837+1502)/837 = 2794.5
		{"700:700:700:700", 1000},            // one clock: one pass a cycle
		{"700:1400:700:924", 4320},           // 1000·(700+1400+924)/700
		{"1132.0:1132.0:1132.0", 0},          // not four domains
		{"x:1:1:1", 0},
		{"1132:0:1132:850", 0}, // a domain below 1 MHz
	} {
		if got := streamPasses(c.domains); got != c.want {
			t.Errorf("streamPasses(%q) = %d, want %d", c.domains, got, c.want)
		}
	}
}
