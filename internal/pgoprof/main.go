// Command pgoprof writes a profile for go build's profile-guided
// optimisation from callgrind's counts of a binary built without one:
//
//	go run ./internal/pgoprof -bin BINARY [-hot PERCENT] -o default.pgo FILE.callgrind...
//
// Each call edge (a call site and the function it calls) weighs the
// instructions its calls executed, summed over the files. A sampled CPU
// profile weighs an edge by the samples that fell under it, so two
// profiles of the same runs differ where the samples did; these counts
// are the same for the same binary and runs, and so is the profile
// (scripts/pgo.sh, docs/performance.md).
//
// -hot makes go build count hot the heaviest edges that together make
// that percent of the weight (its own rule is 99%), by a ballast edge
// between two functions no program has.
//
// -nested adds, for each hot call B→C inside a function B that a hot
// call A→B may inline, the edge A→C at B's line of the call, which is
// how go build looks up a call inside an inlined body (nest.go), and
// keeps the hot line where it was among the others.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	bin := flag.String("bin", "", "the binary callgrind ran: its DWARF gives the functions' start lines")
	out := flag.String("o", "", "the profile to write")
	by := flag.String("by", "calls", "what an edge weighs: calls (the times it was made) or instructions (those its calls executed)")
	nest := flag.Bool("nested", false, "add the hot calls inside hot calls, at their lines, to the functions those calls are inlined into")
	hot := flag.Float64("hot", 99, "percent of the edges' weight go build is to count hot, at least (0 < hot ≤ 99), the line then moved to a gap")
	flag.Parse()
	if *bin == "" || *out == "" || flag.NArg() == 0 || *hot <= 0 || *hot > 99 || *by != "calls" && *by != "instructions" {
		fmt.Fprintln(os.Stderr, "usage: pgoprof -bin BINARY [-by calls|instructions] [-hot PERCENT] [-nested] -o OUT FILE.callgrind...")
		os.Exit(2)
	}
	if err := run(*bin, *out, *hot, *by == "calls", *nest, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "pgoprof:", err)
		os.Exit(1)
	}
}

func run(bin, out string, hot float64, byCalls, nest bool, files []string) error {
	starts, err := startLines(bin)
	if err != nil {
		return err
	}
	edges := map[edge]int64{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = readCallgrind(f, edges, byCalls)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if nest {
		var n int
		n, hot = nested(edges, hot)
		fmt.Fprintf(os.Stderr, "pgoprof: %d nested edges, the line at %.3f%%\n", n, hot)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := writeProfile(w, edges, starts, hot); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	n, last, next := hotLine(edges, hot)
	fmt.Fprintf(os.Stderr, "pgoprof: %d edges, %d hot (%.0f%% of the weight): the lightest hot weighs %d, the heaviest cold %d\n",
		len(edges), n, hot, last, next)
	return nil
}

// hotLine returns how many edges go build will count hot, by its rule
// (ballast), the weight of the lightest of them and of the heaviest
// edge left cold: how far the line is from moving.
func hotLine(edges map[edge]int64, hot float64) (n int, last, next int64) {
	ws, total := hotWeights(edges)
	b := ballast(edges, hot)
	cum, all := b, total+b
	for i, w := range ws {
		cum += w
		if float64(cum)/float64(all)*100 > 99 {
			if i+1 < len(ws) {
				next = ws[i+1]
			}
			return i + 1, w, next
		}
	}
	if len(ws) == 0 {
		return 0, 0, 0
	}
	return len(ws), ws[len(ws)-1], 0
}
