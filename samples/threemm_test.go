package samples

import (
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

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

// TestMMAccessOrder checks where a CTA first touches its pages: the A
// band and the whole range at the loop's start, B's rows one k step after
// another (the k loop reads row k of B at step k), E's tile at the end.
func TestMMAccessOrder(t *testing.T) {
	recs := generate(t, "3mm", "size=512")
	var cycles int64
	atOf := map[uint64]map[uint64]int64{} // buffer → page → at
	var rangeAt []int64
	names := map[uint64]string{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Buffer:
			names[r.ID] = r.Name
		case *trace.CTA:
			if r.Kernel == 1 && r.CTA == 0 {
				cycles = r.Cycles
			}
		case *trace.Access:
			if r.Kernel == 1 && r.CTA == 0 {
				rangeAt = append(rangeAt, r.At)
			}
		case *trace.Pages:
			if r.Kernel == 1 && r.CTA == 0 {
				m := atOf[r.Buffer]
				if m == nil {
					m = map[uint64]int64{}
					atOf[r.Buffer] = m
				}
				for _, p := range append(slices.Clone(r.R), r.W...) {
					m[p] = r.At
				}
			}
		}
	}
	start := ctaStartCycles // 3mm's kernel_cost is 1
	for id, m := range atOf {
		switch names[id] {
		case "A":
			for p, at := range m {
				if at != start {
					t.Errorf("A page %d first touched at %d, want the loop's start %d", p, at, start)
				}
			}
		case "B":
			// 512-float rows: 2 rows a page, pages in k order.
			if len(m) != 256 {
				t.Fatalf("B: %d pages, want 256", len(m))
			}
			for p := uint64(1); p < 256; p++ {
				if m[p] <= m[p-1] {
					t.Fatalf("B page %d at %d, not after page %d at %d", p, m[p], p-1, m[p-1])
				}
			}
			if m[0] != start || m[255] >= cycles {
				t.Errorf("B pages from %d to %d, want from %d to before %d", m[0], m[255], start, cycles)
			}
		case "E":
			for p, at := range m {
				if at < cycles*9/10 {
					t.Errorf("E page %d first touched at %d of %d cycles, want near the end", p, at, cycles)
				}
			}
		}
	}
	for _, at := range rangeAt[:2] {
		if at != start {
			t.Errorf("A/B ranges at %d, want %d", at, start)
		}
	}
}
