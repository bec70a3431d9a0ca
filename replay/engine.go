package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/trace"
)

// Options are the knobs of one replay besides the trace.
type Options struct {
	Config model.Config
	Policy Policy
	// Progress, when set, is called now and then with the number of CTAs
	// finished so far, so a command can show that a long run is alive.
	Progress func(ctasDone int64)
}

// Run replays the trace open returns under opt and streams result rows into
// sink. It returns the run's totals. Errors in the trace come back as they
// are (*trace.Error); a run that cannot make progress returns a
// *DeadlockError; a trace the GPU cannot run at all (a CTA larger than an
// SM) returns a *ModelError.
func Run(open Opener, opt Options, sink results.Sink) (*Stats, error) {
	if err := opt.Config.Validate(); err != nil {
		return nil, err
	}
	hostSrc, err := open()
	if err != nil {
		return nil, err
	}
	defer closeSource(hostSrc)
	bodySrc, err := open()
	if err != nil {
		return nil, err
	}
	defer closeSource(bodySrc)

	e := newEngine(opt, sink)
	// Only the body cursor validates: the host cursor passes over the same
	// records first, but every launch it yields is validated by the body
	// cursor before the kernel can reach the Kernel Distributor, so checking
	// twice would only cost time. Decoding errors surface on either.
	e.host.src = hostSrc
	if s, ok := hostSrc.(interface{ Skip(...trace.Kind) }); ok {
		s.Skip(trace.KindCTA, trace.KindKernel, trace.KindAccess, trace.KindPages, trace.KindBuffer, trace.KindMemcpy)
	}
	if s, ok := hostSrc.(interface{ SkipDeviceLaunches() }); ok {
		s.SkipDeviceLaunches()
	}
	if s, ok := bodySrc.(interface{ ReuseRecords() }); ok {
		s.ReuseRecords() // the body cursor copies what it keeps
	}
	e.body = newBodyCursor(trace.NewValidator(bodySrc))
	if err := e.start(); err != nil {
		return nil, err
	}
	if err := e.loop(); err != nil {
		return nil, err
	}
	return e.finish(), nil
}

func closeSource(s trace.Source) {
	if c, ok := s.(io.Closer); ok {
		c.Close()
	}
}

// engine is one replay's whole state.
type engine struct {
	cfg      model.Config
	pol      Policy
	sink     results.Sink
	progress func(int64)

	q    eventQueue
	now  int64
	host hostCursor
	body *bodyCursor

	hostFree   int64     // when the host thread can issue again
	nextHost   *Kernel   // issued next by the host, nil when none left
	hostKernel []*Kernel // host kernels issued, body not loaded yet (issue order)
	hostLoaded int       // host kernels whose bodies were loaded
	live       map[uint64]*Kernel
	streams    map[uint64]*stream
	waitAfter  map[uint64][]*Kernel // kernel id -> kernels waiting on it
	kdWait     []*Kernel            // stream heads waiting for a KD entry
	kdUsed     int
	kd         []*Kernel // kernels holding a KD entry, in entry order
	pending    []*Kernel // ready kernels with CTAs to place, FCFS
	readySeq   uint64
	devStreams uint64

	sms      []sm
	stalled  []*ctaRun
	runs     []*ctaRun         // every CTA state ever made, by slot (events name them so)
	freeRuns []*ctaRun         // finished CTAs' state, for reuse
	kslots   slotTable[Kernel] // kernels with an event pending
	gslots   slotTable[group]  // aggregated groups on their way to a pool
	agt      agt
	gate     Gate
	obs      Observer
	ev       CTAEvent // reused for every observer call
	placer   Placer
	sites    siteEngine
	err      error

	stats Stats
	occ   occupancy
}

// stream is a host stream: its kernels run one after another.
type stream struct {
	queue []*Kernel // issued, waiting behind the head
	head  *Kernel   // the kernel allowed to run, nil when idle
}

// deviceStreamBase numbers the private streams of device-launched kernels
// (each child gets its own stream) apart from host stream ids.
const deviceStreamBase = 1 << 32

func newEngine(opt Options, sink results.Sink) *engine {
	e := &engine{
		cfg:       opt.Config,
		pol:       opt.Policy,
		sink:      sink,
		progress:  opt.Progress,
		live:      map[uint64]*Kernel{},
		streams:   map[uint64]*stream{},
		waitAfter: map[uint64][]*Kernel{},
		sms:       make([]sm, opt.Config.GPU.SMs),
		gate:      opt.Policy.Gate,
		obs:       opt.Policy.Observer,
		placer:    opt.Policy.Placer,
	}
	for i := range e.sms {
		e.sms[i].id = i
	}
	if e.placer == nil {
		e.placer = &RoundRobin{}
	}
	e.sites = newSiteEngine(e, opt.Policy.Sites)
	e.agt = newAGT(opt.Config.DTBL.AGTEntries)
	e.occ = newOccupancy(opt.Config, sink)
	return e
}

// start reads the header and schedules the host's first launch.
func (e *engine) start() error {
	h, err := e.body.readHeader()
	if err != nil {
		return err
	}
	e.body.clk = clock{ratio: e.cfg.GPU.ClockMHz / h.ClockMHz}
	return e.readNextHost()
}

