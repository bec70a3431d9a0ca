package samples

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestMandelDwell checks escape times worked out by hand: z runs 0, c,
// c²+c, … and the dwell is the first n with |z_n|² > 4.
func TestMandelDwell(t *testing.T) {
	for _, tc := range []struct {
		cr, ci float64
		want   int
	}{
		{0, 0, 100},      // fixed point 0
		{-1, 0, 100},     // cycle 0, −1
		{-2, 0, 100},     // 0, −2, 2, 2, … never beyond 2
		{0, 1, 100},      // 0, i, −1+i, −i, −1+i, …
		{1, 0, 3},        // 0, 1, 2, 5
		{2, 0, 2},        // 0, 2, 6
		{0.5, 0.5, 5},    // 0, .5+.5i, .5+i, −.25+1.5i, −1.6875−.25i, 3.285…+1.34…i
		{-2.5, 0.0, 1},   // 0, −2.5
		{0.26, 0, 30},    // just right of the cusp at 1/4: slow escape (checked in Python)
		{0.25, 0, 100},   // the cusp itself is in the set
		{-0.75, 0.1, 33}, // in the seahorse valley (checked in Python)
	} {
		if got := mandelDwell(tc.cr, tc.ci, 100); got != tc.want {
			t.Errorf("dwell(%g%+gi) = %d, want %d", tc.cr, tc.ci, got, tc.want)
		}
	}
}

func TestMandelRect(t *testing.T) {
	for _, tc := range []struct {
		r    mandelRect
		want int // border pixels
	}{
		{mandelRect{2, 3, 4, 3}, 10}, {mandelRect{0, 0, 1, 1}, 1}, {mandelRect{0, 0, 2, 1}, 2},
		{mandelRect{0, 0, 1, 5}, 5}, {mandelRect{0, 0, 5, 5}, 16}, {mandelRect{0, 0, 0, 4}, 0},
	} {
		seen := map[[2]int]bool{}
		tc.r.border(func(x, y int) {
			if seen[[2]int{x, y}] || x < tc.r.x || y < tc.r.y || x >= tc.r.x+tc.r.w || y >= tc.r.y+tc.r.h {
				t.Errorf("%+v: border pixel (%d,%d) repeated or outside", tc.r, x, y)
			}
			seen[[2]int{x, y}] = true
		})
		if len(seen) != tc.want || tc.r.interior().pixels() != max(tc.r.w-2, 0)*max(tc.r.h-2, 0) {
			t.Errorf("%+v: %d border pixels, interior %+v; want %d", tc.r, len(seen), tc.r.interior(), tc.want)
		}
	}
	want := []mandelRect{
		{1, 1, 3, 2}, {4, 1, 3, 2}, {7, 1, 3, 2}, {10, 1, 1, 2},
		{1, 3, 3, 2}, {4, 3, 3, 2}, {7, 3, 3, 2}, {10, 3, 1, 2},
		{1, 5, 3, 1}, {4, 5, 3, 1}, {7, 5, 3, 1}, {10, 5, 1, 1},
		{1, 6, 3, 0}, {4, 6, 3, 0}, {7, 6, 3, 0}, {10, 6, 1, 0},
	}
	if got := (mandelRect{1, 1, 10, 5}).split(4); !reflect.DeepEqual(got, want) {
		t.Errorf("split = %v, want %v", got, want)
	}
}

// TestMarianiSilver checks the recursion against brute force: it covers
// every pixel, every pixel it evaluated has its true dwell, and the pixels
// it filled from uniform borders are (nearly all) right too: Mariani-Silver
// relies on the set being connected, which holds up to sampling.
func TestMarianiSilver(t *testing.T) {
	for _, tc := range []struct {
		region                         string
		tile, depth, subdiv, threshold int
	}{
		{"full", 16, 1, 4, 0},
		{"full", 24, 3, 2, 10},
		{"seahorse", 30, 2, 3, 1 << 20},
	} {
		img := newMandelImage(150, 100, 200, mandelRegions[tc.region], 0.25, 0.5)
		s := &mandelSolver{img: img, depth: tc.depth, subdiv: tc.subdiv, threshold: tc.threshold}
		evaluated := 0
		var check func(tl *mandelTile, level int)
		check = func(tl *mandelTile, level int) {
			if tl == nil {
				return
			}
			evaluated += tl.border.pixels + tl.pixels.pixels
			nested := tl.rect.interior().pixels()
			if tl.site != (!tl.uniform && nested > tc.threshold) || (tl.subs != nil) != (!tl.uniform && level+1 < tc.depth) {
				t.Errorf("%+v at level %d: site %v, %d subs", tl.rect, level, tl.site, len(tl.subs))
			}
			for _, st := range tl.subs {
				check(st, level+1)
			}
		}
		for _, tl := range s.tiles(tc.tile) {
			check(tl, 0)
		}
		wrong := 0
		for y := 0; y < img.height; y++ {
			for x := 0; x < img.width; x++ {
				got := img.dwells[y*img.width+x]
				if got < 0 {
					t.Fatalf("%+v: pixel (%d,%d) never resolved", tc, x, y)
				}
				if int(got) != mandelDwell(img.x0+float64(x)*img.step, img.y0+float64(y)*img.step, img.maxIter) {
					wrong++
				}
			}
		}
		if n := img.width * img.height; wrong > n/200 || evaluated >= n {
			t.Errorf("%+v: %d of %d pixels wrong, %d evaluated", tc, wrong, n, evaluated)
		}
	}
}

