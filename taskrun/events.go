package taskrun

// kind says what an event does when it fires. Each runtime has its own
// kinds; they share the clock, eventq.Queue, whose events carry a task
// slot in Ref and a second small integer (an MTB, an executor warp, a
// worker) in Aux.
type kind uint8

// satAdd is a+b for a cycle a and a non-negative duration b, saturating at
// the largest cycle instead of wrapping, so absurd task times on a trace
// cannot reorder events.
func satAdd(a, b int64) int64 {
	const maxCycle = 1<<63 - 1
	if b > maxCycle-a {
		return maxCycle
	}
	return a + b
}
