package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const shareSample = "../samples/bfs-kron12.trace.zst"

// openBodies opens the sample as the replay's bodies are opened: reused
// records, validated.
func openShareSample() (*Validator, io.Closer, error) {
	src, err := Open(shareSample)
	if err != nil {
		return nil, nil, err
	}
	SetReadOptions(src, ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
	return NewValidator(src), src.(io.Closer), nil
}

// transcript reads v as the replay's tree reader does (Child, then its
// runs; Next; after a cta record PlainCTAs, else CTAs) and writes every
// answer. plainLen is PlainCTAs' room at each call: readers that differ
// in it make different calls.
func transcript(v *Validator, plainLen func(call int) int) (string, error) {
	return transcriptWith(v, plainLen, false)
}

// transcriptWith is transcript; with nextAfterKid, a child whose records
// all came with it is followed by a call of Next, not of Child, as the
// replay's tree reader never does (a Share's head guesses Child there:
// Share.childNext).
func transcriptWith(v *Validator, plainLen func(call int) int, nextAfterKid bool) (string, error) {
	return transcriptOf(v, plainLen, nextAfterKid, nil)
}

// transcriptOf is transcriptWith; with kids not nil, it reads runs of
// children with Kids before each call of Child, as the replay's tree
// reader does on a Share's tape, writes each as Child's answer, and
// counts them in *kids.
func transcriptOf(v *Validator, plainLen func(call int) int, nextAfterKid bool, kids *int) (string, error) {
	var b strings.Builder
	var kid Child
	var kr Kids
	run, warps, plain := make([]CTA, 64), make([]int64, 64*RunWarps), make([]PlainCTA, 256)
	runs := func(kernel uint64) error {
		for {
			n, err := v.CTAs(kernel, run, warps)
			for i := range run[:n] {
				describe(&b, &run[i])
			}
			if err != nil || n < len(run) {
				return err
			}
		}
	}
	for call := 0; ; call++ {
		if kids != nil {
			if v.Kids(&kr) {
				*kids += kr.Len()
				read := 0
				for k := range kr.Len() {
					read += 2 + len(kr.Records(k))
					h := kr.Head(k)
					fmt.Fprintf(&b, "child %d %v %v\n", h.CTAs, h.Alike, h.More)
					describe(&b, &h.Kernel)
					describe(&b, &h.Launch)
					for i := range kr.Records(k) {
						describe(&b, &kr.Records(k)[i])
					}
				}
				if read != kr.Read() {
					return b.String(), fmt.Errorf("a run of %d children of %d records read %d", kr.Len(), read, kr.Read())
				}
				continue
			}
		}
		if v.Child(&kid) {
			h := kid.Head()
			fmt.Fprintf(&b, "child %d %v %v\n", h.CTAs, h.Alike, h.More)
			describe(&b, &h.Kernel)
			describe(&b, &h.Launch)
			for i := range kid.Records() {
				describe(&b, &kid.Records()[i])
			}
			if h.Err != nil {
				return b.String(), h.Err
			}
			if h.More {
				if err := runs(h.Kernel.ID); err != nil {
					return b.String(), err
				}
			}
			if !nextAfterKid || h.More || len(kid.Records()) == 0 {
				continue
			}
		}
		r, err := v.Next()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		} else if err != nil {
			return b.String(), err
		}
		describe(&b, r)
		if c, ok := r.(*CTA); ok {
			if n := v.PlainCTAs(c.Kernel, c.CTA+1, plain[:plainLen(call)]); n > 0 {
				fmt.Fprintf(&b, "plain %v\n", plain[:n])
				continue
			}
			if err := runs(c.Kernel); err != nil {
				return b.String(), err
			}
		}
	}
}

func describe(b *strings.Builder, r Record) {
	j, _ := json.Marshal(r)
	fmt.Fprintf(b, "%T %s\n", r, j)
}

func samePlain(int) int { return 256 }

// closeCount counts the closes of the sources a Share opened.
type closeCount struct {
	io.Closer
	n  *int
	mu *sync.Mutex
}