// loop fires events in (cycle, seq) order until none are left.
func (e *engine) loop() error {
	var batch int
	for e.q.len() > 0 {
		ev := e.q.pop()
		e.now = ev.at
		e.fire(ev)
		if e.err != nil {
			return e.err
		}
		if e.q.len() == 0 || e.q.h[0].at != e.now {
			e.settle()
			if e.err != nil {
				return e.err
			}
		}
		if batch++; batch&0xffff == 0 && e.progress != nil {
			e.progress(e.stats.CTAs)
		}
	}
	if len(e.live) > 0 || e.nextHost != nil {
		return e.deadlock()
	}
	return nil
}

func (e *engine) fire(ev event) {
	switch ev.kind {
	case evHostIssue:
		e.issue(e.kernelOf(ev))
	case evArrive:
		e.arrive(e.kernelOf(ev))
	case evReady:
		e.becomeReady(e.kernelOf(ev))
	case evSite:
		e.sites.reach(e.runs[ev.ref], int(ev.warp))
	case evCTAEnd:
		e.ctaEnd(e.runs[ev.ref])
	case evStart:
		e.tryStart(e.runs[ev.ref])
	case evJoin:
		e.join(e.gslots.take(ev.ref))
	}
}

// settle runs the decisions that depend on the state at the end of a cycle:
// stalled CTAs re-ask the gate, then the placer fills free room.
func (e *engine) settle() {
	if len(e.stalled) > 0 {
		e.retryStalled()
	}
	if len(e.pending) > 0 {
		e.placer.Place(&Dispatch{e: e})
		e.compactPending()
	}
}

func (e *engine) compactPending() {
	j := 0
	for _, k := range e.pending {
		if k.Remaining() > 0 {
			e.pending[j] = k
			j++
		} else {
			k.marked = false
		}
	}
	clear(e.pending[j:])
	e.pending = e.pending[:j]
}

// scheduleKernel schedules a kernel event. A kernel has at most one event
// pending (issue, then arrival, then readiness), so it holds a slot in the
// kernel table only while one is.
func (e *engine) scheduleKernel(at int64, kind eventKind, k *Kernel) {
	e.q.push(event{at: at, kind: kind, ref: e.kslots.put(k)})
}

// kernelOf returns a kernel event's kernel and frees its slot.
func (e *engine) kernelOf(ev event) *Kernel { return e.kslots.take(ev.ref) }

// scheduleGroup schedules an aggregated group's arrival in its target's
// pool.
func (e *engine) scheduleGroup(at int64, g *group) {
	e.q.push(event{at: at, kind: evJoin, ref: e.gslots.put(g)})
}

// scheduleCTA schedules a CTA event; warp matters for launch sites.
func (e *engine) scheduleCTA(at int64, kind eventKind, c *ctaRun, warp int) {
	e.q.push(event{at: at, kind: kind, ref: c.slot, warp: int32(warp)})
}

func (e *engine) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// readNextHost fetches the next host launch and schedules its issue.
func (e *engine) readNextHost() error {
	l, err := e.host.next()
	if err != nil || l == nil {
		e.nextHost = nil
		return err
	}
	k := &Kernel{id: l.Kernel, host: true, stream: l.Stream, after: l.After, startCycle: -1}
	e.nextHost = k
	e.hostKernel = append(e.hostKernel, k)
	at := max(e.body.clk.scale(l.T), e.hostFree)
	e.scheduleKernel(at, evHostIssue, k)
	return nil
}

// issue is the host thread issuing a launch: it is busy for lat.host_issue
// and the kernel reaches the KMU lat.host_launch after that.
func (e *engine) issue(k *Kernel) {
	k.launchCycle = e.now
	e.hostFree = e.now + e.cfg.Lat.HostIssue
	e.live[k.id] = k
	e.scheduleKernel(e.hostFree+e.cfg.Lat.HostLaunch, evArrive, k)
	if err := e.readNextHost(); err != nil {
		e.fail(err)
	}
}

// arrive puts a kernel that reached the KMU behind its stream's head.
func (e *engine) arrive(k *Kernel) {
	if !k.host {
		e.privateStream(k)
		e.headOfStream(k)
		return
	}
	s := e.streams[k.stream]
	if s == nil {
		s = &stream{}
		e.streams[k.stream] = s
	}
	if s.head != nil {
		s.queue = append(s.queue, k)
		return
	}
	s.head = k
	e.headOfStream(k)
}

// privateStream gives a device-launched kernel a stream of its own.
func (e *engine) privateStream(k *Kernel) {
	e.devStreams++
	k.stream = deviceStreamBase + e.devStreams
}

// headOfStream is a kernel whose stream lets it run; it still waits for its
// `after` kernels, then for a Kernel Distributor entry.
func (e *engine) headOfStream(k *Kernel) {
	k.state = kWaiting
	for _, id := range k.after {
		if _, running := e.live[id]; running {
			e.waitAfter[id] = append(e.waitAfter[id], k)
			return
		}
	}
	e.kdWait = append(e.kdWait, k)
	e.fillKD()
}

