// Package report turns result directories into one self-contained HTML
// page of tables and figures (and, on request, the figures as SVG and PNG
// files for papers). It reads the tables with results.Scan, batch by
// batch, and keeps only what its figures draw: aggregates per run, a
// bounded sample of kernels, and task latencies.
package report

import (
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/gpureplay/gpureplay/results"
)

// run names one replay: a trace under a policy at a sweep combination,
// in one results directory.
type run struct {
	dir, trace, policy, params string
}

func (r run) label() string {
	s := r.trace + " · " + r.policy
	if r.params != "" {
		s += " · " + r.params
	}
	return s
}

// summaryRow is the part of a summary row the report shows.
type summaryRow struct {
	run                      run
	gpu                      string
	makespan                 int64
	makespanUS, speedup      float64
	kernels, ctas            int64
	sites, launched, inlined int64
	coalesced                int64
	occupancy                float64
	issueUtil, dramUtil      *float64
	clockMHz                 float64
	stall                    int64
}

// kernelSpan is one kernel of the Gantt chart.
type kernelSpan struct {
	id                        int64
	name, origin              string
	launch, ready, start, end int64
}

// span is a stage's interval.
type span struct {
	name       string
	start, end int64
}

// runData is what the figures need of one run.
type runData struct {
	summary   summaryRow
	occupancy []float64    // resident warp·cycles on the GPU per bin of occBins
	kernels   []kernelSpan // the first maxGantt kernels by launch
	latencies sample       // task latency (end − launch) of the kernels, task policies only
	stages    []span
	ready     []int64 // cycles at which pages became ready
	estimates []estimate
	names     map[string]*nameStats // every kernel, by name
	waits     waitStats             // every kernel's launch-to-start wait, by cause
	hostWaits hostWaits             // the host's blocking calls' waits on the GPU, by call
	budget    *budget               // the report's, shared by its runs; nil: none
	// warpCycles is the run's resident warp·cycles summed over its SMs,
	// from which the GPU's warp capacity follows (capacity).
	warpCycles float64
}

type estimate struct {
	child, parent float64
	decision      string
}

// maxGantt bounds the kernels a run's Gantt chart draws, and maxPoints the
// page and estimate points kept per run.
const (
	maxGantt  = 5000
	maxPoints = 20000
)

// taskPolicies are the narrow-task policies, whose kernels are tasks.
var taskPolicies = map[string]bool{"hyperq": true, "gemtc": true, "pagoda": true}

// Data is every run of the directories a report covers, in their order.
type Data struct {
	runs   []*runData
	index  map[run]*runData
	dirs   []string
	budget budget
}

// budget is what the report keeps across all its runs that the tables'
// contents, not their runs, would otherwise decide: the distinct kernel
// names (and their bytes: a name may be up to 1 MiB) and the streams
// whose last completion "Where the wait went" tracks. Past it, a run's
// further new names are summed as one, otherNames, and further new
// streams are not tracked (a kernel in one then counts no wait on its
// stream predecessor). It is far above any real replay's (the largest
// sample runs have a few hundred names, and a stream per device kernel
// only where it has a stream of its own, which no later kernel waits
// on), and keeps memory bounded whatever the tables hold.
type budget struct {
	nameBytes      int64
	names, streams int
}

const (
	maxNameBytes = 64 << 20
	maxNameCount = 1 << 18
	maxStreams   = 1 << 21
)

// otherNames is the name a run's kernels of names past the budget are
// summed under.
const otherNames = "(names past the report's limit)"

// name is the nameStats of a kernel's name, new ones counted against b
// (nil: no bound) and kept as copies, not as views of the batch's
// buffers, which would hold every batch a kept name came from.
func (rd *runData) name(s string) *nameStats {
	if n := rd.names[s]; n != nil {
		return n
	}
	if b := rd.budget; b != nil {
		if b.names >= maxNameCount || b.nameBytes+int64(len(s)) > maxNameBytes {
			s = otherNames
			if n := rd.names[s]; n != nil {
				return n
			}
		}
		b.names++
		b.nameBytes += int64(len(s))
	}
	n := &nameStats{name: strings.Clone(s)}
	rd.names[n.name] = n
	return n
}

// ErrNoResults is a directory without a summary table.
var ErrNoResults = errors.New("no result tables")

// ErrTooManyRuns is summary tables of more runs than a page shows
// (maxRuns).
var ErrTooManyRuns = errors.New("too many runs")

