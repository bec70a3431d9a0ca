package replay

// GPGPU-Sim's stream manager (lat.stream_countdown, lat.stream_passes):
// how the simulator the project validates against lets a device kernel
// at its stream's head go to the GPU. docs/model.md, "The simulator's
// stream manager", says what of it is CUDA's and what the simulator's.
//
// In GPGPU-Sim 667834cf the simulation loop calls
// stream_manager::operation once a pass (src/gpgpusim_entrypoint.cc:
// 112-129), and a pass is one tick of any of the GPU's clock domains
// (gpgpu_sim::next_clock_domain, src/gpgpu-sim/gpu-sim.cc:1880-1901: on
// SM7_QV100 the core, interconnect and L2 tick together at 1132 MHz and
// the DRAM at 850 MHz, so 1.75 passes a core cycle). Each call serves
// one stream: stream_manager::front (src/stream_manager.cc:330-369) takes
// the next stream after the last one served, round-robin, that is not
// busy (its head not yet on the GPU) and not empty, and
// stream_operation::do_operation (lines 158-173) either hands its kernel
// to the GPU, when m_launch_latency is 0 and a kernel slot is free, or
// counts m_launch_latency down by one and gives the stream back. So a
// kernel waits gpgpu_kernel_launch_latency + 1 services of its stream,
// and n heads waiting at once share the passes: each counts down n times
// slower. A stream's next kernel is not served until the one before it
// has completed (CUstream_st::busy until record_next_done), so its
// countdown starts then. The loop calls gpgpu_sim::cycle only while the
// GPU is active (gpgpusim_entrypoint.cc:127; gpu-sim.cc:1110-1133): with
// no CTA running and none to issue, passes take no simulated time and a
// waiting head's countdown ends at once. On the GPU the kernel then waits
// m_kernel_TB_latency (the launch latency again, gpu-sim.cc:866-871 and
// select_kernel) before its first CTA: lat.kernel_dispatch.
//
// The model serves the waiting heads as processor sharing, each getting
// lat.stream_passes / 1000 / n services a cycle with n waiting: the
// round-robin's shares, exact to within a round of n passes. Heads join
// with the same need, so they finish in the order they joined.
//
// A head whose countdown has ended but that finds no kernel slot free
// (can_start_kernel, the Kernel Distributor's entries here) stays at its
// stream's head and is served in its turn like the others, at each
// service only finding the slots still full ("if
// (gpu->can_start_kernel() && m_kernel->m_launch_latency == 0) { ...
// gpu->launch(m_kernel); } else { if (m_kernel->m_launch_latency)
// m_kernel->m_launch_latency--; ... return false; }",
// stream_operation::do_operation): so the heads that still count down
// share the passes with those waiting for an entry too (waiting, until
// each takes its entry). In a rerun of cdpmulti on 40 SMs that logs the
// manager (validation/gpgpusim/whatif, cdpmulti-sm40-streammgr) 128 of
// its 256 children wait so for most of the run, served up to 1,319
// times more each, and its grandchildren count down beside them. Left
// out of the passes, they let the first grandchildren count down beside
// a few heads and the later ones beside many, so that the GPU's idle
// ends found them far apart: the grandchildren took their entries a
// median 10.5% late (TestCountdownAgainstStreamManagerLog).

import "github.com/gpureplay/gpureplay/internal/eventq"

// streamCountdown is the stream manager's waiting heads and their
// countdowns, on a virtual clock: v is the milli-passes each waiting head
// has been served since the run began, so a head that joined at v0
// finishes at v0 + need.
type streamCountdown struct {
	need    int64     // milli-passes a head waits for: (lat.stream_countdown + 1) · 1000
	rate    int64     // lat.stream_passes: passes per 1000 cycles, milli-passes a cycle
	heads   []*Kernel // waiting, in the order they joined (and finish)
	finish  []int64   // heads[i] is done when v reaches finish[i]
	v       int64     // milli-passes served to each waiting head
	carry   int64     // what the last advance left over, in milli-passes for all heads (< len(heads))
	at      int64     // the cycle v is at
	gen     int32     // the pending event's generation: an older one is stale
	due     int64     // the pending event's cycle
	pending bool      // an event is pending
	live    int64     // the last cycle that settled: where the run ended if its last event was stale
	waiting []*Kernel // heads released and not yet given an entry: they share the passes, counting nothing
	hollow  bool      // this cycle's only event was a stale one (stale): its settle notes nothing
	release func(*Kernel)
}

func newStreamCountdown(countdown, passes int64, release func(*Kernel)) *streamCountdown {
	return &streamCountdown{need: (countdown + 1) * 1000, rate: passes, release: release}
}

// advance moves the virtual clock to now: the waiting heads share the
// passes of the cycles since at.
func (s *streamCountdown) advance(now int64) {
	if len(s.heads) == 0 {
		s.at, s.carry = now, 0
		return
	}
	n := int64(len(s.heads) + len(s.waiting))
	num := (now-s.at)*s.rate + s.carry
	s.v += num / n
	s.carry = num % n
	s.at = now
}

// join is device kernel k (and the kernels chained to it) reaching the
// head of its stream at now: each waits to be served.
func (s *streamCountdown) join(c *eventClock, k *Kernel) {
	now := c.now()
	s.advance(now)
	for k != nil {
		next := k.arriveNext
		k.arriveNext = nil
		k.state = kWaiting
		s.heads = append(s.heads, k)
		s.finish = append(s.finish, s.v+s.need)
		k = next
	}
	s.schedule(c)
}

