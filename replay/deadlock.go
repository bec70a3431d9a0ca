package replay

import (
	"fmt"
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
	for k := range e.streams.liveKernels() {
		add(k)
	}
	for _, k := range e.kd.holders() {
		add(k)
	}
	for k := range e.kd.waiters() {
		add(k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].id < ks[j].id })
	d := &DeadlockError{Cycle: e.now}
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
	switch k.state {
	case kIssued:
		if h := e.streams.headOf(k.stream); h != nil {
			return fmt.Sprintf("waits for kernel %d ahead of it in stream %d", h.id, k.stream)
		}
	case kWaiting:
		if id, blocked := e.streams.blockedBy(k); blocked {
			return fmt.Sprintf("waits for kernel %d (after)", id)
		}
		return fmt.Sprintf("waits for a Kernel Distributor entry (all %d held by kernels %s)", e.cfg.GPU.MaxKernels, e.kdHolders())
	case kReady:
		if k.done == k.total && k.kids > 0 {
			return fmt.Sprintf("has finished its CTAs and waits for %d child kernel(s) or group(s)", k.kids)
		}
		if k.done == k.total && k.openGroups() > 0 {
			return fmt.Sprintf("has finished its CTAs and waits for %d aggregated group(s) coalesced into it", k.openGroups())
		}
		if n := e.stalledOf(k); n > 0 {
			if why := e.pageWait(k); why != "" {
				return fmt.Sprintf("has %d CTA(s) placed and waiting for pages (%s)", n, why)
			}
			return fmt.Sprintf("has %d CTA(s) placed but held by policy %s", n, e.pol.Name)
		}
		if k.Remaining() > 0 {
			return fmt.Sprintf("has %d CTA(s) that policy %s never placed", k.Remaining(), e.pol.Name)
		}
	}
	return ""
}

func (e *engine) kdHolders() string {
	ids := make([]string, 0, e.kd.heldLen())
	for i, k := range e.kd.holders() {
		if i == 8 {
			ids = append(ids, "...")
			break
		}
		ids = append(ids, fmt.Sprint(k.id))
	}
	return strings.Join(ids, ", ")
}

// pageWait says which page keeps k's first stalled CTA from starting, or
// "" when the scoreboard is not what holds it.
func (e *engine) pageWait(k *Kernel) string {
	if e.sb == nil {
		return ""
	}
	for c := range e.ctas.held() {
		if c.k == k && c.g == nil && k.order >= 0 {
			return e.sb.blocker(k, c.spec().x)
		}
	}
	return ""
}

func (e *engine) stalledOf(k *Kernel) int {
	n := 0
	for c := range e.ctas.held() {
		if c.k == k {
			n++
		}
	}
	return n
}
