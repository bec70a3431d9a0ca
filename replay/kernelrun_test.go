package replay

import "testing"

// A completed device kernel's running parts go to the next kernel to
// enter the Kernel Distributor, reset, and the completed kernel loses
// them, so that a read of them after fails at once: the replay tests of
// every policy run through this, so a late read would fail there. A
// kernel still counted as an SM's kernel (sms) keeps them, and so does
// one still in the FCFS list (marked), which reads them till the
// cycle's end.
func TestKernelRunsReuse(t *testing.T) {
	var r kernelRuns
	a, b, c, d := &Kernel{}, &Kernel{}, &Kernel{}, &Kernel{}
	r.start(a)
	parts := a.kernelRun
	a.next, a.done, a.startCycle, a.ready, a.pool, a.rare = 3, 3, 5, 7, &pool{}, &kernelRare{}
	a.marked = true
	r.done(a)
	r.start(b)
	if b.kernelRun == parts || a.kernelRun != parts || a.next != 3 {
		t.Fatalf("a kernel entering took the parts of a completed kernel still listed")
	}
	a.marked = false
	r.done(a)
	r.start(c)
	if c.kernelRun != parts {
		t.Fatalf("a kernel entering did not reuse the completed kernel's parts")
	}
	if p := c.kernelRun; p.next != 0 || p.done != 0 || p.startCycle != -1 || p.pool != nil || p.rare != nil || p.order != -1 {
		t.Errorf("reused parts not reset: %+v", *p)
	}
	if a.kernelRun != nil {
		t.Errorf("the completed kernel kept its parts after their reuse")
	}

	b.sms = 1 // still the kernel of an SM's resident CTAs
	held := b.kernelRun
	r.done(b)
	r.start(d)
	if d.kernelRun == held || b.kernelRun != held {
		t.Errorf("parts of a kernel an SM still counts were reused")
	}

	h := &Kernel{host: true, kernelRun: &kernelRun{next: 5}}
	r.start(h)
	if h.next != 5 {
		t.Errorf("a host operation's parts were replaced at its entry")
	}
}

// Remaining answers for a device kernel without running parts, as it did
// when every Kernel had them: its whole grid before its entry, none once
// complete.
func TestRemainingWithoutRunningParts(t *testing.T) {
	k := &Kernel{total: 4}
	if got := k.Remaining(); got != 4 {
		t.Errorf("before its entry: Remaining %d, want 4", got)
	}
	k.state = kComplete
	if got := k.Remaining(); got != 0 {
		t.Errorf("complete, its parts reused: Remaining %d, want 0", got)
	}
}

// Freed parts are taken last freed first, each once.
func TestKernelRunsOnce(t *testing.T) {
	var r kernelRuns
	x, y := &Kernel{}, &Kernel{}
	r.start(x)
	r.start(y)
	px, py := x.kernelRun, y.kernelRun
	r.done(x)
	r.done(y)
	p, q, s := &Kernel{}, &Kernel{}, &Kernel{}
	r.start(p)
	r.start(q)
	r.start(s)
	if p.kernelRun != py || q.kernelRun != px || s.kernelRun == px || s.kernelRun == py {
		t.Fatalf("entries did not take the two freed parts, once each")
	}
}

// A device kernel completed while an SM still counted it as its kernel
// keeps its parts until the last such SM empties (leftSM), and gives
// them up then; one not complete, or a host operation, keeps them.
func TestKernelRunsLeftSM(t *testing.T) {
	var r kernelRuns
	k, running, host := &Kernel{}, &Kernel{}, &Kernel{host: true, kernelRun: &kernelRun{}}
	r.start(k)
	r.start(running)
	parts := k.kernelRun
	k.sms, k.state = 2, kComplete
	r.done(k)
	k.sms--
	r.leftSM(k) // one SM still counts it
	running.sms = 1
	running.sms--
	r.leftSM(running)
	host.sms, host.state = 1, kComplete
	host.sms--
	r.leftSM(host)
	a := &Kernel{}
	r.start(a)
	if a.kernelRun == parts || a.kernelRun == running.kernelRun || a.kernelRun == host.kernelRun {
		t.Fatalf("an entry took parts still held: by an SM, a running kernel or a host operation")
	}
	k.sms--
	r.leftSM(k)
	b := &Kernel{}
	r.start(b)
	if b.kernelRun != parts || k.kernelRun != nil {
		t.Fatalf("the parts of a completed kernel whose last SM emptied did not go to the next entry")
	}
}
