package samples

import (
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestLaplaceShape(t *testing.T) {
	recs := generate(t, "laplace", "size=40", "iterations=4")
	checkChain(t, recs, 4)
	pr := indexPipeline(t, recs)
	if got := len(pr.access); got != 4*9*2 {
		t.Fatalf("%d access records, want 4 kernels × 9 CTAs × 2 buffers", got)
	}
	pr.checkCover(t)
	// Four sweeps end back in u_a.
	if pr.buffers["u_a"].Role != trace.RoleInOut || pr.buffers["u_b"].Role != trace.RoleTemp {
		t.Errorf("roles %s, %s", pr.buffers["u_a"].Role, pr.buffers["u_b"].Role)
	}
	// The last tile (32..39 square, clipped) reads from row 31 column 32 to
	// the grid's last byte and writes from row 32 column 32.
	a, b := pr.buffers["u_a"].ID, pr.buffers["u_b"].ID
	r, w := pr.access[ctaBuf{1, 8, a}], pr.access[ctaBuf{1, 8, b}]
	if r.Lo != (31*40+32)*4 || r.Hi != 40*40*4-1 || r.Mode != "r" {
		t.Errorf("last tile read range %+v", *r)
	}
	if w.Lo != (32*40+32)*4 || w.Hi != 40*40*4-1 || w.Mode != "w" {
		t.Errorf("last tile write range %+v", *w)
	}
}

// TestLaplaceHalo uses one-page rows (1024 floats): sweep 2's tile reads
// the page of the row its upper neighbour wrote in sweep 1, through
// its halo, and the tile below that does not.
func TestLaplaceHalo(t *testing.T) {
	recs := generate(t, "laplace", "size=1024", "iterations=2")
	pr := indexPipeline(t, recs)
	b := pr.buffers["u_b"].ID
	tiles := uint64(1024 / laplaceTile)
	above := ctaBuf{1, 5, b}
	if !pr.shares(ctaBuf{2, tiles + 5, b}, above, false, true) || !pr.rangesMeet(ctaBuf{2, tiles + 5, b}, above) {
		t.Error("tile (5,1) of sweep 2 does not read what tile (5,0) of sweep 1 wrote")
	}
	if pr.shares(ctaBuf{2, 2*tiles + 5, b}, above, false, true) {
		t.Error("tile (5,2) reads what tile (5,0) wrote")
	}
	if p := pr.pages[ctaBuf{2, tiles + 5, b}]; len(p.R) != 18 || p.R[0] != 15 || p.R[17] != 32 {
		t.Errorf("tile (5,1) reads pages %v, want rows 15..32", p.R)
	}
}