// TestMandelTileWarpCycles checks a warp of a uniform lane, a launching
// lane, two inline lanes and an idle one, on hand-made tiles.
func TestMandelTileWarpCycles(t *testing.T) {
	uniform := &mandelTile{rect: mandelRect{0, 0, 10, 10}, border: mandelWork{36, 36 * 256}, uniform: true}
	launch := &mandelTile{rect: mandelRect{10, 0, 10, 10}, border: mandelWork{36, 1000}, site: true, inline: 1 << 20}
	small := &mandelTile{rect: mandelRect{20, 0, 4, 4}, border: mandelWork{12, 100}, inline: 500}
	smaller := &mandelTile{rect: mandelRect{24, 0, 4, 4}, border: mandelWork{12, 90}, inline: 400}
	cycles, at := mandelTileWarpCycles([]*mandelTile{small, uniform, nil, launch, smaller})
	border := int64(mandelTileBaseCycles + 36*mandelPixelCycles + 36*256*mandelIterCycles)
	want := border + 64*mandelFillPixelCycles + 500
	if cycles != want || at != border {
		t.Errorf("cycles %d at %d; want %d at %d", cycles, at, want, border)
	}
	if c, _ := mandelTileWarpCycles([]*mandelTile{nil, nil}); c != mandelIdleWarpCycles {
		t.Errorf("idle warp %d cycles", c)
	}
	if got := mandelSerialCycles(small); got != mandelBorderCycles(small)+500 {
		t.Errorf("serial cost %d", got)
	}
}

// TestMandelPixelsCTA checks the child's thread-to-pixel mapping on a
// frame of known dwells: warp w of CTA (bx, by) covers rows 2w and 2w+1 of
// its 16×16 patch, and waits for its slowest pixel.
func TestMandelPixelsCTA(t *testing.T) {
	img := &mandelImage{width: 40, height: 40, dwells: make([]int32, 40*40)}
	in := mandelRect{1, 1, 20, 19}        // a 2×2 grid; the right and bottom CTAs are partial
	img.dwells[(1+16+2)*40+(1+16+3)] = 77 // CTA 3, patch row 2 → warp 1
	img.dwells[(1+0)*40+(1+5)] = 9        // CTA 0, patch row 0 → warp 0
	c0 := mandelPixelsCTA(5, 0, 2, mandelPixelsBlock, mandelPixelsBlock, in, img)
	if c0.WarpCycles[0] != mandelPixelsWarpCycles(32, 9) || c0.WarpCycles[7] != mandelPixelsWarpCycles(32, 0) {
		t.Errorf("cta 0: %v", c0.WarpCycles)
	}
	c3 := mandelPixelsCTA(5, 3, 2, mandelPixelsBlock, mandelPixelsBlock, in, img)
	want := []int64{mandelPixelsWarpCycles(8, 0), mandelPixelsWarpCycles(4, 77)} // 4 columns, rows 0-1 and row 2 only
	for w := 2; w < 8; w++ {
		want = append(want, mandelIdleWarpCycles)
	}
	if !reflect.DeepEqual(c3.WarpCycles, want) || c3.Cycles != want[1] {
		t.Errorf("cta 3: %+v, want warps %v", c3, want)
	}
}

// TestMandelTrace checks a nested trace: kernel roles and shapes, the
// meta's totals, and every site's workload against the threshold.
func TestMandelTrace(t *testing.T) {
	const threshold = 4
	recs := generate(t, "mandel", "width=240", "height=144", "tile=48", "depth=3", "subdiv=3",
		"site_threshold=4", "region=seahorse", "block=32")
	h := recs[0].(*trace.Header)
	n, host, device := countKinds(recs)
	if host != 1 || strconv.Itoa(device) != h.Meta["sites"] || strconv.Itoa(n[trace.KindCTA]) != h.Meta["ctas"] ||
		strconv.Itoa(n[trace.KindKernel]) != h.Meta["kernels"] || h.Meta["tiles"] != strconv.Itoa(5*3) {
		t.Errorf("records %v, %d host, %d device launches; meta %v", n, host, device, h.Meta)
	}
	names := map[uint64]string{}
	depth := map[uint64]int{}
	deepest := 0
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
			ok := r.Name == "mandel_tile" && r.Block == [3]uint32{32, 1, 1} ||
				r.Name == "mandel_subtile" && r.Block == [3]uint32{3, 3, 1} && r.Grid == [3]uint32{1, 1, 1} ||
				r.Name == "mandel_pixels" && r.Block == [3]uint32{16, 16, 1}
			if !ok {
				t.Errorf("kernel %+v", r)
			}
		case *trace.Launch:
			if r.Host() {
				continue
			}
			depth[r.Kernel] = depth[r.Parent.Kernel] + 1
			deepest = max(deepest, depth[r.Kernel])
			last := depth[r.Kernel] == 3
			if r.Workload <= threshold || r.InlineCycles <= 0 || last != (names[r.Kernel] == "mandel_pixels") {
				t.Errorf("site %+v at %+v launching %s at depth %d", r, r.Parent, names[r.Kernel], depth[r.Kernel])
			}
		}
	}
	if deepest != 3 {
		t.Errorf("deepest launch at depth %d, want 3", deepest)
	}
}

func TestMandelBadParams(t *testing.T) {
	g, _ := Lookup("mandel")
	for _, kv := range [][]string{
		{"width=8192", "height=4096"}, {"tile=2"}, {"depth=9"}, {"subdiv=33"}, {"region=misiurewicz"}, {"max_iter=0"},
	} {
		p, err := g.ParseParams(kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, ok := err.(*ParamError); !ok {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
}
