package taskrun

import (
	"fmt"
	"math/bits"

	"github.com/gpureplay/gpureplay/internal/eventq"
)

// step is where an MTB's scheduler warp is with its current task. It works
// on one task at a time (Algorithm 1): it reads the entry, takes a barrier
// (line 19), allocates shared memory (lines 21–24) and places the warps
// (pSched, Algorithm 2), spinning at whichever step lacks resources.
type step uint8

const (
	stepIdle    step = iota // no spawned task to schedule
	stepRead                // reading the entry: pagoda.sched_cycles
	stepBarrier             // waiting for a named barrier
	stepSmem                // waiting for a shared-memory block
	stepPlace               // waiting for executor warps
)

// mtb is one MasterKernel thread block: a scheduler warp, 31 executor
// warps (the WarpTable's exec flags), 16 named barriers and a buddy heap.
type mtb struct {
	sm       int
	ready    fifo   // spawned tasks of this column, in spawn order
	step     step   // what the scheduler warp is doing
	cur      int32  // the task it works on, when not idle
	free     uint32 // bit w: executor warp w is free
	barriers uint16 // bit b: named barrier b is free
	heap     buddy
	marked   []int32 // blocks finished tasks marked for the lazy free
}

func newMTB(sm int, smem int64) mtb {
	return mtb{
		sm:       sm,
		free:     1<<executorWarps - 1,
		barriers: 1<<namedBarriers - 1,
		heap:     newBuddy(smem),
	}
}

// schedKick starts MTB m's scheduler warp on its next spawned task if it
// is idle.
func (p *Pagoda) schedKick(m int32) {
	b := &p.mtbs[m]
	if b.step != stepIdle || b.ready.len() == 0 {
		return
	}
	b.cur = b.ready.pop()
	b.step = stepRead
	p.q.Push(eventq.Event{At: satAdd(p.now, p.sched), Kind: uint8(evSchedDone), Aux: m})
}

// entryRead: the scheduler warp of MTB m has spent sched_cycles on its
// task's entry and now acquires its resources.
func (p *Pagoda) entryRead(m int32) {
	p.mtbs[m].step = stepBarrier
	p.schedule(m)
}

// schedule moves MTB m's scheduler warp as far as resources allow: barrier,
// then shared memory, then warps. It is called again whenever a warp of
// the MTB finishes, which is the only thing that frees any of them.
func (p *Pagoda) schedule(m int32) {
	b := &p.mtbs[m]
	t := p.tasks.at(b.cur)
	if b.step == stepBarrier {
		if t.sync {
			if b.barriers == 0 {
				return
			}
			id := bits.TrailingZeros16(b.barriers)
			b.barriers &^= 1 << id
			t.barrier = int8(id)
		}
		b.step = stepSmem
	}
	if b.step == stepSmem {
		if t.smem > 0 {
			b.sweep()
			node, ok := b.heap.alloc(t.smem)
			if !ok {
				return
			}
			t.block = node
		}
		b.step = stepPlace
	}
	p.place(m, b.cur)
	if t.placed == t.warps {
		b.step = stepIdle
		p.schedKick(m)
	}
}

// sweep frees the blocks finished tasks marked (deallocMarkedSM,
// Algorithm 1 line 22): only the scheduler warp touches the tree, so
// executor warps just mark, and the scheduler frees before it allocates.
func (b *mtb) sweep() {
	for _, n := range b.marked {
		b.heap.free(n)
	}
	b.marked = b.marked[:0]
}

// place gives task i's unplaced warps the free executor warps of MTB m,
// lowest first. A warp of an ordinary task starts at once; a sync task's
// warps are held until the last is placed and then start together.
func (p *Pagoda) place(m int32, i int32) {
	b := &p.mtbs[m]
	t := p.tasks.at(i)
	started := 0
	for t.placed < t.warps && b.free != 0 {
		w := bits.TrailingZeros32(b.free)
		b.free &^= 1 << w
		if t.sync {
			t.reserved |= 1 << w
		} else {
			p.startWarp(i, t.placed, w)
			started++
		}
		t.placed++
	}
	if t.sync && t.placed == t.warps {
		for k := int32(0); t.reserved != 0; k++ {
			w := bits.TrailingZeros32(t.reserved)
			t.reserved &^= 1 << w
			p.startWarp(i, k, w)
			started++
		}
	}
	if started == 0 {
		return
	}
	if !t.started {
		t.started = true
		p.l.TaskStarted(t.id, p.now, b.sm)
	}
	p.l.WarpsBusy(b.sm, p.now, started)
}

// startWarp runs warp k of task i on executor warp w.
func (p *Pagoda) startWarp(i, k int32, w int) {
	t := p.tasks.at(i)
	p.share.run(&p.q, p.now, p.mtbs[t.mtb].sm, t.cycles[k], t.demand, evWarpEnd, i, int32(w))
}

// warpEnd: a warp of task i finished on executor warp w, which is free
// again (the exec flag reset, Algorithm 1 line 43).
func (p *Pagoda) warpEnd(i, w int32) {
	t := p.tasks.at(i)
	m := t.mtb
	b := &p.mtbs[m]
	b.free |= 1 << w
	p.l.WarpsBusy(b.sm, p.now, -1)
	t.left--
	if t.left == 0 {
		p.finish(i)
	}
	if b.step >= stepBarrier {
		p.schedule(m)
	}
}

// Stuck describes each MTB whose scheduler waits, and the host if it has
// tasks it cannot spawn; nil when no task is in flight.
func (p *Pagoda) Stuck() []string {
	if p.tasks.live() == 0 {
		return nil
	}
	var w []string
	if h := &p.host; h.queue.len() > 0 {
		why := "an idle spawner"
		switch {
		case h.polling:
			why = "a free TaskTable entry (every one is in use)"
		case h.copying:
			why = "a TaskTable copy-back"
		case h.spawns > 0:
			why = "the spawns under way"
		}
		w = append(w, fmt.Sprintf("host: %d tasks wait for %s", h.queue.len(), why))
	}
	for m := range p.mtbs {
		if s := p.mtbWaits(int32(m)); s != "" {
			w = append(w, s)
		}
	}
	if len(w) == 0 {
		w = []string{fmt.Sprintf("%d tasks in flight with no event left", p.tasks.live())}
	}
	return w
}

// mtbWaits says what MTB m's scheduler warp waits for, "" if it is idle.
func (p *Pagoda) mtbWaits(m int32) string {
	b := &p.mtbs[m]
	if b.step == stepIdle {
		return ""
	}
	t := p.tasks.at(b.cur)
	var why string
	switch b.step {
	case stepRead:
		why = "is read"
	case stepBarrier:
		why = fmt.Sprintf("waits for a named barrier (all %d in use)", namedBarriers)
	case stepSmem:
		why = fmt.Sprintf("waits for %d bytes of shared memory (largest free block %d)", t.smem, b.heap.largestFree())
	case stepPlace:
		why = fmt.Sprintf("waits for %d of its %d warps to get an executor warp", t.warps-t.placed, t.warps)
	}
	s := fmt.Sprintf("MTB %d (SM %d): task %d %s", m, b.sm, t.id, why)
	if n := b.ready.len(); n > 0 {
		s += fmt.Sprintf(", %d spawned tasks behind it", n)
	}
	return s
}