func (c closeCount) Close() error {
	c.mu.Lock()
	*c.n++
	c.mu.Unlock()
	return c.Closer.Close()
}

// sourceCount reopens the sample for a Share and counts the sources it
// opened and those closed.
type sourceCount struct {
	mu             sync.Mutex
	opened, closed int
}

func (sc *sourceCount) reopen() (*Validator, io.Closer, error) {
	v, c, err := openShareSample()
	if err != nil {
		return nil, nil, err
	}
	sc.mu.Lock()
	sc.opened++
	sc.mu.Unlock()
	return v, closeCount{c, &sc.closed, &sc.mu}, nil
}

// A Share's readers, one after another or side by side, with a tape that
// keeps all or lets them go, and with a reader whose calls part from the
// others', each read what a Validator of their own reads.
func TestShareReadsAsAValidator(t *testing.T) {
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	want, err := transcript(v, samePlain)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want, "child") || !strings.Contains(want, "*trace.CTA") {
		t.Fatalf("the sample's transcript has no child or no cta record:\n%.500s", want)
	}
	defer func(n int) { shareChunk = n }(shareChunk)
	for _, tc := range []struct {
		name     string
		chunk    int
		budget   int64
		together bool
		part     int // reader 1's calls part from the others' from this call on (0: never)
		// noYields: the head lets the readers go at once, not after
		// yielding to them (shareYields): with them running side by
		// side, a yield let them keep up, always at GOMAXPROCS 1 and
		// now and then at 2, and none was let go.
		noYields bool
	}{
		{name: "one after another", chunk: 1024},
		{name: "side by side", chunk: 1024, together: true},
		{name: "small chunks", chunk: 4, together: true},
		{name: "let go, one after another", chunk: 4, budget: 1},
		{name: "let go, side by side", chunk: 4, budget: 1, together: true, noYields: true},
		{name: "parting", chunk: 16, part: 50},
		{name: "parting side by side", chunk: 16, part: 50, together: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shareChunk = tc.chunk
			if tc.noYields {
				defer func(n int) { shareYields = n }(shareYields)
				shareYields = 0
			}
			var sc sourceCount
			reopen := sc.reopen
			v, c, err := reopen()
			if err != nil {
				t.Fatal(err)
			}
			const n = 3
			s := NewShare(v, c, nil, n, tc.budget, reopen)
			got := make([]string, n)
			errs := make([]error, n)
			read := func(i int) {
				r := s.Reader(i)
				plainLen := samePlain
				if i == 1 && tc.part > 0 {
					plainLen = func(call int) int { return 256 - min(call/tc.part, 1) }
				}
				got[i], errs[i] = transcript(r, plainLen)
				r.Close()
			}
			var wg sync.WaitGroup
			for i := range n {
				if tc.together {
					wg.Add(1)
					go func() { defer wg.Done(); read(i) }()
				} else {
					read(i)
				}
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Errorf("reader %d: %v", i, errs[i])
				}
				if i == 1 && tc.part > 0 {
					continue // its own calls: PlainCTAs reads one record fewer
				}
				if got[i] != want {
					t.Errorf("reader %d read %d bytes of answers, want %d; first difference at byte %d", i, len(got[i]), len(want), firstByteDiff(got[i], want))
				}
			}
			if sc.opened != sc.closed {
				t.Errorf("%d sources opened, %d closed", sc.opened, sc.closed)
			}
			if tc.budget == 0 && tc.part == 0 && sc.opened != 1 {
				t.Errorf("the trace was opened %d times, want once", sc.opened)
			}
			if (tc.budget == 1 || tc.part > 0) && sc.opened == 1 {
				t.Errorf("no reader read on alone")
			}
		})
	}
}

