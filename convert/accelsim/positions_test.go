package accelsim

import (
	"slices"
	"testing"
)

// Positions by hand: the v4 golden's first CTA (567 cycles, one warp of
// 567) loads buffer 3 at warp time 249.5, which lies at 249 and is
// quantised down to 6 × ⌈567/16⌉ = 216; a CTA bound by the issue width
// (1000 cycles, slowest warp 10) stretches warp time 5 to 500, which is
// 7 × 63 = 441.
func TestPositions(t *testing.T) {
	for _, c := range []struct {
		cycles  int64
		slowest float64
		t       float64
		want    int64
	}{
		{567, 567, 4, 0}, // v4's first kernel: buffers 1, 3, 4 and 5
		{567, 567, 249.5, 216},
		{567, 567, 353.5, 324},
		{567, 567, 459, 432},
		{567, 567, 563, 15 * 36},
		{325, 324.5, 105.5, 105}, // v4's second kernel, buffer 2
		{321, 320.5, 105.5, 105}, // the positions golden, pages 1 and 3
		{1000, 10, 5, 441},
		{1000, 10, 10, 15 * 63}, // the end of the run: the last point
		{5, 5, 3.5, 3},          // fewer cycles than points: every cycle is one
		{0, 0, 0, 0},
	} {
		if got := newPositions(c.cycles, c.slowest).at(c.t); got != c.want {
			t.Errorf("%d cycles, slowest warp %g: warp time %g lies at %d; want %d", c.cycles, c.slowest, c.t, got, c.want)
		}
	}
}

// A buffer whose 1000 pages are first touched at 1000 different times
// gets at most 16 pages records, in order of at, and each page lies in the
// one whose at is the last point not after its first touch.
func TestRecordsAtMostSixteenPoints(t *testing.T) {
	const n = 1000
	cb := &ctaBuf{b: &buffer{id: 7}, pages: map[uint64]pageUse{}}
	for p := uint64(0); p < n; p++ {
		cb.add(p<<12, p<<12, accRead, 12, float64(p))
	}
	cb.add(5<<12, 5<<12, accWrite, 12, 3) // a second warp touches page 5 earlier
	pos := newPositions(n, n)             // step ⌈1000/16⌉ = 63
	recs, first := cb.records(1, 2, pos)
	if len(recs) != 16 || first != 0 {
		t.Fatalf("%d records, the first at %d; want 16 from 0", len(recs), first)
	}
	seen := 0
	for i, r := range recs {
		if r.At != int64(i)*63 || r.Kernel != 1 || r.CTA != 2 || r.Buffer != 7 {
			t.Errorf("record %d is kernel %d CTA %d buffer %d at %d; want kernel 1 CTA 2 buffer 7 at %d", i, r.Kernel, r.CTA, r.Buffer, r.At, i*63)
		}
		for _, p := range r.R {
			touch := int64(p)
			if p == 5 {
				touch = 3
			}
			if want := min(touch/63, 15) * 63; r.At != want {
				t.Errorf("page %d (first touched at %d) is in the record at %d; want %d", p, touch, r.At, want)
			}
		}
		seen += len(r.R)
		if !slices.IsSorted(r.R) {
			t.Errorf("record at %d lists pages out of order", r.At)
		}
	}
	if seen != n || !slices.Equal(recs[0].W, []uint64{5}) {
		t.Errorf("%d pages read (want %d), written %v at 0 (want [5])", seen, n, recs[0].W)
	}
}
