package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// floorFindings prints what the blind launches alone cost a SPAWN column
// (bounds.BlindFloor): the blind lanes, the SM of each one's
// parent CTA and the cycle it reaches the launch path are CDP's in every
// SPAWN run (Algorithm 1 launches them, lines 2–3), so every SPAWN run
// waits for its SMs' launch servers to serve them. A benchmark's SPAWN
// speedup over flat is then at most flat's makespan over the floor, and
// its gap to Offline-Search at least Offline's speedup over that bound.
// The mean line assumes SPAWN equals Offline-Search wherever the floor
// allows it: the part of the gap no SPAWN estimate can remove.
func floorFindings(w io.Writer, label string, names []string, sp, cdp, best, flat []*stats) {
	if len(flat) != len(sp) || len(best) != len(sp) {
		return
	}
	var differ []string
	logReplayed := 0.0
	fmt.Fprintf(w, "Blind floors of %s (bounds.BlindFloor: no SPAWN run ends before its SMs' launch servers have served its blind lanes' calls, their children have been dispatched and what stands behind their host kernels in their streams has run); bound = flat / floor, the most SPAWN can gain over flat; least gap = Offline-Search's speedup over the bound:\n\n", label)
	fmt.Fprintln(w, "| benchmark | blind lanes | floor | replayed SPAWN | floor / SPAWN | bound | Offline-Search | replayed SPAWN | least gap | replayed gap |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for i := range sp {
		if sp[i].BlindFloorCycles != cdp[i].BlindFloorCycles {
			differ = append(differ, names[i])
		}
		forced := forcedRatio(sp[i].BlindFloorCycles, best[i].MakespanCycles)
		replayed := float64(sp[i].MakespanCycles) / float64(best[i].MakespanCycles)
		logReplayed += math.Log(replayed)
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %.2f× | %.2f× | %.1f%% | %.1f%% |\n",
			names[i], sp[i].BlindSites, floorCell(sp[i].BlindFloorCycles), sp[i].MakespanCycles,
			floorShare(sp[i]), boundCell(flat[i].MakespanCycles, sp[i].BlindFloorCycles),
			flatSpeedup(flat[i], best[i]), flatSpeedup(flat[i], sp[i]), 100*(forced-1), 100*(replayed-1))
	}
	fmt.Fprintln(w)
	n := float64(len(sp))
	least := leastGap(sp, best)
	fmt.Fprintf(w, "Assuming %s equalled Offline-Search on every benchmark except where its blind floor forces it lower (per benchmark max(1, Offline-Search / bound)), its geometric-mean gap to Offline-Search over the %d benchmarks would be %.1f%%: the part no SPAWN estimate can remove (replayed: %.1f%%).",
		label, len(sp), 100*least, 100*(math.Exp(logReplayed/n)-1))
	if top := spawnGap.hi * (1 + spawnGap.band); 100*least > top {
		fmt.Fprintf(w, " That is above the band's %.1f%% (the paper's within %.0f%%, ±%.0f%%), so at this run's inputs the headline is beyond reach", top, spawnGap.hi, 100*spawnGap.band)
		if least > closeGap {
			fmt.Fprintf(w, ", and over %.0f%%: no run of these traces under Algorithm 1 at these inputs, whatever its estimates, comes within %.0f%% of Offline-Search on the geometric mean", 100*closeGap, 100*closeGap)
		}
		fmt.Fprint(w, ".")
	}
	if len(differ) > 0 {
		fmt.Fprintf(w, " CDP's runs give different floors on %s.", strings.Join(differ, ", "))
	} else {
		fmt.Fprint(w, " CDP's runs give the same floors.")
	}
	fmt.Fprintln(w)
}

// leastGap is the geometric-mean gap to Offline-Search (best) that the
// SPAWN runs' (sp) blind floors force, as a fraction: what floorFindings
// prints as the part no SPAWN estimate can remove. NaN when the columns
// do not pair up.
func leastGap(sp, best []*stats) float64 {
	if len(sp) == 0 || len(best) != len(sp) {
		return math.NaN()
	}
	logForced := 0.0
	for i := range sp {
		logForced += math.Log(forcedRatio(sp[i].BlindFloorCycles, best[i].MakespanCycles))
	}
	return math.Exp(logForced/float64(len(sp))) - 1
}

// spawnGapAcross prints SPAWN column name's least gap recomputed at every
// point of x's grid of unstated inputs, against the headline's band.
func spawnGapAcross(w io.Writer, x *experiment, name string) {
	acrossLine(w, x, fmt.Sprintf("%s's least gap to Offline-Search (band: ≤ %.1f%%)", name, spawnGap.hi*(1+spawnGap.band)),
		func(p point) reach { return gapBound(name)(spawnGap, p) })
}

// gapBound is the blind floors' bound on h, SPAWN column name's gap to
// Offline-Search, at a point: leastGap, outside the band when over its
// high end.
func gapBound(name string) func(h headline, p point) reach {
	return func(h headline, p point) reach {
		own := ownOutcomes(p.outs)
		least := 100 * leastGap(column(own, name), column(own, "offline-search"))
		return reach{value: fmt.Sprintf("%.1f%%", least), out: least > h.hi*(1+h.band)}
	}
}

// closeGap is the geometric-mean gap to Offline-Search the findings hold
// the blind floors against besides the headline's band: 10%, the most
// the project's acceptance criterion for SPAWN allows (the paper reports
// within 4%, §V-B; §I says within 6%).
const closeGap = 0.10

// forcedRatio is the least makespan ratio of a SPAWN run to Offline-Search's
// that a floor of floor cycles forces: floor over Offline's makespan, or 1
// where Offline ends after the floor.
func forcedRatio(floor, best int64) float64 {
	return max(1, float64(floor)/float64(best))
}

// flatSpeedup is run's speedup over flat.
func flatSpeedup(flat, run *stats) float64 {
	return float64(flat.MakespanCycles) / float64(run.MakespanCycles)
}

func floorCell(floor int64) string {
	if floor == 0 {
		return "—"
	}
	return fmt.Sprint(floor)
}

// floorShare is how close the floor comes to the replayed makespan.
func floorShare(s *stats) string {
	if s.BlindFloorCycles == 0 || s.MakespanCycles == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(s.BlindFloorCycles)/float64(s.MakespanCycles))
}

func boundCell(flat, floor int64) string {
	if floor == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", float64(flat)/float64(floor))
}