// sampleTranscript is what a Validator of its own answers on the sample,
// making the calls plainLen shapes.
func sampleTranscript(t *testing.T, plainLen func(int) int) string {
	t.Helper()
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want, err := transcript(v, plainLen)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func firstByteDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A reader whose calls part from the tape's reads the same records as a
// Validator of its own making those calls.
func TestShareParting(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 16
	plainLen := func(call int) int { return 256 - min(call/50, 1) }
	want := sampleTranscript(t, plainLen)
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	s := NewShare(v, c, nil, 2, 0, openShareSample)
	if _, err := transcript(s.Reader(0), samePlain); err != nil {
		t.Fatal(err)
	}
	r := s.Reader(1)
	got, err := transcript(r, plainLen)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	s.Reader(0).Close()
	if got != want {
		t.Errorf("the parting reader read %d bytes of answers, want %d; first difference at byte %d", len(got), len(want), firstByteDiff(got, want))
	}
}

// FuzzShare holds a Share's readers to a Validator of their own on any
// input: the same answers and the same error, read one after another
// with a tape of small chunks, let go mid-way, and parting from it.
func FuzzShare(f *testing.F) {
	valid := encodeBinary(f, fixture(f, "valid.jsonl"))
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(encodeBinary(f, exoticRecords()))
	f.Add(encodeBinary(f, hostOpsTrace()))
	if sample, err := os.ReadFile(shareSample); err == nil {
		f.Add(sample)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte(zstdMagic)) {
			data = compress(data)
		}
		open := func() (*Validator, io.Closer, error) {
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, nil, err
			}
			SetReadOptions(r, ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
			return NewValidator(r), nil, nil
		}
		v, _, err := open()
		if err != nil {
			return
		}
		want, wantErr := transcript(v, samePlain)
		defer func(n int) { shareChunk = n }(shareChunk)
		shareChunk = 2
		for _, budget := range []int64{0, 1} {
			v, _, err := open()
			if err != nil {
				t.Fatal(err)
			}
			s := NewShare(v, nil, nil, 3, budget, open)
			for i := range 3 {
				plainLen := samePlain
				if i == 2 {
					plainLen = func(call int) int { return 256 - min(call/3, 1) }
				}
				var kids *int // reader 1 reads the children in runs (Kids)
				if i == 1 {
					kids = new(int)
				}
				r := s.Reader(i)
				got, err := transcriptOf(r, plainLen, false, kids)
				r.Close()
				if i == 2 {
					continue // its own calls: compared below
				}
				if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("budget %d, reader %d: %d bytes of answers and error %v, want %d and %v; first difference at byte %d",
						budget, i, len(got), err, len(want), wantErr, firstByteDiff(got, want))
				}
			}
		}
	})
}

// A reader left alone on the tape (the others let go before they start,
// as when one worker runs a trace's replays one after another past the
// budget) takes the shared Validator as its own and records no more, and
// still reads what a Validator of its own reads.
func TestShareLoneHeadReadsAlone(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 4
	want := sampleTranscript(t, samePlain)
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	s := NewShare(v, c, nil, 2, 1, openShareSample)
	r0 := s.Reader(0)
	got, err := transcript(r0, samePlain)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the lone reader read %d bytes of answers, want %d; first difference at byte %d", len(got), len(want), firstByteDiff(got, want))
	}
	if own := s.readers[0].own; own != v || s.v != nil {
		t.Errorf("the lone reader reads with %p, the share keeps %p; want the shared Validator %p handed over", own, s.v, v)
	}
	r1 := s.Reader(1)
	if got, err = transcript(r1, samePlain); err != nil || got != want {
		t.Errorf("the reader let go read %d bytes of answers (%v), want %d", len(got), err, len(want))
	}
	r0.Close()
	r1.Close()
}

