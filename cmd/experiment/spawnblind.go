package main

import (
	"fmt"
	"io"
	"strings"
)

// blindFindings prints how much of a SPAWN column was decided blind: the
// launching lanes reached before any child CTA had finished. Algorithm 1
// launches every one of them ("if t_cta = 0 then Spawn child kernel",
// lines 2–3), and up to the first child CTA's end a SPAWN run is the CDP
// run of the same trace, so the count is a property of the trace and the
// GPU, not of SPAWN's estimates: CDP's run counts the same lanes, which
// the findings check. On a benchmark where every lane is blind no SPAWN
// run can differ from CDP's, and its gap to Offline-Search is CDP's; the
// findings give the gap over the other benchmarks beside the whole one.
func blindFindings(w io.Writer, label string, names []string, sp, cdp, best []*stats) {
	var blind, sites int64
	var all, differ, each []string
	var restSp, restBest []*stats
	equal := true
	for i := range sp {
		blind += sp[i].BlindSites
		sites += sp[i].LaunchSites
		if sp[i].LaunchSites > 0 {
			each = append(each, fmt.Sprintf("%s %d/%d", names[i], sp[i].BlindSites, sp[i].LaunchSites))
		}
		if sp[i].BlindSites != cdp[i].BlindSites {
			differ = append(differ, names[i])
		}
		if sp[i].LaunchSites > 0 && sp[i].BlindSites == sp[i].LaunchSites {
			all = append(all, names[i])
			equal = equal && sp[i].MakespanCycles == cdp[i].MakespanCycles
			continue
		}
		restSp, restBest = append(restSp, sp[i]), append(restBest, best[i])
	}
	if sites == 0 {
		return
	}
	fmt.Fprintf(w, "%s decided %d of %d launching lanes (%.0f%%) before any child CTA had finished (%s): Algorithm 1 (lines 2–3) launches them in any SPAWN run.",
		label, blind, sites, 100*float64(blind)/float64(sites), strings.Join(each, ", "))
	if len(differ) > 0 {
		fmt.Fprintf(w, " CDP's runs count differently on %s.", strings.Join(differ, ", "))
	} else {
		fmt.Fprint(w, " CDP's runs count the same.")
	}
	fmt.Fprintln(w)
	if len(all) == 0 {
		return
	}
	verdict := "equal"
	if !equal {
		verdict = "NOT equal"
	}
	fmt.Fprintf(w, "Every lane blind on %s: there SPAWN's run is CDP's (makespans %s), whatever its estimates.", strings.Join(all, ", "), verdict)
	if len(restSp) > 0 {
		fmt.Fprintf(w, " Gap to Offline-Search over the other %d benchmarks: %.1f%% (all %d: %.1f%%).",
			len(restSp), 100*(1/geoRatio(restSp, restBest)-1), len(sp), 100*(1/geoRatio(sp, best)-1))
	}
	fmt.Fprintln(w)
}

// benchNames lists the benchmarks of policy's column, in its order.
func benchNames(outs []outcome, policy string) []string {
	var names []string
	for _, o := range outs {
		if o.policy == policy {
			names = append(names, o.bench.name)
		}
	}
	return names
}
