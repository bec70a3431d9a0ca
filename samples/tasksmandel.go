package samples

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// mandelFrame is the frame Pagoda's Mandelbrot tasks render between them,
// cut into side×side tiles: a task renders one tile (Table 3: "64 × 64
// images"), so tiles in the set, tiles far outside it and tiles on its
// boundary cost very differently, which is what makes the benchmark
// irregular.
type mandelFrame struct {
	side, cols, maxIter int
	x0, y0, step        float64 // pixel (x, y) samples c = (x0 + x·step) + (y0 + y·step)i
}

// mandelFrameAspect is the frame's height over its width: the whole set
// (the full region, 3.5 wide) with its ±1.25 extent in y.
const mandelFrameAspect = 2.5 / 3.5

// newMandelFrame lays out tiles tiles of side×side pixels, row-major, in
// the fewest whole columns that keep the frame about mandelFrameAspect
// high, over the full region of the mandel generator. The sampling grid is
// offset by (jx, jy) pixels, each in [0, 1): the seed's jitter. The last
// row of tiles may be partly unused.
func newMandelFrame(side, tiles, maxIter int, jx, jy float64) *mandelFrame {
	cols := max(1, int(math.Ceil(math.Sqrt(float64(tiles)/mandelFrameAspect))))
	rows := ceilDiv(tiles, cols)
	region := mandelRegions["full"]
	step := region.width / float64(cols*side)
	return &mandelFrame{
		side: side, cols: cols, maxIter: maxIter,
		x0:   region.cx - region.width/2 + jx*step,
		y0:   region.cy - step*float64(rows*side)/2 + jy*step,
		step: step,
	}
}

// dwells fills buf with the dwells of tile t's pixels, row-major.
func (f *mandelFrame) dwells(t int, buf []int) []int {
	buf = buf[:0]
	tx, ty := t%f.cols*f.side, t/f.cols*f.side
	for y := ty; y < ty+f.side; y++ {
		ci := f.y0 + float64(y)*f.step
		for x := tx; x < tx+f.side; x++ {
			cr := f.x0 + float64(x)*f.step
			d := f.maxIter
			if !mandelInterior(cr, ci) {
				d = mandelDwell(cr, ci, f.maxIter)
			}
			buf = append(buf, d)
		}
	}
	return buf
}

// mandelInterior reports whether c lies in the main cardioid or the
// period-2 bulb, where the orbit converges and the dwell is maxIter: a
// closed-form test that skips most of the set's iterations. It changes no
// dwell, only how long the generator takes.
func mandelInterior(cr, ci float64) bool {
	ci2 := ci * ci
	q := (cr-0.25)*(cr-0.25) + ci2
	if q*(q+(cr-0.25)) <= 0.25*ci2 {
		return true
	}
	return (cr+1)*(cr+1)+ci2 <= 1.0/16
}

// mandelTaskWarps is the cost of a task whose threads render a tile of
// len(dwells) pixels: thread t evaluates pixels t, t+threads, …, so at each
// step a warp's lanes evaluate consecutive pixels of a row and, SIMT, the
// warp iterates until its slowest pixel escapes. Warps past the last pixel
// exit.
func mandelTaskWarps(dwells []int, threads int) []int64 {
	warps := make([]int64, ceilDiv(threads, warpSize))
	for w := range warps {
		first, lanes := w*warpSize, min(warpSize, threads-w*warpSize)
		if first >= len(dwells) {
			warps[w] = tasksIdleWarpCycles
			continue
		}
		cycles := int64(tasksWarpStartCycles)
		for base := first; base < len(dwells); base += threads {
			longest := 0
			for _, d := range dwells[base:min(base+lanes, len(dwells))] {
				longest = max(longest, d)
			}
			cycles += tasksMandelPixelCycles + int64(longest)*tasksMandelIterCycles
		}
		warps[w] = cycles
	}
	return warps
}

// mandelBatch is how many tiles mandelTasks renders at a time.
const mandelBatch = 256

// mandelTasks renders the frame's tiles in order, one per task, a batch
// at a time on every CPU: tiles are independent, so the costs, and the
// trace, do not depend on how a batch was split among the workers.
type mandelTasks struct {
	frame   *mandelFrame
	threads int
	tile, n int       // the next tile to render, and how many in all
	ready   [][]int64 // rendered tasks' warp cycles, not yet taken
}

// newMandelTasks frames n tiles, jittered by the kind's seed.
func newMandelTasks(c *tasksConfig, n int, seed uint64, meta map[string]string) taskSource {
	rng := newRand(seed)
	f := newMandelFrame(c.mandelSize, n, c.maxIter, rng.Float64(), rng.Float64())
	if n > 0 {
		meta["mandel_frame"] = fmt.Sprintf("%dx%d tiles", f.cols, ceilDiv(n, f.cols))
	}
	return &mandelTasks{frame: f, threads: c.threads, n: n}
}

func (m *mandelTasks) next() []int64 {
	if len(m.ready) == 0 {
		m.render(max(1, min(mandelBatch, m.n-m.tile)))
	}
	w := m.ready[0]
	m.ready = m.ready[1:]
	return w
}

// render costs the next batch tiles.
func (m *mandelTasks) render(batch int) {
	out := make([][]int64, batch)
	workers := min(runtime.GOMAXPROCS(0), batch)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []int
			for i := w; i < batch; i += workers {
				buf = m.frame.dwells(m.tile+i, buf)
				out[i] = mandelTaskWarps(buf, m.threads)
			}
		})
	}
	wg.Wait()
	m.tile += batch
	m.ready = out
}
