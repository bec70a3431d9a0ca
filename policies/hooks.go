package policies

import (
	"fmt"

	"github.com/gpureplay/gpureplay/replay"
)

// A combined policy (a+b) is its parts' hooks on one replay.Policy. Each
// field of replay.Policy a mechanism can set is one row of hooks: the
// decision point it belongs to, which two mechanisms may not both take,
// or none for a hook any number of them share (an observer, a stream or
// SM rule that only adds a constraint). baseline and merge read the
// table, so a field added to replay.Policy is either a row here or
// fails TestHooksCoverPolicy, rather than being dropped from a+b.

// hook is one settable field of replay.Policy.
type hook struct {
	field string // the replay.Policy field, for the coverage test
	point string // the decision point it takes; "" when mechanisms share it
	set   func(q *replay.Policy) bool
	add   func(p *replay.Policy, q *replay.Policy)
}

var hooks = []hook{
	{"Sites", "launch sites",
		func(q *replay.Policy) bool { return q.Sites != nil },
		func(p, q *replay.Policy) { p.Sites = q.Sites }},
	{"Placer", "CTA placement",
		func(q *replay.Policy) bool { return q.Placer != nil },
		func(p, q *replay.Policy) { p.Placer = q.Placer }},
	{"Gate", "when CTAs may run",
		func(q *replay.Policy) bool { return q.Gate != nil },
		func(p, q *replay.Policy) { p.Gate = q.Gate }},
	{"IO", "host I/O overlap",
		func(q *replay.Policy) bool { return q.IO != replay.IOSerial },
		func(p, q *replay.Policy) { p.IO = q.IO }},
	{"Tasks", "where tasks run",
		func(q *replay.Policy) bool { return q.Tasks != nil },
		func(p, q *replay.Policy) { p.Tasks = q.Tasks }},
	{"Aggregate", "launch aggregation",
		func(q *replay.Policy) bool { return q.Aggregate != replay.AggregateNone },
		func(p, q *replay.Policy) { p.Aggregate = q.Aggregate }},
	{"Observer", "",
		func(q *replay.Policy) bool { return q.Observer != nil },
		func(p, q *replay.Policy) { p.Observer = fanOut(p.Observer, q.Observer) }},
	{"OwnStreams", "",
		func(q *replay.Policy) bool { return q.OwnStreams },
		func(p, q *replay.Policy) { p.OwnStreams = true }},
	{"ExclusiveSMs", "",
		func(q *replay.Policy) bool { return q.ExclusiveSMs },
		func(p, q *replay.Policy) { p.ExclusiveSMs = true }},
}

// baseline reports whether q sets no hook: the hardware as it is.
func baseline(q replay.Policy) bool {
	for _, h := range hooks {
		if h.set(&q) {
			return false
		}
	}
	return true
}

// merge adds q's hooks to p, refusing two mechanisms at one decision
// point (owner: the mechanism that took each point so far); p is left
// as it was on an error.
func merge(p *replay.Policy, q replay.Policy, name string, owner map[string]string) error {
	for _, h := range hooks {
		if h.point == "" || !h.set(&q) {
			continue
		}
		if prev, ok := owner[h.point]; ok {
			return fmt.Errorf("policies %s and %s both decide %s; combine policies that act at different decision points", prev, name, h.point)
		}
	}
	for _, h := range hooks {
		if h.set(&q) {
			if h.point != "" {
				owner[h.point] = name
			}
			h.add(p, &q)
		}
	}
	return nil
}
