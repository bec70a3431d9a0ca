package trace

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"
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

// Batch hands over the records Next would, in order, a batch's rest at a
// time (never none), then the source's error; Next and Batch may take
// turns.
func TestPrefetcherBatch(t *testing.T) {
	bad := errors.New("record 2001: broken")
	for _, n := range []int{0, 1, prefetchBatch, 3*prefetchBatch + 5} {
		for _, end := range []error{io.EOF, bad} {
			p := NewPrefetcher(&countingSource{n: n, err: end})
			got := 0
			for call := 0; got < n; call++ {
				var recs []Record
				if call%3 == 1 {
					r, err := p.Next()
					recs = []Record{r}
					if err != nil {
						t.Fatalf("n=%d: Next after %d records: %v", n, got, err)
					}
				} else {
					var err error
					if recs, err = p.Batch(); err != nil || len(recs) == 0 || len(recs) > prefetchBatch {
						t.Fatalf("n=%d: Batch after %d records: %d records, %v", n, got, len(recs), err)
					}
				}
				for _, r := range recs {
					if c := r.(*CTA).CTA; c != uint64(got) {
						t.Fatalf("n=%d: record %d is CTA %d", n, got, c)
					}
					got++
				}
			}
			for k := 0; k < 2; k++ {
				if recs, err := p.Batch(); err != end || recs != nil {
					t.Fatalf("n=%d: after the records Batch gave %d records, %v; want none, %v", n, len(recs), err, end)
				}
			}
			p.Close()
			if _, err := p.Batch(); err != io.ErrClosedPipe {
				t.Fatalf("n=%d: Batch after Close: %v", n, err)
			}
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
	waitGoroutines(t, before)
}

// treeTrace returns the records of a valid trace with n host CTAs, each
// with per-warp cycles and a device launch of a one-CTA child kernel: many
// batches of the launch and cta records a Reader reuses.
func treeTrace(n int) []Record {
	recs := []Record{
		&Header{Version: Version, ClockMHz: 706, Source: "prefetch"},
		&Kernel{ID: 1, Name: "parent", Grid: [3]uint32{uint32(n), 1, 1}, Block: [3]uint32{64, 1, 1}},
		&Launch{Kernel: 1, T: 10},
	}
	for i := 0; i < n; i++ {
		c := int64(1000 + i%97)
		child := uint64(2 + i)
		recs = append(recs,
			&CTA{Kernel: 1, CTA: uint64(i), Cycles: c, WarpCycles: []int64{c, c - int64(i%5)}},
			&Kernel{ID: child, Name: "child", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32 * uint32(1+i%3), 1, 1}},
			&Launch{Kernel: child, Parent: &Parent{Kernel: 1, CTA: uint64(i), Warp: i % 2, Lane: i % 32, At: int64(i % 400)}, Workload: int64(i)},
			&CTA{Kernel: child, CTA: 0, Cycles: 300, WarpCycles: []int64{300, 299, 250}[:1+i%3]})
	}
	return recs
}

// drain reads src to its error, copying every record as it comes (a
// reused one is overwritten later), and closes src if it is a Closer.
func drain(src Source) ([]Record, error) {
	var recs []Record
	for {
		r, err := src.Next()
		if err != nil {
			if c, ok := src.(io.Closer); ok {
				c.Close()
			}
			return recs, err
		}
		switch r := r.(type) {
		case *CTA:
			c := *r
			c.WarpCycles = slices.Clone(r.WarpCycles)
			recs = append(recs, &c)
		case *Launch:
			l := *r
			if r.Parent != nil {
				p := *r.Parent
				l.Parent = &p
			}
			recs = append(recs, &l)
		case *Kernel:
			k := *r
			recs = append(recs, &k)
		default:
			recs = append(recs, r)
		}
	}
}

// The prefetched, reusing read of a binary trace yields the records and
// the error, message and all, of a plain validated read: for a valid
// trace, one the validator rejects halfway and one cut short; both where
// the Reader decodes into the Prefetcher's batches and where the
// Prefetcher copies the records it reuses (a source that hides
// decodeInto).
// A batch's slab is decoded into batch after batch, its launches' places
// taken by host and device launches, with an after list and without, in
// turn: each record is what a plain read gives (launchFast stores a
// launch's parent and after list only where they change).
func TestPrefetcherReusesLaunches(t *testing.T) {
	recs := []Record{&Header{Version: Version, ClockMHz: 706, Source: "reuse"}}
	for i := 0; i < 3*prefetchBatch; i++ {
		host, child := uint64(2*i+1), uint64(2*i+2)
		l := &Launch{Kernel: host, T: int64(i)}
		if i%3 == 1 {
			l.After = []uint64{host - 2}
		}
		recs = append(recs, &Kernel{ID: host, Name: "host", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}, l,
			&CTA{Kernel: host, CTA: 0, Cycles: 50})
		if i%2 == 0 {
			recs = append(recs, &Kernel{ID: child, Name: "child", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}},
				&Launch{Kernel: child, Parent: &Parent{Kernel: host, CTA: 0, Lane: i % 32, At: 7}},
				&CTA{Kernel: child, CTA: 0, Cycles: 9})
		}
	}
	data := encodeBinary(t, recs)
	read := func(prefetch bool) ([]Record, error) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if !prefetch {
			return drain(NewValidator(r))
		}
		r.SetOptions(ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
		return drain(NewPrefetcher(NewValidator(r)))
	}
	want, wantErr := read(false)
	got, gotErr := read(true)
	matchRead(t, "valid", got, want, gotErr, wantErr)
}