// Readers let go before they start read on a fresh tape of their own,
// opened by the first of them to start: two replays started beside each
// other after the first passed the budget share one more decode, and a
// reader closed before it starts gives up its seat there.
func TestShareFreshTape(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 4
	// What a Validator of its own answers to a Next, then the transcript.
	nextThen := func(v *Validator) (string, error) {
		var b strings.Builder
		r, err := v.Next()
		if err != nil {
			return "", err
		}
		describe(&b, r)
		rest, err := transcript(v, samePlain)
		return b.String() + rest, err
	}
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	want, err := nextThen(v)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	var sc sourceCount
	reopen := sc.reopen
	if v, c, err = reopen(); err != nil {
		t.Fatal(err)
	}
	s := NewShare(v, c, nil, 4, 1, reopen)
	r0 := s.Reader(0)
	if got, err := nextThen(r0); err != nil || got != want {
		t.Fatalf("reader 0 read %d bytes of answers (%v), want %d", len(got), err, len(want))
	}
	r0.Close()
	if s.pool != nil || s.bytes != 0 || len(s.head.calls) != 0 {
		t.Errorf("no reader left on the tape, and it keeps %d bytes and a pool of %d chunks", s.bytes, len(s.pool))
	}
	if s.fresh != 3 || s.next != nil || sc.opened != 1 {
		t.Fatalf("after reader 0: %d readers let go before they started, next %p, %d opens; want 3, none, 1", s.fresh, s.next, sc.opened)
	}
	s.Reader(3).Close() // never starts
	r1, r2 := s.Reader(1), s.Reader(2)
	var b1, b2 strings.Builder
	for _, x := range []struct {
		v *Validator
		b *strings.Builder
	}{{r1, &b1}, {r2, &b2}} {
		r, err := x.v.Next()
		if err != nil {
			t.Fatal(err)
		}
		describe(x.b, r)
	}
	if s.next == nil || len(s.next.readers) != 2 || !s.next.readers[0].started || !s.next.readers[1].started || sc.opened != 2 {
		t.Fatalf("readers 1 and 2 started: next %p, %d opens; want both on the next tape, 2 opens", s.next, sc.opened)
	}
	for i, x := range []struct {
		v *Validator
		b *strings.Builder
	}{{r1, &b1}, {r2, &b2}} {
		rest, err := transcript(x.v, samePlain)
		if got := x.b.String() + rest; err != nil || got != want {
			t.Errorf("reader %d read %d bytes of answers (%v), want %d; first difference at byte %d", i+1, len(got), err, len(want), firstByteDiff(got, want))
		}
		x.v.Close()
	}
	if sc.opened != sc.closed {
		t.Errorf("%d sources opened, %d closed", sc.opened, sc.closed)
	}
}

// A reader let go before it started and closed after the next tape was
// opened gives up its seat there: the tape does not keep what it would
// have read, and every source opened is closed.
func TestShareFreshSeatClosed(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 4
	want := sampleTranscript(t, samePlain)
	var sc sourceCount
	reopen := sc.reopen
	v, c, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	s := NewShare(v, c, nil, 4, 1, reopen)
	for i, late := range []int{-1, 3, -1} { // reader 3 closes after reader 1 starts
		r := s.Reader(i)
		got, err := transcript(r, samePlain)
		if err != nil || got != want {
			t.Errorf("reader %d read %d bytes of answers (%v), want %d", i, len(got), err, len(want))
		}
		if late >= 0 {
			s.Reader(late).Close()
			if s.next == nil || !s.next.readers[1].left {
				t.Errorf("reader %d, closed after the next tape opened, did not give up its seat there", late)
			}
		}
		r.Close()
	}
	if sc.opened != sc.closed || sc.opened < 2 {
		t.Errorf("%d sources opened, %d closed; want at least 2, all closed", sc.opened, sc.closed)
	}
	if _, err := s.Reader(3).Next(); err == nil {
		t.Error("reader 3, read after it was closed: no error")
	}
}

// On one thread, two readers side by side on a tape of two chunks at
// most share it to the end: the head yields to the reader behind rather
// than letting it go, so the trace is opened once.
func TestShareYieldsToTheReaderBehind(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 4
	want := sampleTranscript(t, samePlain)
	opened := 0
	reopen := func() (*Validator, io.Closer, error) {
		opened++ // one thread: no lock needed
		return openShareSample()
	}
	v, c, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	s := NewShare(v, c, nil, 2, 1, reopen)
	got := make([]string, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.Reader(i)
			got[i], _ = transcript(r, samePlain)
			r.Close()
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != want {
			t.Errorf("reader %d read %d bytes of answers, want %d", i, len(got[i]), len(want))
		}
	}
	if opened != 1 {
		t.Errorf("the trace was opened %d times, want once: a reader was let go", opened)
	}
}

