package samples

import "testing"

// TestStencil3DOverCovers checks the paper's point about STN: with 128×16
// planes of two pages, a CTA touches one page of each plane, yet its
// ranges span from the first plane to the last, so every range covers
// pages the CTA never touches.
func TestStencil3DOverCovers(t *testing.T) {
	recs := generate(t, "stencil3d", "nx=128", "ny=16", "nz=4", "iterations=3")
	checkChain(t, recs, 3)
	pr := indexPipeline(t, recs)
	if got := len(pr.access); got != 3*8*2 {
		t.Fatalf("%d access records, want 3 kernels × 8 CTAs × 2 buffers", got)
	}
	if over := pr.checkCover(t); over != len(pr.access) {
		t.Errorf("%d of %d ranges over-cover, want all", over, len(pr.access))
	}
	a := pr.buffers["A_a"].ID
	// CTA 0 (columns 0..63, rows 0..3) reads rows 0..4 of every plane: page
	// 0 of planes 0..3, pages 0, 2, 4 and 6, but its range runs to the
	// last byte it reads on plane 3.
	if p := pr.pages[ctaBuf{1, 0, a}]; len(p.R) != 4 || p.R[1] != 2 || p.R[3] != 6 {
		t.Errorf("CTA 0 reads pages %v, want 0 2 4 6", p.R)
	}
	if r := pr.access[ctaBuf{1, 0, a}]; r.Lo != 0 || r.Hi != (3*16*128+3*128+63)*4+3 {
		t.Errorf("CTA 0 range %+v", *r)
	}
	// It writes interior points of planes 1 and 2 only, but the profiler's
	// bound runs from its tile's first point on plane 1.
	b := pr.buffers["A_b"].ID
	if r := pr.access[ctaBuf{1, 0, b}]; r.Lo != 16*128*4 || r.Mode != "w" {
		t.Errorf("CTA 0 write range %+v", *r)
	}
}

// TestStencil3DHalo uses one-page rows (1024 floats): sweep 2's CTA (0,1),
// rows 4..7, reads row 3 of the planes, which sweep 1's CTA (0,0) wrote;
// CTA (0,2), rows 8..11, does not.
func TestStencil3DHalo(t *testing.T) {
	recs := generate(t, "stencil3d", "nx=1024", "ny=16", "nz=3", "iterations=2")
	pr := indexPipeline(t, recs)
	b := pr.buffers["A_b"].ID
	const perRow = 1024 / 64
	above := ctaBuf{1, 0, b}
	if !pr.shares(ctaBuf{2, perRow, b}, above, false, true) {
		t.Error("CTA (0,1) of sweep 2 misses what CTA (0,0) wrote")
	}
	if pr.shares(ctaBuf{2, 2 * perRow, b}, above, false, true) {
		t.Error("CTA (0,2) reads what CTA (0,0) wrote")
	}
	// But the ranges, running through every plane, meet far more widely.
	if !pr.rangesMeet(ctaBuf{2, 3 * perRow, b}, above) {
		t.Error("ranges of CTAs (0,3) and (0,0) do not meet across planes")
	}
}
