package samples

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// dragonliSampleGR is Dragon_li's graphs/sample.gr, the input of the
// dragonli-* captures (validation/gpgpusim/workloads/README.md).
const dragonliSampleGR = workloadsDir + "/dragonli-sample.gr"

// TestReadGRSample reads Dragon_li's sample graph: 38 vertices, 78 arcs,
// vertices 5 and 9 (indices 4 and 8) with 36 each, in the file's order.
func TestReadGRSample(t *testing.T) {
	f, err := loadGR(dragonliSampleGR)
	if err != nil {
		t.Fatal(err)
	}
	g := f.g
	if g.vertices() != 38 || g.edges() != 78 || g.maxDegree() != 36 {
		t.Fatalf("%d vertices, %d arcs, max degree %d; want 38, 78, 36", g.vertices(), g.edges(), g.maxDegree())
	}
	if d4, d8 := g.degree(4), g.degree(8); d4 != 36 || d8 != 36 {
		t.Errorf("degrees of indices 4 and 8: %d, %d; want 36, 36", d4, d8)
	}
	// "a 1 2 17", "a 1 3 10"; vertex 5's arcs start "a 5 2 0", "a 5 3 20".
	if got := g.neighbours(0); !slices.Equal(got, []int32{1, 2}) || !slices.Equal(f.weights[:2], []int32{17, 10}) {
		t.Errorf("vertex 1: arcs to %v weights %v; want [1 2] [17 10]", got, f.weights[:2])
	}
	lo := g.offsets[4]
	if got := g.neighbours(4)[:2]; !slices.Equal(got, []int32{1, 2}) || !slices.Equal(f.weights[lo:lo+2], []int32{0, 20}) {
		t.Errorf("vertex 5's first arcs to %v weights %v; want [1 2] [0 20]", got, f.weights[lo:lo+2])
	}
}

// TestGenSampleGraph runs sssp and bfs with code=dragonli on the sample
// graph: the search Dragon_li's testSssp made (six expand kernels, the two
// 36-arc vertices launching one 32-thread CTA each) and a bad path's
// error naming the parameter and the file.
func TestGenSampleGraph(t *testing.T) {
	recs := generate(t, "sssp", "graph="+dragonliSampleGR, "code=dragonli", "site_threshold=31")
	h := recs[0].(*trace.Header).Meta
	for k, want := range map[string]string{"iterations": "6", "vertices": "38", "edges": "78", "root": "0", "reached": "38", "relaxations": "81"} {
		if h[k] != want {
			t.Errorf("sssp meta %s = %q, want %q", k, h[k], want)
		}
	}
	_, host, device := countKinds(recs)
	if host != 6 || device != 2 {
		t.Errorf("sssp: %d host and %d device launches, want 6 and 2 (the capture's expand kernels and children)", host, device)
	}
	recs = generate(t, "bfs", "graph="+dragonliSampleGR, "code=dragonli", "site_threshold=31")
	if h := recs[0].(*trace.Header).Meta; h["levels"] != "4" || h["sites"] != "2" {
		t.Errorf("bfs: %s levels, %s sites; want 4, 2", h["levels"], h["sites"])
	}
	p := mustParams(t, "sssp", "graph=/nonexistent/x.gr")
	err := p.gen.Run(p, &sliceSink{})
	if err == nil || !strings.Contains(err.Error(), "graph=/nonexistent/x.gr") {
		t.Errorf("missing file: error %v", err)
	}
}
