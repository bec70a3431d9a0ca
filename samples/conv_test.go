package samples

import (
	"errors"
	"testing"
)

func TestConvShape(t *testing.T) {
	recs := generate(t, "conv", "size=256", "passes=2")
	checkChain(t, recs, 4)
	pr := indexPipeline(t, recs)
	// Rows: 2×64 CTAs of 128×4 pixels; columns: 16×4 CTAs of 16×64.
	if got := len(pr.access); got != 2*(128+64)*2 {
		t.Fatalf("%d access records, want 2 passes × 192 CTAs × 2 buffers", got)
	}
	pr.checkCover(t)
	names := []string{"convolutionRows", "convolutionColumns", "convolutionRows", "convolutionColumns"}
	for i, k := range pr.kernels {
		if k.Name != names[i] {
			t.Errorf("kernel %d is %s, want %s", k.ID, k.Name, names[i])
		}
	}
	// Row CTA 1 (columns 128..255, rows 0..3) reads 16 pixels left of its
	// tile and none right (the image ends), on its own four rows.
	img, out := pr.buffers["image"].ID, pr.buffers["output"].ID
	if a := pr.access[ctaBuf{1, 1, img}]; a.Lo != 112*4 || a.Hi != (3*256+255)*4+3 {
		t.Errorf("row CTA 1 reads %+v", *a)
	}
	// The second row pass reads what the column pass wrote.
	if a := pr.access[ctaBuf{3, 0, out}]; a.Mode != "r" || a.Lo != 0 || a.Hi != (3*256+143)*4+3 {
		t.Errorf("second row pass CTA 0 reads %+v", *a)
	}
}

// TestConvHalo uses one-page rows (1024 floats): column CTA (0,1), rows
// 64..127, reads 8 rows above and below, so it needs the row CTAs that
// wrote rows 56..59 and 128..131 but not those of rows 52..55.
func TestConvHalo(t *testing.T) {
	recs := generate(t, "conv", "size=1024", "passes=1")
	pr := indexPipeline(t, recs)
	tmp := pr.buffers["buffer"].ID
	col := ctaBuf{2, 1024 / 16, tmp}
	rowCTA := func(yb int) ctaBuf { return ctaBuf{1, uint64(yb * 8), tmp} }
	for _, c := range []struct {
		yb   int
		want bool
	}{{13, false}, {14, true}, {16, true}, {32, true}, {33, true}, {34, false}} {
		if got := pr.shares(col, rowCTA(c.yb), false, true); got != c.want {
			t.Errorf("column CTA reads rows of row block %d: %v, want %v", c.yb, got, c.want)
		}
	}
	if p := pr.pages[col]; len(p.R) != 80 || p.R[0] != 56 {
		t.Errorf("column CTA reads pages %v, want rows 56..135", p.R)
	}
}

func TestConvSizeMultiple(t *testing.T) {
	g, _ := Lookup("conv")
	p, err := g.ParseParams([]string{"size=200"})
	if err != nil {
		t.Fatal(err)
	}
	var sink sliceSink
	var pe *ParamError
	if err := g.Run(p, &sink); !errors.As(err, &pe) || pe.Param != "size" || len(sink.recs) != 0 {
		t.Errorf("size=200: %v, %d records", err, len(sink.recs))
	}
}
