package samples

import "testing"

func Test3MMShape(t *testing.T) {
	recs := generate(t, "3mm", "size=64")
	checkChain(t, recs, 3)
	pr := indexPipeline(t, recs)
	if got := len(pr.access); got != 3*16*3 {
		t.Fatalf("%d access records, want 3 kernels × 16 CTAs × 3 matrices", got)
	}
	pr.checkCover(t)
	// CTA 5 is tile (x 1, y 2): rows 16..23 of A, columns 32..63 of B.
	a, b, e := pr.buffers["A"].ID, pr.buffers["B"].ID, pr.buffers["E"].ID
	if r := pr.access[ctaBuf{1, 5, a}]; r.Lo != 16*64*4 || r.Hi != 24*64*4-1 || r.Mode != "r" {
		t.Errorf("A band %+v", *r)
	}
	if r := pr.access[ctaBuf{1, 5, b}]; r.Lo != 32*4 || r.Hi != 64*64*4-1 {
		t.Errorf("B band %+v", *r)
	}
	if r := pr.access[ctaBuf{1, 5, e}]; r.Lo != (16*64+32)*4 || r.Hi != (23*64+63)*4+3 || r.Mode != "w" {
		t.Errorf("E tile %+v", *r)
	}
	for cta := range uint64(16) {
		if pr.access[ctaBuf{2, cta, e}] != nil {
			t.Fatal("F = C×D touches E")
		}
	}
}

// TestMMDependences uses 512-float rows, so a CTA's 8-row band is exactly
// pages 4y..4y+3: G's tile row y reads the E pages of E's tile row y only,
// and F pages of every F tile.
func TestMMDependences(t *testing.T) {
	recs := generate(t, "3mm", "size=512")
	pr := indexPipeline(t, recs)
	e, f := pr.buffers["E"].ID, pr.buffers["F"].ID
	const perRow = 512 / mmBlockX
	g := ctaBuf{3, 5*perRow + 3, e}
	for _, y := range []uint64{4, 5, 6} {
		if got := pr.shares(g, ctaBuf{1, y*perRow + 9, e}, false, true); got != (y == 5) {
			t.Errorf("G tile row 5 reads E tile row %d: %v", y, got)
		}
	}
	for _, cta := range []uint64{0, 100, 1023} {
		if !pr.shares(ctaBuf{3, 5*perRow + 3, f}, ctaBuf{2, cta, f}, false, true) {
			t.Errorf("G tile misses F CTA %d's pages", cta)
		}
	}
}
