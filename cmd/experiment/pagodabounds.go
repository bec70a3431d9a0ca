package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/taskrun"
)

// The paper's geometric means (Pagoda §6.2, Figure 5) and the band the
// fidelity issue accepts around them.
const (
	paperPagodaOverHyperQ = 1.51
	paperPagodaOverGeMTC  = 1.69
	paperBand             = 0.20
)

// pagodaFloor is the least makespan any Pagoda run of a task trace can
// have under a configuration, resource by resource, from the work the
// trace asks (bounds.TaskWork, counted by the replay as it read the
// tasks). A run takes at least as long as its busiest resource needs:
//
//   - host: every threadblock is one spawn (pagoda.spawn_cycles) on one
//     of lat.host_threads threads, after its task's copy calls and the
//     wait for its synchronous copies (Fig. 1a's cudaMemcpy); a thread
//     does one at a time, so the threads together are busy at least the
//     sum, and the run takes at least the sum over the threads — after
//     the MasterKernel's launch call (lat.host_issue) with
//     pagoda.spawn=pipelined, which no spawn starts before;
//   - h2d, d2h: each copy engine moves one copy at a time;
//   - warps: a task warp holds an executor warp (31 an MTB,
//     pagoda.mtbs_per_sm MTBs an SM) for at least its time alone;
//   - issue, dram: with the contention model on, an SM issues at most
//     gpu.issue_width warp instructions a cycle and the GPU moves at most
//     its DRAM bandwidth, and the warps' demand is fixed.
//
// Copy-backs of the TaskTable, scheduling and queueing only add to it.
type pagodaFloor struct {
	host, h2d, d2h, warps, issue, dram float64
	// slots is the least time HyperQ's kernel slots are held, over their
	// number (newHyperQFloor); 0 for Pagoda, which has no such limit.
	slots float64
	// path is the critical-path floor the replay computed as it read the
	// tasks (bounds.TaskWork.PagodaPath, HyperQPath; bounds/critpath.go):
	// the longest chain of one task's host calls, copies and time alone.
	// It binds short runs, where the resources' totals are loose; it is
	// not one of cycles' resources, so the columns that predate it keep
	// their meaning, and larger takes it in.
	path float64
}

func newPagodaFloor(cfg model.Config, w bounds.TaskWork) pagodaFloor {
	g := cfg.GPU
	spawns := float64(w.Blocks) * float64(cfg.Pagoda.SpawnCycles)
	launch := 0.0
	if cfg.Pagoda.Spawn == "pipelined" {
		launch = float64(cfg.Lat.HostIssue)
	}
	f := pagodaFloor{
		host:  launch + (float64(w.HostCycles+w.CopyWaitCycles)+spawns)/float64(max(cfg.Lat.HostThreads, 1)),
		h2d:   w.H2DCycles,
		d2h:   w.D2HCycles,
		warps: float64(w.WarpCycles) / float64(int64(g.SMs)*cfg.Pagoda.MTBsPerSM*taskrun.ExecutorWarps),
		path:  float64(w.PagodaPath),
	}
	if cfg.Model.Contention == model.On {
		f.issue = w.Insts / (float64(g.SMs) * g.IssueWidth)
		f.dram = w.DRAMBytes / g.DRAMBytesPerCycle()
	}
	return f
}

// newHyperQFloor is the same floor for any HyperQ run of the trace
// (replay/host.go): a task's thread makes its copy calls and waits for its
// synchronous copies as under Pagoda, and launches the task's kernel with
// one call (lat.host_issue) where Pagoda spawns; there is no MasterKernel
// and no executor warps; the copy engines, issue slots and DRAM bind
// alike. Its own limit is the kernel slots: each task is a kernel, which
// takes one of gpu.max_kernels Kernel Distributor entries (HyperQ's 32
// concurrent kernels) and holds it through lat.kernel_dispatch and then
// at least its longest warp's time alone (sharing only slows it), so the
// entries together are held at least the sum (docs/model.md, "A kernel's
// path").
func newHyperQFloor(cfg model.Config, w bounds.TaskWork) pagodaFloor {
	f := newPagodaFloor(cfg, w)
	f.host = float64(w.HostCycles+w.CopyWaitCycles+w.Tasks*cfg.Lat.HostIssue) / float64(max(cfg.Lat.HostThreads, 1))
	f.warps = 0
	f.slots = float64(w.TaskCycles+w.Tasks*cfg.Lat.KernelDispatch) / float64(max(cfg.GPU.MaxKernels, 1))
	f.path = float64(w.HyperQPath)
	return f
}

