package samples

import "math"

// dlLoops runs the worklist threads' own relaxation loops of Dragon_li's
// codes (ssspRegDevice.h:72-90, ssspCdpDevice.h:104-122 at 1397e03) in
// the order the simulator's warps reach them, and in the CDP code the
// children its launching lanes make beside them (ssspdlchildren.go), appends each lowered vertex to next in
// that order and keeps each warp's loop, in cycles, in s.loops (the
// loops the kernel is priced on: dragonliIteration). The next frontier
// is in the order the appends' atomicAdd on the one global counter
// hands out its offsets ("SizeType globalOffset =
// ctaOutputAssignment.getCtaOutputAssignment(1); …
// devFrontierOut[globalOffset] = neighborVertexId;", ssspRegDevice.h:83
// and 86), which is the order the warps of every CTA, each on its own
// SM, get there in time: not one warp's whole loop after another's. So
// each warp of the persistent grid (dragonliCTAs CTAs of s.block
// threads, chunks assigned statically: CtaWorkAssignment, CTA c's first
// chunk at c·block, its next grid·block further on) keeps a clock, and
// the warp whose clock is earliest (ties: the lower CTA, then warp)
// takes its next action:
//
//   - a step of iteration j: every active lane reads dist[u] of its j-th
//     edge and compares; the warp's clock advances an iteration (s.step,
//     the parent loop's loop_cycles);
//   - the lowering branch of the lanes that found d < dist[u]: their
//     atomicMin, last lane first as GPGPU-Sim sends a warp's same-word
//     atomics (relaxDragonli), each lowering dist[u] only if d is still
//     below it; the clock advances ssspLowerCycles for the first lane and
//     ssspLowerLaneCycles for each further one;
//   - past the branch, the appends of the lanes whose atomicMin lowered,
//     last lane first, which the frontier's counter does one a cycle
//     (ssspdlcounter.go): where the counter kept the warp's last append
//     waiting, the warp goes on that much later.
//
// Where a branch splits a group, the two parts do not meet again before
// the loop ends (the branches reconverge at the function's exit), and GPGPU-Sim's SIMT stack runs the branch's taken
// path first: simt_stack::update pushes the fall-through path
// ("if (divergent_paths.find(not_taken_pc) != divergent_paths.end()) {
// assert(i == 0);", src/abstract_hardware_model.cc:1102-1103 at
// 667834cf), then the taken one, and the top of the stack issues. The
// loop's branches (lines 180 and 184 of the rmat11 runs'
// testSssp-reg.1.sm_35.ptx, "@%p6 bra $L__BB1_11;" and "@%p7 bra
// $L__BB1_11;", as their logs print them) are taken by the lanes that
// do not lower, so those lanes run the rest of their loop first, and
// a lowering lane's atomics and append wait for them: a lane whose
// atomicMin then finds another warp's lower value appends nothing but
// took the branch, and its warp's clock holds it. The CDP kernel's loop
// is the same code (its branches at lines 426, 430 and 435 of the
// captures' testSssp-cdp.1.sm_35.ptx reconverge at line 447, after the
// loop). A warp starts each chunk after its prologue (ssspBaseCycles)
// and, where some of its lanes launch, their launch calls
// (dlLaunchCycles); s.loops leaves both out.
//
// Measured: in GPGPU-Sim's run of the CDP code on the uniform graph of
// dragonli-sssp-uniform9-cdp, rerun with each warp's issue count and exit
// logged (docs/calibration.md, "SSSP's CDP loops"), relaxation 3's
// launching warps loop 52,002 to 147,488 cycles after their launches,
// about 500 cycles at 837 MHz for each iteration they issue, a lone
// lane's price (ssspEdgeCycles): their time is their steps, which the
// clocks count, races and the lanes that take the branch and then find
// a lower value included.
func (s *ssspSolver) dlLoops(worklist []int32, src []int64, at []int, next []int32) []int32 {
	r := dlRun{s: s, worklist: worklist, src: src, at: at, next: next, items: make([]dlItem, len(worklist))}
	for i, v := range worklist {
		d := s.g.degree(v)
		r.items[i] = dlItem{lo: int(s.g.offsets[v]), first: s.child(d), end: d}
	}
	clear(s.loops)
	clear(s.childWait)
	r.cdp = !s.flat
	if r.cdp {
		r.kids.ctaLive = make([]int, dragonliCTAs)
	}
	perCTA := ceilDiv(s.block, warpSize)
	for c := range dragonliCTAs {
		for w := range perCTA {
			wp := &dlWarp{id: c*perCTA + w, cta: c, chunk: c * s.block, w: w}
			if r.start(wp) {
				r.warps = append(r.warps, wp)
				if r.cdp {
					r.hold(c)
				}
			}
		}
	}
	r.warps.init()
	// The first of the children's events, the warps' actions and the
	// counter's next append goes next; at the same time, in that order.
	for {
		kt, kids := int64(math.MaxInt64), len(r.kids.events) > 0
		if kids {
			kt = r.kids.events[0].t
		}
		wt, warps := int64(math.MaxInt64), len(r.warps) > 0
		if warps {
			wt = r.warps[0].t
		}
		ct, counts := r.count.next()
		switch {
		case kids && kt <= wt && (!counts || kt <= ct):
			r.event()
		case warps && (!counts || wt <= ct):
			wp := r.warps[0]
			switch r.act(wp) {
			case dlGoesOn:
				r.warps.down(0)
			case dlParks:
				r.warps.pop()
			case dlEnds:
				if r.cdp {
					r.release(wp.cta, wp.t)
				}
				r.warps.pop()
			}
		case counts:
			r.serve(ct, min(kt, wt))
		default:
			return r.next
		}
	}
}

