package taskrun

import "github.com/gpureplay/gpureplay/internal/eventq"

// host is Pagoda's host spawner threads (lat.host_threads; Fig. 1a spawns
// from OpenMP tasks) and their copy of the TaskTable (§4.2). It knows
// only what its last copy-back showed: an entry it spawned into stays
// taken in its view until a copy-back reveals that the GPU freed it. One
// thread at a time copies the table back; the others wait for it.
type host struct {
	queue    fifo  // submitted tasks not yet being spawned
	threads  int   // lat.host_threads
	spawns   int   // threads spawning a task
	copying  bool  // a copy-back is under way
	polling  bool  // the last copy-back found no free entry
	pollFrom int64 // when that copy-back arrived
	view     []int // free entries per column, as the host last saw them
	viewFree int   // sum of view
	freed    []int // entries the GPU freed per column since the last copy-back
	next     int   // the column the round-robin tries first
}

func newHost(columns, rows, threads int) host {
	h := host{threads: max(threads, 1), view: make([]int, columns), freed: make([]int, columns)}
	for c := range h.view {
		h.view[c] = rows
	}
	h.viewFree = columns * rows
	return h
}

// pick takes a free entry in the host's view, round-robin over the
// columns starting after the last one used, and returns its column, or -1
// when the host sees every entry taken.
func (h *host) pick() int {
	if h.viewFree == 0 {
		return -1
	}
	n := len(h.view)
	for i := 0; i < n; i++ {
		c := (h.next + i) % n
		if h.view[c] > 0 {
			h.view[c]--
			h.viewFree--
			h.next = (c + 1) % n
			return c
		}
	}
	return -1
}

// hostKick starts idle host threads on the next tasks, in order: a spawn
// when the view shows a free entry, otherwise a copy-back of the
// TaskTable. A thread starts no earlier than its task's Spawn cycle.
func (p *Pagoda) hostKick() {
	h := &p.host
	for !h.copying && !h.polling && h.spawns < h.threads {
		if p.flushDue() {
			p.flush(p.copyBack)
			continue
		}
		if h.queue.len() == 0 {
			return
		}
		i := h.queue.peek()
		t := p.tasks.at(i)
		start := max(t.spawn, p.now, p.life.hostFrom)
		if !t.begun {
			t.begun, t.issued = true, start // the host's work on it starts now, even if the table is full
		}
		c := h.pick()
		if c < 0 {
			h.copying = true
			p.q.Push(eventq.Event{At: satAdd(start, p.copyBack), Kind: uint8(evCopyBack)})
			return
		}
		h.queue.pop()
		h.spawns++
		t.mtb = int32(c)
		calls := satAdd(start, t.host)
		t.arrives = p.h2d.move(calls, t.copyIn)
		// With synchronous copies (Fig. 1a's cudaMemcpy) the thread
		// waits for them before it spawns.
		p.q.Push(eventq.Event{At: satAdd(satAdd(calls, t.wait), p.spawn), Kind: uint8(evSpawned), Ref: i})
	}
}

// spawned: task i's entry has reached the GPU, so its MTB's scheduler warp
// can see it.
func (p *Pagoda) spawned(i int32) {
	h := &p.host
	h.spawns--
	t := p.tasks.at(i)
	p.l.TaskIssued(t.id, t.issued)
	p.spawnDone(i)
	p.hostKick()
	p.startWaitAll()
}

// visible: task i's entry and its input are both on the GPU, so its MTB's
// scheduler warp can take it.
func (p *Pagoda) visible(i int32) {
	t := p.tasks.at(i)
	p.l.TaskSpawned(t.id, p.now)
	m := t.mtb
	p.mtbs[m].ready.push(i)
	p.schedKick(m)
}

// copiedBack: the host's view becomes the GPU's TaskTable as of now. If
// still no entry is free the host keeps polling (see entryFreed).
func (p *Pagoda) copiedBack() {
	h := &p.host
	h.copying = false
	for c, n := range h.freed {
		h.view[c] += n
		h.viewFree += n
		h.freed[c] = 0
	}
	if h.viewFree == 0 {
		if p.life.held >= 0 && !p.life.flushing {
			p.flush(0) // the copy-back showed the held task's status
			return
		}
		h.polling, h.pollFrom = true, p.now
		return
	}
	p.hostKick()
}

// entryFreed: the last warp of a task in column c cleared its entry's
// ready field. A polling host copies the table back-to-back, so it sees
// the entry at the end of the first copy-back that ends after now; a
// zero-cost copy-back sees it at once.
func (p *Pagoda) entryFreed(c int32) {
	h := &p.host
	h.freed[c]++
	if !h.polling {
		return
	}
	h.polling, h.copying = false, true
	p.q.Push(eventq.Event{At: p.copyBackAfter(h.pollFrom), Kind: uint8(evCopyBack)})
}
