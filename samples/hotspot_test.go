package samples

import (
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestHotspotShape(t *testing.T) {
	recs := generate(t, "hotspot", "size=42", "iterations=3")
	checkChain(t, recs, 3)
	pr := indexPipeline(t, recs)
	if got := len(pr.access); got != 3*9*3 {
		t.Fatalf("%d access records, want 3 kernels × 9 CTAs × 3 buffers", got)
	}
	pr.checkCover(t)
	// Three steps end in temp_b, which the host reads back.
	if pr.buffers["temp_a"].Role != trace.RoleInput || pr.buffers["temp_b"].Role != trace.RoleOutput {
		t.Errorf("roles %s, %s", pr.buffers["temp_a"].Role, pr.buffers["temp_b"].Role)
	}
	// CTA 4 is the middle tile (14..27 square): its halo reaches one cell
	// into each neighbour, so its read range starts on row 13 at column 14.
	a := pr.access[ctaBuf{1, 4, pr.buffers["temp_a"].ID}]
	if want := uint64((13*42 + 14) * 4); a.Lo != want || a.Hi != uint64((28*42+27)*4+3) || a.Mode != "r" {
		t.Errorf("middle tile range %+v, want lo %d", *a, want)
	}
}

// TestHotspotHalo uses rows of exactly one page (1024 floats), so a tile's
// exact pages are its rows: step 2's tile reads the row above it that step
// 1's tile above wrote, but nothing of the tile two rows up.
func TestHotspotHalo(t *testing.T) {
	recs := generate(t, "hotspot", "size=1024", "iterations=2")
	pr := indexPipeline(t, recs)
	b := pr.buffers["temp_b"].ID
	tiles := uint64(ceilDiv(1024, hotspotTile))
	above, self := ctaBuf{1, 0, b}, ctaBuf{2, tiles, b}
	if !pr.shares(self, above, false, true) {
		t.Error("tile (0,1) of step 2 does not read a page tile (0,0) of step 1 wrote")
	}
	if !pr.rangesMeet(self, above) {
		t.Error("their ranges do not overlap")
	}
	if pr.shares(ctaBuf{2, 3 * tiles, b}, above, false, true) {
		t.Error("tile (0,3) reads what tile (0,0) wrote")
	}
	if p := pr.pages[self]; len(p.R) != 16 || p.R[0] != 13 || p.R[15] != 28 {
		t.Errorf("tile (0,1) reads pages %v, want rows 13..28", p.R)
	}
	if over := pr.checkCover(t); over != 0 {
		t.Errorf("%d ranges over-cover a tile of whole-page rows", over)
	}
}
