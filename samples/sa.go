package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "sa",
		Doc:  "read mapping by k-mer seeds against a repeat-rich reference; reads with many candidate locations launch a child verifying one each (SPAWN SA); variant=flat: each section thread verifies all its candidates",
		Params: []Param{
			{Name: "genome", Default: "262144", Doc: "reference length in bases"},
			{Name: "repeat_frac", Default: "0.3", Doc: "share of the reference overwritten by repeats (transposons and centromeric satellites)"},
			{Name: "reads", Default: "8192", Doc: "reads to map"},
			{Name: "read_len", Default: "100", Doc: "bases per read"},
			{Name: "error", Default: "0.01", Doc: "per-base substitution rate of the reads (sequencing errors)"},
			{Name: "k", Default: "12", Doc: "seed length: reads are cut into non-overlapping k-mers looked up in the index"},
			{Name: "max_edits", Default: "4", Doc: "a candidate matches if the read aligns there with at most this many edits"},
			{Name: "max_hits", Default: "1000", Doc: "a seed occurring more often than this is skipped as too repetitive"},
			{Name: "section", Default: "4", Doc: "reads per parent thread, mapped one after another"},
			{Name: "block", Default: "64", Doc: "threads per sa_section CTA"},
			{Name: "site_threshold", Default: "32", Doc: "a read with more candidate locations than this is a launch site"},
			variantParam,
			seedParam,
		},
		run:   runSA,
		mixes: saMixes,
		costs: saCosts,
	})
}

// Bounds that keep memory modest: the reference and its index take 9
// bytes a base, the reads their length, and a read's candidates at most
// 4 bytes per seed per max_hits. (k is at most 14, so the declared q-gram
// table is at most 1 GiB, as on a real GPU.)
const (
	maxSAGenome = 1 << 24
	maxSAReads  = 1 << 20
)

// saConfig is the sa generator's parameters, checked.
type saConfig struct {
	genome, reads, readLen, k, maxEdits, maxHits, section, block, threshold int
	repeatFrac, errRate                                                     float64
	seed                                                                    uint64
	flat                                                                    bool // variant=flat: no read launches (runSA)
}

