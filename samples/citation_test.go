package samples

import (
	"io"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestCitationEdges checks the growth model: every paper cites only
// earlier papers, each at most once; papers come in publication order; the
// mean reference count is edgefactor, with a log-normal spread from a few
// references to many times the mean; and the most cited papers are cited
// far more than the mean, by preferential attachment.
func TestCitationEdges(t *testing.T) {
	const n, ef = 4096, 8
	src, dst := citationEdges(newRand(7), n, ef)
	refs := make([]int, n)
	cites := make([]int, n)
	seen := map[[2]int32]bool{}
	for e := range src {
		if dst[e] >= src[e] || (e > 0 && src[e] < src[e-1]) || seen[[2]int32{src[e], dst[e]}] {
			t.Fatalf("edge %d: %d cites %d (previous source %d, repeat %v)", e, src[e], dst[e], src[max(e-1, 0)], seen[[2]int32{src[e], dst[e]}])
		}
		seen[[2]int32{src[e], dst[e]}] = true
		refs[src[e]]++
		cites[dst[e]]++
	}
	mean := float64(len(src)) / n
	few, maxRefs, maxCites := 0, 0, 0
	for v := range refs {
		if refs[v] <= 2 {
			few++
		}
		maxRefs, maxCites = max(maxRefs, refs[v]), max(maxCites, cites[v])
	}
	if mean < 0.9*ef || mean > 1.1*ef || few < n/10 || float64(maxRefs) < 8*mean || float64(maxCites) < 8*mean {
		t.Errorf("mean %.2f refs, %d papers with ≤ 2, most refs %d, most cited %d", mean, few, maxRefs, maxCites)
	}
}

// TestCitationGraph checks the undirected graph bfs, sssp and gc traverse:
// its size, no self loops or repeated neighbours, degrees still skewed
// (far above a uniform graph's top) but much less at the top than a
// Kronecker graph of the same size, and, at CiteSeer's density, many
// vertices of low degree.
func TestCitationGraph(t *testing.T) {
	g := citationGraph(newRand(1), 12, 16)
	if g.vertices() != 4096 {
		t.Fatalf("%d vertices", g.vertices())
	}
	for v := int32(0); int(v) < g.vertices(); v++ {
		for i, u := range g.neighbours(v) {
			if u == v || (i > 0 && u <= g.neighbours(v)[i-1]) {
				t.Fatalf("vertex %d: neighbours %v", v, g.neighbours(v))
			}
		}
	}
	skew := func(g *csr) float64 { return float64(g.maxDegree()) * float64(g.vertices()) / float64(len(g.cols)) }
	k := kroneckerGraph(newRand(1), 12, 16)
	u := ssspUniformGraph(newRand(1), 12, 16)
	if 2*skew(g) > skew(k) || g.maxDegree() < 3*u.maxDegree() {
		t.Errorf("max/mean degree: citation %.1f (max %d), Kronecker %.1f, uniform max %d",
			skew(g), g.maxDegree(), skew(k), u.maxDegree())
	}
	sparse := citationGraph(newRand(1), 12, 4)
	low := 0
	for v := int32(0); int(v) < sparse.vertices(); v++ {
		if sparse.degree(v) <= 2 {
			low++
		}
	}
	if low < sparse.vertices()/5 {
		t.Errorf("edgefactor 4: %d of %d vertices of degree ≤ 2", low, sparse.vertices())
	}
}

// TestGraphParam checks the generators that take a graph: citation traces
// are valid and launch children, and bfs's default is graph=kron, left out
// of its header so traces made before the parameter existed still match.
func TestGraphParam(t *testing.T) {
	for _, kv := range [][]string{
		{"bfs", "graph=citation", "scale=10"},
		{"sssp", "graph=citation", "scale=9"},
		{"gc", "graph=citation", "scale=9"},
	} {
		recs := generate(t, kv[0], kv[1:]...)
		if err := checkOrder(recs); err != nil {
			t.Fatalf("%v: %v", kv, err)
		}
		validate(t, kv, recs)
		_, _, device := countKinds(recs)
		if h := recs[0].(*trace.Header); h.Meta["graph"] != "citation" || device == 0 {
			t.Errorf("%v: graph %q, %d sites", kv, h.Meta["graph"], device)
		}
	}
	def := generate(t, "bfs", "scale=9")
	if _, ok := def[0].(*trace.Header).Meta["graph"]; ok {
		t.Error("bfs's default graph is in its header")
	}
	if kron := generate(t, "bfs", "scale=9", "graph=kron"); !reflect.DeepEqual(def, kron) {
		t.Error("bfs graph=kron differs from the default")
	}
}

// validate runs recs through the trace package's validator.
func validate(t *testing.T, what []string, recs []trace.Record) {
	t.Helper()
	v := trace.NewValidator(&sliceSource{recs: recs})
	for {
		if _, err := v.Next(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("%v: %v", what, err)
		}
	}
}