func TestPrefetcherMatchesReader(t *testing.T) {
	valid := treeTrace(30000)
	bad := slices.Clone(valid)
	bad[4001] = &CTA{Kernel: 99999, CTA: 0, Cycles: 5} // a kernel never launched
	whole := encodeBinary(t, valid)
	for name, data := range map[string][]byte{
		"valid":     whole,
		"invalid":   encodeBinary(t, bad),
		"truncated": whole[:len(whole)*2/3],
	} {
		t.Run(name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			open := func(reuse, copied bool) Source {
				r, err := NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if !reuse {
					return NewValidator(r)
				}
				r.SetOptions(ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
				if copied {
					return NewPrefetcher(struct{ Source }{NewValidator(r)})
				}
				return NewPrefetcher(NewValidator(r))
			}
			want, wantErr := drain(open(false, false))
			for _, copied := range []bool{false, true} {
				got, gotErr := drain(open(true, copied))
				matchRead(t, name, got, want, gotErr, wantErr)
			}
			waitGoroutines(t, before)
		})
	}
}

// matchRead compares a prefetched read of trace name with the plain one.
func matchRead(t *testing.T, name string, got, want []Record, gotErr, wantErr error) {
	t.Helper()
	if len(want) < 2*prefetchBatch {
		t.Fatalf("only %d records before the error: too few to cross batches", len(want))
	}
	if name == "valid" && wantErr != io.EOF || name != "valid" && wantErr == io.EOF {
		t.Fatalf("the plain read ended with %v", wantErr)
	}
	if gotErr == nil || wantErr.Error() != gotErr.Error() {
		t.Errorf("error %v, want %v", gotErr, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A prefetcher whose source failed has stopped its goroutine even before
// Close.
func TestPrefetcherStopsAtError(t *testing.T) {
	before := runtime.NumGoroutine()
	p := NewPrefetcher(&countingSource{n: 3 * prefetchBatch, err: errors.New("broken")})
	for {
		if _, err := p.Next(); err != nil {
			break
		}
	}
	waitGoroutines(t, before)
	p.Close()
}

// waitGoroutines fails t unless the goroutines are back to n within a
// second.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for i := 0; runtime.NumGoroutine() > n && i < 1000; i++ {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > n {
		t.Errorf("%d goroutines, %d before", got, n)
	}
}

// gatedReader yields the first n bytes of data, then blocks until open is
// closed.
type gatedReader struct {
	data    []byte
	n       int
	open    chan struct{}
	waiting func() bool // whether the Prefetcher's caller waits for a record
	hold    int         // the last bytes, which no trickle lets through
}

// Read gives the bytes before the gate, then blocks until it opens; while
// the caller waits it lets a few bytes through at a time, as a slow read
// would, so the reader goes on skipping (and may pause) rather than stop
// for good wherever it has got to when the caller starts waiting. The
// last hold bytes wait for the gate: a reader that does not pause for a
// waiting caller gets stuck there.
func (g *gatedReader) Read(p []byte) (int, error) {
	if len(g.data) == 0 {
		return 0, io.EOF
	}
	for g.n == 0 {
		select {
		case <-g.open:
			g.n = len(g.data)
		case <-time.After(time.Millisecond):
			if g.waiting() && len(g.data) > g.hold {
				g.n = min(64, len(g.data)-g.hold)
			}
		}
	}
	k := copy(p[:min(len(p), g.n)], g.data)
	g.data, g.n = g.data[k:], g.n-k
	return k, nil
}

// A host launch read before a long run of skipped records reaches the
// caller while the reader is still skipping (it pauses between skipped
// records while the caller waits), not once the batch is full: here the
// stream stops halfway (but for a trickle while the caller waits: a
// reader blocked in a read cannot pause, and it may have got there before
// the caller asked), and the launch must come out all the same.
func TestPrefetcherHandsOnBeforeLongSkip(t *testing.T) {
	recs := append(treeTrace(30000), &Launch{Kernel: 1, T: 20})
	data := encodeBinary(t, recs)
	var started atomic.Pointer[Prefetcher]
	g := &gatedReader{data: data, n: len(data) / 2, hold: len(data) / 4, open: make(chan struct{}), waiting: func() bool {
		p := started.Load()
		return p != nil && p.w.Hungry()
	}}
	r, err := NewReader(g)
	if err != nil {
		t.Fatal(err)
	}
	r.SetOptions(ReadOptions{Skip: []Kind{KindCTA, KindKernel, KindAccess, KindPages, KindBuffer}, SkipDeviceLaunches: true})
	p := NewPrefetcher(r)
	started.Store(p)
	got := make(chan Record)
	go func() {
		for i := 0; i < 2; i++ {
			rec, err := p.Next()
			if err != nil {
				t.Error(err)
			}
			got <- rec
		}
	}()
	for i, want := range []Kind{KindHeader, KindLaunch} {
		select {
		case rec := <-got:
			if rec.Kind() != want {
				t.Fatalf("record %d is a %v, want a %v", i, rec.Kind(), want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("record %d not handed on while the reader skips", i)
		}
	}
	close(g.open)
	rest, err := drain(p)
	if err != io.EOF || len(rest) != 1 || rest[0].(*Launch).T != 20 {
		t.Errorf("after the gate: %v, %v; want the last host launch and EOF", rest, err)
	}
}