// fillKD hands free Kernel Distributor entries to waiting kernels, oldest
// first; each takes lat.kernel_dispatch to arrive.
func (e *engine) fillKD() {
	for e.kdUsed < e.cfg.GPU.MaxKernels && len(e.kdWait) > 0 {
		k := e.kdWait[0]
		e.kdWait[0] = nil
		e.kdWait = e.kdWait[1:]
		if k.decl == nil {
			if err := e.body.load(k, e.hostByIndex); err != nil {
				e.fail(err)
				return
			}
		}
		e.enterKD(k, e.now+e.cfg.Lat.KernelDispatch)
	}
}

// enterKD gives k a Kernel Distributor entry now; its CTAs may be placed
// from readyAt on.
func (e *engine) enterKD(k *Kernel, readyAt int64) {
	if err := e.prepare(k); err != nil {
		e.fail(err)
		return
	}
	e.kdUsed++
	e.kd = append(e.kd, k)
	k.inKD = true
	k.state = kDispatched
	e.scheduleKernel(readyAt, evReady, k)
}

// hostByIndex returns the i-th host kernel issued, for the body cursor to
// match segments with; bodies are loaded in issue order, so the slice is
// trimmed as it goes.
func (e *engine) hostByIndex(i int) *Kernel {
	j := i - e.hostLoaded
	if j < 0 || j >= len(e.hostKernel) {
		return nil
	}
	k := e.hostKernel[j]
	if j == 0 {
		e.hostKernel[0] = nil
		e.hostKernel = e.hostKernel[1:]
		e.hostLoaded++
	}
	return k
}

// prepare computes what one CTA of k occupies and checks it can run at all.
func (e *engine) prepare(k *Kernel) error {
	if k.need.warps > 0 {
		return nil
	}
	g := &e.cfg.GPU
	d := k.decl
	k.need = need{
		warps: warpsPerCTA(d),
		regs:  d.Regs * warpsPerCTA(d) * model.WarpSize,
		smem:  d.Smem,
	}
	var empty sm
	if !empty.fits(g, k.need) {
		return &ModelError{Msg: fmt.Sprintf("kernel %d (%s): one CTA (%d threads, %d regs/thread, %d B smem) does not fit on an empty SM of %s (max_threads_per_sm %d, regs_per_sm %d, smem_per_sm %d)",
			k.id, d.Name, d.Threads(), d.Regs, d.Smem, g.Name, g.MaxThreadsPerSM, g.RegsPerSM, g.SmemPerSM)}
	}
	return nil
}

// becomeReady is a kernel arriving in the Kernel Distributor: from now on
// the SMX scheduler may place its CTAs.
func (e *engine) becomeReady(k *Kernel) {
	k.state = kReady
	k.readyCycle = e.now
	e.readySeq++
	k.ready = e.readySeq
	e.mark(k)
}

// complete finishes a kernel whose CTAs and children are all done, and
// everything its completion releases: its stream successor, kernels
// waiting on it, and whoever launched it.
func (e *engine) complete(k *Kernel) {
	k.state = kComplete
	k.endCycle = e.now
	e.emitKernel(k)
	e.body.forget(k)
	k.ctas = nil
	if k.host {
		delete(e.live, k.id)
		e.nextInStream(k)
		for _, w := range e.waitAfter[k.id] {
			e.headOfStream(w)
		}
		delete(e.waitAfter, k.id)
	}
	if !k.host {
		e.release(k.owner)
	}
}

// maybeComplete moves a kernel on once its own work is done. When its CTAs
// and the groups coalesced into it have finished, it has nothing left to
// distribute and gives its Kernel Distributor entry back (as GPGPU-Sim
// does: children are tracked apart from the entry, so nested launches
// cannot starve for entries); when its children are done too, it completes.
func (e *engine) maybeComplete(k *Kernel) {
	if k.state != kReady || k.done < k.total || k.openGroups() > 0 {
		return
	}
	if k.inKD {
		k.inKD = false
		e.leaveKD(k)
		e.fillKD()
	}
	if k.kids == 0 {
		e.complete(k)
	}
}

func (e *engine) leaveKD(k *Kernel) {
	for i, x := range e.kd {
		if x == k {
			e.kd = append(e.kd[:i], e.kd[i+1:]...)
			e.kdUsed--
			return
		}
	}
}

func (e *engine) nextInStream(k *Kernel) {
	s := e.streams[k.stream]
	s.head = nil
	if len(s.queue) == 0 {
		delete(e.streams, k.stream)
		return
	}
	s.head = s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	e.headOfStream(s.head)
}

// ModelError says the configured GPU cannot run the trace at all.
type ModelError struct{ Msg string }

func (m *ModelError) Error() string { return m.Msg }

// IsInputError reports whether err is the user's to fix (a bad trace, a
// trace the GPU cannot run, a deadlock) rather than an internal failure.
func IsInputError(err error) bool {
	var te *trace.Error
	var me *ModelError
	var de *DeadlockError
	return errors.As(err, &te) || errors.As(err, &me) || errors.As(err, &de)
}
