package token

import (
	"sync"
	"testing"
	"time"
)

// holds fails the test unless h holds a token as held says and pool has
// taken tokens out, after what.
func holds(t *testing.T, what string, h *Hold, pool chan struct{}, held bool, taken int) {
	t.Helper()
	if h.Held() != held || len(pool) != taken {
		t.Fatalf("after %s: held %v, %d tokens taken; want %v, %d", what, h.Held(), len(pool), held, taken)
	}
}

// A replay holds one token at most, whichever of its goroutines asks and
// however often, and hands it on once: two hand-ons of one token emptied
// a run's pool once, and the next wait for one never ended.
func TestHoldsOne(t *testing.T) {
	pool := make(chan struct{}, 4)
	h := New(pool)
	h.Want()
	h.Want()
	holds(t, "two Wants", h, pool, true, 1)
	h.Lend()
	h.Lend()
	holds(t, "two Lends", h, pool, false, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); h.Want() }()
	}
	wg.Wait()
	holds(t, "eight Wants at once", h, pool, true, 1)
	h.Done()
	h.Want()
	holds(t, "Done and a Want (a replay that ended takes none)", h, pool, false, 0)
}

// A replay whose rows wait for the merge takes no token when its own
// goroutine wants one (it goes on without, until its rows' channel
// fills), and takes one again when its rows go on, waiting for it:
// with one token, a parks, b takes the token, a's Want goes on at once
// holding none, and a's rows going on wait until b lends its token.
// Before, a parked replay's Want waited for the token, and under
// spawn-paper two such replays held both of a run's while the merge
// waited for a replay that needed one.
func TestParkedTakesNone(t *testing.T) {
	pool := make(chan struct{}, 1)
	a, b := New(pool), New(pool)
	a.Want()
	a.Park(true)
	holds(t, "a parks", a, pool, false, 0)
	b.Want()
	went := make(chan struct{})
	go func() { a.Want(); close(went) }()
	select {
	case <-went:
	case <-time.After(time.Minute):
		t.Fatal("a parked replay's Want waited for a token")
	}
	if a.Held() {
		t.Fatal("a parked replay's Want holds a token")
	}
	back := make(chan struct{})
	go func() { a.Park(false); close(back) }()
	select {
	case <-back:
		t.Fatal("a replay's rows went on with no token free")
	case <-time.After(50 * time.Millisecond):
	}
	b.Lend()
	select {
	case <-back:
	case <-time.After(time.Minute):
		t.Fatal("a replay's rows did not go on when a token came free")
	}
	holds(t, "a's rows went on", a, pool, true, 1)
	a.Done()
	b.Done()
	if len(pool) != 0 {
		t.Fatalf("after both ended %d tokens taken, want 0", len(pool))
	}
}

// A replay whose rows go on while it waits at its tape (Lend) takes no
// token until it wants one again.
func TestUnparkedWhileLentTakesNone(t *testing.T) {
	pool := make(chan struct{}, 1)
	h := New(pool)
	h.Want()
	h.Park(true)
	h.Lend()
	h.Park(false)
	holds(t, "a lent replay's rows went on", h, pool, false, 0)
	h.Want()
	holds(t, "a Want again", h, pool, true, 1)
	h.Done()
}
