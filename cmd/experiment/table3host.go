package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
)

// The Pagoda experiments' host comes from what Pagoda's Table 3 states of
// its HyperQ runs: "% Time spent in data copy" and "% Time spent in
// computation" sum to 100 on every row, so the host's API calls never
// bound a HyperQ run — its time was its copies' plus its computation's.
// The tasks generator scales each kind's costs so that its copies are
// Table 3's share of that sum (samples/taskstable3.go):
//
//	C = max(Σ bytes in, Σ bytes out) / PCIe rate + Σ task time / 32,
//
// which depends only on the tasks' data sizes, the rate and Table 3's
// share (the scale cancels the invented per-warp costs). A HyperQ host
// makes calls calls (each copy's, and each task's launch) of c cycles
// each and, with synchronous copies, waits for every transfer (waits) on
// threads threads, so it is busy at least (calls·c + waits) / threads.
// For the host not to bind a row, that is at most C:
//
//	c ≤ (threads · C − waits) / calls
//
// The least over Table 3's rows is the largest per-call cost Table 3
// allows; the host threads and whether copies hold their thread are
// stated nowhere (Fig. 1a, "a possible implementation", has 2 threads and
// cudaMemcpy; §6.1's CPU is a quad-core), so each combination gets its
// own cost (pagodaHosts) and the experiments' bounds are recomputed
// across them (unstated.go).

// table3Call is the largest per-call cost (cycles) with which a HyperQ
// host of threads threads cannot bind one Table 3 row, from the work w
// its trace asked under cfg (its copy calls at cfg's lat.host_issue) and
// whether copies are synchronous; NaN for a trace with no call.
func table3Call(cfg model.Config, w bounds.TaskWork, threads int64, sync bool) float64 {
	calls := float64(w.Tasks)
	if cfg.Lat.HostIssue > 0 {
		calls += float64(w.HostCycles) / float64(cfg.Lat.HostIssue)
	}
	if calls == 0 {
		return math.NaN()
	}
	waits := 0.0
	if sync {
		waits = w.H2DCycles + w.D2HCycles
	}
	return (float64(threads)*table3Time(cfg, w) - waits) / calls
}

// table3Time is a HyperQ run's time as Table 3 splits it: the busier copy
// direction's transfers plus the tasks' times over HyperQ's kernel slots.
func table3Time(cfg model.Config, w bounds.TaskWork) float64 {
	return max(w.H2DCycles, w.D2HCycles) + float64(w.TaskCycles)/float64(max(cfg.GPU.MaxKernels, 1))
}

// pagodaHost is one host a Pagoda run could have had: its threads,
// whether its copies are synchronous, and the per-call cost Table 3
// allows it (table3Call's least over the rows at 11 GB/s, rounded down,
// which TestPagodaExperimentsFloorsHold checks;
// the pagoda experiment prints the derivation beside it).
type pagodaHost struct {
	threads int64
	sync    bool
	call    int64
}

// pagodaHosts are the hosts the Pagoda experiments' bounds are recomputed
// across, the first the experiments' own: §6.1's quad-core on its four
// threads with Fig. 1a's cudaMemcpy, the only copy call the paper shows.
var pagodaHosts = []pagodaHost{
	{threads: 4, sync: true, call: 1906},
	{threads: 4, sync: false, call: 2837},
	{threads: 2, sync: true, call: 393},
	{threads: 2, sync: false, call: 1418},
}

// memcpy is the host's io.memcpy value.
func (h pagodaHost) memcpy() string {
	if h.sync {
		return "sync"
	}
	return "async"
}

// sets is the host as model settings: its threads, its copy calls, and
// its per-call cost for every host API call — a launch (lat.host_issue)
// and a Pagoda spawn, one cudaMemcpyAsync of a TaskTable entry
// (pagoda.spawn_cycles, docs/model.md).
func (h pagodaHost) sets() []string {
	return []string{fmt.Sprintf("lat.host_threads=%d", h.threads), "io.memcpy=" + h.memcpy(),
		fmt.Sprintf("lat.host_issue=%d", h.call), fmt.Sprintf("pagoda.spawn_cycles=%d", h.call)}
}

func (h pagodaHost) String() string {
	return fmt.Sprintf("%d threads, %s copies, %d cycles a call", h.threads, h.memcpy(), h.call)
}

// pagodaHostGrid is the unstated input the Pagoda experiments' bounds are
// recomputed across: the host, each with the per-call cost Table 3 allows it.
func pagodaHostGrid() unstated {
	u := unstated{name: "host"}
	for i, h := range pagodaHosts {
		c := choice{label: h.String()}
		if i > 0 {
			c.sets = h.sets()
		}
		u.choices = append(u.choices, c)
	}
	return u
}

// table3Host prints, for the Table 3 rows among outs (the benchmarks but
// mpe, which Table 3 has no row for), the per-call cost each host of
// pagodaHosts may have, the least over the rows, and whether the host
// settings are within it.
func table3Host(w io.Writer, cfg model.Config, outs []outcome) {
	rows := pagodaRows(outs)
	fmt.Fprintln(w, "Table 3's host (cmd/experiment/table3host.go): Table 3's HyperQ time is copy + compute, C = max(H2D, D2H) + Σ task time / gpu.max_kernels, so the host did not bind it; a host of T threads making n calls of c cycles and waiting W for synchronous copies is busy (n·c + W) / T, so c ≤ (T·C − W) / n. Largest per-call cost, in cycles, per host:")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| benchmark | C | calls a task |")
	for _, h := range pagodaHosts {
		fmt.Fprintf(w, " %d threads, %s |", h.threads, h.memcpy())
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "|---|---:|---:|"+strings.Repeat("---:|", len(pagodaHosts)))
	least := make([]float64, len(pagodaHosts))
	binds := make([]string, len(pagodaHosts))
	for i := range least {
		least[i] = math.Inf(1)
	}
	for _, r := range rows {
		if r.name == "mpe" {
			continue
		}
		t := r.pagoda.Tasks // the trace's work, which the replay counts under pagoda and gemtc
		calls := float64(t.Tasks) + float64(t.HostCycles)/float64(max(cfg.Lat.HostIssue, 1))
		fmt.Fprintf(w, "| %s | %.0f | %.2f |", r.name, table3Time(cfg, t), calls/float64(max(t.Tasks, 1)))
		for i, h := range pagodaHosts {
			c := table3Call(cfg, t, h.threads, h.sync)
			fmt.Fprintf(w, " %.1f |", c)
			if c < least[i] {
				least[i], binds[i] = c, r.name
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| **every row** | | |")
	for i := range pagodaHosts {
		fmt.Fprintf(w, " **%.1f** (%s) |", least[i], binds[i])
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| set (lat.host_issue, pagoda.spawn_cycles) | | |")
	for i, h := range pagodaHosts {
		verdict := "within"
		if float64(h.call) > least[i] {
			verdict = "OVER Table 3's"
		}
		fmt.Fprintf(w, " %d (%s) |", h.call, verdict)
	}
	fmt.Fprintln(w)
}
