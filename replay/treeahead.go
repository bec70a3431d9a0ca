package replay

import "github.com/gpureplay/gpureplay/internal/ahead"

// treeBatch is how many trace records the reader files into a message
// before it hands it over, and treeDepth how many full messages may wait:
// the reader goes at most (treeDepth+2)·treeBatch records ahead of the
// engine (67,584), as a trace.Prefetcher does.
//
// Why so far: the engine takes a level of a launch-heavy trace in bursts.
// While a level's last children run it takes no records, and as the next
// level's host kernel starts it places a hundred host CTAs at once, each
// needing its whole tree. A reader only a few thousand records ahead
// stops in the first and makes the engine wait in the second. BFS scale
// 20 under cdp, 12 interleaved runs: median wall 0.730 s at 4 messages,
// 0.695 s at 64 and at 128; median RSS 74, 94 and 99 MiB. What a message
// holds is bounded by its records: a device kernel with its site (~340
// bytes), a packed cta record (8–12 bytes and its warps), a host CTA's
// spec (48 bytes and its warps), so the window holds under 12 MB even
// were every other record a device launch (BFS scale 20: about 5 MB).
const (
	treeBatch = 1024
	treeDepth = 64
)

// treeAhead runs a treeReader on a goroutine of its own, a bounded window
// of records ahead of the engine: it files them (device kernels with
// their packed CTA tables, launch sites, host CTA specs) while the engine
// simulates, and hands them over in messages the engine takes in order
// (bodyCursor). Its source is a Prefetcher, which decodes and validates on
// a goroutine of its own: filing on the engine's goroutine made it wait,
// where a level of a launch-heavy trace places its host CTAs, for both.
//
// A message goes out when it holds treeBatch records' worth, or as soon
// as it holds an event while the engine waits for one (hungry), so the
// engine never waits for a batch to fill. What the reader builds is its
// own until the message carrying it goes out, and the engine's after; a
// message comes back empty (reset by the engine) for reuse.
type treeAhead struct {
	w *ahead.Window[treeMsg]
}

func startTreeAhead(r *treeReader) *treeAhead {
	a := &treeAhead{w: ahead.New[treeMsg](treeDepth)}
	enough := func(m *treeMsg) bool {
		return m.records >= treeBatch || len(m.events) > 0 && a.w.Hungry()
	}
	a.w.Go(func(m *treeMsg) bool {
		r.fill(m, enough)
		return m.err != nil
	})
	return a
}

// receive gives used back for reuse and returns the next message.
func (a *treeAhead) receive(used *treeMsg) *treeMsg {
	used.reset()
	a.w.Recycle(used)
	return a.w.Receive()
}

// close stops the reader and waits until it has left the source.
func (a *treeAhead) close() { a.w.Close() }