// parts names each resource's least time, in the table's order (HyperQ's
// kernel slots have no column: cycles counts them).
func (f pagodaFloor) parts() ([]string, []float64) {
	return []string{"host", "H2D", "D2H", "executor warps", "issue", "DRAM"},
		[]float64{f.host, f.h2d, f.d2h, f.warps, f.issue, f.dram}
}

// cycles is the floor: the busiest resource's time, and its name.
func (f pagodaFloor) cycles() (float64, string) {
	names, ts := f.parts()
	best, name := 0.0, names[0]
	for i, t := range ts {
		if t > best {
			best, name = t, names[i]
		}
	}
	if f.slots > best {
		best, name = f.slots, "kernel slots"
	}
	return best, name
}

// larger is the floor with the critical path counted: the larger of the
// busiest resource's time and the path.
func (f pagodaFloor) larger() float64 {
	floor, _ := f.cycles()
	return max(floor, f.path)
}

// pathCell prints a critical-path floor, a dash where the replay gave
// none (HyperQ's, on a trace whose calls are not Fig. 1a's).
func pathCell(path float64) string {
	if path <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", path)
}

// pagodaBounds prints, under a Pagoda table, each benchmark's floor on any
// Pagoda run under the experiment's setup and so the most Pagoda could
// gain over the replayed HyperQ and GeMTC runs (their makespans over the
// floor), beside the replayed speedups; then the bounds' geometric means
// beside the paper's, when the experiment is Figure 5's benchmarks.
func pagodaBounds(x *experiment, w io.Writer, outs []outcome) {
	cfg, err := x.config()
	if err != nil {
		fmt.Fprintf(w, "(no bounds: %v)\n", err)
		return
	}
	fmt.Fprintln(w, "Bounds on any Pagoda run under this setup (cmd/experiment/pagodabounds.go): each resource's least busy time from the work the trace asks, in cycles; the floor is the largest, and a speedup is at most the other runtime's replayed makespan over it.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The HyperQ floor is the same count for any HyperQ run (a launch call where Pagoda spawns, no executor warps), and its kernel slots: every task a kernel holding one of the gpu.max_kernels Kernel Distributor entries through its dispatch and its time alone; Pagoda's replayed makespan over it bounds how far HyperQ could lead: Pagoda vs HyperQ is at least the floor over Pagoda's makespan.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The critical paths are each runtime's least makespan from one task's chain (bounds/critpath.go): the host threads' calls before its launch or spawn, taken greedily in trace order, its copy in, its dispatch or its spawn's entry and scheduler read, its longest warp alone and its copy back, with Pagoda's MasterKernel launch, last flush and waitAll copy-back; the last two columns use the larger of each runtime's two floors.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| benchmark | host | H2D | D2H | executor warps | issue | DRAM | floor (binds) | Pagoda vs HyperQ: bound / replayed | Pagoda vs GeMTC: bound / replayed | HyperQ floor (binds) | Pagoda vs HyperQ: at least | Pagoda critical path | HyperQ critical path | Pagoda vs HyperQ, larger floors: at least – bound | Pagoda vs GeMTC, larger floor: bound |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var logs [2]float64 // the replayed speedups over HyperQ and GeMTC
	var n [2]int
	for _, row := range pagodaRows(outs) {
		f := newPagodaFloor(cfg, row.pagoda.Tasks)
		floor, binds := f.cycles()
		_, ts := f.parts()
		fmt.Fprintf(w, "| %s |", row.name)
		for _, t := range ts {
			fmt.Fprintf(w, " %.0f |", t)
		}
		p := float64(row.pagoda.MakespanCycles)
		s := [4]float64{float64(row.hyperq.MakespanCycles) / floor, float64(row.hyperq.MakespanCycles) / p,
			float64(row.gemtc.MakespanCycles) / floor, float64(row.gemtc.MakespanCycles) / p}
		hf := newHyperQFloor(cfg, row.pagoda.Tasks)
		hq, hqBinds := hf.cycles()
		fmt.Fprintf(w, " %.0f (%s) | %s / %s | %s / %s | %.0f (%s) | %s |", floor, binds,
			ratioCell(s[0]), ratioCell(s[1]), ratioCell(s[2]), ratioCell(s[3]), hq, hqBinds, ratioCell(hq/p))
		fmt.Fprintf(w, " %s | %s | %s – %s | %s |\n", pathCell(f.path), pathCell(hf.path),
			ratioCell(hf.larger()/p), ratioCell(float64(row.hyperq.MakespanCycles)/f.larger()),
			ratioCell(float64(row.gemtc.MakespanCycles)/f.larger()))
		logs[0] += math.Log(s[1])
		n[0]++
		if row.withGeMTC {
			logs[1] += math.Log(s[3])
			n[1]++
		}
	}
	if n[0] == 0 || x.paperMean["pagoda"] == "" {
		return
	}
	mean := func(i int) float64 { return math.Exp(logs[i] / float64(n[i])) }
	fmt.Fprintln(w)
	hq, gm := pagodaMeanBounds(cfg, outs)
	bandLine(w, "HyperQ", hq, mean(0), paperPagodaOverHyperQ)
	bandLine(w, "GeMTC", gm, mean(1), paperPagodaOverGeMTC)
	fmt.Fprintln(w)
	table3Host(w, cfg, outs)
	fmt.Fprintln(w)
	for _, h := range pagodaHeadlines {
		acrossLine(w, x, fmt.Sprintf("%s, geometric mean of the bounds (band from %.2f×)", h.claim, h.lo*(1-h.band)), func(p point) reach { return h.bound(h, p) })
	}
}

// pagodaBound is the floors' bound on h, Pagoda's speedup over the
// column over ("hyperq" or "gemtc"), at a point: pagodaMeanBounds,
// outside the band when under its low end.
func pagodaBound(over string) func(h headline, p point) reach {
	return func(h headline, p point) reach {
		hq, gm := pagodaMeanBounds(p.cfg, ownOutcomes(p.outs))
		b := hq
		if over == "gemtc" {
			b = gm
		}
		return reach{value: fmt.Sprintf("%.2f×", b), out: b < h.lo*(1-h.band)}
	}
}

// pagodaMeanBounds is the geometric mean over outs' benchmarks of the
// bounds on Pagoda's speedup over HyperQ and over GeMTC: their replayed
// makespans over Pagoda's floor under cfg.
func pagodaMeanBounds(cfg model.Config, outs []outcome) (hyperq, gemtc float64) {
	var logs [2]float64
	var n [2]float64
	for _, row := range pagodaRows(outs) {
		floor, _ := newPagodaFloor(cfg, row.pagoda.Tasks).cycles()
		logs[0] += math.Log(float64(row.hyperq.MakespanCycles) / floor)
		n[0]++
		if row.withGeMTC {
			logs[1] += math.Log(float64(row.gemtc.MakespanCycles) / floor)
			n[1]++
		}
	}
	return math.Exp(logs[0] / n[0]), math.Exp(logs[1] / n[1])
}

// ratioCell prints a bound's ratio to two places, or to as many more (up
// to six) as it takes not to read 1 for a ratio that is not 1: which side
// of 1 a bound lies on is what says which runtime is proven ahead.
func ratioCell(x float64) string {
	for places := 2; ; places += 2 {
		c := strconv.FormatFloat(x, 'f', places, 64)
		if x == 1 || places >= 6 || c != strconv.FormatFloat(1, 'f', places, 64) {
			return c + "×"
		}
	}
}

// bandLine says where the geometric mean of the bounds stands against the
// paper's figure and its ±20% band: below the band, no Pagoda run under
// this setup can reach it.
func bandLine(w io.Writer, over string, bound, replayed, paper float64) {
	lo, hi := paper*(1-paperBand), paper*(1+paperBand)
	verdict := "the bound reaches the band"
	if bound < lo {
		verdict = "below the band at this run's inputs"
	}
	fmt.Fprintf(w, "Pagoda over %s, geometric mean: bound %.2f×, replayed %.2f×; paper %.2f×, ±20%% band %.2f–%.2f×: %s.\n",
		over, bound, replayed, paper, lo, hi, verdict)
}

// pagodaRow is one benchmark's three runs.
type pagodaRow struct {
	name                  string
	hyperq, gemtc, pagoda *stats
	// withGeMTC says whether the paper ran the benchmark under GeMTC
	// (benchmark.notUnder): a mean over GeMTC counts only those that do.
	withGeMTC bool
}

// pagodaRows pairs each benchmark's hyperq, gemtc and pagoda runs, in the
// table's order; a benchmark missing one is left out.
func pagodaRows(outs []outcome) []pagodaRow {
	var rows []pagodaRow
	at := map[string]int{}
	for _, o := range outs {
		i, ok := at[o.bench.name]
		if !ok {
			i = len(rows)
			at[o.bench.name] = i
			rows = append(rows, pagodaRow{name: o.bench.name, withGeMTC: o.bench.in("pagoda", "gemtc")})
		}
		switch o.policy {
		case "hyperq":
			rows[i].hyperq = o.stats
		case "gemtc":
			rows[i].gemtc = o.stats
		case "pagoda":
			rows[i].pagoda = o.stats
		}
	}
	full := rows[:0]
	for _, r := range rows {
		if r.hyperq != nil && r.gemtc != nil && r.pagoda != nil {
			full = append(full, r)
		}
	}
	return full
}