func parseSA(p Params) (c saConfig, err error) {
	for _, f := range []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"genome", &c.genome, 1 << 10, maxSAGenome},
		{"reads", &c.reads, 1, maxSAReads},
		{"read_len", &c.readLen, 16, 1000},
		{"k", &c.k, 8, 14},
		{"max_edits", &c.maxEdits, 0, 31},
		{"max_hits", &c.maxHits, 1, 1 << 16},
		{"section", &c.section, 1, 1024},
		{"block", &c.block, 1, 1024},
		{"site_threshold", &c.threshold, 0, 1 << 30},
	} {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	if c.k > c.readLen {
		return c, p.errorf("k", strconv.Itoa(c.k), "a seed cannot be longer than a read (read_len=%d)", c.readLen)
	}
	if c.repeatFrac, err = p.Float("repeat_frac", 0, 0.9); err != nil {
		return c, err
	}
	if c.errRate, err = p.Float("error", 0, 0.5); err != nil {
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

// runSA builds the reference, samples and maps the reads, and writes the
// trace: a header, the buffers, one host-launched sa_section kernel with a
// thread per section of reads, its CTAs, then in (cta, warp, read, lane)
// order the sa_verify child of each read with more candidates than
// site_threshold. The kernels reach the reference through candidate
// positions, so they have no access records (irregular for CRCS).
//
// Launch-site times: an sa_section thread maps its section's reads in a
// loop, launching for each read with more candidates than site_threshold,
// so a lane's site is at the cycle its loop reaches that read: the steps
// before it (each the warp's slowest seed lookup plus its longest inline
// verification) plus this step's lookup (saSectionWarpCycles). A warp's
// sites are spread and ordered as the loop reaches them (see the package
// doc).
//
// variant=flat is the original non-DP SA, which SPAWN's authors wrote
// (SPAWN §III-B): "In SA, all the reads are divided into sections. Each
// parent thread handles one section of reads. For each read, there are
// several candidate locations ... In the DP version of this application,
// a thread launches a child kernel for a read if it has too many candidate
// locations." So sa_section with a thread per section, each verifying
// every candidate of its reads in its own loop: the DP code's `else`
// branch for every read, so no lane launches (site_threshold is ignored)
// and each step of the warp's loop waits for its slowest lane. The work is
// the DP variant's: the same candidates verified over the same DP rows at
// saCandidateCycles and saStepCycles; a child thread adds
// saChildBaseCycles per candidate.
func runSA(p Params, out trace.Sink) error {
	cfg, err := parseSA(p)
	if err != nil {
		return err
	}
	rng := newRand(cfg.seed)
	ref := saReference(rng, cfg.genome, cfg.repeatFrac)
	reads, _ := saReads(rng, ref, cfg.reads, cfg.readLen, cfg.errRate)
	m := &saMapper{ref: ref, ix: newSAIndex(ref, cfg.k), maxEdits: cfg.maxEdits, maxHit: cfg.maxHits}
	mapped := make([]saRead, len(reads))
	var band saBand
	for i, r := range reads {
		mapped[i] = m.mapRead(r, &band)
	}
	t := &saTrace{out: out, cfg: cfg, reads: mapped}
	if err := t.prologue(p); err != nil {
		return err
	}
	return t.mapping()
}

// saTrace writes one mapping run's records, numbering kernels from 1 in
// the order they are written.
type saTrace struct {
	out    trace.Sink
	cfg    saConfig
	reads  []saRead
	lastID uint64
}

// saSite is a read whose thread launches a child, with the read's place in
// the parent grid and the cycle its warp reaches the launch.
type saSite struct {
	at   trace.Parent
	read *saRead
}

// prologue writes the header, whose meta records the parameters and what
// the mapping came to, and the buffers a GPU mapper allocates: the packed
// reference, the q-gram index (a table of 4^k+1 offsets and the positions),
// the reads, a candidate list per read, and the alignments found.
func (t *saTrace) prologue(p Params) error {
	candidates, longest, matches, sites := 0, 0, 0, 0
	ctas := ceilDiv(ceilDiv(len(t.reads), t.cfg.section), t.cfg.block)
	for i := range t.reads {
		r := &t.reads[i]
		n := len(r.steps)
		candidates += n
		longest = max(longest, n)
		matches += r.matches
		if n > t.cfg.threshold {
			sites++
			ctas += ceilDiv(n, saVerifyBlock)
		}
	}
	meta := variantMeta(p, p.Values())
	meta["candidates"] = strconv.Itoa(candidates)
	meta["max_candidates"] = strconv.Itoa(longest)
	meta["matches"] = strconv.Itoa(matches)
	meta["sites"] = strconv.Itoa(sites)
	meta["kernels"] = strconv.Itoa(1 + sites)
	meta["ctas"] = strconv.Itoa(ctas)
	var heap deviceHeap
	g, n := int64(t.cfg.genome), int64(len(t.reads))
	return writeAll(t.out,
		k20cHeader("gen:sa", meta),
		heap.alloc("reference", (g+3)/4, trace.RoleInput), // 2 bits a base
		heap.alloc("kmer_offsets", 4*(int64(1)<<(2*t.cfg.k)+1), trace.RoleInput),
		heap.alloc("kmer_positions", 4*(g-int64(t.cfg.k)+1), trace.RoleInput),
		heap.alloc("reads", n*int64(t.cfg.readLen), trace.RoleInput),
		heap.alloc("candidates", 4*int64(candidates), trace.RoleTemp),
		heap.alloc("alignments", 8*int64(matches), trace.RoleOutput),
	)
}

// mapping writes the sa_section kernel, its CTAs, then its children.
func (t *saTrace) mapping() error {
	threads := ceilDiv(len(t.reads), t.cfg.section)
	parent := t.kernel("sa_section", ceilDiv(threads, t.cfg.block), t.cfg.block, saSectionRegs)
	if err := writeAll(t.out, parent, &trace.Launch{Kernel: parent.ID}); err != nil {
		return err
	}
	return writeFamily(t.out, int(parent.CTAs()),
		func(c int) (*trace.CTA, []saSite) { return t.sectionCTA(parent.ID, c) },
		t.verify)
}

// sectionCTA costs one sa_section CTA and finds its launch sites.
func (t *saTrace) sectionCTA(kernel uint64, cta int) (*trace.CTA, []saSite) {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(t.cfg.block, warpSize))}
	var sites []saSite
	lanes := make([][]saRead, 0, warpSize)
	for w := range rec.WarpCycles {
		lanes = lanes[:0]
		first := cta*t.cfg.block + w*warpSize // the warp's first thread
		for th := first; th < first+min(warpSize, t.cfg.block-w*warpSize); th++ {
			lo := min(th*t.cfg.section, len(t.reads))
			lanes = append(lanes, t.reads[lo:min(lo+t.cfg.section, len(t.reads))])
		}
		cycles, ws := saSectionWarpCycles(lanes, t.cfg.threshold)
		for _, s := range ws {
			s.at.Kernel, s.at.CTA, s.at.Warp = kernel, uint64(cta), w
			sites = append(sites, s)
		}
		rec.WarpCycles[w] = cycles
		rec.Cycles = max(rec.Cycles, cycles)
	}
	return rec, sites
}

