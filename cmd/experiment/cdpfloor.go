package main

import (
	"fmt"
	"io"
	"math"
)

// dtblFindings prints the dtbl experiments' findings under the table:
// the headlines without amr, then what the CDP floors prove.
func dtblFindings(x *experiment, w io.Writer, outs []outcome) {
	dtblWithout("amr")(x, w, outs)
	fmt.Fprintln(w)
	cdpFloorFindings(w, outs)
	cdpFloorAcross(w, x)
	fmt.Fprintln(w)
	klapFindings(w, outs)
}

// cdpFloorFindings prints each benchmark's CDP floor
// (bounds.CDPFloor: no run that launches every lane through
// the device runtime ends before it) and what it proves about the
// headlines. A benchmark's CDP speedup over flat is at most bound = flat /
// floor, so over the paper's benchmarks (the rows the headlines use):
// CDP over flat ≤ geomean(bound); DTBL over CDP = DTBL over flat / CDP
// over flat ≥ geomean(DTBL over flat / bound); and, whatever DTBL's
// replay gives, with DTBL over flat anywhere inside its band (at least
// its low end), DTBL over CDP ≥ that low end / geomean(bound).
func cdpFloorFindings(w io.Writer, outs []outcome) {
	fmt.Fprintln(w, "CDP floors (bounds.CDPFloor: no run launching every lane through the device runtime ends before its longest chain of host calls, dispatches, warps' own cycles and DTBL Table 3 calls, nor before what its CTAs hold and ask — SM room, Kernel Distributor entries, issue slots, DRAM bytes, launch servers — fits in the GPU's, nor before a host kernel's CTAs can have started in waves of what the GPU holds and, under FCFS placement, its children's work after its last wave); bound = flat / floor, the most CDP can gain over flat:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| benchmark | CDP floor | replayed CDP | floor / replayed | bound (CDP vs flat ≤) | replayed CDP vs flat | DTBL vs flat / bound (DTBL vs CDP ≥) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	cdp, flat, dtbl := column(outs, "cdp"), column(outs, "flat"), column(outs, "dtbl")
	names := benchNames(outs, "cdp")
	if len(flat) != len(cdp) || len(dtbl) != len(cdp) {
		return
	}
	for i, c := range cdp {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.2f× | %s |\n", names[i], floorCell(c.CDPFloorCycles), c.MakespanCycles,
			cdpFloorShare(c), boundCell(flat[i].MakespanCycles, c.CDPFloorCycles), flatSpeedup(flat[i], c),
			dtblOverBound(flat[i], dtbl[i], c.CDPFloorCycles))
	}
	fmt.Fprintln(w)
	own := ownOutcomes(outs)
	cdp, flat, dtbl = column(own, "cdp"), column(own, "flat"), column(own, "dtbl")
	bound, least := floorBounds(flat, dtbl, cdp)
	if math.IsNaN(bound) {
		fmt.Fprintln(w, "A paper benchmark has no CDP floor: no bound on the headlines.")
		return
	}
	cdpH, dtblH, dtblFlat := dtblHeadline("CDP over flat"), dtblHeadline("DTBL over CDP"), dtblHeadline("DTBL over flat")
	dtblLow := dtblFlat.lo * (1 - dtblFlat.band)
	fmt.Fprintf(w, "Over the paper's %d benchmarks: CDP over flat ≤ %.2f× (geomean of the bounds; replayed %.2f×): %s. ",
		len(cdp), bound, geoRatio(cdp, flat), belowBand(cdpH, bound))
	fmt.Fprintf(w, "DTBL over CDP ≥ %.2f× (geomean of DTBL over flat / bound; replayed %.2f×): %s. ",
		least, geoRatio(dtbl, cdp), aboveBand(dtblH, least))
	fmt.Fprintf(w, "With DTBL over flat anywhere inside its band (≥ %.3g×), DTBL over CDP ≥ %.3g× / %.2f× = %.2f×: %s.\n",
		dtblLow, dtblLow, bound, dtblLow/bound, aboveBand(dtblH, dtblLow/bound))
}

// floorBounds is the geometric mean of the benchmarks' bounds (flat /
// CDP floor) and of DTBL's speedup over flat divided by them; NaN when a
// floor is missing or the columns do not pair up.
func floorBounds(flat, dtbl, cdp []*stats) (bound, least float64) {
	if len(cdp) == 0 || len(flat) != len(cdp) || len(dtbl) != len(cdp) {
		return math.NaN(), math.NaN()
	}
	var logB, logL float64
	for i, c := range cdp {
		if c.CDPFloorCycles <= 0 || dtbl[i].MakespanCycles <= 0 {
			return math.NaN(), math.NaN()
		}
		b := float64(flat[i].MakespanCycles) / float64(c.CDPFloorCycles)
		logB += math.Log(b)
		logL += math.Log(flatSpeedup(flat[i], dtbl[i]) / b)
	}
	n := float64(len(cdp))
	return math.Exp(logB / n), math.Exp(logL / n)
}

