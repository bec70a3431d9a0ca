package policies

// ccqs is SPAWN's Child CTA Queuing System (SPAWN §IV-A): it watches the
// CTAs of device-launched kernels and keeps the statistics the controller
// estimates with. Windowed statistics use the last complete window, as the
// hardware counters would: a value changes only at window boundaries.
type ccqs struct {
	window int64
	// busyOnly averages n_con over the cycles in which a child CTA runs,
	// and keeps it through windows with none, as t_warp is kept
	// (spawn.ncon=busy), instead of over the whole window.
	busyOnly bool

	n int64 // child CTAs in the system: launched, not finished

	finished int64   // child CTAs finished, ever
	ctaSum   float64 // their execution times, summed (for t_cta)

	cur     int64   // the current window: [cur·window, (cur+1)·window)
	running int64   // child CTAs executing now
	last    int64   // when running last changed (or the window began)
	area    float64 // running·cycles so far in the current window
	busy    int64   // cycles of the current window with a child CTA running
	nCon    float64 // mean running child CTAs over the last complete window

	warpSum float64 // child warp times finishing in the current window
	warpN   int64
	tWarp   float64 // mean child warp time of the last window that had any
	warpOK  bool    // a window with a finished child warp has closed
}

// tCTA is the mean execution time of every finished child CTA.
func (q *ccqs) tCTA() float64 {
	if q.finished == 0 {
		return 0
	}
	return q.ctaSum / float64(q.finished)
}

// advance closes every window that ended by now.
func (q *ccqs) advance(now int64) {
	end := (q.cur + 1) * q.window
	if now < end {
		return
	}
	q.account(end)
	q.nCon = q.windowNCon(q.nCon)
	if q.warpN > 0 {
		q.tWarp = q.warpSum / float64(q.warpN)
		q.warpOK = true
	}
	q.cur++
	q.area, q.busy, q.warpSum, q.warpN, q.last = 0, 0, 0, 0, end
	if skipped := (now - end) / q.window; skipped > 0 {
		// Windows with no change: as many CTAs ran all through them, and
		// no warp finished, so t_warp stays. With none running, busyOnly
		// keeps n_con as it keeps t_warp.
		if q.running > 0 || !q.busyOnly {
			q.nCon = float64(q.running)
		}
		q.cur += skipped
		q.last = q.cur * q.window
	}
}

// integrate accounts the running count up to now, within the current
// window.
func (q *ccqs) integrate(now int64) {
	if now >= (q.cur+1)*q.window { // advance's own test, here with no call: most changes fall inside the window
		q.advance(now)
	}
	q.account(now)
	q.last = now
}

// account adds the cycles from the last change to until, all inside the
// current window, at the present running count.
func (q *ccqs) account(until int64) {
	q.area += float64(q.running) * float64(until-q.last)
	if q.running > 0 {
		q.busy += until - q.last
	}
}

// windowNCon is n_con of the window just completed: the mean running
// count over the whole window (0 when no child CTA ran, as in docs/design.md), or
// with busyOnly over its busy cycles, prev when it had none.
func (q *ccqs) windowNCon(prev float64) float64 {
	switch {
	case !q.busyOnly:
		return q.area / float64(q.window)
	case q.busy == 0:
		return prev
	}
	return q.area / float64(q.busy)
}

// launched puts a new child kernel's x CTAs into the system.
func (q *ccqs) launched(x int64) { q.n += x }

// started is a child CTA beginning to execute.
func (q *ccqs) started(now int64) {
	q.integrate(now)
	q.running++
}

// finishedCTA is a child CTA ending after cycles, its warps' times
// summing to warpSum (CTAEvent.WarpTimeSum). Each time is a whole number
// of cycles, so adding their sum at once makes the same float as adding
// each in turn, up to 2^53 cycles a window.
func (q *ccqs) finishedCTA(now, cycles, warpSum, warps int64) {
	q.integrate(now)
	q.running--
	q.n--
	q.finished++
	q.ctaSum += float64(cycles)
	q.warpSum += float64(warpSum)
	q.warpN += warps
}
