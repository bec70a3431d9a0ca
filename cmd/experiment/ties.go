package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
)

// tieSeeds is how many tie orders the ties experiment replays each run
// under: model.tie_seed 0 (the scheduling order, the other experiments'
// tables) to tieSeeds-1.
const tieSeeds = 5

// tieCriterion is the gap SPAWN §V reports between SPAWN and the best
// static threshold ("within 4%", §V-B): a spread from the order of
// simultaneous events above it could decide that comparison.
const tieCriterion = 0.04

// tiesExperiment replays the DTBL and SPAWN experiments' benchmarks under
// their policies with model.tie_seed 0..tieSeeds-1 and reports, per
// benchmark and policy, how far the makespans spread: the part of each
// table the model's unordered same-cycle events decide.
var tiesExperiment = &experiment{
	doc:    "model.tie_seed 0..4 on the dtbl and spawn benchmarks: the makespan spread same-cycle event order causes",
	custom: runTies,
}

// tieRow is one benchmark under one policy: its makespan under each seed.
type tieRow struct {
	bench, policy string
	makespans     []int64 // by seed
}

// spread is the row's max/min makespan − 1.
func (r tieRow) spread() float64 {
	lo, hi := r.makespans[0], r.makespans[0]
	for _, m := range r.makespans[1:] {
		lo, hi = min(lo, m), max(hi, m)
	}
	return float64(hi)/float64(lo) - 1
}

// runTies runs the dtbl and spawn sets (with the command's --set after
// their own) and prints one table each and the largest spread.
func runTies(x *experiment, dir string, stdout, log io.Writer) error {
	var all []tieRow
	for _, set := range []struct {
		name string
		x    *experiment
	}{{"dtbl", dtblExperiment}, {"spawn", spawnExperiment}} {
		name, sub := set.name, *set.x
		sub.sets = append(append([]string(nil), sub.sets...), x.sets...)
		rows, err := sub.ties(filepath.Join(dir, name), tieSeeds, log)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(stdout, "%s (%s), model.tie_seed 0..%d: makespan spread (max/min − 1)\n\n", name, sub.gpu, tieSeeds-1)
		printTies(stdout, sub.policies, rows)
		fmt.Fprintln(stdout)
		all = append(all, rows...)
	}
	worst := all[0]
	over := 0
	for _, r := range all {
		if r.spread() > worst.spread() {
			worst = r
		}
		if r.spread() > tieCriterion {
			over++
		}
	}
	fmt.Fprintf(stdout, "Largest spread: %s, %s under %s (makespans %s cycles); %d of %d benchmark × policy cells spread more than 4%% (SPAWN's criterion: within 4%% of Offline-Search, §V-B).\n",
		pct(worst.spread()), worst.bench, worst.policy, joinInts(worst.makespans), over, len(all))
	return nil
}

// ties generates x's benchmarks once and replays each under each column
// with tie seeds 0..seeds-1 (a search column keeps its best run per seed).
// Every run lands in dir/tables.
func (x *experiment) ties(dir string, seeds int, log io.Writer) ([]tieRow, error) {
	var rows []tieRow
	err := x.eachTrace(dir, log, func(cfg model.Config, b benchmark, path string, w *results.Writer) error {
		for _, p := range x.policies {
			row := tieRow{bench: b.name, policy: p}
			for seed := 0; seed < seeds; seed++ {
				c := cfg
				if err := c.Set("model.tie_seed", strconv.Itoa(seed)); err != nil {
					return err
				}
				var base int64
				if seed > 0 {
					base = row.makespans[0]
				}
				st, _, err := x.replayColumn(c, p, b, path, base, w, log)
				if err != nil {
					return fmt.Errorf("%s under %s, tie seed %d: %w", b.name, p, seed, err)
				}
				row.makespans = append(row.makespans, st.MakespanCycles)
			}
			rows = append(rows, row)
		}
		return nil
	})
	return rows, err
}

// printTies prints one Markdown table: a row per benchmark, a column per
// policy, each cell the spread; where the policies include spawn and
// offline-search, a last column gives SPAWN's gap to Offline-Search
// (SPAWN §V's comparison) at its smallest and largest over the seeds.
func printTies(w io.Writer, policies []string, rows []tieRow) {
	sp, best := slices.Index(policies, "spawn"), slices.Index(policies, "offline-search")
	gap := sp >= 0 && best >= 0
	fmt.Fprint(w, "| benchmark |")
	for _, p := range policies {
		fmt.Fprintf(w, " %s |", p)
	}
	if gap {
		fmt.Fprint(w, " spawn vs offline-search gap, min – max |")
	}
	fmt.Fprint(w, "\n|---|")
	for range policies {
		fmt.Fprint(w, "---:|")
	}
	if gap {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for i := 0; i < len(rows); i += len(policies) {
		row := rows[i : i+len(policies)]
		fmt.Fprintf(w, "| %s |", row[0].bench)
		for _, r := range row {
			fmt.Fprintf(w, " %s |", pct(r.spread()))
		}
		if gap {
			lo, hi := gapRange(row[sp], row[best])
			fmt.Fprintf(w, " %s – %s |", pct(lo), pct(hi))
		}
		fmt.Fprintln(w)
	}
}

// gapRange is the smallest and largest of a/b − 1 over the seeds, the two
// rows' makespans taken seed by seed.
func gapRange(a, b tieRow) (lo, hi float64) {
	for i := range a.makespans {
		g := float64(a.makespans[i])/float64(b.makespans[i]) - 1
		if i == 0 || g < lo {
			lo = g
		}
		if i == 0 || g > hi {
			hi = g
		}
	}
	return lo, hi
}

// pct is a fraction as a percentage, one decimal.
func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

func joinInts(xs []int64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatInt(x, 10)
	}
	return s
}
