package replay

// The host side of a replay: one host thread issuing launches in trace
// order, streams that run their kernels in order, and `after` dependencies.

// stream is a host stream: its kernels run one after another.
type stream struct {
	queue []*Kernel // issued, waiting behind the head
	head  *Kernel   // the kernel allowed to run, nil when idle
}

// deviceStreamBase numbers the private streams of device-launched kernels
// (each child gets its own stream) apart from host stream ids.
const deviceStreamBase = 1 << 32

// readNextHost fetches the next host launch and schedules its issue.
func (e *engine) readNextHost() error {
	l, err := e.host.next()
	if err != nil || l == nil {
		e.nextHost = nil
		return err
	}
	k := &Kernel{id: l.Kernel, host: true, stream: l.Stream, after: l.After, order: e.hostOrder, startCycle: -1}
	e.hostOrder++
	e.nextHost = k
	e.hostKernel = append(e.hostKernel, k)
	at := max(e.io.launchBase(int(k.order))+e.body.clk.scale(l.T), e.hostFree)
	e.scheduleKernel(at, evHostIssue, k)
	return nil
}

// issue is the host thread issuing a launch: it is busy for lat.host_issue
// and the kernel reaches the KMU lat.host_launch after that.
func (e *engine) issue(k *Kernel) {
	k.launchCycle = e.now
	if e.firstLaunch < 0 {
		e.firstLaunch = e.now
	}
	e.hostFree = e.now + e.cfg.Lat.HostIssue
	e.live[k.id] = k
	e.scheduleKernel(e.hostFree+e.cfg.Lat.HostLaunch, evArrive, k)
	if err := e.readNextHost(); err != nil {
		e.fail(err)
	}
}

// arrive puts a kernel that reached the KMU behind its stream's head.
func (e *engine) arrive(k *Kernel) {
	if !k.host || e.pol.OwnStreams || e.pol.IO == IOPaged {
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

func (e *engine) nextInStream(k *Kernel) {
	s := e.streams[k.stream]
	if s == nil {
		return // a private stream: nothing queues behind k
	}
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
