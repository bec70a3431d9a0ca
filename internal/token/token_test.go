package token

import (
	"sync"
	"testing"
	"time"
)

// A replay holds one token at most, whichever of its goroutines asks and
// however often, and hands it on once: two hand-ons of one token emptied
// a run's pool once, and the next wait for one never ended.
func TestHoldsOne(t *testing.T) {
	pool := make(chan struct{}, 4)
	h := New(pool)
	h.Want()
	h.Want()
	if len(pool) != 1 || !h.Held() {
		t.Fatalf("after two Wants %d tokens taken (held %v), want 1", len(pool), h.Held())
	}
	h.Lend()
	h.Lend()
	if len(pool) != 0 || h.Held() {
		t.Fatalf("after two Lends %d tokens taken (held %v), want 0", len(pool), h.Held())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); h.Want() }()
	}
	wg.Wait()
	if len(pool) != 1 || !h.Held() {
		t.Fatalf("after eight Wants at once %d tokens taken (held %v), want 1", len(pool), h.Held())
	}
	h.Done()
	h.Want()
	if len(pool) != 0 || h.Held() {
		t.Fatalf("after Done and a Want %d tokens taken (held %v), want 0: a replay that ended takes none", len(pool), h.Held())
	}
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
	if a.Held() || len(pool) != 0 {
		t.Fatalf("a parked replay holds a token (pool %d)", len(pool))
	}
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
	if !a.Held() || len(pool) != 1 {
		t.Fatalf("after a's rows went on: held %v, %d tokens taken; want true, 1", a.Held(), len(pool))
	}
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
	if h.Held() || len(pool) != 0 {
		t.Fatalf("a lent replay's rows went on and it holds a token (pool %d)", len(pool))
	}
	h.Want()
	if !h.Held() || len(pool) != 1 {
		t.Fatalf("a replay wanting again holds %v, pool %d; want true, 1", h.Held(), len(pool))
	}
	h.Done()
}
