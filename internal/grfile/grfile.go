// Package grfile reads DIMACS shortest-path graph files (.gr), the format
// Dragon_li's tests read (util/graphFileGR.h) and its sample graph
// (graphs/sample.gr) is in. It is the one reader of the format in the
// module: samples' code=dragonli generators take a graph=PATH.gr through
// it, and cmd/experiment's validation tests read the captures' graphs
// with it.
package grfile

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Graph is a .gr file's directed, weighted arcs as a CSR, kept in the
// file's order within each source vertex as Dragon_li's CSR keeps them, so
// a vertex's neighbour list, and with it which of its edges a child kernel
// takes, is the benchmark's own. Vertices are numbered from 0 (the file's
// ids less 1).
type Graph struct {
	Offsets []int32 // len = vertices+1: vertex v's arcs are [Offsets[v], Offsets[v+1])
	Heads   []int32 // each arc's head, once per arc
	Weights []int32 // parallel to Heads
}

// Vertices is the problem line's vertex count.
func (g *Graph) Vertices() int { return len(g.Offsets) - 1 }

// Read reads a .gr graph from r; name is the file's name for errors,
// which give its line. The problem line may state at most maxVertices
// vertices and maxArcs arcs. The format, as Dragon_li's reader takes it:
//
//	c comment text              (any number, anywhere; any line starting c)
//	p sp VERTICES ARCS          (once, before the arcs)
//	a FROM TO WEIGHT            (ARCS of them; vertices numbered from 1)
//
// Blank lines are skipped. Weights must be integers in [0, 2^31): the
// benchmarks store them as int and the shortest-path codes assume none is
// negative. A file with fewer arcs than its problem line states is
// refused, as one with more is by Dragon_li's reader (which would
// otherwise leave the missing CSR entries undefined).
func Read(name string, r io.Reader, maxVertices, maxArcs int) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var (
		n, m     int
		src, dst []int32
		weights  []int32
		problem  bool
		line     int
	)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0][0] == 'c' { // Dragon_li reads one keyword character
			continue
		}
		switch f[0] {
		case "p":
			if problem {
				return nil, fail("a second problem line")
			}
			if len(f) != 4 || f[1] != "sp" {
				return nil, fail("want the problem line \"p sp VERTICES ARCS\"")
			}
			var err error
			if n, err = grInt(f[2], 1, maxVertices); err != nil {
				return nil, fail("vertices %q: %v", f[2], err)
			}
			if m, err = grInt(f[3], 0, maxArcs); err != nil {
				return nil, fail("arcs %q: %v", f[3], err)
			}
			problem = true
		case "a":
			if !problem {
				return nil, fail("an arc before the problem line")
			}
			if len(f) != 4 {
				return nil, fail("want an arc line \"a FROM TO WEIGHT\"")
			}
			if len(src) == m {
				return nil, fail("more arcs than the problem line's %d", m)
			}
			var ends [2]int
			for i, s := range f[1:3] {
				v, err := grInt(s, 1, n)
				if err != nil {
					return nil, fail("vertex %q: %v", s, err)
				}
				ends[i] = v - 1
			}
			w, err := grInt(f[3], 0, 1<<31-1)
			if err != nil {
				return nil, fail("weight %q: %v", f[3], err)
			}
			src = append(src, int32(ends[0]))
			dst = append(dst, int32(ends[1]))
			weights = append(weights, int32(w))
		default:
			return nil, fail("unknown line kind %q: want c, p or a", f[0])
		}
	}
	if err := sc.Err(); err != nil {
		line++
		return nil, fail("%v", err)
	}
	if !problem {
		return nil, fmt.Errorf("%s: no problem line \"p sp VERTICES ARCS\"", name)
	}
	if len(src) != m {
		return nil, fmt.Errorf("%s: %d arcs, but the problem line states %d", name, len(src), m)
	}
	return newGraph(n, src, dst, weights), nil
}

// grInt parses a decimal integer in [lo, hi].
func grInt(s string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("not an integer")
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("want %d to %d", lo, hi)
	}
	return v, nil
}

// newGraph builds the directed CSR of n vertices from the arcs in file
// order, each source's arcs in the order the file lists them (a stable
// counting sort by source, as Dragon_li's per-vertex lists append them).
func newGraph(n int, src, dst, weights []int32) *Graph {
	offsets := make([]int32, n+1)
	for _, u := range src {
		offsets[u+1]++
	}
	for v := 0; v < n; v++ {
		offsets[v+1] += offsets[v]
	}
	heads := make([]int32, len(src))
	w := make([]int32, len(src))
	fill := make([]int32, n)
	copy(fill, offsets[:n])
	for i, u := range src {
		heads[fill[u]] = dst[i]
		w[fill[u]] = weights[i]
		fill[u]++
	}
	return &Graph{Offsets: offsets, Heads: heads, Weights: w}
}
