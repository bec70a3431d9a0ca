package samples

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// graphKinds describes each input graph the graph generators (bfs, sssp,
// gc) can run on, for their graph parameter's documentation.
var graphKinds = map[string]string{
	"kron":     "kron (Graph500 Kronecker, heavily skewed degrees)",
	"uniform":  "uniform (uniform random edges, degrees near the mean)",
	"citation": "citation (preferential-attachment citation network, power-law degrees with a lighter top)",
	grKind: "or PATH.gr (a DIMACS shortest-path file, the format Dragon_li's tests read: its directed arcs, and for sssp their weights, " +
		"searched from its vertex 1 as Dragon_li's -s 0; scale, edgefactor and max_weight are then unused)",
}

// grKind, among a generator's graph kinds, lets its graph parameter name a
// .gr file (grfile.go) instead of a generated graph.
const grKind = "gr"

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
// and size, or the graph a .gr file holds.
type graphInput struct {
	kind              string
	scale, edgefactor int
	file              *grGraph // graph=PATH.gr
}

// parseGraphInput reads and checks the graph, scale and edgefactor
// parameters; kinds are the graphs the generator offers.
func parseGraphInput(p Params, kinds ...string) (in graphInput, err error) {
	if in.kind, err = graphKind(p, kinds); err != nil {
		return in, err
	}
	if in.kind == grKind {
		path, _ := p.lookup("graph")
		if in.file, err = loadGR(path); err != nil {
			return in, p.errorf("graph", path, "%v", err)
		}
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

// graphKind is the graph parameter's kind: one of kinds, or grKind for a
// value ending in .gr where kinds offers it.
func graphKind(p Params, kinds []string) (string, error) {
	s, err := p.lookup("graph")
	if err != nil {
		return "", err
	}
	file := slices.Contains(kinds, grKind)
	if file && strings.HasSuffix(s, ".gr") {
		return grKind, nil
	}
	generated := slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == grKind })
	if slices.Contains(generated, s) {
		return s, nil
	}
	want := "one of " + strings.Join(generated, ", ")
	if file {
		want += ", or a .gr file's path"
	}
	return "", p.errorf("graph", s, "want %s", want)
}

// build generates the graph, drawing on rng, or returns the file's.
// draw is build through the input cache (inputcache.go): the graph these
// parameters and rng's state give, and rng where build leaves it.
func (in graphInput) draw(rng seeded) *csr {
	if in.kind == grKind {
		return in.file.g
	}
	return drawn(in.key(), rng, (*csr).bytes, func() *csr { return in.build(rng.Rand) })
}

// key names a generated graph for the input cache: its kind and size.
func (in graphInput) key() string {
	return "graph " + in.kind + " " + strconv.Itoa(in.scale) + " " + strconv.Itoa(in.edgefactor)
}

func (in graphInput) build(rng *rand.Rand) *csr {
	switch in.kind {
	case grKind:
		return in.file.g
	case "uniform":
		return ssspUniformGraph(rng, in.scale, in.edgefactor)
	case "citation":
		return citationGraph(rng, in.scale, in.edgefactor)
	default:
		return kroneckerGraph(rng, in.scale, in.edgefactor)
	}
}

// root is where a search of g, the graph build gave, starts: a file's
// vertex 1 (index 0, Dragon_li's default source), else graph500Root's
// draw. ok is false when g has no edges to search.
func (in graphInput) root(rng *rand.Rand, g *csr) (int32, bool) {
	if in.file != nil {
		return 0, g.edges() > 0
	}
	return graph500Root(rng, g)
}

// noEdges is the error for a graph with no edge to search.
func (in graphInput) noEdges(p Params) error {
	if in.file != nil {
		path, _ := p.lookup("graph")
		return p.errorf("graph", path, "the file's graph has no arcs to search")
	}
	return p.errorf("scale", strconv.Itoa(in.scale),
		"with this edgefactor and seed the graph has no edges to search; use a larger scale")
}

// graphKernel is the parameters every one-thread-per-vertex graph
// generator (bfs, gc) shares, checked.
type graphKernel struct {
	graph            graphInput
	block, threshold int
	loop             int64 // loop_cycles' iteration
	loopGiven        bool  // loop_cycles given: launch sites at loop an iteration, not by the lane-loop rule
	seed             uint64
	flat             bool // variant=flat: the original non-DP benchmark
}

// parseGraphKernel reads the graph input (one of graphs), block,
// site_threshold, loop_cycles (loop, the cost model's iteration, at its
// default), variant and seed.
func parseGraphKernel(p Params, loop int64, graphs ...string) (c graphKernel, err error) {
	if c.graph, err = parseGraphInput(p, graphs...); err != nil {
		return c, err
	}
	if c.block, err = p.Int("block", 1, 1024); err != nil {
		return c, err
	}
	if c.threshold, err = p.Int("site_threshold", 0, 1<<30); err != nil {
		return c, err
	}
	lc, err := parseLoopCycles(p, loop)
	if err != nil {
		return c, err
	}
	c.loop, c.loopGiven = lc.cycles, lc.given
	if c.flat, err = flatVariant(p); err != nil {
		return c, err
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}
