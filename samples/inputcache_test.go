package samples

import (
	"bytes"
	"testing"
)

// TestKeptInputsSameRecords generates each graph generator's trace with
// the input cache off, then twice with it on (a miss, then a hit), and
// wants the same records each time: a hit must hand back the same input
// and leave the PCG where drawing leaves it, since what is drawn after it
// (sssp's root, bfs's root, gc's priorities) shapes the records.
func TestKeptInputsSameRecords(t *testing.T) {
	cases := []struct {
		gen  string
		kv   []string
		kept int // inputs the cache holds after: the graph, and sssp's weights
	}{
		{"sssp", []string{"graph=uniform", "scale=9", "edgefactor=6"}, 2},
		{"sssp", []string{"graph=citation", "scale=9", "variant=flat"}, 2},
		{"bfs", []string{"scale=9", "edgefactor=8"}, 1},
		{"gc", []string{"scale=9", "edgefactor=8"}, 1},
	}
	defer KeepInputs(0)
	for _, c := range cases {
		KeepInputs(0)
		want := encode(t, c.gen, c.kv...)
		KeepInputs(1 << 30)
		miss := encode(t, c.gen, c.kv...)
		if n := len(inputs.entries); n != c.kept {
			t.Fatalf("%s %v: the cache holds %d inputs after a generation, want %d", c.gen, c.kv, n, c.kept)
		}
		hit := encode(t, c.gen, c.kv...)
		if n := len(inputs.entries); n != c.kept {
			t.Errorf("%s %v: the cache holds %d inputs after a second generation, want %d (no hit)", c.gen, c.kv, n, c.kept)
		}
		if !bytes.Equal(miss, want) || !bytes.Equal(hit, want) {
			t.Errorf("%s %v: records differ with the input cache on (miss %v, hit %v)", c.gen, c.kv, bytes.Equal(miss, want), bytes.Equal(hit, want))
		}
	}
}

// TestKeptInputsKeyedBySeed: the same graph parameters with another seed
// are another input, not a hit.
func TestKeptInputsKeyedBySeed(t *testing.T) {
	defer KeepInputs(0)
	KeepInputs(0)
	want := encode(t, "bfs", "scale=8", "seed=2")
	KeepInputs(1 << 30)
	encode(t, "bfs", "scale=8")
	if got := encode(t, "bfs", "scale=8", "seed=2"); !bytes.Equal(got, want) {
		t.Error("seed=2 after seed=1 with the input cache on: records differ from seed=2's alone")
	}
	if n := len(inputs.entries); n != 2 {
		t.Errorf("the cache holds %d graphs, want 2 (one a seed)", n)
	}
}

// TestKeepInputsBudget: past the budget the least recently used input is
// dropped, and a budget of 0 drops everything.
func TestKeepInputsBudget(t *testing.T) {
	defer KeepInputs(0)
	KeepInputs(0)
	KeepInputs(1 << 30)
	encode(t, "bfs", "scale=8", "seed=1")
	first := inputs.entries[0].bytes
	encode(t, "bfs", "scale=8", "seed=2")
	encode(t, "bfs", "scale=8", "seed=1") // a hit: seed=1 is now the most recent
	second := inputs.entries[0].bytes
	KeepInputs(first + second - 1)
	if n := len(inputs.entries); n != 1 {
		t.Fatalf("a budget one byte short of two graphs keeps %d, want 1", n)
	}
	if inputs.used != first {
		t.Errorf("kept %d bytes, want seed=1's %d (the most recently used)", inputs.used, first)
	}
	KeepInputs(0)
	if len(inputs.entries) != 0 || inputs.used != 0 {
		t.Errorf("KeepInputs(0) left %d inputs, %d bytes", len(inputs.entries), inputs.used)
	}
}