// What a warp's action leaves it: more to do, waiting for its appends,
// or done.
const (
	dlGoesOn = iota
	dlParks
	dlEnds
)

// dlRun is one relaxation's loops as dlLoops runs them.
type dlRun struct {
	s        *ssspSolver
	worklist []int32
	src      []int64 // each item's source distance, read as its chunk starts
	at       []int   // each item's first flag in s.lowered
	items    []dlItem
	next     []int32
	warps    dlWarpHeap
	// cdp: the CDP code, whose launching lanes' children run in the
	// clock beside the loops (ssspdlchildren.go).
	cdp  bool
	kids dlChildren
	// count is the frontier's counter, which does every append
	// (ssspdlcounter.go).
	count dlCounter
}

// dlItem is a worklist item's vertex as its loop reads it: its edges'
// first index in the graph (lo), and the part of them its own loop takes,
// [first, end), past what its child takes.
type dlItem struct{ lo, first, end int }

// dlWarp is a warp of the persistent grid: its clock, its SIMT stack of
// lane groups (the top, last, issues) and its CTA's current chunk.
type dlWarp struct {
	id    int
	cta   int
	t     int64
	stack []dlGroup
	chunk int   // the chunk's first item
	w     int   // the warp in its CTA
	lo    int   // the warp's first item in its chunk
	began int64 // when its loop in the chunk began
}

// dlGroup is a set of lanes (items, in lane order) at iteration j of
// their own loops, about to step (phase dlStep), to take the lowering
// branch (dlAtomic) or to go on past their appends (dlAppend: batch,
// at the counter).
type dlGroup struct {
	lanes []int
	j     int
	phase int
	batch *dlBatch
}

const (
	dlStep = iota
	dlAtomic
	dlAppend
)

// start gives wp its lanes of its CTA's current chunk, after the
// prologue, or reports that the chunk is past the worklist's end.
func (r *dlRun) start(wp *dlWarp) bool {
	lo, hi := wp.chunk+wp.w*warpSize, min(wp.chunk+r.s.block, len(r.worklist))
	if lo >= hi {
		return false
	}
	lanes := make([]int, 0, warpSize)
	var sites []int
	for i := lo; i < min(lo+warpSize, hi); i++ {
		lanes = append(lanes, i)
		if r.items[i].first > 0 {
			sites = append(sites, i)
		}
	}
	wp.stack = append(wp.stack[:0], dlGroup{lanes: lanes})
	wp.t += ssspBaseCycles
	if len(sites) > 0 {
		wp.t += dlLaunchCycles(len(sites))
		r.launch(sites, wp.t)
	}
	wp.lo, wp.began = lo, wp.t
	return true
}

// edge is item i's iteration j: its edge's index in the vertex's list
// (past what its child takes), or -1 past its loop's end.
func (r *dlRun) edge(i, j int) int {
	if e := r.items[i].first + j; e < r.items[i].end {
		return e
	}
	return -1
}

// relaxed is item i's edge e: its vertex u and the distance through it.
func (r *dlRun) relaxed(i, e int) (int32, int64) {
	k := r.items[i].lo + e
	return r.s.g.cols[k], r.src[i] + int64(r.s.weight[k])
}

