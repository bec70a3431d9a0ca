package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "bfs-levels",
		Doc:  "Rodinia BFS over a mesh-like graph, one dependent kernel per level; indirect accesses, so no profiled ranges (CRCS BFS)",
		Params: []Param{
			{Name: "nodes", Default: "16384", Doc: "graph vertices (CRCS Table 2: 16K)"},
			{Name: "edges_per_node", Default: "4", Doc: "edges generated per vertex, so the mean degree is about twice this"},
			{Name: "reach", Default: "700", Doc: "an edge joins vertices at most this many ids apart around a ring, so a level advances about reach ids each way (16K nodes: 16 or 17 levels)"},
			kernelCostParam("1", "uncalibrated: the paper states no stage shares for it"),
			seedParam,
		},
		run:   runBFSLevels,
		costs: pipelineCosts(cost("edge_cycles", &bflEdgeCycles, "one trip of the edge loop"), cost("idle_test_cycles", &bflIdleTestCycles, "an idle warp's test beyond its load"), cost("vertex_setup_cycles", &bflVertexSetupCycles, "a frontier lane's set-up beyond its round trip")),
		mixes: bflMixes,
	})
}

// Rodinia BFS's shape and cost, in 700 MHz GK110 cycles.
var (
	// bflIdleTestCycles is what a warp none of whose vertices is in the
	// frontier adds to one coalesced load of its mask bytes (a DRAM round
	// trip): the test, exit (bflIdleWarpCycles).
	bflIdleTestCycles int64 = 20

	// bflVertexSetupCycles is what a frontier lane adds before its first
	// edge to one more dependent round trip: clear its mask byte, load its
	// node record (start, degree) and its cost (bflVertexCycles).
	bflVertexSetupCycles int64 = 40

	// bflEdgeCycles is one trip of the edge loop: load the neighbour id
	// (consecutive, mostly L1 hits), gather visited[id] (a scattered load
	// that usually misses), and for an unvisited neighbour store its cost,
	// mask and visited flag. Successive trips' loads overlap, so the
	// amortised cost is well under a full round trip.
	bflEdgeCycles int64 = 120
)

const (
	// bflBlock is Rodinia's MAX_THREADS_PER_BLOCK: one thread per vertex.
	bflBlock = 512

	// bflRegs is what nvcc gives Rodinia's Kernel.
	bflRegs = 16
)

// runBFSLevels builds the graph, runs the search from vertex 0, and writes
// one bfs_kernel per level: Rodinia's Kernel, with its Kernel2 mask update
// folded in by ping-ponging two frontier masks, so a level is one kernel as
// in the paper's count. Every thread tests its vertex's mask; frontier
// threads walk their edges and mark unvisited neighbours. The neighbours'
// flags are reached through the edge array, an indirect access the CRCS
// profiler cannot bound, so the kernels carry exact pages records but no
// access records: CRCS must treat them as irregular.
func runBFSLevels(p Params, out trace.Sink) error {
	n, err := p.Int("nodes", 2, 1<<24)
	if err != nil {
		return err
	}
	per, err := p.Int("edges_per_node", 1, 64)
	if err != nil {
		return err
	}
	reach, err := p.Int("reach", 1, 1<<24)
	if err != nil {
		return err
	}
	seed, err := p.Uint64("seed")
	if err != nil {
		return err
	}
	if int64(n)*int64(per) > 1<<26 {
		return p.errorf("edges_per_node", strconv.Itoa(per), "nodes×edges_per_node must stay under 2^26 edges")
	}
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	pl.noRanges = true
	g := ringGraph(pl, n, per, min(reach, n/2))
	frontiers := bfsFrontiers(g, 0)
	blocks := ceilDiv(n, bflBlock)
	meta := p.Values()
	meta["edges"] = strconv.Itoa(g.edges())
	meta["max_degree"] = strconv.Itoa(g.maxDegree())
	meta["kernels"] = strconv.Itoa(len(frontiers))
	meta["ctas"] = strconv.Itoa(len(frontiers) * blocks)
	var heap deviceHeap
	b := bflBuffers{
		nodes:   heap.alloc("graph_nodes", 8*int64(n), trace.RoleInput),
		edges:   heap.alloc("graph_edges", 4*int64(len(g.cols)), trace.RoleInput),
		visited: heap.alloc("graph_visited", int64(n), trace.RoleInput),
		cost:    heap.alloc("cost", 4*int64(n), trace.RoleInOut),
	}
	// The host sets the root's byte of the first mask; the other is the
	// device's own.
	b.mask = [2]*trace.Buffer{heap.alloc("graph_mask", int64(n), trace.RoleInput), heap.alloc("updating_mask", int64(n), trace.RoleTemp)}
	if err := writeAll(out, gk110Header("gen:bfs-levels", meta), b.nodes, b.edges, b.visited, b.cost, b.mask[0], b.mask[1]); err != nil {
		return err
	}
	level := bfsLevelOf(n, frontiers)
	for l := range frontiers {
		k, err := pl.kernel("bfs_kernel", [3]uint32{uint32(blocks), 1, 1}, [3]uint32{bflBlock, 1, 1}, bflRegs, 0)
		if err != nil {
			return err
		}
		for c := range blocks {
			fps, cycles := b.cta(g, level, l, c*bflBlock, min((c+1)*bflBlock, n))
			if err := pl.cta(k, c, jitter(pl.rng, float64(cycles)), ctaDemand{}, fps); err != nil {
				return err
			}
		}
	}
	return nil
}

