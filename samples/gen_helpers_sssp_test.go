package samples

import (
	"errors"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestDPTally(t *testing.T) {
	var tally dpTally
	k := &trace.Kernel{ID: 1, Grid: dpLine(2), Block: dpLine(32)}
	for _, r := range []trace.Record{
		&trace.Header{}, k, &trace.Launch{Kernel: 1}, &trace.CTA{Kernel: 1}, &trace.CTA{Kernel: 1, CTA: 1},
		&trace.Kernel{ID: 2}, &trace.Launch{Kernel: 2, Parent: &trace.Parent{Kernel: 1}},
	} {
		if err := tally.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if tally != (dpTally{kernels: 2, ctas: 2, sites: 1}) {
		t.Errorf("tally %+v", tally)
	}
}

// TestDPSinkErrorsPropagate checks that the sssp, amr (both codes) and join
// (both algorithms) generators stop at a sink's first error and return it,
// wherever it happens.
func TestDPSinkErrorsPropagate(t *testing.T) {
	for _, c := range []struct {
		name string
		kv   []string
	}{
		{"sssp", []string{"scale=8", "seed=3"}},
		{"amr", []string{"code=fronts", "cells=8", "steps=2"}},
		{"amr", []string{"start_value=3000", "max_level=3"}},
		{"join", []string{"algo=hash", "r_tuples=1000", "s_tuples=500", "site_threshold=8"}},
		{"join", []string{"dist=uniform", "grid=2", "r_tuples=2048", "s_tuples=256", "max_key=4"}},
	} {
		name, kv := c.name, c.kv
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
		for _, n := range []int{0, 1, len(all.recs) / 2, len(all.recs) - 1} {
			if err := g.Run(p, &failSink{n: n}); !errors.Is(err, errSink) {
				t.Errorf("%s failing at write %d: err %v", name, n, err)
			}
		}
	}
}
