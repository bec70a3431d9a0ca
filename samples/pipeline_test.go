package samples

import (
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// ctaBuf keys one CTA's records about one buffer.
type ctaBuf struct{ kernel, cta, buffer uint64 }

// pipeRecords indexes a pipeline trace's memory records.
type pipeRecords struct {
	access  map[ctaBuf]*trace.Access
	pages   map[ctaBuf]*trace.Pages
	buffers map[string]*trace.Buffer
	kernels []*trace.Kernel
	lastAt  map[ctaBuf]int64 // the last pages record's at
}

func indexPipeline(t *testing.T, recs []trace.Record) *pipeRecords {
	t.Helper()
	pr := &pipeRecords{access: map[ctaBuf]*trace.Access{}, pages: map[ctaBuf]*trace.Pages{}, buffers: map[string]*trace.Buffer{}, lastAt: map[ctaBuf]int64{}}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Buffer:
			pr.buffers[r.Name] = r
		case *trace.Kernel:
			pr.kernels = append(pr.kernels, r)
		case *trace.Access:
			key := ctaBuf{r.Kernel, r.CTA, r.Buffer}
			if pr.access[key] != nil {
				t.Fatalf("two access records for %+v", key)
			}
			pr.access[key] = r
		case *trace.Pages:
			// A CTA has one pages record per point where it first
			// touches some of the buffer's pages: merge them, checking
			// they come earliest first and name each page once.
			key := ctaBuf{r.Kernel, r.CTA, r.Buffer}
			old := pr.pages[key]
			if old == nil {
				pr.pages[key] = &trace.Pages{Kernel: r.Kernel, CTA: r.CTA, Buffer: r.Buffer, R: slices.Clone(r.R), W: slices.Clone(r.W), At: r.At}
				continue
			}
			if r.At <= pr.lastAt[key] {
				t.Fatalf("%+v: pages record at %d after one at %d", key, r.At, pr.lastAt[key])
			}
			for _, p := range append(slices.Clone(r.R), r.W...) {
				if slices.Contains(old.R, p) || slices.Contains(old.W, p) {
					t.Fatalf("%+v: page %d first touched twice", key, p)
				}
			}
			old.R = append(old.R, r.R...)
			old.W = append(old.W, r.W...)
			slices.Sort(old.R)
			slices.Sort(old.W)
		}
		if r, ok := r.(*trace.Pages); ok {
			pr.lastAt[ctaBuf{r.Kernel, r.CTA, r.Buffer}] = r.At
		}
	}
	return pr
}

// checkCover checks that every CTA's access range, rounded out to pages,
// contains its exact pages with a matching mode, and that ranges and pages
// name the same (CTA, buffer) pairs. It returns how many ranges cover
// strictly more pages than were touched.
func (pr *pipeRecords) checkCover(t *testing.T) (over int) {
	t.Helper()
	if len(pr.access) != len(pr.pages) {
		t.Fatalf("%d access records, %d pages records", len(pr.access), len(pr.pages))
	}
	for key, a := range pr.access {
		pg := pr.pages[key]
		if pg == nil {
			t.Fatalf("access %+v has no pages record", *a)
		}
		lo, hi := a.Lo/trace.DefaultPageBytes, a.Hi/trace.DefaultPageBytes
		touched := map[uint64]bool{}
		for _, p := range append(append([]uint64{}, pg.R...), pg.W...) {
			if p < lo || p > hi {
				t.Fatalf("%+v: page %d outside range pages [%d, %d]", key, p, lo, hi)
			}
			touched[p] = true
		}
		wantMode := map[[2]bool]string{{true, false}: "r", {false, true}: "w", {true, true}: "rw"}[[2]bool{len(pg.R) > 0, len(pg.W) > 0}]
		if a.Mode != wantMode {
			t.Fatalf("%+v: mode %s, pages r=%d w=%d", key, a.Mode, len(pg.R), len(pg.W))
		}
		if uint64(len(touched)) < hi-lo+1 {
			over++
		}
	}
	return over
}

// shares reports whether CTA a's pages of buf (read or written) meet CTA b's.
func (pr *pipeRecords) shares(a, b ctaBuf, aWrites, bWrites bool) bool {
	pick := func(k ctaBuf, w bool) []uint64 {
		if p := pr.pages[k]; p != nil {
			if w {
				return p.W
			}
			return p.R
		}
		return nil
	}
	set := map[uint64]bool{}
	for _, p := range pick(a, aWrites) {
		set[p] = true
	}
	for _, p := range pick(b, bWrites) {
		if set[p] {
			return true
		}
	}
	return false
}

// rangesMeet reports whether two access ranges overlap in bytes.
func (pr *pipeRecords) rangesMeet(a, b ctaBuf) bool {
	x, y := pr.access[a], pr.access[b]
	return x != nil && y != nil && x.Lo <= y.Hi && y.Lo <= x.Hi
}

// checkChain checks the kernels are a chain of host launches into one
// stream, n of them, all named name.
func checkChain(t *testing.T, recs []trace.Record, n int) {
	t.Helper()
	_, host, device := countKinds(recs)
	if host != n || device != 0 {
		t.Fatalf("%d host and %d device launches, want %d host", host, device, n)
	}
	for _, r := range recs {
		if l, ok := r.(*trace.Launch); ok && (l.Stream != 0 || len(l.After) != 0) {
			t.Fatalf("launch %+v not in stream 0 alone", *l)
		}
	}
	if h := recs[0].(*trace.Header); h.ClockMHz != 700 || h.GPU != "gk110-64" {
		t.Fatalf("header %+v, want the 700 MHz gk110-64", *h)
	}
}