// cdpFloorAcross prints the CDP floors' three bounds on the headlines
// recomputed at every point of x's grid of unstated inputs.
func cdpFloorAcross(w io.Writer, x *experiment) {
	cdpH, dtblH, dtblFlat := dtblHeadline("CDP over flat"), dtblHeadline("DTBL over CDP"), dtblHeadline("DTBL over flat")
	acrossLine(w, x, fmt.Sprintf("CDP over flat ≤ (band from %.2f×)", cdpH.lo*(1-cdpH.band)), func(p point) reach { return cdpOverFlatBound(cdpH, p) })
	high := dtblH.lo * (1 + dtblH.band)
	acrossLine(w, x, fmt.Sprintf("DTBL over CDP ≥ (band to %.2f×)", high), func(p point) reach { return dtblOverCDPBound(dtblH, p) })
	dtblLow := dtblFlat.lo * (1 - dtblFlat.band)
	acrossLine(w, x, fmt.Sprintf("With DTBL over flat inside its band, DTBL over CDP ≥ (band to %.2f×)", high), func(p point) reach {
		bound, _ := pointFloorBounds(p)
		return reach{value: fmt.Sprintf("%.2f×", dtblLow/bound), out: dtblLow/bound > high}
	})
}

// pointFloorBounds is floorBounds over the paper's benchmarks at p.
func pointFloorBounds(p point) (bound, least float64) {
	own := ownOutcomes(p.outs)
	return floorBounds(column(own, "flat"), column(own, "dtbl"), column(own, "cdp"))
}

// cdpOverFlatBound is the CDP floors' bound on h, CDP over flat, at p:
// the geometric mean of flat over the floors, outside the band when under
// its low end. No bound (a missing floor) is never outside.
func cdpOverFlatBound(h headline, p point) reach {
	bound, _ := pointFloorBounds(p)
	return reach{value: fmt.Sprintf("%.2f×", bound), out: bound < h.lo*(1-h.band)}
}

// dtblOverCDPBound is the CDP floors' bound on h, DTBL over CDP, at p:
// the geometric mean of DTBL over flat over the floors' bounds, outside
// the band when over its high end.
func dtblOverCDPBound(h headline, p point) reach {
	_, least := pointFloorBounds(p)
	return reach{value: fmt.Sprintf("%.2f×", least), out: least > max(h.hi, h.lo)*(1+h.band)}
}

// dtblHeadline is the dtbl headline of that claim.
func dtblHeadline(claim string) headline {
	for _, h := range dtblHeadlines {
		if h.claim == claim {
			return h
		}
	}
	panic("no dtbl headline " + claim)
}

// belowBand says whether an upper bound on a headline puts it under its
// band: the band's low end is the paper's value less the band.
func belowBand(h headline, upper float64) string {
	low := h.lo * (1 - h.band)
	if upper < low {
		return fmt.Sprintf("below the band's %.2f×, so at this run's inputs the headline is beyond reach", low)
	}
	return fmt.Sprintf("not below the band's %.2f× (short by %.0f%%)", low, 100*(upper/low-1))
}

// aboveBand says whether a lower bound on a headline puts it over its
// band: the band's high end is the paper's value plus the band.
func aboveBand(h headline, lower float64) string {
	high := max(h.hi, h.lo) * (1 + h.band)
	if lower > high {
		return fmt.Sprintf("above the band's %.2f×, so at this run's inputs the headline is beyond reach", high)
	}
	return fmt.Sprintf("not above the band's %.2f× (short by %.0f%%)", high, 100*(1-lower/high))
}

// cdpFloorShare is how close the CDP floor comes to the replayed makespan.
func cdpFloorShare(s *stats) string {
	if s.CDPFloorCycles == 0 || s.MakespanCycles == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(s.CDPFloorCycles)/float64(s.MakespanCycles))
}

// dtblOverBound is DTBL's speedup over flat over the benchmark's bound:
// the least DTBL over CDP the floor allows.
func dtblOverBound(flat, dtbl *stats, floor int64) string {
	if floor == 0 || dtbl.MakespanCycles == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", flatSpeedup(flat, dtbl)*float64(floor)/float64(flat.MakespanCycles))
}
