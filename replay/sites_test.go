package replay

import "testing"

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
