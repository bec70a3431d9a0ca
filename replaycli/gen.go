package replaycli

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

const genSynopsis = `replay gen — generate a workload trace

Usage:
  replay gen WORKLOAD [--param k=v ...] -o OUT.trace.zst
  replay gen --list [WORKLOAD...]

Generators run the real algorithm on a real-structured input (e.g. BFS over
a Graph500 Kronecker graph), so launch sites and workloads follow the true
distributions. The same parameters (and seed) give the same trace. An
existing OUT is replaced only if it is a trace (or empty).

Example:
  replay gen bfs --param scale=12 --param site_threshold=16 -o bfs.trace.zst
`

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen", genSynopsis, stdout)
	list := fs.Bool("list", false, "list the generators and their parameters")
	params := fs.StringArray("param", nil, "generator parameter k=v (repeatable)")
	out := fs.StringP("output", "o", "", "output trace file (.trace.zst, or .jsonl)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list {
		// gen --list WORKLOAD... lists just those.
		gs := samples.List()
		if fs.NArg() > 0 {
			gs = gs[:0]
			for _, name := range fs.Args() {
				g, ok := samples.Lookup(name)
				if !ok {
					return usagef("gen: unknown workload %q (see replay gen --list)", name)
				}
				gs = append(gs, g)
			}
		}
		listGenerators(stdout, gs)
		return nil
	}
	if fs.NArg() != 1 {
		return usagef("gen: want one WORKLOAD (see replay gen --list)")
	}
	g, ok := samples.Lookup(fs.Arg(0))
	if !ok {
		return usagef("gen: unknown workload %q (see replay gen --list)", fs.Arg(0))
	}
	if *out == "" {
		return usagef("gen: -o OUT is required")
	}
	p, err := g.ParseParams(*params)
	if err != nil {
		return usagef("%v", err)
	}
	if err := checkOutputs(nil, []named{{"-o", *out}}); err != nil {
		return err
	}
	if err := checkTracePath(*out); err != nil {
		return err
	}
	err = writeTrace(*out, func(s trace.Sink) error { return g.Run(p, s) })
	var pe *samples.ParamError
	if errors.As(err, &pe) {
		return usagef("%v", err)
	}
	return err
}

func listGenerators(w io.Writer, gs []*samples.Generator) {
	for _, g := range gs {
		fmt.Fprintf(w, "%s\t%s\n", g.Name, g.Doc)
		for _, p := range g.Params {
			fmt.Fprintf(w, "    %-16s %-8s %s\n", p.Name, p.Default, p.Doc)
		}
	}
}