// ringGraph places n vertices on a ring and joins each to per others drawn
// uniformly within reach ids either way: the locality of a mesh or road
// network, whose BFS takes about n/(2·reach) levels rather than the handful
// of a random graph.
func ringGraph(pl *pipeline, n, per, reach int) *csr {
	src := make([]int32, 0, n*per)
	dst := make([]int32, 0, n*per)
	for v := range n {
		for range per {
			d := 1 + pl.rng.IntN(max(reach, 1))
			if pl.rng.IntN(2) == 0 {
				d = n - d
			}
			src, dst = append(src, int32(v)), append(dst, int32((v+d)%n))
		}
	}
	return newCSR(n, src, dst)
}

// bfsLevelOf maps each vertex to its BFS level, -1 if unreached.
func bfsLevelOf(n int, frontiers [][]int32) []int32 {
	level := make([]int32, n)
	for i := range level {
		level[i] = -1
	}
	for l, f := range frontiers {
		for _, v := range f {
			level[v] = int32(l)
		}
	}
	return level
}

// bflBuffers are Rodinia BFS's arrays, mask being the two frontier masks.
type bflBuffers struct {
	nodes, edges, visited, cost *trace.Buffer
	mask                        [2]*trace.Buffer
}

// The footprints of one CTA, by array.
const (
	bflCur = iota
	bflNodes
	bflEdges
	bflVisited
	bflCost
	bflNext
	bflArrays
)

// cta follows the threads of vertices [v0, v1) through level l: what each
// touches, and the CTA's time, that of its longest warp. Every thread
// reads its mask byte; a frontier thread clears it, reads its node record
// and cost, its edge list, and each neighbour's visited flag, and marks
// (visited, cost, next mask) the neighbours whose flag is still clear —
// those of level l+1, since a level's vertices are flagged visited when
// the level before it ends.
func (b bflBuffers) cta(g *csr, level []int32, l, v0, v1 int) ([]footprint, int64) {
	var fp [bflArrays]footprint
	for i, buf := range [bflArrays]*trace.Buffer{b.mask[l%2], b.nodes, b.edges, b.visited, b.cost, b.mask[(l+1)%2]} {
		fp[i].buf = buf
	}
	one := func(off, size uint64) span { return span{off * size, off*size + size - 1} }
	fp[bflCur].reads = []span{{uint64(v0), uint64(v1 - 1)}}
	var cycles int64
	for w := v0; w < v1; w += warpSize {
		warp := bflIdleWarpCycles()
		for v := w; v < min(w+warpSize, v1); v++ {
			if level[v] != int32(l) {
				continue
			}
			fp[bflCur].writes = append(fp[bflCur].writes, one(uint64(v), 1))
			fp[bflNodes].reads = append(fp[bflNodes].reads, one(uint64(v), 8))
			fp[bflCost].reads = append(fp[bflCost].reads, one(uint64(v), 4))
			nb := g.neighbours(int32(v))
			if e0 := uint64(g.offsets[v]); len(nb) > 0 {
				fp[bflEdges].reads = append(fp[bflEdges].reads, span{4 * e0, 4*(e0+uint64(len(nb))) - 1})
			}
			for _, u := range nb {
				fp[bflVisited].reads = append(fp[bflVisited].reads, one(uint64(u), 1))
				if level[u] == int32(l+1) {
					fp[bflVisited].writes = append(fp[bflVisited].writes, one(uint64(u), 1))
					fp[bflCost].writes = append(fp[bflCost].writes, one(uint64(u), 4))
					fp[bflNext].writes = append(fp[bflNext].writes, one(uint64(u), 1))
				}
			}
			warp = max(warp, bflVertexCycles()+int64(len(nb))*bflEdgeCycles)
		}
		cycles = max(cycles, warp)
	}
	fps := fp[:0]
	for _, f := range fp {
		if len(f.reads)+len(f.writes) > 0 {
			fps = append(fps, f)
		}
	}
	return fps, cycles
}

// bflIdleWarpCycles is a warp none of whose vertices is in the frontier:
// one coalesced load of its mask bytes, the test, exit.
func bflIdleWarpCycles() int64 { return dramLatencyCycles + bflIdleTestCycles }

// bflVertexCycles is what a frontier lane spends before its first edge.
func bflVertexCycles() int64 { return dramLatencyCycles + bflVertexSetupCycles }