// In lockstep, readers side by side on a tape of two chunks at most,
// taking turns with one token (their pause and resume), share it to the
// end, on one thread or more: the head waits for the readers behind, and
// the trace is opened once.
func TestShareLockstep(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 4
	want := sampleTranscript(t, samePlain)
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("GOMAXPROCS=", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var sc sourceCount
			v, c, err := sc.reopen()
			if err != nil {
				t.Fatal(err)
			}
			const n = 4
			s := NewShare(v, c, nil, n, 1, sc.reopen)
			token := make(chan struct{}, 1)
			var paused sync.Map
			s.Lockstep(func(i int) { paused.Store(i, true); <-token }, func(i int) { token <- struct{}{} })
			got := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					token <- struct{}{}
					r := s.Reader(i)
					got[i], _ = transcript(r, samePlain)
					r.Close()
					<-token
				}()
			}
			wg.Wait()
			for i := range got {
				if got[i] != want {
					t.Errorf("reader %d read %d bytes of answers, want %d; first difference at byte %d", i, len(got[i]), len(want), firstByteDiff(got[i], want))
				}
			}
			if sc.opened != 1 || sc.closed != 1 {
				t.Errorf("the trace was opened %d times and closed %d, want once: a reader was let go", sc.opened, sc.closed)
			}
			waited := 0
			paused.Range(func(any, any) bool { waited++; return true })
			if waited == 0 {
				t.Error("no reader waited at the head: the tape held the whole trace")
			}
		})
	}
}

// In lockstep, a parked reader is not waited for: the head lets it go
// where the tape is full, and it reads what a Validator of its own reads
// once it is back (on a fresh tape: it had not started).
func TestShareLockstepLetsParkedGo(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 4
	want := sampleTranscript(t, samePlain)
	var sc sourceCount
	v, c, err := sc.reopen()
	if err != nil {
		t.Fatal(err)
	}
	s := NewShare(v, c, nil, 2, 1, sc.reopen)
	s.Lockstep(nil, nil)
	r1 := s.Reader(1)
	r1.Park(true)
	r0 := s.Reader(0)
	got0, err := transcript(r0, samePlain) // would wait for r1 forever were r1 not parked
	r0.Close()
	if err != nil {
		t.Fatal(err)
	}
	r1.Park(false)
	got1, err := transcript(r1, samePlain)
	r1.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got0 != want || got1 != want {
		t.Errorf("readers read %d and %d bytes of answers, want %d", len(got0), len(got1), len(want))
	}
	if sc.opened != 2 || sc.closed != 2 {
		t.Errorf("the trace was opened %d times and closed %d, want twice: the parked reader read on its own", sc.opened, sc.closed)
	}
}

// offered is what a test reader offers for a child: its kernel and the
// reader.
type offered struct{ kernel, reader uint64 }

