package replay

import (
	"fmt"
	"iter"
	"sort"
	"strings"
)

// DeadlockError is a replay that has work left but nothing that could ever
// make progress. Waits lists what waits on what, oldest kernel first.
type DeadlockError struct {
	Cycle int64
	Waits []string
}

func (d *DeadlockError) Error() string {
	const show = 4
	w := d.Waits
	more := ""
	if len(w) > show {
		more = fmt.Sprintf("; and %d more", len(w)-show)
		w = w[:show]
	}
	return fmt.Sprintf("deadlock at cycle %d: %s%s", d.Cycle, strings.Join(w, "; "), more)
}

// deadlock explains why the live kernels cannot finish.
func (e *engine) deadlock() error {
	var ks []*Kernel
	seen := map[*Kernel]bool{}
	add := func(k *Kernel) {
		if !seen[k] && k.state != kComplete {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	for k := range e.host.liveKernels() {
		add(k)
	}
	for _, k := range e.kd.holders() {
		add(k)
	}
	for k := range e.kd.waiters() {
		add(k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].id < ks[j].id })
	d := &DeadlockError{Cycle: e.clock.now()}
	for _, k := range ks {
		if why := e.waitsOn(k); why != "" {
			d.Waits = append(d.Waits, fmt.Sprintf("kernel %d %s", k.id, why))
		}
	}
	if len(d.Waits) == 0 {
		d.Waits = []string{"no event left but work remains"}
	}
	return d
}

// waitsOn says what k waits for, or "" if it waits only on kernels that
// are themselves listed.
func (e *engine) waitsOn(k *Kernel) string {
	pol := e.opt.Policy.Name
	switch k.state {
	case kIssued:
		return e.host.waitsInStream(k)
	case kWaiting:
		if why := e.host.waitsInStream(k); why != "" {
			return why
		}
		return fmt.Sprintf("waits for a Kernel Distributor entry (all %d held by kernels %s)", e.cfg.GPU.MaxKernels, e.kd.holderIDs())
	case kReady:
		if k.done == k.total && k.kids > 0 {
			return fmt.Sprintf("has finished its CTAs and waits for %d child kernel(s) or group(s)", k.kids)
		}
		if k.done == k.total && k.groupsOpen() {
			return fmt.Sprintf("has finished its CTAs and waits for %d aggregated group(s) coalesced into it", k.openGroups())
		}
		if n, first := e.ctas.heldOf(k); n > 0 {
			if e.pages != nil && first != nil {
				if why := e.pages.blocker(first); why != "" {
					return fmt.Sprintf("has %d CTA(s) placed and waiting for pages (%s)", n, why)
				}
			}
			return fmt.Sprintf("has %d CTA(s) placed but held by policy %s", n, pol)
		}
		if k.Remaining() > 0 {
			return fmt.Sprintf("has %d CTA(s) that policy %s never placed", k.Remaining(), pol)
		}
	}
	return ""
}

// waitsInStream says what host kernel k waits for in its stream: the
// kernel ahead of it, or one it must run `after`; "" for neither.
func (h *hostSide) waitsInStream(k *Kernel) string {
	switch k.state {
	case kIssued:
		if hd := h.streams.headOf(k.stream); hd != nil {
			return fmt.Sprintf("waits for kernel %d ahead of it in stream %d", hd.id, k.stream)
		}
	case kWaiting:
		if id, blocked := h.streams.blockedBy(k); blocked {
			return fmt.Sprintf("waits for kernel %d (after)", id)
		}
	}
	return ""
}

// liveKernels are the host kernels issued and not complete.
func (h *hostSide) liveKernels() iter.Seq[*Kernel] { return h.streams.liveKernels() }

// holderIDs lists the kernels holding an entry, the first eight.
func (d *kernelDistributor) holderIDs() string {
	ids := make([]string, 0, d.heldLen())
	for i, k := range d.holders() {
		if i == 8 {
			ids = append(ids, "...")
			break
		}
		ids = append(ids, fmt.Sprint(k.id))
	}
	return strings.Join(ids, ", ")
}

// heldOf counts the placed CTAs of k held from starting, and returns the
// first of them the page gate checks (gated), if any.
func (r *ctaRuns) heldOf(k *Kernel) (n int, first *ctaRun) {
	for c := range r.held() {
		if c.k == k {
			if first == nil && gated(c) {
				first = c
			}
			n++
		}
	}
	return n, first
}

// holders is the kernels holding an entry, in entry order, valid until
// the next change: held's, or where d keeps no order (unordered), those
// its numbers name (a number's slot keeps a kernel that has left, or
// whose running parts have gone to another with the number), sorted by
// their entries.
func (d *kernelDistributor) holders() []*Kernel {
	if !d.unordered {
		return d.held.kernels()
	}
	var ks []*Kernel
	for i, k := range d.nums.ks {
		if i > 0 && k.kernelRun != nil && k.inKD && k.plain == int32(i) {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(a, b int) bool { return ks[a].entered < ks[b].entered })
	return ks
}
