package samples

import (
	"math"
	"math/rand/v2"
)

// amrFrontSigma is the width (the Gaussian's standard deviation) of a
// flame's heat-release ridge, as a fraction of the domain's side: a
// premixed flame's reaction zone is about 0.1 mm thick, and the combustion
// AMR benchmarks simulate a few centimetres, so the ridge is some 1/500 of
// the domain — thin enough that resolving it takes several refinement
// levels, which is why combustion codes use AMR at all.
const amrFrontSigma = 0.002

// amrFront is one expanding premixed flame kernel: ignited at (cx, cy), its
// front is a circle of radius r0 + speed·step, and its heat-release rate is
// a Gaussian ridge of unit height and width sigma across that circle.
type amrFront struct {
	cx, cy, r0, speed, sigma float64
}

// amrFronts places n flame kernels: centres uniform over the middle of the
// unit domain, initial radii uniform in [0.05, 0.2] and speeds uniform in
// [0.01, 0.03] of the domain per time step, so fronts differ in size and
// may cross as they grow.
func amrFronts(rng *rand.Rand, n int) []amrFront {
	fs := make([]amrFront, n)
	for i := range fs {
		fs[i] = amrFront{
			cx:    0.2 + 0.6*rng.Float64(),
			cy:    0.2 + 0.6*rng.Float64(),
			r0:    0.05 + 0.15*rng.Float64(),
			speed: 0.01 + 0.02*rng.Float64(),
			sigma: amrFrontSigma,
		}
	}
	return fs
}

// amrCell is a square cell of the mesh: its lower corner, its side, and its
// refinement level (0 for the coarse grid).
type amrCell struct {
	x, y, h float64
	level   int
}

// sub returns sub-cell (i, j) of c refined by ratio r.
func (c amrCell) sub(i, j, r int) amrCell {
	h := c.h / float64(r)
	return amrCell{x: c.x + float64(i)*h, y: c.y + float64(j)*h, h: h, level: c.level + 1}
}

// amrMesh is the refinement rule at one time step: the flames' fronts, the
// refinement ratio, the deepest level allowed and the tolerance.
type amrMesh struct {
	fronts []amrFront
	step   int
	ratio  int
	depth  int
	tol    float64
}

// variation is the cell's error indicator: how much the heat-release rate
// varies across the cell (its maximum minus its minimum over the cell),
// summed over the fronts, an upper bound on the field's own variation.
// Each front's term is exact: the rate depends only on the distance to the
// front's centre, whose range over a square is known in closed form, so a
// ridge thinner than the cell is never missed between sample points.
func (m *amrMesh) variation(c amrCell) float64 {
	v := 0.0
	for _, f := range m.fronts {
		r := f.r0 + f.speed*float64(m.step)
		near, far := amrDistances(c, f.cx, f.cy)
		lo := min(amrRidge(near, r, f.sigma), amrRidge(far, r, f.sigma))
		hi := 1.0 // the ridge's crest, when the front crosses the cell
		switch {
		case r < near:
			hi = amrRidge(near, r, f.sigma)
		case r > far:
			hi = amrRidge(far, r, f.sigma)
		}
		v += hi - lo
	}
	return v
}

// amrRidge is a front's heat-release rate at distance d from its centre.
func amrRidge(d, r, sigma float64) float64 {
	z := (d - r) / sigma
	return math.Exp(-z * z / 2)
}

// amrDistances returns the least and greatest distance from (px, py) to a
// point of cell c.
func amrDistances(c amrCell, px, py float64) (near, far float64) {
	dx0, dx1 := c.x-px, c.x+c.h-px
	dy0, dy1 := c.y-py, c.y+c.h-py
	near = math.Hypot(max(dx0, 0, -dx1), max(dy0, 0, -dy1))
	far = math.Hypot(max(-dx0, dx1), max(-dy0, dy1))
	return near, far
}

// refines reports whether c splits into ratio×ratio sub-cells: the front
// varies across it by more than the tolerance, and it is above the
// deepest level.
func (m *amrMesh) refines(c amrCell) bool {
	return c.level < m.depth && m.variation(c) > m.tol
}

// subtree is the number of sub-cells evaluated below c: none if it does
// not refine, else its ratio² sub-cells and, recursively, theirs. It is the
// work the thread owning c does if it refines c itself.
func (m *amrMesh) subtree(c amrCell) int {
	if !m.refines(c) {
		return 0
	}
	n := 0
	for j := 0; j < m.ratio; j++ {
		for i := 0; i < m.ratio; i++ {
			n += 1 + m.subtree(c.sub(i, j, m.ratio))
		}
	}
	return n
}
