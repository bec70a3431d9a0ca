package report

import (
	"math"
	"sort"
)

// nameStats aggregates a run's kernels of one name: what Nsight Systems'
// kernel summary (nsys stats) gives per name. Memory is one entry per
// distinct name, however many kernels ran.
type nameStats struct {
	name      string
	instances int64
	run       int64 // summed start-to-end cycles
	minRun    int64
	maxRun    int64
	wait      int64 // summed launch-to-start cycles
}

func (n *nameStats) add(k kernelSpan) {
	r := max(0, k.end-max(k.start, k.launch))
	if n.instances == 0 || r < n.minRun {
		n.minRun = r
	}
	n.maxRun = max(n.maxRun, r)
	n.instances++
	n.run += r
	if k.start > k.launch {
		n.wait += k.start - k.launch
	}
}

// byName returns the run's kernel names, the most total run time first.
func (rd *runData) byName() []*nameStats {
	out := make([]*nameStats, 0, len(rd.names))
	for _, n := range rd.names {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].run != out[j].run {
			return out[i].run > out[j].run
		}
		return out[i].name < out[j].name
	})
	return out
}

// maxNames bounds the rows of a per-name table; the rest are summed into
// one "other names" row so the table still adds up.
const maxNames = 12

// nameRow is one row of the per-name table as the page shows it.
type nameRow struct {
	Name                        string
	Instances                   int64
	Total, Mean, Min, Max, Wait string
	Share                       string
}

// nameTable is a run's per-name table: total, mean, min and max run time
// and summed wait in µs, and the run time's share of the makespan (summed
// over instances, so kernels running side by side can exceed 100%).
func (rd *runData) nameTable() []nameRow {
	names := rd.byName()
	var rows []nameRow
	var other nameStats
	other.name = ""
	for i, n := range names {
		if i >= maxNames {
			other.instances += n.instances
			other.run += n.run
			other.wait += n.wait
			if other.minRun == 0 || n.minRun < other.minRun {
				other.minRun = n.minRun
			}
			other.maxRun = max(other.maxRun, n.maxRun)
			continue
		}
		rows = append(rows, rd.row(n))
	}
	if other.instances > 0 {
		r := rd.row(&other)
		r.Name = "(" + itoa(int64(len(names)-maxNames)) + " other names)"
		rows = append(rows, r)
	}
	return rows
}

func (rd *runData) row(n *nameStats) nameRow {
	mean := 0.0
	if n.instances > 0 {
		mean = rd.usF(float64(n.run) / float64(n.instances))
	}
	return nameRow{Name: n.name, Instances: n.instances, Total: num(rd.us(n.run)), Mean: num(mean),
		Min: num(rd.us(n.minRun)), Max: num(rd.us(n.maxRun)), Wait: num(rd.us(n.wait)), Share: pct(float64(n.run), float64(rd.summary.makespan))}
}

// diffRow is one kernel name of a run against its baseline: run time and
// wait, each in the baseline, the run, and the change.
type diffRow struct {
	Name                     string
	BaseInstances, Instances int64
	BaseRun, Run, DRun       string
	BaseWait, Wait, DWait    string
	Change                   string // "gain" where the run spends less time on it than the baseline, "loss" more, "" the same
}

// diffTable is the run's per-name table against base's (the first policy
// of the same trace and sweep combination): the names whose run time or
// wait changed most, by the sum of both changes. Names only one side ran
// appear with zero on the other.
func diffTable(base, rd *runData) []diffRow {
	type pair struct{ b, r *nameStats }
	pairs := map[string]*pair{}
	for n, s := range base.names {
		pairs[n] = &pair{b: s}
	}
	for n, s := range rd.names {
		if p := pairs[n]; p != nil {
			p.r = s
		} else {
			pairs[n] = &pair{r: s}
		}
	}
	var zero nameStats
	type scored struct {
		name string
		p    *pair
		d    float64
	}
	var all []scored
	for n, p := range pairs {
		if p.b == nil {
			p.b = &zero
		}
		if p.r == nil {
			p.r = &zero
		}
		d := math.Abs(rd.us(p.r.run)-base.us(p.b.run)) + math.Abs(rd.us(p.r.wait)-base.us(p.b.wait))
		all = append(all, scored{n, p, d})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].d != all[j].d {
			return all[i].d > all[j].d
		}
		return all[i].name < all[j].name
	})
	var rows []diffRow
	for i, s := range all {
		if i == maxNames {
			break
		}
		br, r := base.us(s.p.b.run), rd.us(s.p.r.run)
		bw, w := base.us(s.p.b.wait), rd.us(s.p.r.wait)
		rows = append(rows, diffRow{Name: s.name, BaseInstances: s.p.b.instances, Instances: s.p.r.instances,
			BaseRun: num(br), Run: num(r), DRun: signed(r - br), BaseWait: num(bw), Wait: num(w), DWait: signed(w - bw), Change: change(br, r)})
	}
	return rows
}

func change(base, v float64) string {
	switch {
	case v < base:
		return "gain"
	case v > base:
		return "loss"
	}
	return ""
}
