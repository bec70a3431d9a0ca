package samples

import (
	"os"
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
		_, err := readGR("g.gr", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
	// Any line whose keyword starts with c is a comment, as Dragon_li
	// reads one keyword character.
	if g, err := readGR("g.gr", strings.NewReader("comment\n\np sp 2 1\ncx\na 2 1 7\n")); err != nil || g.g.degree(1) != 1 || g.weights[0] != 7 {
		t.Errorf("comments: %v, %v", g, err)
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

// FuzzReadGR: no input panics, and a graph read is a well-formed CSR.
func FuzzReadGR(f *testing.F) {
	sample, err := os.ReadFile(dragonliSampleGR)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add([]byte("p sp 3 2\na 1 2 5\na 3 1 0\n"))
	f.Add([]byte("c\n\ncomment\np sp 1 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := readGR("fuzz.gr", strings.NewReader(string(data)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.gr") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		n := g.g.vertices()
		if g.g.offsets[0] != 0 || int(g.g.offsets[n]) != len(g.g.cols) || len(g.weights) != len(g.g.cols) {
			t.Fatalf("malformed CSR: offsets %v, %d cols, %d weights", g.g.offsets, len(g.g.cols), len(g.weights))
		}
		for v := 0; v < n; v++ {
			if g.g.offsets[v] > g.g.offsets[v+1] {
				t.Fatalf("offsets fall at %d", v)
			}
		}
		for i, u := range g.g.cols {
			if u < 0 || int(u) >= n || g.weights[i] < 0 {
				t.Fatalf("arc %d to %d weight %d", i, u, g.weights[i])
			}
		}
	})
}
