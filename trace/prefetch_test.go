package trace

import (
	"errors"
	"io"
	"runtime"
	"testing"
	"time"
)

// countingSource yields n cta records numbered 0..n-1, then err.
type countingSource struct {
	n, i int
	err  error
}

func (s *countingSource) Next() (Record, error) {
	if s.i == s.n {
		return nil, s.err
	}
	s.i++
	return &CTA{CTA: uint64(s.i - 1)}, nil
}

func TestPrefetcherKeepsOrderAndError(t *testing.T) {
	bad := errors.New("record 1001: broken")
	for _, n := range []int{0, 1, prefetchBatch - 1, prefetchBatch, 1000, 5 * prefetchBatch} {
		for _, end := range []error{io.EOF, bad} {
			p := NewPrefetcher(&countingSource{n: n, err: end})
			for i := 0; i < n; i++ {
				r, err := p.Next()
				if err != nil || r.(*CTA).CTA != uint64(i) {
					t.Fatalf("n=%d: record %d: %v, %v", n, i, r, err)
				}
			}
			for k := 0; k < 2; k++ {
				if _, err := p.Next(); err != end {
					t.Fatalf("n=%d: after the records got %v, want %v", n, err, end)
				}
			}
			p.Close()
			p.Close()
		}
	}
}

// Close stops a prefetcher that is blocked on a full window, and the
// goroutine leaves the source before Close returns.
func TestPrefetcherCloseMidStream(t *testing.T) {
	before := runtime.NumGoroutine()
	src := &countingSource{n: 1 << 30, err: io.EOF}
	p := NewPrefetcher(src)
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // let it fill the window
	p.Close()
	read := src.i
	time.Sleep(10 * time.Millisecond)
	if src.i != read {
		t.Error("the source was read after Close returned")
	}
	if window := (prefetchDepth + 2) * prefetchBatch; read > window {
		t.Errorf("read %d records ahead, more than the window of %d", read, window)
	}
	if _, err := p.Next(); err == nil {
		t.Error("Next after Close returned a record")
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}
