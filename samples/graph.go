package samples

import "slices"

// csr is a simple undirected graph in compressed sparse row form, the layout
// GPU BFS codes read: the neighbours of v are cols[offsets[v]:offsets[v+1]].
// int32 indices are what those codes use, and what the trace's buffer sizes
// assume (4 bytes per entry).
type csr struct {
	offsets []int32 // len = vertices+1
	cols    []int32
	// directed marks a graph read from a file (grfile.go): each arc is
	// stored once, from its source only.
	directed bool
}

// newCSR builds the simple undirected graph of n vertices whose edges are
// (src[i], dst[i]): each edge is stored in both directions, self loops are
// dropped and repeated edges merged, and every neighbour list is sorted. This
// is the form of the DIMACS-10 kron_g500 graphs the SPAWN and DTBL papers ran
// BFS on, so a vertex's degree is the number of distinct neighbours it visits.
func newCSR(n int, src, dst []int32) *csr {
	offsets := make([]int32, n+1)
	for i := range src {
		if src[i] != dst[i] {
			offsets[src[i]+1]++
			offsets[dst[i]+1]++
		}
	}
	for v := 0; v < n; v++ {
		offsets[v+1] += offsets[v]
	}
	cols := make([]int32, offsets[n])
	fill := slices.Clone(offsets[:n])
	for i := range src {
		u, v := src[i], dst[i]
		if u != v {
			cols[fill[u]] = v
			fill[u]++
			cols[fill[v]] = u
			fill[v]++
		}
	}
	return dedup(&csr{offsets: offsets, cols: cols})
}

// dedup sorts each neighbour list and drops repeats, compacting in place.
func dedup(g *csr) *csr {
	n := g.vertices()
	out := int32(0)
	start := g.offsets[0]
	for v := 0; v < n; v++ {
		end := g.offsets[v+1]
		list := g.cols[start:end]
		slices.Sort(list)
		g.offsets[v] = out
		for i, u := range list {
			if i == 0 || u != list[i-1] {
				g.cols[out] = u
				out++
			}
		}
		start = end
	}
	g.offsets[n] = out
	g.cols = g.cols[:out:out]
	return g
}

func (g *csr) vertices() int { return len(g.offsets) - 1 }

// bytes is the memory g's lists hold.
func (g *csr) bytes() int64 { return 4 * int64(cap(g.offsets)+cap(g.cols)) }

// edges is the number of undirected edges (each is stored twice), or of
// a directed graph's arcs.
func (g *csr) edges() int {
	if g.directed {
		return len(g.cols)
	}
	return len(g.cols) / 2
}

func (g *csr) degree(v int32) int { return int(g.offsets[v+1] - g.offsets[v]) }

func (g *csr) neighbours(v int32) []int32 { return g.cols[g.offsets[v]:g.offsets[v+1]] }

// maxDegree is the largest degree in the graph: with the mean, it shows how
// skewed the work per frontier thread is.
func (g *csr) maxDegree() int {
	m := 0
	for v := 0; v < g.vertices(); v++ {
		m = max(m, g.degree(int32(v)))
	}
	return m
}

// bfsFrontiers runs a level-synchronous top-down BFS from root and returns
// the frontier of each level: frontiers[0] is {root}, frontiers[l] the
// vertices at distance l. Within a level vertices are in the order a
// sequential sweep of the previous frontier discovers them, a deterministic
// stand-in for the order a GPU's atomic queue appends would give. The
// frontiers share one backing array of the reached vertices.
func bfsFrontiers(g *csr, root int32) [][]int32 {
	visited := make([]bool, g.vertices())
	visited[root] = true
	order := make([]int32, 1, g.vertices())
	order[0] = root
	var frontiers [][]int32
	for start := 0; start < len(order); {
		end := len(order)
		for _, v := range order[start:end] {
			for _, u := range g.neighbours(v) {
				if !visited[u] {
					visited[u] = true
					order = append(order, u)
				}
			}
		}
		frontiers = append(frontiers, order[start:end:end])
		start = end
	}
	return frontiers
}