// saSectionWarpCycles is the time of one sa_section warp whose lanes hold
// the given sections of reads, excluding launch-site work, and its launch
// sites (lane and at set). The lanes map their i-th reads together: each
// step waits for the slowest lane's seed lookups, then the lanes whose read
// has more candidates than threshold launch, at that cycle, and the rest
// verify theirs inline while the warp waits for the longest.
func saSectionWarpCycles(lanes [][]saRead, threshold int) (int64, []saSite) {
	var sites []saSite
	now := int64(0)
	for i := 0; ; i++ {
		var lookup, inline int64
		active := false
		for _, reads := range lanes {
			if i < len(reads) {
				active = true
				lookup = max(lookup, saLookupCycles(&reads[i]))
			}
		}
		if !active {
			break
		}
		for lane, reads := range lanes {
			if i >= len(reads) {
				continue
			}
			if r := &reads[i]; len(r.steps) > threshold {
				sites = append(sites, saSite{at: trace.Parent{Lane: lane, At: now + lookup}, read: r})
			} else {
				inline = max(inline, saInlineCycles(r))
			}
		}
		now += lookup + inline
	}
	if now == 0 {
		return saIdleWarpCycles, nil
	}
	return now, sites
}

// verify writes a launch site's sa_verify child: one thread per candidate,
// each running the verification of its candidate. The launch record
// carries the candidate count and what verifying them in the parent thread
// would cost, so a policy can inline instead (saVerifyInline).
func (t *saTrace) verify(s saSite) error {
	steps := s.read.steps
	grid := ceilDiv(len(steps), saVerifyBlock)
	child := t.kernel("sa_verify", grid, saVerifyBlock, saVerifyRegs)
	launch := &trace.Launch{
		Kernel:       child.ID,
		Parent:       &s.at,
		Workload:     int64(len(steps)),
		InlineCycles: saVerifyInline(steps),
	}
	if err := writeAll(t.out, child, launch); err != nil {
		return err
	}
	for c := 0; c < grid; c++ {
		if err := t.out.Write(saVerifyCTA(child.ID, c, steps)); err != nil {
			return err
		}
	}
	return nil
}

// saVerifyInline is a site's inline_cycles: the parent lane's loop over
// its sa_verify child's threads, a candidate each, by the lane-loop rule.
func saVerifyInline(steps []int32) int64 {
	return laneLoopCycles(len(steps), saVerifyBlock, func(c int) int64 { return saVerifyCTA(0, c, steps).Cycles })
}

// saVerifyCTA costs CTA c of an sa_verify child over candidates taking
// the given DP rows, one a thread.
func saVerifyCTA(kernel uint64, c int, steps []int32) *trace.CTA {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(c), WarpCycles: make([]int64, saVerifyBlock/warpSize)}
	for w := range rec.WarpCycles {
		lo := min(c*saVerifyBlock+w*warpSize, len(steps))
		rec.WarpCycles[w] = saVerifyWarpCycles(steps[lo:min(lo+warpSize, len(steps))])
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
	}
	return rec
}

// kernel declares the next kernel, with a 1-D grid and block.
func (t *saTrace) kernel(name string, grid, block, regs int) *trace.Kernel {
	t.lastID++
	return &trace.Kernel{
		ID:    t.lastID,
		Name:  name,
		Grid:  [3]uint32{uint32(grid), 1, 1},
		Block: [3]uint32{uint32(block), 1, 1},
		Regs:  regs,
	}
}
