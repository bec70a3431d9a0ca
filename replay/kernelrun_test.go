package replay

import "testing"

// A completed device kernel's running parts go to a kernel entering the
// Kernel Distributor in a later cycle, not the same one (the FCFS list
// still reads them until the cycle's end), zeroed, and the completed
// kernel loses them, so that a read of them after fails at once: the
// replay tests of every policy run through this, so a late read would
// fail there. A kernel still counted as an SM's kernel (sms) keeps them.
func TestKernelRunsReuse(t *testing.T) {
	var r kernelRuns
	a, b, c, d := &Kernel{}, &Kernel{}, &Kernel{}, &Kernel{}
	r.start(a, 10)
	parts := a.kernelRun
	a.next, a.done, a.kids, a.ready, a.marked = 3, 3, 0, 7, true
	r.done(a, 20)
	r.start(b, 20)
	if b.kernelRun == parts || a.kernelRun != parts || a.next != 3 {
		t.Fatalf("a kernel entering in the cycle a kernel completed in took its parts")
	}
	r.start(c, 21)
	if c.kernelRun != parts {
		t.Fatalf("a kernel entering a cycle later did not reuse the completed kernel's parts")
	}
	if *c.kernelRun != (kernelRun{startCycle: -1, order: -1}) {
		t.Errorf("reused parts not zeroed: %+v", *c.kernelRun)
	}
	if a.kernelRun != nil {
		t.Errorf("the completed kernel kept its parts after their reuse")
	}

	b.sms = 1 // still the kernel of an SM's resident CTAs
	held := b.kernelRun
	r.done(b, 30)
	r.start(d, 40)
	if d.kernelRun == held || b.kernelRun != held {
		t.Errorf("parts of a kernel an SM still counts were reused")
	}

	h := &Kernel{host: true, kernelRun: &kernelRun{next: 5}}
	r.start(h, 50)
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

// Kernels completed in earlier cycles and in the current one wait in one
// list (kernelRuns.ended, the current cycle's last): an entry takes only
// the earlier ones' parts, each once, and the current cycle's once the
// cycle is over.
func TestKernelRunsMixedCycles(t *testing.T) {
	var r kernelRuns
	x, y, z := &Kernel{}, &Kernel{}, &Kernel{}
	for _, k := range []*Kernel{x, y, z} {
		r.start(k, 1)
	}
	old := map[*kernelRun]bool{x.kernelRun: true, y.kernelRun: true}
	fresh := z.kernelRun
	r.done(x, 5)
	r.done(y, 5)
	r.done(z, 6)
	p, q, s, u := &Kernel{}, &Kernel{}, &Kernel{}, &Kernel{}
	r.start(p, 6)
	r.start(q, 6)
	if !old[p.kernelRun] || !old[q.kernelRun] || p.kernelRun == q.kernelRun {
		t.Fatalf("entries in cycle 6 did not take the parts of the two kernels completed in cycle 5, once each")
	}
	r.start(s, 6)
	if s.kernelRun == fresh || z.kernelRun != fresh {
		t.Fatalf("an entry took the parts of a kernel completed in its own cycle")
	}
	r.start(u, 7)
	if u.kernelRun != fresh || z.kernelRun != nil {
		t.Fatalf("an entry a cycle later did not take the parts of the kernel completed in cycle 6")
	}
	if len(r.ended) != 0 {
		t.Errorf("%d kernels left in the list, all taken", len(r.ended))
	}
}

// A device kernel completed while an SM still counted it as its kernel
// keeps its parts until the last such SM empties (leftSM), and gives
// them up then, for an entry in a later cycle; one not complete, or a
// host operation, keeps them.
func TestKernelRunsLeftSM(t *testing.T) {
	var r kernelRuns
	k, running, host := &Kernel{}, &Kernel{}, &Kernel{host: true, kernelRun: &kernelRun{}}
	r.start(k, 1)
	r.start(running, 1)
	parts := k.kernelRun
	k.sms, k.state = 2, kComplete
	r.done(k, 5)
	k.sms--
	r.leftSM(k, 6) // one SM still counts it
	running.sms = 1
	running.sms--
	r.leftSM(running, 6)
	host.sms, host.state = 1, kComplete
	host.sms--
	r.leftSM(host, 6)
	a := &Kernel{}
	r.start(a, 7)
	if a.kernelRun == parts || a.kernelRun == running.kernelRun || a.kernelRun == host.kernelRun {
		t.Fatalf("an entry took parts still held: by an SM, a running kernel or a host operation")
	}
	k.sms--
	r.leftSM(k, 8)
	b, c := &Kernel{}, &Kernel{}
	r.start(b, 8)
	r.start(c, 9)
	if b.kernelRun == parts || c.kernelRun != parts || k.kernelRun != nil {
		t.Fatalf("the parts of a completed kernel whose last SM emptied in cycle 8 did not go to the entry of cycle 9 alone")
	}
}
