package grfile

import (
	"os"
	"strings"
	"testing"
)

// TestReadGRErrors holds each malformed file to an error naming the file
// and the line.
func TestReadGRErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a 1 2 3\n", "g.gr:1: an arc before the problem line"},
		{"p sp 2 1\np sp 2 1\n", "g.gr:2: a second problem line"},
		{"p sq 2 1\n", "g.gr:1: want the problem line"},
		{"p sp 0 1\n", `g.gr:1: vertices "0": want 1 to`},
		{"p sp 2 x\n", `g.gr:1: arcs "x": not an integer`},
		{"c x\np sp 2 1\na 1 3 4\n", `g.gr:3: vertex "3": want 1 to 2`},
		{"p sp 2 1\na 1 2 -1\n", `g.gr:2: weight "-1": want 0 to`},
		{"p sp 2 1\na 1 2\n", `g.gr:2: want an arc line`},
		{"p sp 2 1\na 1 2 1\na 2 1 1\n", "g.gr:3: more arcs than the problem line's 1"},
		{"p sp 2 2\na 1 2 1\n", "g.gr: 1 arcs, but the problem line states 2"},
		{"c only\n", "g.gr: no problem line"},
		{"p sp 2 0\nx 1\n", `g.gr:2: unknown line kind "x"`},
	} {
		_, err := Read("g.gr", strings.NewReader(tc.in), 1<<24, 1<<26)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
	// Any line whose keyword starts with c is a comment, as Dragon_li
	// reads one keyword character.
	if g, err := Read("g.gr", strings.NewReader("comment\n\np sp 2 1\ncx\na 2 1 7\n"), 1<<24, 1<<26); err != nil || g.Offsets[2]-g.Offsets[1] != 1 || g.Weights[0] != 7 {
		t.Errorf("comments: %v, %v", g, err)
	}
}

// FuzzReadGR: no input panics, and a graph read is a well-formed CSR.
func FuzzReadGR(f *testing.F) {
	sample, err := os.ReadFile("../../validation/gpgpusim/workloads/dragonli-sample.gr")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add([]byte("p sp 3 2\na 1 2 5\na 3 1 0\n"))
	f.Add([]byte("c\n\ncomment\np sp 1 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Read("fuzz.gr", strings.NewReader(string(data)), 1<<24, 1<<26)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.gr") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		n := g.Vertices()
		if g.Offsets[0] != 0 || int(g.Offsets[n]) != len(g.Heads) || len(g.Weights) != len(g.Heads) {
			t.Fatalf("malformed CSR: offsets %v, %d cols, %d weights", g.Offsets, len(g.Heads), len(g.Weights))
		}
		for v := 0; v < n; v++ {
			if g.Offsets[v] > g.Offsets[v+1] {
				t.Fatalf("offsets fall at %d", v)
			}
		}
		for i, u := range g.Heads {
			if u < 0 || int(u) >= n || g.Weights[i] < 0 {
				t.Fatalf("arc %d to %d weight %d", i, u, g.Weights[i])
			}
		}
	})
}
