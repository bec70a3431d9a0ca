package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// validationDir holds the committed captures the validation experiments
// read (validation/README.md says how each was made); they run from the
// repository root.
const validationDir = "validation"

// simTimes reads a capture directory's times.tsv: per capture name (the
// name column, or mode-kK where the rows are a sweep's), the simulator's
// wall and CPU seconds as /usr/bin/time measured them.
func simTimes(path string) (map[string][2]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][2]float64{}
	sc := bufio.NewScanner(f)
	var cols []string
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = fields
			continue
		}
		row := map[string]string{}
		for i, c := range cols {
			if i < len(fields) {
				row[c] = fields[i]
			}
		}
		wall, _ := strconv.ParseFloat(row["wall_s"], 64)
		user, _ := strconv.ParseFloat(row["user_s"], 64)
		sys, _ := strconv.ParseFloat(row["sys_s"], 64)
		name := row["name"]
		if name == "" {
			name = row["mode"] + "-k" + row["k"]
		}
		out[name] = [2]float64{wall, user + sys}
	}
	return out, sc.Err()
}

// stopwatch measures wall and CPU seconds of this process between calls.
type stopwatch struct {
	wall time.Time
	cpu  float64
}

func startWatch() stopwatch { return stopwatch{time.Now(), cpuSeconds()} }

func (s stopwatch) read() (wall, cpu float64) {
	return time.Since(s.wall).Seconds(), cpuSeconds() - s.cpu
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// kernelRows keeps the kernels table of a replay.
type kernelRows struct{ kernels []tables.Kernel }

func (r *kernelRows) Kernel(k tables.Kernel)   { r.kernels = append(r.kernels, k) }
func (*kernelRows) CTA(tables.CTA)             {}
func (*kernelRows) Launch(tables.Launch)       {}
func (*kernelRows) Occupancy(tables.Occupancy) {}
func (*kernelRows) Page(tables.Page)           {}
func (*kernelRows) Stage(tables.Stage)         {}

// replayFile replays a trace file under policy on cfg, keeping its
// kernels table.
func replayFile(cfg model.Config, policy, path string) (*replay.Stats, []tables.Kernel, error) {
	pol, err := policies.New(policy, cfg)
	if err != nil {
		return nil, nil, err
	}
	rows := &kernelRows{}
	st, err := replay.Run(func() (trace.Source, error) { return trace.Open(path) }, replay.Options{Config: cfg, Policy: pol}, rows)
	return st, rows.kernels, err
}

// relErr formats got's error relative to want.
func relErr(got, want float64) string {
	if want == 0 {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*(got-want)/want)
}

// errStats are the per-item errors of one comparison.
type errStats struct {
	abs         []float64 // |got - want| / want
	got, want   []float64
	worst       float64
	worstSigned float64
}

func (e *errStats) add(got, want float64) {
	if want <= 0 {
		return
	}
	d := (got - want) / want
	e.abs = append(e.abs, math.Abs(d))
	e.got, e.want = append(e.got, got), append(e.want, want)
	if math.Abs(d) > e.worst {
		e.worst, e.worstSigned = math.Abs(d), d
	}
}

// mape is the mean absolute percentage error.
func (e *errStats) mape() float64 {
	var s float64
	for _, x := range e.abs {
		s += x
	}
	return 100 * s / float64(max(len(e.abs), 1))
}

// corr is Pearson's correlation of got and want (NaN under two items).
func (e *errStats) corr() float64 {
	n := float64(len(e.got))
	if n < 2 {
		return math.NaN()
	}
	var mg, mw float64
	for i := range e.got {
		mg += e.got[i] / n
		mw += e.want[i] / n
	}
	var sgw, sgg, sww float64
	for i := range e.got {
		dg, dw := e.got[i]-mg, e.want[i]-mw
		sgw += dg * dw
		sgg += dg * dg
		sww += dw * dw
	}
	return sgw / math.Sqrt(sgg*sww)
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// speedTable prints the tools' seconds side by side: a Markdown table of
// header (its alignment row made from it, the first cells left-aligned)
// and rows, then where the seconds come from.
func speedTable(w io.Writer, header string, left int, rows []string, source string) {
	fmt.Fprintln(w, header)
	cells := strings.Count(header, "|") - 1
	align := "|" + strings.Repeat("---|", left) + strings.Repeat("---:|", cells-left)
	fmt.Fprintln(w, align)
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	fmt.Fprintln(w, "\n"+source)
}