// schedule makes sure an event is pending for the cycle the first
// waiting head is done, if any waits. At most one is pending: a head
// joining only slows the countdown, so the pending event, earlier, stays,
// and when it fires it schedules the next; only heads leaving early (idle)
// move it earlier, in the queue (eventq.Queue.Move), or, where Move does
// not find it, leave it stale (it does nothing when it fires: stale).
func (s *streamCountdown) schedule(c *eventClock) {
	if len(s.heads) == 0 {
		if s.pending {
			// Stale now; moved to this cycle, where it fires harmlessly.
			c.q.Move(s.event(), eventq.Event{At: c.now(), Kind: uint8(evCountdown), Ref: s.gen})
			s.gen++
			s.pending = false
		}
		return
	}
	n := int64(len(s.heads) + len(s.waiting))
	left := (s.finish[0]-s.v)*n - s.carry // milli-passes, over all heads
	at := s.at
	if left > 0 {
		at += (left + s.rate - 1) / s.rate
	}
	at = max(at, c.now())
	switch {
	case !s.pending:
		s.gen++
		s.due, s.pending = at, true
		c.q.Push(s.event())
	case at < s.due:
		old := s.event()
		s.gen++
		s.due = at
		c.q.Move(old, s.event())
	}
}

// event is the pending event.
func (s *streamCountdown) event() eventq.Event {
	return eventq.Event{At: s.due, Kind: uint8(evCountdown), Ref: s.gen}
}

// fire is the countdown's event: the heads done by now go to the GPU.
func (s *streamCountdown) fire(c *eventClock, ev eventq.Event) {
	if !s.pending || ev.Ref != s.gen {
		s.stale(c)
		return
	}
	s.pending = false
	s.advance(c.now())
	s.done(c)
}

// done releases the heads whose countdown has ended, in order, and
// schedules the next.
func (s *streamCountdown) done(c *eventClock) {
	i := 0
	for i < len(s.heads) && s.finish[i] <= s.v {
		i++
	}
	released := make([]*Kernel, i)
	copy(released, s.heads[:i])
	rest := len(s.heads) - i
	copy(s.heads, s.heads[i:])
	copy(s.finish, s.finish[i:])
	clear(s.heads[rest:])
	s.heads, s.finish = s.heads[:rest], s.finish[:rest]
	if rest == 0 {
		s.carry = 0
	}
	s.schedule(c)
	// Released after the queue is cut: a release may join no head (the
	// kernel released has yet to run), but the order is then the queue's.
	s.waiting = append(s.waiting, released...)
	for _, k := range released {
		s.release(k)
	}
	s.entered(c) // those that found an entry free
}

// entered drops from the waiting heads those that have taken their
// Kernel Distributor entry by now (no longer kWaiting): they no longer
// share the passes. settle calls it at the end of every cycle, so in
// the cycle of the entries; an event of the countdown earlier in that
// cycle scheduled with them still counted, later than it should, and is
// moved earlier here. A hook at the entry itself, in the engine's
// enterKD or fillKD, cost BFS --quick, which has no countdown, 0.6% and
// 1.5% of its instructions: those functions' inlining moved.
func (s *streamCountdown) entered(c *eventClock) {
	s.advance(c.now())
	w := s.waiting[:0]
	for _, k := range s.waiting {
		if k.state == kWaiting {
			w = append(w, k)
		}
	}
	clear(s.waiting[len(w):])
	s.waiting = w
	s.schedule(c)
}

// idle is the GPU idle at now with heads waiting: the simulator's passes
// take no time, so the first head's countdown ends now, and every other
// head has been served as often.
func (s *streamCountdown) idle(c *eventClock) {
	s.advance(c.now())
	if d := s.finish[0] - s.v; d > 0 {
		s.v += d
	}
	s.carry = 0
	s.done(c)
}

// stale is an event Move did not find to replace. It did nothing; where
// it was the run's last event, the run ended at the last cycle that
// settled, not at it. A cycle of nothing but a stale event is not one
// the run lived (hollow): where Move finds no event in a heap of more
// than its scan's bound, several superseded events can wait past the
// run's end, and each, settling, took the end on to its own cycle
// (cdpmulti once blocked heads shared the passes: its last kernel ended
// at 124,872 and the run at 443,123).
func (s *streamCountdown) stale(c *eventClock) {
	if c.fired {
		return
	}
	if c.q.Len() == 0 && len(s.heads) == 0 {
		c.t = s.live
	}
	s.hollow = c.q.Len() == 0 || c.q.Peek() != c.t
}

// settle is the end of a cycle: it notes the cycle and, with heads
// waiting and the GPU idle (no kernel holds or waits for a Kernel
// Distributor entry, so no CTA runs or is to be placed), ends the first
// head's countdown now.
func (s *streamCountdown) settle(c *eventClock, kd *kernelDistributor) {
	if s.hollow {
		s.hollow = false
		return
	}
	s.live = c.t
	if len(s.waiting) > 0 {
		s.entered(c)
	}
	if len(s.heads) > 0 && kd.heldLen() == 0 && kd.front() == nil {
		s.idle(c)
	}
}
