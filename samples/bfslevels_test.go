package samples

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestBFSLevelsFootprint follows level 1 of a search down the path
// 0-1-2-3-4 by hand: vertex 1 is the frontier; its edges are entries 1 and
// 2 of the edge array (0 and 2); it marks vertex 2 only, vertex 0 being
// visited already.
func TestBFSLevelsFootprint(t *testing.T) {
	g := newCSR(5, []int32{0, 1, 2, 3}, []int32{1, 2, 3, 4})
	var heap deviceHeap
	b := bflBuffers{
		nodes: heap.alloc("n", 40, trace.RoleInput), edges: heap.alloc("e", 32, trace.RoleInput),
		visited: heap.alloc("v", 5, trace.RoleInput), cost: heap.alloc("c", 20, trace.RoleInOut),
		mask: [2]*trace.Buffer{heap.alloc("m", 5, trace.RoleInput), heap.alloc("u", 5, trace.RoleTemp)},
	}
	fps, cycles := b.cta(g, []int32{0, 1, 2, 3, 4}, 1, 0, 5)
	want := []footprint{
		{buf: b.mask[1], reads: []span{{0, 4}}, writes: []span{{1, 1}}},
		{buf: b.nodes, reads: []span{{8, 15}}},
		{buf: b.edges, reads: []span{{4, 11}}},
		{buf: b.visited, reads: []span{{0, 0}, {2, 2}}, writes: []span{{2, 2}}},
		{buf: b.cost, reads: []span{{4, 7}}, writes: []span{{8, 11}}},
		{buf: b.mask[0], writes: []span{{2, 2}}},
	}
	if !reflect.DeepEqual(fps, want) {
		t.Errorf("footprints\n%+v\nwant\n%+v", fps, want)
	}
	if want := bflVertexCycles() + 2*bflEdgeCycles; cycles != want {
		t.Errorf("cycles %d, want %d", cycles, want)
	}
}

// TestBFSLevelsIrregular checks the generated search: one kernel per level,
// exact pages for every CTA, and no access records at all.
func TestBFSLevelsIrregular(t *testing.T) {
	recs := generate(t, "bfs-levels", "nodes=4096", "reach=256")
	levels, _ := strconv.Atoi(recs[0].(*trace.Header).Meta["kernels"])
	if levels < 8 {
		t.Fatalf("%d levels over a ring of 4096 with reach 256, want about 10", levels)
	}
	checkChain(t, recs, levels)
	n, _, _ := countKinds(recs)
	if n[trace.KindAccess] != 0 {
		t.Errorf("%d access records, want none", n[trace.KindAccess])
	}
	pr := indexPipeline(t, recs)
	mask := [2]uint64{pr.buffers["graph_mask"].ID, pr.buffers["updating_mask"].ID}
	marked := 0
	for l := range uint64(levels) {
		for cta := range uint64(4096 / bflBlock) {
			cur := pr.pages[ctaBuf{l + 1, cta, mask[l%2]}]
			if cur == nil || len(cur.R) != 1 || cur.R[0] != 0 {
				t.Fatalf("level %d CTA %d: mask pages %+v, want page 0 read", l, cta, cur)
			}
			if p := pr.pages[ctaBuf{l + 1, cta, mask[(l+1)%2]}]; p != nil {
				marked++
			}
		}
	}
	if marked == 0 {
		t.Error("no CTA marked a next frontier")
	}
}
