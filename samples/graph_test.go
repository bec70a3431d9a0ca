package samples

import (
	"slices"
	"testing"
)

// handGraph is 7 vertices: a diamond 0-1-3, 0-2-3 with a tail 3-4, and a
// separate edge 5-6; the input also has a self loop and a repeated edge.
func handGraph() *csr {
	src := []int32{0, 0, 1, 2, 3, 5, 4, 1}
	dst := []int32{1, 2, 3, 3, 4, 6, 4, 0}
	return newCSR(7, src, dst)
}

func TestNewCSR(t *testing.T) {
	g := handGraph()
	want := [][]int32{{1, 2}, {0, 3}, {0, 3}, {1, 2, 4}, {3}, {6}, {5}}
	for v, w := range want {
		if got := g.neighbours(int32(v)); !slices.Equal(got, w) {
			t.Errorf("neighbours(%d) = %v, want %v", v, got, w)
		}
	}
	if g.edges() != 6 || g.maxDegree() != 3 {
		t.Errorf("edges %d, max degree %d; want 6, 3", g.edges(), g.maxDegree())
	}
}

func TestBFSFrontiersHandGraph(t *testing.T) {
	g := handGraph()
	for _, tc := range []struct {
		root int32
		want [][]int32
	}{
		{0, [][]int32{{0}, {1, 2}, {3}, {4}}},
		{4, [][]int32{{4}, {3}, {1, 2}, {0}}},
		{6, [][]int32{{6}, {5}}},
	} {
		if got := bfsFrontiers(g, tc.root); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("bfsFrontiers(root %d) = %v, want %v", tc.root, got, tc.want)
		}
	}
}

// TestBFSFrontiersKronecker checks the BFS invariants on a real graph: the
// levels of adjacent vertices differ by at most one, every reached vertex
// but the root has a neighbour one level up, and the unreached have no
// reached neighbour.
func TestBFSFrontiersKronecker(t *testing.T) {
	g := kroneckerGraph(newRand(5), 10, 8)
	root, ok := graph500Root(newRand(5), g)
	if !ok || g.degree(root) == 0 {
		t.Fatalf("root %d, ok %v", root, ok)
	}
	level := make([]int, g.vertices())
	for v := range level {
		level[v] = -1
	}
	for l, f := range bfsFrontiers(g, root) {
		for _, v := range f {
			if level[v] != -1 {
				t.Fatalf("vertex %d in two frontiers", v)
			}
			level[v] = l
		}
	}
	for v := int32(0); int(v) < g.vertices(); v++ {
		up := false
		for _, u := range g.neighbours(v) {
			if (level[v] < 0) != (level[u] < 0) {
				t.Fatalf("edge %d-%d joins reached and unreached", v, u)
			}
			if d := level[v] - level[u]; d > 1 || d < -1 {
				t.Fatalf("edge %d-%d spans levels %d and %d", v, u, level[v], level[u])
			}
			up = up || level[u] == level[v]-1
		}
		if level[v] > 0 && !up {
			t.Fatalf("vertex %d at level %d has no parent", v, level[v])
		}
	}
}

func TestKroneckerDegreesSkewed(t *testing.T) {
	g := kroneckerGraph(newRand(1), 12, 16)
	if g.vertices() != 4096 {
		t.Fatalf("vertices %d", g.vertices())
	}
	mean := float64(len(g.cols)) / float64(g.vertices())
	if max := g.maxDegree(); float64(max) < 20*mean {
		t.Errorf("max degree %d, mean %.1f: not the skew a Kronecker graph has", max, mean)
	}
	// Duplicates merge, so fewer edges than generated, but most survive.
	if e := g.edges(); e > 16*4096 || e < 16*4096/2 {
		t.Errorf("%d edges from %d generated", e, 16*4096)
	}
}

func TestKroneckerDeterministic(t *testing.T) {
	a1, b1 := kroneckerEdges(newRand(9), 8, 4)
	a2, b2 := kroneckerEdges(newRand(9), 8, 4)
	a3, _ := kroneckerEdges(newRand(10), 8, 4)
	if !slices.Equal(a1, a2) || !slices.Equal(b1, b2) {
		t.Error("same seed, different edges")
	}
	if slices.Equal(a1, a3) {
		t.Error("different seeds, same edges")
	}
}