// A child offered by one reader of a Share (Child.Offer) is what every
// reader finds for it (Filed), whichever offered first, with chunks
// recycled as the readers go, read at once on goroutines of their own;
// a Validator reading alone has nothing on a tape to offer to.
func TestShareOffer(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	shareChunk = 16
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	s := NewShare(v, c, nil, n, 0, openShareSample)
	read := func(v *Validator, r uint64) (kids, found int, err error) {
		var kid Child
		run, warps := make([]CTA, 64), make([]int64, 64*RunWarps)
		for {
			if v.Child(&kid) {
				kids++
				h := kid.Head()
				switch f := kid.Filed().(type) {
				case offered:
					found++
					if f.kernel != h.Kernel.ID {
						return kids, found, fmt.Errorf("reader %d: kernel %d has reader %d's offer for kernel %d", r, h.Kernel.ID, f.reader, f.kernel)
					}
				case nil:
				default:
					return kids, found, fmt.Errorf("reader %d: kernel %d has %v", r, h.Kernel.ID, f)
				}
				o := any(offered{h.Kernel.ID, r})
				kid.Offer(&o)
				if f, ok := kid.Filed().(offered); kid.OnTape() && (!ok || f.kernel != h.Kernel.ID) {
					return kids, found, fmt.Errorf("reader %d: kernel %d offered, Filed %v", r, h.Kernel.ID, kid.Filed())
				}
				for h.More {
					if m, err := v.CTAs(h.Kernel.ID, run, warps); err != nil || m < len(run) {
						break
					}
				}
				continue
			}
			if _, err := v.Next(); errors.Is(err, io.EOF) {
				return kids, found, nil
			} else if err != nil {
				return kids, found, err
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	kids, found := make([]int, n), make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.Reader(i)
			kids[i], found[i], errs[i] = read(r, uint64(i))
			r.Close()
		}()
	}
	wg.Wait()
	sum := 0
	for i := range n {
		if errs[i] != nil {
			t.Error(errs[i])
		}
		sum += found[i]
	}
	// Every child is found by the readers that did not offer it, but
	// where the last reader reads the end alone, the others gone.
	if kids[0] == 0 || sum < kids[0]*(n-1)-n {
		t.Errorf("%d children, %v found offered by another reader: the offers did not reach the readers", kids[0], found)
	}
	alone, c2, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if k, f, err := read(alone, n); err != nil || k == 0 || f != 0 {
		t.Errorf("alone: %d children, %d found offered, %v", k, f, err)
	}
}

// A Share's head records a launch level's children in one pass
// (childNext), guessing that a child whose records all came with it is
// followed by Child: a reader that calls Next there instead parts from
// the tape and reads what a Validator of its own making its calls reads,
// and the others read on as before.
func TestShareChildGuess(t *testing.T) {
	v, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	want, err := transcript(v, samePlain)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	v, c, err = openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	wantNext, err := transcriptWith(v, samePlain, true)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if wantNext == want {
		t.Fatal("calling Next after a child read the same answers: the sample tests no guess")
	}
	for _, together := range []bool{false, true} {
		var sc sourceCount
		v, c, err := sc.reopen()
		if err != nil {
			t.Fatal(err)
		}
		const n = 3
		s := NewShare(v, c, nil, n, 0, sc.reopen)
		got, errs := make([]string, n), make([]error, n)
		read := func(i int) {
			r := s.Reader(i)
			got[i], errs[i] = transcriptWith(r, samePlain, i == 1)
			r.Close()
		}
		var wg sync.WaitGroup
		for i := range n {
			if together {
				wg.Add(1)
				go func() { defer wg.Done(); read(i) }()
			} else {
				read(i)
			}
		}
		wg.Wait()
		for i := range n {
			w := want
			if i == 1 {
				w = wantNext
			}
			if errs[i] != nil {
				t.Errorf("together %v, reader %d: %v", together, i, errs[i])
			} else if got[i] != w {
				t.Errorf("together %v, reader %d read %d bytes of answers, want %d; first difference at byte %d", together, i, len(got[i]), len(w), firstByteDiff(got[i], w))
			}
		}
		if sc.opened != sc.closed {
			t.Errorf("together %v: %d sources opened, %d closed", together, sc.opened, sc.closed)
		}
	}
}

// BenchmarkShareChildren reads the sample through a Share's four readers,
// one after another (the tape holds it all), as four replays' tree
// readers call it: the first records, the others read the tape.
func BenchmarkShareChildren(b *testing.B) {
	for _, kids := range []bool{false, true} {
		name := "child"
		if kids {
			name = "kids" // the children in runs, as the replay's tree reader reads them
		}
		b.Run(name, func(b *testing.B) { benchmarkShareChildren(b, kids) })
	}
}

func benchmarkShareChildren(b *testing.B, kids bool) {
	var kid Child
	var kr Kids
	run, warps, plain := make([]CTA, 64), make([]int64, 64*RunWarps), make([]PlainCTA, 256)
	read := func(v *Validator) {
		for {
			if kids && v.Kids(&kr) {
				continue
			}
			if v.Child(&kid) {
				if h := kid.Head(); h.More {
					for n := len(run); n == len(run); {
						n, _ = v.CTAs(h.Kernel.ID, run, warps)
					}
				}
				continue
			}
			r, err := v.Next()
			if err != nil {
				return
			}
			if c, ok := r.(*CTA); ok {
				if v.PlainCTAs(c.Kernel, c.CTA+1, plain) == 0 {
					for n := len(run); n == len(run); {
						n, _ = v.CTAs(c.Kernel, run, warps)
					}
				}
			}
		}
	}
	for b.Loop() {
		v, c, err := openShareSample()
		if err != nil {
			b.Fatal(err)
		}
		const n = 4
		s := NewShare(v, c, nil, n, 1<<30, openShareSample)
		for i := range n {
			r := s.Reader(i)
			read(r)
			r.Close()
		}
	}
}

// A chunk's copy of a child's records (addRecords) is theirs field for
// field, its warp cycles its own (the Child's room is read again for the
// next child), and a chunk recycled (reset) keeps no warp cycles of the
// records it held before where a record has none.
func TestTapeChunkAddRecords(t *testing.T) {
	var c tapeChunk
	warps := []int64{7, 9, 11}
	first := []CTA{
		{Kernel: 3, CTA: 0, Cycles: 11, WarpCycles: warps[:2], Insts: 4, DRAMBytes: 64},
		{Kernel: 3, CTA: 1, Cycles: 12, WarpCycles: warps[2:]},
	}
	lo, hi := c.addRecords(first)
	if lo != 0 || hi != 2 {
		t.Fatalf("first child at [%d, %d), want [0, 2)", lo, hi)
	}
	warps[0], warps[2] = -1, -1 // the room, read again
	want := []CTA{
		{Kernel: 3, CTA: 0, Cycles: 11, WarpCycles: []int64{7, 9}, Insts: 4, DRAMBytes: 64},
		{Kernel: 3, CTA: 1, Cycles: 12, WarpCycles: []int64{11}},
	}
	if got := c.ctas[lo:hi]; !reflect.DeepEqual(got, want) {
		t.Errorf("first child copied as %+v, want %+v", got, want)
	}
	second := []CTA{{Kernel: 4, CTA: 0, Cycles: 5}}
	if lo, hi := c.addRecords(second); lo != 2 || hi != 3 || !reflect.DeepEqual(c.ctas[lo:hi], second) {
		t.Errorf("second child at [%d, %d) as %+v, want [2, 3) as %+v", lo, hi, c.ctas[lo:hi], second)
	}
	c.reset()
	again := []CTA{{Kernel: 5, CTA: 0, Cycles: 6}, {Kernel: 5, CTA: 1, Cycles: 6}}
	if lo, hi := c.addRecords(again); lo != 0 || hi != 2 || !reflect.DeepEqual(c.ctas[lo:hi], again) {
		t.Errorf("after reset, child at [%d, %d) as %+v, want [0, 2) as %+v", lo, hi, c.ctas[lo:hi], again)
	}
}

// A Share's reader may read a launch level's children off the tape in
// runs (Kids): each answer is the one Child gives there, and a reader so
// reads what a Validator of its own reads, beside readers that call
// Child, with a chunk of the tape small (a run cut at each chunk's end)
// or large. A Validator of its own has no Kids.
func TestShareKids(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	want := sampleTranscript(t, samePlain)
	alone, c, err := openShareSample()
	if err != nil {
		t.Fatal(err)
	}
	if alone.Kids(&Kids{}) || alone.OnTape() {
		t.Errorf("a Validator of its own: Kids read some, or OnTape")
	}
	c.Close()
	for _, chunk := range []int{7, 1024} {
		shareChunk = chunk
		var sc sourceCount
		v, c, err := sc.reopen()
		if err != nil {
			t.Fatal(err)
		}
		const n = 3
		s := NewShare(v, c, nil, n, 0, sc.reopen)
		got, errs, kids := make([]string, n), make([]error, n), make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.Reader(i)
				var k *int
				if i != 1 {
					k = &kids[i]
				}
				got[i], errs[i] = transcriptOf(r, samePlain, false, k)
				r.Close()
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Errorf("chunk %d, reader %d: %v", chunk, i, errs[i])
			} else if got[i] != want {
				t.Errorf("chunk %d, reader %d read %d bytes of answers, want %d; first difference at byte %d", chunk, i, len(got[i]), len(want), firstByteDiff(got[i], want))
			}
		}
		if kids[0]+kids[2] == 0 {
			t.Errorf("chunk %d: no child read by Kids: the sample tests nothing", chunk)
		}
		if sc.opened != sc.closed {
			t.Errorf("chunk %d: %d sources opened, %d closed", chunk, sc.opened, sc.closed)
		}
	}
}

