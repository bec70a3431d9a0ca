package samples

import "testing"

func TestPathfinderShape(t *testing.T) {
	// 1000 columns in windows advancing 246: 5 CTAs; 12 rows in pyramids of
	// 5: kernels over wall rows 0-4, 5-9 and 10.
	recs := generate(t, "pathfinder", "cols=1000", "rows=12")
	checkChain(t, recs, 3)
	pr := indexPipeline(t, recs)
	if got := len(pr.access); got != 3*5*3 {
		t.Fatalf("%d access records, want 3 kernels × 5 CTAs × 3 buffers", got)
	}
	if over := pr.checkCover(t); over == 0 {
		t.Error("no wall range over-covers, though each spans five rows 4000 bytes apart")
	}
	wall, a, b := pr.buffers["wall"].ID, pr.buffers["result_a"].ID, pr.buffers["result_b"].ID
	// CTA 1's window is columns 241..496: it reads them all from result_a,
	// writes 246..491 to result_b, and its wall bound runs from row 0
	// column 241 to row 4 column 496.
	if r := pr.access[ctaBuf{1, 1, a}]; r.Lo != 241*4 || r.Hi != 496*4+3 || r.Mode != "r" {
		t.Errorf("cost row read %+v", *r)
	}
	if r := pr.access[ctaBuf{1, 1, wall}]; r.Lo != 241*4 || r.Hi != (4*1000+496)*4+3 {
		t.Errorf("wall range %+v", *r)
	}
	if p := pr.pages[ctaBuf{1, 1, b}]; len(p.W) != 1 || p.W[0] != 0 {
		t.Errorf("written pages %v", p.W)
	}
	// The last kernel advances one row, so its windows shrink by one.
	if r := pr.access[ctaBuf{3, 0, wall}]; r.Lo != 10*1000*4-5*4 || r.Mode != "r" {
		t.Errorf("last kernel's wall range %+v", *r)
	}
}

// TestPathfinderHalo uses 4096 columns, so every cost row is 4 pages and a
// window of 256 columns sits on one page or two: CTA 4 (columns 979..1234)
// straddles pages 0 and 1, so it reads what every CTA writing there wrote
// (CTA 2 on page 0, CTA 5 on page 1) but nothing of CTA 9 (page 2 only).
func TestPathfinderHalo(t *testing.T) {
	recs := generate(t, "pathfinder", "cols=4096", "rows=11")
	pr := indexPipeline(t, recs)
	b := pr.buffers["result_b"].ID
	for cta, want := range map[uint64]bool{2: true, 3: true, 5: true, 9: false} {
		if got := pr.shares(ctaBuf{2, 4, b}, ctaBuf{1, cta, b}, false, true); got != want {
			t.Errorf("kernel 2 CTA 4 reads what CTA %d wrote: %v, want %v", cta, got, want)
		}
	}
}
