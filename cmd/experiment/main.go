// Command experiment reruns the papers' evaluations on generated workloads:
// it generates each benchmark trace, replays it under the policies the
// paper compares, writes the result tables and prints a Markdown table of
// speedups beside the paper's numbers.
//
//	go run ./cmd/experiment dtbl --out out/dtbl
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/spf13/pflag"
)

func main() {
	// A run takes minutes to hours and is often stopped: a signal
	// removes the trace or table being written, so that nothing half
	// written is left under out/ (trace.Create, results.Create).
	tempfile.ExitOnSignals(func(s os.Signal, n int) {
		fmt.Fprintf(os.Stderr, "experiment: %s: stopped; removed %d unfinished file(s)\n", s, n)
	})
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "experiment: "+err.Error())
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("experiment", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory for the generated traces and result tables (default out/NAME; out/ is ignored by git)")
	sets := fs.StringArray("set", nil, "override a model parameter after the experiment's own, e.g. --set model.contention=off (repeatable)")
	params := fs.StringArray("param", nil, "set a generator parameter on every benchmark of that generator, after the experiment's own, as GEN:NAME=VALUE, e.g. --param bfs:level_base_cycles=400 (repeatable; the invented cost constants are such parameters, samples/costparams.go)")
	fs.BoolVar(&costGrid, "cost-grid", false, "vary the invented cost constants in the grid of a paper-size experiment too, as the quick ones always do: the results of record (dtbl-paper 62 more points, about 40 minutes in all on 2 cores; spawn-paper 72 more, about 80 minutes in all)")
	fs.DurationVar(&progressEvery, "progress", 0, "write a line this often (e.g. 1m) while a replay runs: replays done, the running one's CTAs and simulated time, time elapsed; and one as each point of the grid of unstated inputs has run (for batch logs)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: experiment NAME [--out DIR] [--set key=value ...] [--param gen:key=value ...]\n\nexperiments:\n")
		for _, name := range names() {
			fmt.Fprintf(stderr, "  %-8s %s\n", name, experiments[name].doc)
		}
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("want one experiment name")
	}
	// A grid point generates its benchmarks again, on the same inputs:
	// keep the graphs and weights drawn (1 GiB holds sssp-cage15's 2^22
	// vertices, its weights and every other graph of the paper-size runs).
	samples.KeepInputs(1 << 30)
	x, ok := experiments[fs.Arg(0)]
	if !ok {
		return fmt.Errorf("unknown experiment %q; known: %s", fs.Arg(0), strings.Join(names(), ", "))
	}
	withSets := *x
	withSets.sets = append(append([]string(nil), x.sets...), *sets...)
	if len(*params) > 0 {
		byGen, err := genParams(*params)
		if err != nil {
			return err
		}
		withSets.benchmarks = withParams(x.benchmarks, byGen)
	}
	x = &withSets
	dir := *out
	if dir == "" {
		dir = "out/" + fs.Arg(0)
	}
	if x.custom != nil {
		return x.custom(x, dir, stdout, stderr)
	}
	res, err := x.run(dir, stderr)
	if err != nil {
		return err
	}
	c := runCache{}
	if err := x.runUnstated(dir, stderr, res, c); err != nil {
		return err
	}
	if x.stated != nil {
		if err := x.runStated(dir, stderr, c); err != nil {
			return err
		}
	}
	return x.report(stdout, res)
}

func names() []string {
	var ns []string
	for n := range experiments {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// genParams reads --param's GEN:NAME=VALUE, by generator, checking that
// the generator exists and declares the parameter.
func genParams(kvs []string) (map[string][]string, error) {
	byGen := map[string][]string{}
	for _, kv := range kvs {
		gen, p, ok := strings.Cut(kv, ":")
		name, _, isKV := strings.Cut(p, "=")
		if !ok || !isKV {
			return nil, fmt.Errorf("--param %q: want GEN:NAME=VALUE", kv)
		}
		g, ok := samples.Lookup(gen)
		if !ok {
			return nil, fmt.Errorf("--param %q: no generator %q", kv, gen)
		}
		if !slices.ContainsFunc(g.Params, func(q samples.Param) bool { return q.Name == name }) {
			return nil, fmt.Errorf("--param %q: %s has no parameter %q", kv, gen, name)
		}
		byGen[gen] = append(byGen[gen], p)
	}
	return byGen, nil
}