// A Share whose readers have all closed holds nothing it decoded with:
// its owner may keep it to the end of a run of many replays (a study
// keeps each piece's), and each Validator it kept (the shared one, or a
// reader's own, where one read on alone) held its decoder's buffers
// (BFS scale 12, a sweep of 1,000 replays: some 110 KB a replay, held to
// the end). Read side by side, a lone head handed the shared Validator,
// a reader let go reading on its own: every source opened is closed too.
func TestShareLetsGoOnClose(t *testing.T) {
	defer func(n int) { shareChunk = n }(shareChunk)
	for _, tc := range []struct {
		name   string
		chunk  int
		budget int64
	}{
		{"side by side", 16, 0},
		{"lone head, the other let go", 4, 1},
	} {
		shareChunk = tc.chunk
		var sc sourceCount
		v, c, err := sc.reopen()
		if err != nil {
			t.Fatal(err)
		}
		s := NewShare(v, c, nil, 2, tc.budget, sc.reopen)
		for i := range 2 {
			r := s.Reader(i)
			if _, err := transcript(r, samePlain); err != nil {
				t.Fatal(err)
			}
			r.Close()
		}
		if s.v != nil || s.closer != nil || s.reopen != nil {
			t.Errorf("%s: closed, the share keeps its Validator %p, source %v, reopen set %v", tc.name, s.v, s.closer, s.reopen != nil)
		}
		for i, r := range s.readers {
			if r.own != nil || r.ownSrc != nil {
				t.Errorf("%s: closed, reader %d keeps its own Validator %p, source %v", tc.name, i, r.own, r.ownSrc)
			}
		}
		if sc.opened < 2 && tc.budget == 1 {
			t.Errorf("%s: %d sources opened; want the one let go to have read on its own", tc.name, sc.opened)
		}
		if sc.closed != sc.opened {
			t.Errorf("%s: %d sources opened, %d closed", tc.name, sc.opened, sc.closed)
		}
	}
}

