package replay

import (
	"iter"
	"maps"

	"github.com/gpureplay/gpureplay/trace"
)

// hostStreams is the host's streams and `after` dependencies: each
// stream's operations in order (a head allowed to run, the rest queued
// behind it), the task groups of policies that give each its own stream,
// the private streams of device kernels, and the host kernels running,
// with the kernels waiting `after` them.
//
// It owns that state and nothing else: it never starts a copy, takes a
// Kernel Distributor entry or schedules an event. The engine (host.go:
// enterStream, nextInStream, headOfStream; distributor.go: complete) does,
// with the heads and waiters it returns.
type hostStreams struct {
	own       bool // every task group on a stream of its own (Policy.OwnStreams, or the CRCS scoreboard's)
	byID      map[uint64]*stream
	groups    taskGroups
	private   uint64               // private streams numbered so far
	live      map[uint64]*Kernel   // host kernels issued and not complete, by id
	waitAfter map[uint64][]*Kernel // kernel id -> kernels waiting on it
}

// stream is a host stream: its kernels run one after another.
type stream struct {
	queue []*Kernel // issued, waiting behind the head
	head  *Kernel   // the kernel allowed to run, nil when idle
}

// deviceStreamBase numbers the private streams of device-launched kernels
// (each child gets its own stream) apart from host stream ids.
const deviceStreamBase = 1 << 32

func newHostStreams(own bool) hostStreams {
	return hostStreams{own: own, byID: map[uint64]*stream{}, groups: taskGroups{},
		live: map[uint64]*Kernel{}, waitAfter: map[uint64][]*Kernel{}}
}

// enter puts host operation k behind its stream's head (its task group's
// stream, where each has its own) and reports whether k heads it now.
func (s *hostStreams) enter(k *Kernel) bool {
	if s.own {
		k.stream = s.groups.stream(k, s.fresh)
	}
	st := s.byID[k.stream]
	if st == nil {
		st = &stream{}
		s.byID[k.stream] = st
	}
	if st.head != nil {
		st.queue = append(st.queue, k)
		return false
	}
	st.head = k
	return true
}

// next is host operation k, its stream's head, complete: it returns the
// operation that heads the stream now, or nil, with idle set when k's
// stream is left empty (false for a private stream, which was never
// entered).
func (s *hostStreams) next(k *Kernel) (head *Kernel, idle bool) {
	st := s.byID[k.stream]
	if st == nil {
		return nil, false // a private stream: nothing queues behind k
	}
	st.head = nil
	if len(st.queue) == 0 {
		delete(s.byID, k.stream)
		return nil, true
	}
	st.head = st.queue[0]
	st.queue[0] = nil
	st.queue = st.queue[1:]
	return st.head, false
}

// headOf is the operation heading stream id, or nil.
func (s *hostStreams) headOf(id uint64) *Kernel {
	if st := s.byID[id]; st != nil {
		return st.head
	}
	return nil
}

// privateStream gives a device-launched kernel a stream of its own.
func (s *hostStreams) privateStream(k *Kernel) { k.stream = s.fresh() }

// fresh numbers a fresh private stream.
func (s *hostStreams) fresh() uint64 {
	s.private++
	return deviceStreamBase + s.private
}

// issued is host kernel k issued: it runs until complete.
func (s *hostStreams) issued(k *Kernel) { s.live[k.id] = k }

// running reports whether host kernel id is issued and not complete.
func (s *hostStreams) running(id uint64) bool {
	_, ok := s.live[id]
	return ok
}

// blockedBy is the first kernel k waits `after` that is still running.
func (s *hostStreams) blockedBy(k *Kernel) (uint64, bool) {
	for _, id := range k.after() {
		if s.running(id) {
			return id, true
		}
	}
	return 0, false
}

// waitFor has k wait until kernel id completes.
func (s *hostStreams) waitFor(id uint64, k *Kernel) {
	s.waitAfter[id] = append(s.waitAfter[id], k)
}

// completed is host kernel k complete: it returns the kernels that waited
// `after` it.
func (s *hostStreams) completed(k *Kernel) []*Kernel {
	delete(s.live, k.id)
	w := s.waitAfter[k.id]
	delete(s.waitAfter, k.id)
	return w
}

// busy reports whether a host kernel is issued and not complete.
func (s *hostStreams) busy() bool { return len(s.live) > 0 }

// liveKernels yields the host kernels issued and not complete.
func (s *hostStreams) liveKernels() iter.Seq[*Kernel] { return maps.Values(s.live) }

// taskGroups splits each trace stream into task groups for policies that
// give every host kernel a stream of its own (HyperQ tasks, CRCS): a group
// is the copies to the GPU before a kernel, the kernel, and the copies back
// after it, so a task's copies stay ordered with its kernel while tasks
// run apart. A group ends where a copy to the GPU or a kernel follows a
// kernel or a copy back.
type taskGroups map[uint64]*taskGroup

type taskGroup struct {
	stream uint64
	closed bool // a kernel or a copy back has joined: the next H2D or kernel starts a group
}

func (g taskGroups) stream(k *Kernel, fresh func() uint64) uint64 {
	cur := g[k.stream]
	opens := k.copyOp() == nil || k.copyOp().dir == trace.DirH2D
	if cur == nil || (cur.closed && opens) {
		cur = &taskGroup{stream: fresh()}
		g[k.stream] = cur
	}
	if !opens || k.copyOp() == nil {
		cur.closed = true
	}
	return cur.stream
}