// Load reads the tables of each directory. A row the report cannot use
// (a negative cycle, a value that is not finite) is an error naming its
// file and row; more than maxRuns runs are refused (ErrTooManyRuns).
func Load(dirs []string) (*Data, error) {
	d := &Data{index: map[run]*runData{}, dirs: dirs}
	for _, dir := range dirs {
		if err := d.load(dir); err != nil {
			return nil, err
		}
	}
	if len(d.runs) == 0 {
		return nil, fmt.Errorf("%w: the summary tables hold no run", ErrNoResults)
	}
	return d, nil
}

func (d *Data) load(dir string) error {
	var row int64
	err := results.Scan(dir, "summary", func(rec arrow.Record) error {
		c := cols(rec)
		for i := 0; i < int(rec.NumRows()); i++ {
			row++
			if problem := rowChecks["summary"](c, i); problem != "" {
				return rowError(dir, "summary", row, problem)
			}
			if len(d.runs) == maxRuns {
				return fmt.Errorf("%w: the summary tables of %s hold more than %d runs, more than one page can show; report fewer directories, or query the tables (docs/tables.md)", ErrTooManyRuns, strings.Join(d.dirs, ", "), maxRuns)
			}
			r := run{dir, c.str(0, i), c.str(1, i), c.str(2, i)}
			s := summaryRow{run: r, gpu: c.str(3, i), makespan: c.i64(4, i), makespanUS: c.f64(5, i), speedup: c.f64(6, i),
				kernels: c.i64(7, i), ctas: c.i64(9, i), sites: c.i64(10, i), launched: c.i64(11, i), inlined: c.i64(12, i),
				coalesced: c.i64(13, i), occupancy: c.f64(14, i), stall: c.i64(16, i), issueUtil: c.optF64(18, i), dramUtil: c.optF64(19, i)}
			if s.makespanUS > 0 {
				s.clockMHz = float64(s.makespan) / s.makespanUS
			}
			rd := &runData{summary: s, occupancy: make([]float64, occBins), names: map[string]*nameStats{}, budget: &d.budget}
			rd.waits.budget = &d.budget
			d.runs = append(d.runs, rd)
			d.index[r] = rd
		}
		return nil
	})
	if errors.Is(err, results.ErrNoTable) {
		return fmt.Errorf("%w in %s (no summary.parquet, summary.arrow or summary.csv): write them with replay --out %s", ErrNoResults, dir, dir)
	}
	if err != nil {
		return err
	}
	for _, t := range []struct {
		name string
		fn   func(*runData, colset, int)
	}{
		{"kernels", addKernel}, {"occupancy", addOccupancy}, {"stages", addStage}, {"pages", addPage}, {"launches", addEstimate},
		{"syncs", addSync}, // absent from results written before the table was
	} {
		var row int64
		check := rowChecks[t.name]
		err := results.Scan(dir, t.name, func(rec arrow.Record) error {
			c := cols(rec)
			for i := 0; i < int(rec.NumRows()); i++ {
				row++
				if problem := check(c, i); problem != "" {
					return rowError(dir, t.name, row, problem)
				}
				if rd := d.index[run{dir, c.str(0, i), c.str(1, i), c.str(2, i)}]; rd != nil {
					t.fn(rd, c, i)
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, results.ErrNoTable) {
			return err
		}
	}
	for _, rd := range d.runs {
		sort.Slice(rd.kernels, func(a, b int) bool { return rd.kernels[a].launch < rd.kernels[b].launch })
	}
	return nil
}

func addKernel(rd *runData, c colset, i int) {
	origin := "host"
	if c.str(5, i) == "device" {
		origin = "device"
	}
	n := rd.name(c.str(4, i))
	k := kernelSpan{id: c.i64(3, i), name: n.name, origin: origin, launch: c.i64(10, i), ready: c.i64(11, i), start: c.i64(12, i), end: c.i64(13, i)}
	if taskPolicies[rd.summary.run.policy] {
		rd.latencies.add(k.end - k.launch)
	}
	n.add(k)
	rd.waits.addWait(k, c.i64(7, i))
	// Keep the maxGantt earliest launches: rows come in completion order,
	// and a heap with the latest kept launch on top finds the one to drop.
	if len(rd.kernels) < maxGantt {
		heap.Push((*latestFirst)(&rd.kernels), k)
		return
	}
	if k.launch < rd.kernels[0].launch {
		rd.kernels[0] = k
		heap.Fix((*latestFirst)(&rd.kernels), 0)
	}
}

// sample keeps every value added while they are at most maxSample, and
// past that a systematic sample of them, every stride-th in the order
// added: each time it fills it keeps every other value it holds and
// doubles the stride. Deterministic, and bounded whatever the table
// holds, where the task latencies of every kernel were kept (8 bytes a
// kernel, 10^8 kernels 800 MB).
type sample struct {
	vals         []int64
	stride, seen int64
}

// maxSample bounds a sample: a distribution of 2^16 values draws the
// latency figure's 500 points as the whole would.
const maxSample = 1 << 16

func (s *sample) add(v int64) {
	if s.stride == 0 {
		s.stride = 1
	}
	if s.seen%s.stride == 0 {
		s.vals = append(s.vals, v)
		if len(s.vals) == maxSample {
			for i := range maxSample / 2 {
				s.vals[i] = s.vals[2*i]
			}
			s.vals = s.vals[:maxSample/2]
			s.stride *= 2
		}
	}
	s.seen++
}

// latestFirst is a heap of kernels with the latest launch on top.
type latestFirst []kernelSpan

func (h latestFirst) Len() int           { return len(h) }
func (h latestFirst) Less(i, j int) bool { return h[i].launch > h[j].launch }
func (h latestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *latestFirst) Push(x any)        { *h = append(*h, x.(kernelSpan)) }
func (h *latestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// addOccupancy spreads a row's warp·cycles over the bins its span covers:
// rows cover runs of windows of different widths per SM (an SM's
// unchanged windows are one row), so the GPU-wide level needs a common
// grid.
func addOccupancy(rd *runData, c colset, i int) {
	start, width, warps := c.i64(3, i), c.i64(4, i), c.f64(6, i)
	rd.warpCycles += warps * float64(width)
	bin := rd.occBin()
	for t := start; t < start+width; {
		b := min(t/bin, occBins-1)
		end := min(start+width, (b+1)*bin)
		if b == occBins-1 {
			end = start + width
		}
		rd.occupancy[b] += warps * float64(end-t)
		t = end
	}
}

// capacity is the warps the run's GPU holds at once (its SMs times the
// warps an SM holds), recovered from the summary's average occupancy, a
// share of it: the tables carry no GPU geometry, and this keeps the
// figure's percentages the summary's. 0 when the run had no resident
// warps.
func (rd *runData) capacity() float64 {
	s := rd.summary
	if s.occupancy <= 0 || s.makespan <= 0 {
		return 0
	}
	return rd.warpCycles / float64(s.makespan) / s.occupancy
}

// occBins is the resolution of the occupancy figure.
const occBins = 400

// occBin is the width in cycles of one occupancy bin of the run.
func (rd *runData) occBin() int64 { return max(1, (rd.summary.makespan+occBins-1)/occBins) }

// addStage keeps a run's stages, at most maxPoints: replay writes a few
// a run (prelude, h2d, kernels, d2h, postlude), and a table of more is not
// one it wrote.
func addStage(rd *runData, c colset, i int) {
	if len(rd.stages) < maxPoints {
		rd.stages = append(rd.stages, span{strings.Clone(c.str(3, i)), c.i64(4, i), c.i64(5, i)})
	}
}

func addPage(rd *runData, c colset, i int) {
	if c.str(5, i) == "ready" && len(rd.ready) < maxPoints {
		rd.ready = append(rd.ready, c.i64(7, i))
	}
}

func addSync(rd *runData, c colset, i int) {
	rd.hostWaits.add(c.str(4, i), c.i64(8, i), c.i64(9, i))
}

func addEstimate(rd *runData, c colset, i int) {
	ec, ep := c.optF64(13, i), c.optF64(14, i)
	if ec != nil && ep != nil && len(rd.estimates) < maxPoints {
		rd.estimates = append(rd.estimates, estimate{*ec, *ep, strings.Clone(c.str(11, i))})
	}
}

// colset reads a record batch's columns by position (Scan checked the
// schema).
type colset struct{ rec arrow.Record }

func cols(rec arrow.Record) colset { return colset{rec} }

func (c colset) str(col, i int) string { return c.rec.Column(col).(*array.String).Value(i) }
func (c colset) i64(col, i int) int64  { return c.rec.Column(col).(*array.Int64).Value(i) }
func (c colset) f64(col, i int) float64 {
	return c.rec.Column(col).(*array.Float64).Value(i)
}

func (c colset) optF64(col, i int) *float64 {
	a := c.rec.Column(col).(*array.Float64)
	if a.IsNull(i) {
		return nil
	}
	v := a.Value(i)
	return &v
}