// wholeEnd, galloping, finds where a scan of the calls finds a run of
// whole answers to end, from any call in it: runs of every length up to
// 40, back to back or apart, to a chunk's end or not.
func TestWholeEnd(t *testing.T) {
	for _, lens := range [][]int{{1}, {2, 0}, {3, 1, 0, 5}, {40}, {17, 0, 9, 0}, {1, 1, 1}, {0, 33, 2}} {
		var c tapeChunk
		for _, n := range lens {
			if n == 0 {
				c.calls = append(c.calls, tapeCall{op: opNext})
				continue
			}
			for range n {
				c.calls = append(c.calls, tapeCall{op: opChild, whole: true})
				c.calls[len(c.calls)-1].run = c.runFrom(len(c.calls) - 1)
				c.endRun()
			}
			// a run ends at a whole answer of the next run only where
			// something not whole came between: mark the next as apart
			c.calls = append(c.calls, tapeCall{op: opNext})
		}
		for i := range c.calls {
			if !c.calls[i].whole {
				continue
			}
			want := i
			for want < len(c.calls) && c.calls[want].whole && c.calls[want].run&runFromMask == c.calls[i].run&runFromMask {
				want++
			}
			if got := wholeEnd(c.calls, i); got != want {
				t.Errorf("runs %v, from call %d: end %d, want %d", lens, i, got, want)
			}
			if got := wholeEnd(c.calls[:want], i); got != want {
				t.Errorf("runs %v cut at %d, from call %d: end %d, want %d", lens, want, i, got, want)
			}
		}
	}
}
