package replay

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// A Stepper runs a replay a stretch at a time and shows its components'
// state between stretches, for the golden cases of testdata/state.txt
// (raft's interaction tests, pebble's multi-command files).
type Stepper struct {
	e     *engine
	close func()
}

// NewStepper prepares a replay as Run does, its first events scheduled.
func NewStepper(open Opener, opt Options, sink tables.Sink) (*Stepper, error) {
	e, closeAll, err := prepare(open, opt, sink)
	if err != nil {
		return nil, err
	}
	return &Stepper{e: e, close: closeAll}, nil
}

// Until fires every event up to cycle t and settles that cycle; it
// reports whether events are left.
func (s *Stepper) Until(t int64) (bool, error) {
	paused, err := s.e.loop(t)
	return paused, err
}

// Finish runs the replay to its end and returns its totals.
func (s *Stepper) Finish() (*Stats, error) {
	defer s.close()
	return s.e.run()
}

// Now is the cycle of the last event fired.
func (s *Stepper) Now() int64 { return s.e.clock.now() }

// Show renders a component's state in lines: kd (the Kernel
// Distributor), sms, streams (the host streams), launchpath (the device
// runtime's launch servers and pending pool), groups (DTBL's aggregated
// groups), devstreams (the ordered device streams), contention (the
// contention model's SMs), ctas (stalled and paused CTAs), scoreboard
// (CRCS's input pages ready), klap (KLAP's rounds and batches), host
// (the host threads), hostio (the host's storage and copy engines), sites
// (the site engine), tasks (the narrow-task driver), totals (the
// recorder's counts so far), legacy (the legacy default stream's gate),
// issue (the CTA issue rate's holds), occupancy (warp·cycles held) or
// body (the body cursor's loads).
func (s *Stepper) Show(what string) ([]string, error) {
	e := s.e
	// ids lists kernels' ids, a run of consecutive ids as first-last.
	ids := func(ks []*Kernel) string {
		var b []string
		for i := 0; i < len(ks); {
			j := i + 1
			for j < len(ks) && ks[j].id == ks[j-1].id+1 {
				j++
			}
			if j-i > 2 {
				b = append(b, fmt.Sprintf("%d-%d", ks[i].id, ks[j-1].id))
			} else {
				for _, k := range ks[i:j] {
					b = append(b, fmt.Sprint(k.id))
				}
			}
			i = j
		}
		return "[" + strings.Join(b, " ") + "]"
	}
	switch what {
	case "kd":
		// ready: the FCFS list's kernels with CTAs left to place.
		d := &e.kd
		var ready []*Kernel
		for _, k := range d.listed() {
			if k.Remaining() > 0 {
				ready = append(ready, k)
			}
		}
		return []string{fmt.Sprintf("kd entries=%d/%d held=%s waiting=%s ready=%s",
			d.heldLen(), d.entries, ids(d.holders()), ids(slices.Collect(d.waiters())), ids(ready))}, nil
	case "sms":
		var out []string
		for i := range e.sms.sms {
			m := &e.sms.sms[i]
			if m.ctas == 0 {
				continue
			}
			out = append(out, fmt.Sprintf("sm%d kernel=%d ctas=%d warps=%d regs=%d smem=%d", m.id, m.kernel.id, m.ctas, m.warps, m.regs, m.smem))
		}
		if len(out) == 0 {
			out = []string{"sms idle"}
		}
		return out, nil
	case "streams":
		st := &e.host.streams
		keys := make([]uint64, 0, len(st.byID))
		for id := range st.byID {
			keys = append(keys, id)
		}
		slices.Sort(keys)
		var out []string
		for _, id := range keys {
			q := st.byID[id]
			head := "-"
			if q.head != nil {
				head = fmt.Sprint(q.head.id)
			}
			if q.head == nil && len(q.queue) == 0 {
				continue
			}
			out = append(out, fmt.Sprintf("stream %d head=%s queue=%s", id, head, ids(q.queue)))
		}
		if len(out) == 0 {
			out = []string{"streams idle"}
		}
		return out, nil
	case "launchpath":
		p := &e.dev.launch
		busy := 0
		for _, f := range p.free {
			if f > e.clock.now() {
				busy++
			}
		}
		return []string{fmt.Sprintf("launchpath servers=%d busy=%d pending=%d waiting=%d", len(p.free), busy, p.pending, p.waiting())}, nil
	case "groups":
		// DTBL's aggregation: AGT entries held, groups on their way to a
		// pool, and each kernel's groups not complete and pooled CTAs not
		// placed.
		g := &e.groups
		used := 0
		for _, u := range g.agt.used {
			if u {
				used++
			}
		}
		out := []string{fmt.Sprintf("groups agt_used=%d inflight=%d", used, g.inFlight.Len())}
		for _, k := range e.kd.holders() {
			if k.pool != nil && (k.pool.open > 0 || k.pool.pooled > 0) {
				out = append(out, fmt.Sprintf("pool kernel=%d open=%d pooled=%d", k.id, k.pool.open, k.pool.pooled))
			}
		}
		return out, nil
	case "devstreams":
		// The ordered device streams holding kernels: each one's kernels
		// launched and not complete (the first heads it), those that
		// reached the KMU, and whether its head has been let go.
		var keys []devStreamKey
		for k := range e.dstreams.byKey {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b devStreamKey) int {
			return cmp.Or(cmp.Compare(a.grid, b.grid), cmp.Compare(a.cta, b.cta), cmp.Compare(a.kind, b.kind), cmp.Compare(a.id, b.id))
		})
		var out []string
		for _, key := range keys {
			d := e.dstreams.byKey[key]
			if len(d.kernels) == 0 {
				continue
			}
			var arrived []*Kernel
			for i, k := range d.kernels {
				if d.arrived[i] {
					arrived = append(arrived, k)
				}
			}
			out = append(out, fmt.Sprintf("devstream grid=%d cta=%d kind=%v id=%d kernels=%s arrived=%s running=%v",
				key.grid, key.cta, key.kind, key.id, ids(d.kernels), ids(arrived), d.running))
		}
		if len(out) == 0 {
			out = []string{"devstreams none"}
		}
		return out, nil
	case "contention":
		// The contention model: each SM's jobs, their summed issue and
		// DRAM demand and the rate they progress at; the DRAM factor.
		share := e.sms.contention()
		if share == nil {
			return []string{"contention off"}, nil
		}
		m := share.model
		out := []string{fmt.Sprintf("contention dram_factor=%g", m.DRAMFactor())}
		for i := range e.sms.sms {
			if jobs, d, rate := m.SM(i); jobs > 0 {
				out = append(out, fmt.Sprintf("sm%d jobs=%d issue=%g dram=%g rate=%g", i, jobs, d.Issue, d.DRAM, rate))
			}
		}
		return out, nil
	case "ctas":
		// The CTAs placed and not started (held by a gate) and those
		// paused mid-run at a page, in order.
		name := func(cs []*ctaRun) string {
			var b []string
			for _, c := range cs {
				b = append(b, fmt.Sprintf("%d/%d", c.k.id, c.idx))
			}
			return "[" + strings.Join(b, " ") + "]"
		}
		return []string{fmt.Sprintf("ctas stalled=%s paused=%s", name(e.ctas.stalled), name(e.ctas.paused))}, nil
	case "scoreboard":
		// CRCS's reference-count scoreboard: the input pages ready.
		if e.pages == nil {
			return []string{"scoreboard none"}, nil
		}
		return []string{fmt.Sprintf("scoreboard input_ready=%d/%d", e.pages.sb.readyIn, e.pages.sb.inputPages)}, nil
	case "klap":
		// KLAP's aggregation: each CTA's barrier rounds not yet sealed
		// (block granularity) and each kernel's stored children, by
		// aggregated kernel (kernel granularity).
		if e.dev.agg == nil {
			return []string{"klap off"}, nil
		}
		var out []string
		var ctas []*ctaRun
		for c, bs := range e.dev.agg.blocks {
			if bs.open > 0 {
				ctas = append(ctas, c)
			}
		}
		slices.SortFunc(ctas, func(a, b *ctaRun) int { return cmp.Or(cmp.Compare(a.k.id, b.k.id), cmp.Compare(a.idx, b.idx)) })
		for _, c := range ctas {
			out = append(out, fmt.Sprintf("klap block cta=%d/%d open=%d", c.k.id, c.idx, e.dev.agg.blocks[c].open))
		}
		var ks []*Kernel
		for k := range e.dev.agg.kernels {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(a, b *Kernel) int { return cmp.Compare(a.id, b.id) })
		for _, k := range ks {
			for _, h := range e.dev.agg.kernels[k].heads {
				var members []string
				for _, g := range h.members {
					members = append(members, fmt.Sprint(g.id))
				}
				out = append(out, fmt.Sprintf("klap batch kernel=%d head=%d members=[%s] grid=%d", k.id, h.head.id, strings.Join(members, " "), h.grid))
			}
		}
		if len(out) == 0 {
			out = []string{"klap none held"}
		}
		return out, nil
	case "host":
		// The host threads: when each is free to call again and the calls
		// it has planned, not issued; the calls read ahead, the host
		// launches read, and those whose bodies are not loaded yet.
		h := &e.host
		t := &h.threads
		free := make([]string, len(t.free))
		for j, f := range t.free {
			free[j] = fmt.Sprint(f)
			if t.isBlocked(j) {
				free[j] = "blocked"
			}
		}
		return []string{fmt.Sprintf("host free=%v waiting=%v pending=%d all_read=%v launches_read=%d unloaded=%d",
			free, t.waiting, t.pending, t.eof, h.order, len(h.issued))}, nil
	case "syncs":
		// The host's synchronisation: each thread's shift, the host
		// operations live (in all and by trace stream), the blocking
		// calls read whose wait has not ended and what they still wait
		// for, and the call read and held behind one.
		h := &e.host
		s := &h.sync
		streams := slices.Sorted(maps.Keys(s.streams))
		live := make([]string, 0, len(streams))
		for _, id := range streams {
			live = append(live, fmt.Sprintf("%d:%d", id, s.streams[id].live))
		}
		out := []string{fmt.Sprintf("syncs shift=%v live=%d by_stream=%v", h.threads.shift, s.live, live)}
		for _, w := range s.counted {
			what := fmt.Sprintf("%s seq=%d", w.op, w.seq)
			switch {
			case w.copy != nil:
				what = fmt.Sprintf("memcpy seq=%d stream=%d left=%d", w.seq, w.stream, w.left)
			case w.op == trace.SyncStream:
				what += fmt.Sprintf(" stream=%d left=%d", w.stream, w.left)
			case w.op == trace.SyncEvent:
				what += fmt.Sprintf(" event=%d record=%d left=%d", w.event, w.latch.seq, w.latch.left)
			default:
				what += fmt.Sprintf(" left=%d", w.left)
			}
			if w.issued {
				what += fmt.Sprintf(" thread=%d call=%d", w.thread, w.call)
			}
			out = append(out, "syncs waiting "+what)
		}
		if c := h.held; c.isSet() {
			what := "sync"
			if c.k != nil {
				what = fmt.Sprintf("kernel %d", c.k.id)
				if c.k.isCopy() {
					what = "copy"
				}
			}
			out = append(out, fmt.Sprintf("syncs held %s on stream %d", what, c.stream))
		}
		return out, nil
	case "body":
		// The body cursor: the host launches whose bodies (their
		// segments of the trace) it has begun to load.
		return []string{fmt.Sprintf("body loaded=%d", e.body.loaded)}, nil
	case "hostio":
		// The host's I/O: when each channel (storage in, PCIe each way,
		// storage out) is free again, and the prelude's end.
		io := e.io
		return []string{fmt.Sprintf("hostio on=%v ssd_in=%g h2d=%g d2h=%g ssd_out=%g prelude_end=%d",
			io.on, io.ssdIn.free, io.h2d.free, io.d2h.free, io.ssdOut.free, io.preludeEnd)}, nil
	case "sites":
		// The site engine: the sites decided so far and whether the blind
		// phase (no CTA of launched work ended yet) is over.
		se := &e.sites
		return []string{fmt.Sprintf("sites decided=%d blind=%v", se.nextID, !se.childEnded)}, nil
	case "tasks":
		// The narrow-task driver: threadblocks submitted and still live,
		// the tasks the runtime holds not yet started, and whether the
		// host has more to hand over.
		d := e.tasks
		if d == nil {
			return []string{"tasks none"}, nil
		}
		return []string{fmt.Sprintf("tasks submitted=%d live=%d runtime_waiting=%d host_more=%v closed=%v",
			d.seq, len(d.live), d.rt.Waiting(), d.more, d.closed)}, nil
	case "legacy":
		// The legacy default stream's gate: host kernels let through and
		// not complete, the barrier copy (waiting for them, or running)
		// and the operations held behind it.
		g := e.host.legacy
		if g == nil {
			return []string{"legacy off"}, nil
		}
		barrier := "none"
		if g.barrier != nil {
			barrier = "copy"
		}
		return []string{fmt.Sprintf("legacy active=%d barrier=%s waiting=%v held=%s", g.active, barrier, g.waiting, ids(g.held))}, nil
	case "issue":
		// The CTA issue rate's holds in force at the last event: an SM
		// that took a CTA takes no other until its hold ends.
		var b []string
		for _, h := range e.sms.issue.held[e.sms.issue.head:] {
			if h.until > e.clock.now() {
				b = append(b, fmt.Sprintf("sm%d<%d", h.sm, h.until))
			}
		}
		return []string{"issue held=[" + strings.Join(b, " ") + "]"}, nil
	case "occupancy":
		// The warp·cycles the SMs have held up to the last event: with
		// rows, those of the windows closed and, by parts, the current
		// ones' (occAccum).
		w := e.sms.occ.warpCycles
		for i := range e.sms.sms {
			if s := &e.sms.sms[i]; e.sms.occ.rows {
				w += s.occ.warps + int64(s.warps)*e.clock.now()
			}
		}
		return []string{fmt.Sprintf("occupancy warp_cycles=%d", w)}, nil
	case "totals":
		// The recorder's counts so far.
		st := &e.out.stats
		return []string{fmt.Sprintf("totals kernels=%d ctas=%d stall=%d wait=%d",
			st.Kernels, st.CTAs, st.StallCycles, st.WaitCycles)}, nil
	}
	return nil, fmt.Errorf("show %q: no such component (kd, sms, streams, launchpath, groups, devstreams, contention, ctas, scoreboard, klap, host, syncs, hostio, sites, tasks, totals, legacy, issue, occupancy, body)", what)
}
