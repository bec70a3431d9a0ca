package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLaunchVerdicts: under LaunchAll every lane of every site is
// launched, whatever the sites' sizes before it, though the verdicts are
// made once and kept (launchVerdicts). Fails when the room a larger site
// adds is not filled, or a verdict carries anything but Launch.
func TestLaunchVerdicts(t *testing.T) {
	se := newSiteEngine(nil, siteLinks{}, false)
	if !se.launchAll {
		t.Fatal("the default decider is not LaunchAll")
	}
	for _, n := range []int{1, 3, 2, 8, 5, 40, 1} {
		out := se.launchVerdicts(&se.site, n)
		if len(out) != n {
			t.Fatalf("site of %d lanes: %d verdicts", n, len(out))
		}
		for i, v := range out {
			if v != (Verdict{Decision: Launch}) {
				t.Fatalf("site of %d lanes: lane %d's verdict %+v", n, i, v)
			}
		}
	}
}

// sortSites leaves a CTA's lanes as a stable sort by cmpSite would, and
// siteBefore, its check of the order, agrees with cmpSite on every pair:
// lanes of few warps, positions and lane numbers, so that many tie on
// one or two of the three. Fails when the check misses an out-of-order
// pair, or orders ties differently.
func TestSortSites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		s := make([]siteRec, n)
		for i := range s {
			s[i] = siteRec{warp: r.Int32N(3), at: r.Int64N(3), lane: int16(r.IntN(3)), workload: int64(i)}
		}
		for _, a := range s {
			for _, b := range s {
				if siteBefore(&a, &b) != (cmpSite(a, b) < 0) {
					t.Fatalf("siteBefore(%+v, %+v) = %v, cmpSite %d", a, b, siteBefore(&a, &b), cmpSite(a, b))
				}
			}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, cmpSite)
		sortSites(s)
		if !slices.Equal(s, want) {
			t.Fatalf("%d lanes: sortSites gave %+v, want %+v", n, s, want)
		}
		sortSites(s) // sorted already: left as it is
		if !slices.Equal(s, want) {
			t.Fatalf("%d sorted lanes: sortSites moved them to %+v", n, s)
		}
	}
}

// warpEnd finds the end of the run of sorted lanes of sites[i]'s warp
// from any lane i in it, as a step through them would: runs of one lane
// to hundreds, warps numbered with gaps.
func TestWarpEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 300; n++ {
		for trial := range 20 {
			s := make([]siteRec, n)
			w := int32(0)
			for i := range s {
				if r.IntN(1+trial) == 0 {
					w += int32(1 + r.IntN(2))
				}
				s[i].warp = w
			}
			for i := range n {
				want := i
				for want < n && s[want].warp == s[i].warp {
					want++
				}
				if got := warpEnd(s, i); got != want {
					t.Fatalf("%d lanes, lane %d: warpEnd %d, want %d", n, i, got, want)
				}
			}
		}
	}
}
