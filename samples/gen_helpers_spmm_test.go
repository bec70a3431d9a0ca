package samples

import (
	"errors"
	"testing"
)

// TestSpMMMandelSASinkErrors checks that the spmm, mandel and sa generators
// stop at a sink's first error and return it, wherever it happens: in the
// header, the parent's CTAs, or a child family (a nested one for mandel).
func TestSpMMMandelSASinkErrors(t *testing.T) {
	for name, kv := range map[string][]string{
		"spmm":   {"rows=500", "nnz_per_row=6", "site_threshold=10"},
		"mandel": {"width=96", "height=64", "tile=24", "depth=2", "subdiv=2", "site_threshold=16"},
		"sa":     {"genome=16384", "reads=256", "site_threshold=4"},
	} {
		g, _ := Lookup(name)
		p, err := g.ParseParams(kv)
		if err != nil {
			t.Fatal(err)
		}
		var all sliceSink
		if err := g.Run(p, &all); err != nil {
			t.Fatal(err)
		}
		if _, _, device := countKinds(all.recs); device == 0 {
			t.Errorf("%s %v: no launch sites to fail among", name, kv)
		}
		for _, n := range []int{0, 1, len(all.recs) / 2, len(all.recs) - 2, len(all.recs) - 1} {
			if err := g.Run(p, &failSink{n: n}); !errors.Is(err, errSink) {
				t.Errorf("%s failing at write %d: err %v", name, n, err)
			}
		}
	}
}
