// Package token is a replay's claim on one of a bounded pool of tokens,
// the replays (or other work) allowed to run at once: a channel whose
// capacity is that bound, a token taken by a send and given back by a
// receive.
//
// A replay can hold at most one token, whichever of its goroutines asks
// and however often, and holds one only while it can run: while it wants
// to run (Want; not while it waits at its tape for the readers behind,
// Lend), its rows are not waiting for a merge to take them (Park), and
// it has not ended (Done). A replay whose rows are parked may go on a
// little without a token (until its rows' channel fills) and then waits
// holding none; so the tokens are held only by replays that can go on,
// and one whose rows a merge waits for gets one when they come free.
// Holding one while parked let two replays of one lockstep set keep
// both of a run's tokens while the merge waited for a third that needed
// one (spawn-paper's hang); handing one on twice emptied the pool
// (an earlier one).
package token

import "sync"

// A Hold is one replay's claim on a token of its pool. The zero Hold is
// not usable: make one with New.
type Hold struct {
	pool                     chan struct{}
	mu                       sync.Mutex
	held, want, parked, done bool
}

// New returns a Hold on pool's tokens, holding none and wanting none.
func New(pool chan struct{}) *Hold { return &Hold{pool: pool} }

// Want has the replay want a token, waiting for one unless it holds one
// or may not take one now (parked, done).
func (h *Hold) Want() { h.set(func() { h.want = true }) }

// Lend gives the token back while the replay waits for something that
// does not need it (its tape's readers behind); Want takes one again.
func (h *Hold) Lend() { h.set(func() { h.want = false }) }

// Park marks the replay's rows as waiting for the merge (on), when its
// token goes back, or no longer (off), when it takes one again if it
// wants one.
func (h *Hold) Park(on bool) { h.set(func() { h.parked = on }) }

// Done gives the token back for good: the replay has ended.
func (h *Hold) Done() { h.set(func() { h.want, h.done = false, true }) }

// Held reports whether the replay holds a token.
func (h *Hold) Held() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held
}

// set changes what the replay wants and settles its token.
func (h *Hold) set(f func()) {
	h.mu.Lock()
	f()
	h.mu.Unlock()
	h.settle()
}

// settle takes or gives back the token to match what the replay wants,
// waiting for one where it wants one. The wait is outside the lock: the
// replay's other goroutine may change what it wants meanwhile, and then
// the token taken goes back and settle looks again.
func (h *Hold) settle() {
	for {
		h.mu.Lock()
		need := h.want && !h.parked && !h.done
		if need == h.held {
			h.mu.Unlock()
			return
		}
		if !need {
			h.held = false
			<-h.pool
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		h.pool <- struct{}{}
		h.mu.Lock()
		if h.want && !h.parked && !h.done && !h.held {
			h.held = true
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		<-h.pool // not wanted now, or taken on another goroutine: look again
	}
}
