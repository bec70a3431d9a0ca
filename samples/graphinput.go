package samples

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// graphKinds describes each input graph the graph generators (bfs, sssp,
// gc) can run on, for their graph parameter's documentation.
var graphKinds = map[string]string{
	"kron":     "kron (Graph500 Kronecker, heavily skewed degrees)",
	"uniform":  "uniform (uniform random edges, degrees near the mean)",
	"citation": "citation (preferential-attachment citation network, power-law degrees with a lighter top)",
}

// graphParam declares a generator's graph parameter, defaulting to kron,
// the first of kinds.
func graphParam(kinds ...string) Param {
	docs := make([]string, len(kinds))
	for i, k := range kinds {
		docs[i] = graphKinds[k]
	}
	return Param{Name: "graph", Default: kinds[0], Doc: "input graph: " + strings.Join(docs, ", ")}
}

// maxBFSEdges bounds edgefactor·2^scale so the graph (two int32 edge lists,
// then the CSR) stays within about 1.5 GiB of memory.
const maxBFSEdges = 1 << 26

// graphInput is the input graph a generator's parameters chose: its kind
// and size.
type graphInput struct {
	kind              string
	scale, edgefactor int
}

// parseGraphInput reads and checks the graph, scale and edgefactor
// parameters; kinds are the graphs the generator offers.
func parseGraphInput(p Params, kinds ...string) (in graphInput, err error) {
	if in.kind, err = p.Choice("graph", kinds...); err != nil {
		return in, err
	}
	if in.scale, err = p.Int("scale", 1, 24); err != nil {
		return in, err
	}
	if in.edgefactor, err = p.Int("edgefactor", 1, maxBFSEdges); err != nil {
		return in, err
	}
	if in.edgefactor > maxBFSEdges>>in.scale {
		return in, p.errorf("edgefactor", strconv.Itoa(in.edgefactor),
			"edgefactor·2^scale must be at most 2^26; with scale=%d, want at most %d", in.scale, maxBFSEdges>>in.scale)
	}
	return in, nil
}

// build generates the graph, drawing on rng.
func (in graphInput) build(rng *rand.Rand) *csr {
	switch in.kind {
	case "uniform":
		return ssspUniformGraph(rng, in.scale, in.edgefactor)
	case "citation":
		return citationGraph(rng, in.scale, in.edgefactor)
	default:
		return kroneckerGraph(rng, in.scale, in.edgefactor)
	}
}

// graphKernel is the parameters every one-thread-per-vertex graph
// generator (bfs, gc) shares, checked.
type graphKernel struct {
	graph            graphInput
	block, threshold int
	loop             int64 // loop_cycles
	seed             uint64
	flat             bool // variant=flat: the original non-DP benchmark
}

// parseGraphKernel reads the graph input (one of graphs), block,
// site_threshold, loop_cycles, variant and seed.
func parseGraphKernel(p Params, graphs ...string) (c graphKernel, err error) {
	if c.graph, err = parseGraphInput(p, graphs...); err != nil {
		return c, err
	}
	if c.block, err = p.Int("block", 1, 1024); err != nil {
		return c, err
	}
	if c.threshold, err = p.Int("site_threshold", 0, 1<<30); err != nil {
		return c, err
	}
	if c.loop, err = parseLoopCycles(p); err != nil {
		return c, err
	}
	if c.flat, err = flatVariant(p); err != nil {
		return c, err
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}