// act runs wp's next action and says what it leaves the warp.
func (r *dlRun) act(wp *dlWarp) int {
	for len(wp.stack) > 0 {
		g := &wp.stack[len(wp.stack)-1]
		switch g.phase {
		case dlStep:
			// Most steps lower nothing: the group then goes on to its
			// next iteration with the lanes whose loops have not ended,
			// kept in place (a group's lanes are its own), and only a
			// step that splits the group makes the groups anew.
			rest, k := 0, 0
			for ; k < len(g.lanes); k++ {
				i := g.lanes[k]
				e := r.edge(i, g.j)
				if e < 0 {
					continue
				}
				if u, d := r.relaxed(i, e); d < r.s.dist[u] {
					break
				}
				g.lanes[rest] = i
				rest++
			}
			if k == len(g.lanes) {
				if rest == 0 {
					wp.stack = wp.stack[:len(wp.stack)-1]
					continue
				}
				wp.t += r.s.step
				g.lanes, g.j = g.lanes[:rest], g.j+1
				return dlGoesOn
			}
			// Lane k lowers: the lanes before it that go on (in
			// g.lanes[:rest]) lower nothing, and the rest are read again.
			var lower []int
			others := append([]int(nil), g.lanes[:rest]...)
			for _, i := range g.lanes[k:] {
				e := r.edge(i, g.j)
				if e < 0 {
					continue
				}
				if u, d := r.relaxed(i, e); d < r.s.dist[u] {
					lower = append(lower, i)
				} else {
					others = append(others, i)
				}
			}
			wp.t += r.s.step
			r.split(wp, lower, others, dlAtomic, nil)
		case dlAtomic:
			var lowered [warpSize]bool
			for l := len(g.lanes) - 1; l >= 0; l-- {
				u, d := r.relaxed(g.lanes[l], r.edge(g.lanes[l], g.j))
				if d < r.s.dist[u] {
					r.s.dist[u], lowered[l] = d, true
				}
			}
			var took, rest []int
			for l, i := range g.lanes {
				if lowered[l] {
					took = append(took, i)
				} else {
					rest = append(rest, i)
				}
			}
			r.countAtomicMin(g.lanes, g.j)
			var b *dlBatch
			if len(took) > 0 {
				lanes := make([]dlLowered, 0, len(took))
				for l := len(took) - 1; l >= 0; l-- {
					i := took[l]
					e := r.edge(i, g.j)
					u, _ := r.relaxed(i, e)
					lanes = append(lanes, dlLowered{u, r.at[i] + e})
				}
				b = &dlBatch{}
				r.count.claim(wp.t, lanes, b)
			}
			wp.t += ssspLowerCycles + int64(len(g.lanes)-1)*ssspLowerLaneCycles
			r.split(wp, took, rest, dlAppend, b)
		case dlAppend:
			if g.batch.left > 0 {
				g.batch.warp = wp
				return dlParks
			}
			wp.t += g.batch.delay
			g.j, g.phase, g.batch = g.j+1, dlStep, nil
		}
		return dlGoesOn
	}
	r.s.loops[wp.lo] = wp.t - wp.began
	wp.chunk += dragonliCTAs * r.s.block
	if r.start(wp) {
		return dlGoesOn
	}
	return dlEnds
}

// split replaces the top group, at a branch of iteration j, by its lanes
// that go on to phase (took) and those that branch to the next
// iteration (rest); where both hold lanes, the rest issue first (the
// taken path is the stack's top).
func (r *dlRun) split(wp *dlWarp, took, rest []int, phase int, b *dlBatch) {
	g := &wp.stack[len(wp.stack)-1]
	j := g.j
	switch {
	case len(took) == 0:
		*g = dlGroup{lanes: rest, j: j + 1}
	case len(rest) == 0:
		*g = dlGroup{lanes: took, j: j, phase: phase, batch: b}
	default:
		*g = dlGroup{lanes: took, j: j, phase: phase, batch: b}
		wp.stack = append(wp.stack, dlGroup{lanes: rest, j: j + 1})
	}
}

// dlWarpHeap is a binary min-heap of warps by clock, then id: the warp
// whose clock is earliest acts next. Its keys are unique (the ids are),
// so any heap pops the warps in one order; written out with the
// comparison in line, where container/heap's calls through an interface
// had taken 40% of a generation (sssp on a scale-16 Kronecker graph,
// variant=flat).
type dlWarpHeap []*dlWarp

// before orders a before b.
func before(a, b *dlWarp) bool { return a.t < b.t || a.t == b.t && a.id < b.id }

// init orders the heap.
func (h dlWarpHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down moves the warp at i down to its place.
func (h dlWarpHeap) down(i int) {
	n := len(h)
	w := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && before(h[c+1], h[c]) {
			c++
		}
		if !before(h[c], w) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = w
}

// push adds a warp.
func (h *dlWarpHeap) push(w *dlWarp) {
	*h = append(*h, w)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(w, s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = w
}

// pop removes the first warp.
func (h *dlWarpHeap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	if n > 0 {
		h.down(0)
	}
}

// countAtomicMin counts the atomicMin of lanes (items) at iteration j of
// their own loops (ssspSolver.atomics).
func (r *dlRun) countAtomicMin(lanes []int, j int) {
	if !r.s.countAtomics {
		return
	}
	edges := make([]int, len(lanes))
	for l, i := range lanes {
		edges[l] = r.items[i].lo + r.edge(i, j)
	}
	r.s.countAtomicMin(edges)
}
