package samples

import (
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "join",
		Doc: "relational join of two relations with uniform or gaussian keys (DTBL, SPAWN): algo=merge, Dragon_li's sorted block merge join, " +
			"a persistent grid whose threads launch a child to write a key's matches in a left block when there are site_threshold or more; " +
			"algo=hash, a hash join whose probes of large buckets launch; variant=flat: every thread writes or scans its own matches in a loop",
		Params: []Param{
			{Name: "algo", Default: "merge", Doc: "merge: Dragon_li's block merge join (the papers' benchmark source); hash: the hash join this generator wrote before"},
			{Name: "dist", Default: "gaussian", Doc: "key distribution: uniform or gaussian (skewed)"},
			{Name: "r_tuples", Default: auto, Doc: "tuples of R: merge's left input, partitioned over the grid's CTAs (auto: 65536); hash's relation hashed (auto: 8192)"},
			{Name: "s_tuples", Default: auto, Doc: "tuples of S: merge's right input, a thread per tuple of each block (auto: 65536); hash's relation probing, a thread per tuple (auto: 8192)"},
			{Name: "max_key", Default: auto, Doc: "keys are drawn from [0, max_key) (merge; auto: 8192); hash draws them from [0, r_tuples)"},
			{Name: "sigma", Default: "0.01", Doc: "gaussian keys' standard deviation, as a fraction of the key range"},
			{Name: "grid", Default: "240", Doc: "CTAs of merge's persistent join_main grid, each owning a partition of R (Dragon_li's CTAS)"},
			{Name: "block", Default: auto, Doc: "threads per CTA: merge's join_main, also its tuples per block (auto: 128, Dragon_li's THREADS); hash's join_probe (auto: 256)"},
			{Name: "site_threshold", Default: auto, Doc: "merge: a thread whose key matches at least this many tuples of the left block launches (auto: 128, Dragon_li's CDP_THRESHOLD; at least 128); " +
				"hash: a probe whose bucket holds more entries than this launches (auto: 32)"},
			loopParam(int(joinLoopDefault), "output loop (algo=merge; variant=flat's loop writes a shared cache the CTA copies out in rounds, at its measured 27 a trip, which this does not set)"),
			variantParam,
			seedParam,
		},
		run:   runJoin,
		loop:  joinLoopDefault,
		mixes: joinMixes,
		costs: joinCosts,
		refit: joinRefit,
	})
}

// maxJoinTuples bounds each relation, so the keys and the table stay
// within a few hundred MiB.
const maxJoinTuples = 1 << 26

// joinDefaults are what auto means for each algorithm. hash's are the
// values this generator had before algo existed, so algo=hash writes
// those traces byte for byte. merge's block and site_threshold are
// Dragon_li's THREADS and CDP_THRESHOLD (tests/testJoin.cu); its sizes are
// inputs no paper states, chosen as runMergeJoin's doc says.
var joinDefaults = map[string]map[string]int{
	"hash":  {"r_tuples": 8192, "s_tuples": 8192, "block": 256, "site_threshold": 32},
	"merge": {"r_tuples": 65536, "s_tuples": 65536, "block": 128, "site_threshold": joinOutputBlock, "max_key": 8192},
}

// mergeOnly are the parameters only algo=merge reads; algo=hash refuses a
// value other than their default and leaves them out of its meta.
var mergeOnly = []string{"max_key", "grid", "loop_cycles"}

// joinConfig is the join generator's parameters, checked.
type joinConfig struct {
	merge                              bool // algo=merge
	gaussian                           bool
	rTuples, sTuples, block, threshold int
	maxKey, grid                       int   // merge only
	loopCycles                         int64 // merge only: an output of a join_main thread's loop
	loopGiven                          bool  // merge only: loop_cycles given, sites inline at loopCycles an output
	sigma                              float64
	seed                               uint64
	flat                               bool           // variant=flat: no launches (runMergeJoin, runHashJoin)
	resolved                           map[string]int // the auto parameters' values
}

func parseJoin(p Params) (c joinConfig, err error) {
	algo, err := p.Choice("algo", "merge", "hash")
	if err != nil {
		return c, err
	}
	c.merge = algo == "merge"
	dist, err := p.Choice("dist", "uniform", "gaussian")
	if err != nil {
		return c, err
	}
	c.gaussian = dist == "gaussian"
	if err := c.parseInts(p, algo); err != nil {
		return c, err
	}
	if c.merge {
		lc, err := parseLoopCycles(p, joinLoopDefault)
		if err != nil {
			return c, err
		}
		c.loopCycles, c.loopGiven = lc.cycles, lc.given
	}
	if c.sigma, err = p.Float("sigma", 0, 1); err != nil {
		return c, err
	}
	if c.flat, err = flatVariant(p); err != nil {
		return c, err
	}
	if c.flat {
		c.threshold = noSites
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// parseInts reads the integer parameters algo uses, auto standing for
// algo's default, and keeps what auto resolved to for the meta. A merge
// site_threshold below joinOutputBlock would make Dragon_li launch a child
// of foundCount>>7 = 0 CTAs, so merge refuses it.
func (c *joinConfig) parseInts(p Params, algo string) error {
	ints := []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"r_tuples", &c.rTuples, 1, maxJoinTuples},
		{"s_tuples", &c.sTuples, 1, maxJoinTuples},
		{"block", &c.block, 1, 1024},
		{"site_threshold", &c.threshold, 0, 1 << 30},
		{"max_key", &c.maxKey, 1, maxJoinTuples},
		{"grid", &c.grid, 1, 1 << 20},
	}
	if !c.merge {
		ints = ints[:4]
		if err := hashRefusesMergeParams(p); err != nil {
			return err
		}
	} else {
		ints[3].lo = joinOutputBlock
	}
	c.resolved = map[string]int{}
	for _, f := range ints {
		v, err := p.IntAuto(f.name, joinDefaults[algo][f.name], f.lo, f.hi)
		if err != nil {
			return err
		}
		*f.dst = v
		if p.vals[f.name] == auto {
			c.resolved[f.name] = v
		}
	}
	return nil
}

// hashRefusesMergeParams rejects a merge-only parameter given to
// algo=hash, which would otherwise ignore it silently.
func hashRefusesMergeParams(p Params) error {
	for _, d := range p.gen.Params {
		if v := p.vals[d.Name]; slices.Contains(mergeOnly, d.Name) && v != d.Default {
			return p.errorf(d.Name, v, "applies to algo=merge only")
		}
	}
	return nil
}

// joinMeta is the header's record of the parameters: each auto value
// resolved to the number it stood for, and for algo=hash without algo and
// the merge-only parameters, so that algo=hash writes the header the
// generator wrote before algo existed.
func joinMeta(p Params, c joinConfig) map[string]string {
	meta := variantMeta(p, p.Values())
	for k, v := range c.resolved {
		meta[k] = strconv.Itoa(v)
	}
	if c.merge {
		return meta
	}
	delete(meta, "algo")
	for _, k := range mergeOnly {
		delete(meta, k)
	}
	return meta
}

// runJoin writes the trace of the join algo names (runMergeJoin,
// runHashJoin).
func runJoin(p Params, out trace.Sink) error {
	cfg, err := parseJoin(p)
	if err != nil {
		return err
	}
	if cfg.merge {
		return runMergeJoin(p, cfg, out)
	}
	return runHashJoin(p, cfg, out)
}
