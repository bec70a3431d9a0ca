package samples

// mandelRegion is a view of the complex plane: its centre and width (the
// height follows from the image's aspect ratio, pixels being square).
type mandelRegion struct {
	cx, cy, width float64
}

// mandelRegions are the views the region parameter names: the whole set,
// and two of its classic boundary zooms, where far more tiles straddle the
// boundary and so subdivide.
var mandelRegions = map[string]mandelRegion{
	"full":     {cx: -0.75, cy: 0, width: 3.5},
	"seahorse": {cx: -0.7453, cy: 0.1127, width: 0.01},
	"elephant": {cx: 0.2925, cy: 0.0165, width: 0.02},
}

// mandelDwell is the escape time of c = cr + ci·i: the number of iterations
// of z ← z² + c from z = 0 before |z| exceeds 2, or maxIter if it never
// does (c is taken to be in the set). It is the trip count of the
// per-pixel loop every kernel of the mandel family runs. The explicit
// float64 conversions forbid fused multiply-adds, so every platform
// computes the same dwells.
func mandelDwell(cr, ci float64, maxIter int) int {
	zr, zi := 0.0, 0.0
	for n := 0; n < maxIter; n++ {
		zr2, zi2 := float64(zr*zr), float64(zi*zi)
		if zr2+zi2 > 4 {
			return n
		}
		zi = float64(2*zr*zi) + ci
		zr = zr2 - zi2 + cr
	}
	return maxIter
}

// mandelImage is the frame being computed: each pixel's dwell once some
// kernel has evaluated or filled it. Evaluated dwells are cached, because
// Mariani-Silver reads the pixels of a tile's border and a sub-tile's
// border from the same frame.
type mandelImage struct {
	width, height, maxIter int
	x0, y0, step           float64 // pixel (x, y) samples c = (x0 + x·step) + (y0 + y·step)i
	dwells                 []int32 // −1 until evaluated or filled
}

// newMandelImage frames region in a width×height image. The sampling grid
// is offset by (jx, jy) pixels, each in [0, 1): the jitter that lets the
// seed pick one of many statistically alike frames.
func newMandelImage(width, height, maxIter int, region mandelRegion, jx, jy float64) *mandelImage {
	step := region.width / float64(width)
	m := &mandelImage{
		width: width, height: height, maxIter: maxIter,
		x0:     region.cx - region.width/2 + jx*step,
		y0:     region.cy - step*float64(height)/2 + jy*step,
		step:   step,
		dwells: make([]int32, width*height),
	}
	for i := range m.dwells {
		m.dwells[i] = -1
	}
	return m
}

// evaluate returns the dwell of pixel (x, y), computing it the first time.
func (m *mandelImage) evaluate(x, y int) int {
	i := y*m.width + x
	if m.dwells[i] < 0 {
		m.dwells[i] = int32(mandelDwell(m.x0+float64(x)*m.step, m.y0+float64(y)*m.step, m.maxIter))
	}
	return int(m.dwells[i])
}

// fill sets every pixel of r to dwell d without evaluating it: what
// Mariani-Silver does inside a tile whose border has one dwell.
func (m *mandelImage) fill(r mandelRect, d int) {
	for y := r.y; y < r.y+r.h; y++ {
		for x := r.x; x < r.x+r.w; x++ {
			m.dwells[y*m.width+x] = int32(d)
		}
	}
}

// mandelRect is a rectangle of pixels: x, y its top-left corner.
type mandelRect struct {
	x, y, w, h int
}

func (r mandelRect) pixels() int { return r.w * r.h }

// interior is r less its one-pixel border; empty when r is 2 pixels wide or
// high, or less.
func (r mandelRect) interior() mandelRect {
	if r.w <= 2 || r.h <= 2 {
		return mandelRect{x: r.x + 1, y: r.y + 1}
	}
	return mandelRect{r.x + 1, r.y + 1, r.w - 2, r.h - 2}
}

// border calls f for each pixel of r's one-pixel border, once each: the top
// and bottom rows, then the left and right columns between them.
func (r mandelRect) border(f func(x, y int)) {
	if r.w <= 0 || r.h <= 0 {
		return
	}
	for x := r.x; x < r.x+r.w; x++ {
		f(x, r.y)
		if r.h > 1 {
			f(x, r.y+r.h-1)
		}
	}
	for y := r.y + 1; y < r.y+r.h-1; y++ {
		f(r.x, y)
		if r.w > 1 {
			f(r.x+r.w-1, y)
		}
	}
}

// split cuts r into an n×n grid of sub-rectangles of side ⌈w/n⌉ by ⌈h/n⌉,
// row-major; those past r's right or bottom edge are clipped, and may be
// empty.
func (r mandelRect) split(n int) []mandelRect {
	sw, sh := ceilDiv(r.w, n), ceilDiv(r.h, n)
	subs := make([]mandelRect, 0, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x, y := min(i*sw, r.w), min(j*sh, r.h)
			subs = append(subs, mandelRect{r.x + x, r.y + y, min(sw, r.w-x), min(sh, r.h-y)})
		}
	}
	return subs
}
