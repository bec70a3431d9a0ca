package samples

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestSSSPChildColdCases runs the golden cases of
// testdata/ssspchildcold.txt: where each sssp_relax_child CTA of a run
// finds the child's code (ssspChildFetch), through childOver.
func TestSSSPChildColdCases(t *testing.T) {
	runCommandCases(t, "testdata/ssspchildcold.txt", ssspChildColdCase)
}

// ssspChildColdCase runs one command of testdata/ssspchildcold.txt:
// "children grids=G1,G2,… [code=dtbl]" writes child launches of G1, G2, …
// CTAs of dragonliChildBlock threads, no edge lowering, and prints each
// launch's CTAs by what they paid over a warm CTA, N*x for N alike in a
// row: dram (coldStartCycles of ssspChildColdLines), l2
// (joinRefetchCycles of them) or warm.
func ssspChildColdCase(cmd string) (string, error) {
	f := strings.Fields(cmd)
	if len(f) < 2 || len(f) > 3 || f[0] != "children" {
		return "", fmt.Errorf("%q: want children grids=G1,G2,… [code=dtbl]", cmd)
	}
	dragonli := true
	if len(f) == 3 {
		if f[2] != "code=dtbl" {
			return "", fmt.Errorf("%q: argument %q: want code=dtbl", cmd, f[2])
		}
		dragonli = false
	}
	list, ok := strings.CutPrefix(f[1], "grids=")
	if !ok {
		return "", fmt.Errorf("%q: argument %q: want grids=G1,G2,…", cmd, f[1])
	}
	var sink sliceSink
	tr := &ssspTrace{out: &sink, dragonli: dragonli}
	warm := ssspChildWarpCycles(dragonliChildBlock, 0)
	paid := map[int64]string{0: "warm", coldStartCycles(ssspChildColdLines): "dram", joinRefetchCycles(ssspChildColdLines): "l2"}
	var out []string
	for _, g := range strings.Split(list, ",") {
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 {
			return "", fmt.Errorf("%q: grid %q: want a positive integer", cmd, g)
		}
		sink.recs = sink.recs[:0]
		if err := tr.childOver(trace.Parent{}, make([]bool, n*dragonliChildBlock), dragonliChildBlock, nil, 1); err != nil {
			return "", err
		}
		var runs []string
		last, count := "", 0
		for _, rec := range sink.recs {
			r, ok := rec.(*trace.CTA)
			if !ok {
				continue
			}
			what, ok := paid[r.Cycles-warm]
			if !ok {
				return "", fmt.Errorf("%q: a CTA of %d cycles, %d over a warm one's %d: no price", cmd, r.Cycles, r.Cycles-warm, warm)
			}
			if what != last && count > 0 {
				runs = append(runs, rle(count, last))
				count = 0
			}
			last = what
			count++
		}
		runs = append(runs, rle(count, last))
		out = append(out, strings.Join(runs, ","))
	}
	return strings.Join(out, " | "), nil
}

// rle is count x's, N*x where N > 1.
func rle(count int, x string) string {
	if count == 1 {
		return x
	}
	return strconv.Itoa(count) + "*" + x
}
