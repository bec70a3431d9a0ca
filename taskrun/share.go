package taskrun

import (
	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// evShare is the contention model's wake-up for SM ref, generation aux,
// in either runtime's queue (its kinds start at 1 and stay below it).
const evShare kind = 64

// workShare runs task warps that record a demand through the contention
// model (package internal/contention), the component the replay engine's
// CTAs use: they share their SM's issue width and the GPU's DRAM bandwidth
// with the other task warps. Warps without demand keep their wall-time
// events. A finished job gives back the event its warp would have had
// (ref, aux), so a runtime handles it as it always has.
type workShare struct {
	m *contention.Model
}

// newWorkShare is nil (wall time for every warp) when cfg turns the model
// off; wake-ups go into q.
func newWorkShare(cfg model.Config, q *eventq.Queue) *workShare {
	if cfg.Model.Contention != model.On {
		return nil
	}
	g := cfg.GPU
	return &workShare{m: contention.New(g.SMs, g.IssueWidth, g.DRAMBytesPerCycle(), func(sm int, at int64, gen uint32) {
		q.Push(eventq.Event{At: at, Kind: uint8(evShare), Ref: int32(sm), Aux: int32(gen)})
	})}
}

// run schedules work cycles of a warp on SM sm: as the event (k, ref, aux)
// at now + work when s is nil or the warp records no demand, else as a job
// whose end gives (ref, aux) back from wake (the job's ref holds both).
func (s *workShare) run(q *eventq.Queue, now int64, sm int, work int64, d contention.Demand, k kind, ref, aux int32) {
	if s == nil || d.None() {
		q.Push(eventq.Event{At: satAdd(now, work), Kind: uint8(k), Ref: ref, Aux: aux})
		return
	}
	s.m.Start(now, sm, float64(work), d, uint64(uint32(ref))|uint64(uint32(aux))<<32)
}

// wake handles the model's wake-up ev, calling done for each warp that
// finished.
func (s *workShare) wake(now int64, ev eventq.Event, done func(ref, aux int32)) {
	refs, lo := s.m.Wake(now, int(ev.Ref), uint32(ev.Aux))
	for _, x := range refs[lo:] {
		done(int32(uint32(x)), int32(uint32(x>>32)))
	}
}

// settle ends a cycle of the runtime's loop: when the queue holds nothing
// more for cycle now, the model recomputes its rates.
func (s *workShare) settle(q *eventq.Queue, now int64) {
	if s != nil && (q.Len() == 0 || q.Peek() != now) {
		s.m.Settle(now)
	}
}

// utilization is the model's use of issue slots and DRAM bandwidth over
// span cycles ending at now; ok is false when the model is off.
func (s *workShare) utilization(now, span int64) (issue, dram float64, ok bool) {
	if s == nil {
		return 0, 0, false
	}
	issue, dram = s.m.Utilization(now, span)
	return issue, dram, true
}

// Utilization is the time-averaged share of the GPU's issue slots and DRAM
// bandwidth the task warps used over span cycles ending at now, under the
// contention model; ok is false when it is off.
func (p *Pagoda) Utilization(now, span int64) (issue, dram float64, ok bool) {
	return p.share.utilization(now, span)
}

// Utilization is as Pagoda's.
func (g *GeMTC) Utilization(now, span int64) (issue, dram float64, ok bool) {
	return g.share.utilization(now, span)
}
