package samples

import (
	"math"
	"math/rand/v2"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "synth",
		Doc:  "synthetic kernels of uniform-jitter CTAs, optionally with launch sites: for benchmarks and memory tests",
		Params: []Param{
			{Name: "kernels", Default: "100", Doc: "host-launched kernels"},
			{Name: "ctas", Default: "10000", Doc: "CTAs per host-launched kernel"},
			{Name: "block", Default: "128", Doc: "threads per CTA"},
			{Name: "cycles", Default: "5000", Doc: "mean CTA cycles"},
			{Name: "jitter", Default: "0.2", Doc: "CTA cycles vary uniformly within ±jitter·cycles"},
			{Name: "site_rate", Default: "0", Doc: "fraction of CTAs with one launch site"},
			{Name: "child_ctas", Default: "4", Doc: "CTAs of each launch site's child kernel"},
			{Name: "streams", Default: "1", Doc: "host streams the kernels are spread over, round robin"},
			{Name: "ipc", Default: "0.25", Doc: "warp instructions each warp issues per cycle alone (the CTAs' insts; 0 for none)"},
			{Name: "dram_bpc", Default: "2", Doc: "DRAM bytes each warp moves per cycle alone (the CTAs' dram_bytes; 0 for none)"},
			seedParam,
		},
		run: runSynth,
	})
}

// maxSynthCTAs bounds the CTAs per kernel: a kernel's launch sites are held
// until its CTAs are written, so this bounds memory, not trace length.
const maxSynthCTAs = 1 << 22

// synthConfig is the synth generator's parameters, checked.
type synthConfig struct {
	kernels, ctas, block, childCTAs, streams int
	cycles                                   int64
	jitter, siteRate                         float64
	mix                                      warpMix
	seed                                     uint64
}

func parseSynth(p Params) (c synthConfig, err error) {
	ints := []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"kernels", &c.kernels, 1, 1 << 24},
		{"ctas", &c.ctas, 1, maxSynthCTAs},
		{"block", &c.block, 1, 1024},
		{"child_ctas", &c.childCTAs, 1, 1 << 16},
		{"streams", &c.streams, 1, 1 << 10},
	}
	for _, f := range ints {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	cycles, err := p.Int("cycles", 1, 1<<40)
	if err != nil {
		return c, err
	}
	c.cycles = int64(cycles)
	if c.jitter, err = p.Float("jitter", 0, 1); err != nil {
		return c, err
	}
	if c.siteRate, err = p.Float("site_rate", 0, 1); err != nil {
		return c, err
	}
	if c.mix.ipc, err = p.Float("ipc", 0, 2); err != nil {
		return c, err
	}
	if c.mix.bpc, err = p.Float("dram_bpc", 0, 1024); err != nil {
		return c, err
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// runSynth writes kernels host launches spread round robin over streams,
// all at t=0. Each kernel is followed by its CTAs and then by its launch
// sites' children, so a reader holds one kernel in flight; nothing is built
// in memory beyond one kernel's launch sites.
func runSynth(p Params, out trace.Sink) error {
	cfg, err := parseSynth(p)
	if err != nil {
		return err
	}
	s := &synthTrace{out: out, cfg: cfg, rng: newRand(cfg.seed)}
	if err := out.Write(k20cHeader("gen:synth", p.Values())); err != nil {
		return err
	}
	for i := 0; i < cfg.kernels; i++ {
		if err := s.hostKernel(uint64(i % cfg.streams)); err != nil {
			return err
		}
	}
	return nil
}

// synthTrace writes one synthetic trace, numbering kernels from 1 in the
// order they are written.
type synthTrace struct {
	out    trace.Sink
	cfg    synthConfig
	rng    *rand.Rand
	lastID uint64
}

// hostKernel writes one host-launched kernel, its CTAs, then its children.
func (s *synthTrace) hostKernel(stream uint64) error {
	k := s.kernel("synth", s.cfg.ctas)
	if err := writeAll(s.out, k, &trace.Launch{Kernel: k.ID, Stream: stream}); err != nil {
		return err
	}
	var sites []*trace.Parent
	for c := 0; c < s.cfg.ctas; c++ {
		cta := s.cta(k, c)
		if err := s.out.Write(cta); err != nil {
			return err
		}
		if s.cfg.siteRate > 0 && s.rng.Float64() < s.cfg.siteRate {
			sites = append(sites, s.site(cta))
		}
	}
	for _, site := range sites {
		if err := s.child(site); err != nil {
			return err
		}
	}
	return nil
}

// site places a launch site in a uniformly random lane of a CTA, at a
// uniformly random point of its run.
func (s *synthTrace) site(cta *trace.CTA) *trace.Parent {
	warp := s.rng.IntN(ceilDiv(s.cfg.block, warpSize))
	lanes := min(warpSize, s.cfg.block-warp*warpSize)
	return &trace.Parent{
		Kernel: cta.Kernel,
		CTA:    cta.CTA,
		Warp:   warp,
		Lane:   s.rng.IntN(lanes),
		At:     s.rng.Int64N(cta.Cycles),
	}
}

// child writes a launch site's child kernel of child_ctas CTAs. Its
// workload is one loop iteration per child thread; inlining is charged as
// the parent warp running the child's CTAs one after another, each at a mean
// CTA's cost, so launch against inline weighs launch overhead and
// parallelism against a fixed serial cost.
func (s *synthTrace) child(site *trace.Parent) error {
	k := s.kernel("synth_child", s.cfg.childCTAs)
	launch := &trace.Launch{
		Kernel:       k.ID,
		Parent:       site,
		Workload:     int64(s.cfg.childCTAs * s.cfg.block),
		InlineCycles: int64(s.cfg.childCTAs) * s.cfg.cycles,
	}
	if err := writeAll(s.out, k, launch); err != nil {
		return err
	}
	for c := 0; c < s.cfg.childCTAs; c++ {
		if err := s.out.Write(s.cta(k, c)); err != nil {
			return err
		}
	}
	return nil
}

// cta draws CTA c of kernel k, with the demand of its warps at ipc and
// dram_bpc.
func (s *synthTrace) cta(k *trace.Kernel, c int) *trace.CTA {
	return s.cfg.mix.set(&trace.CTA{Kernel: k.ID, CTA: uint64(c), Cycles: s.ctaCycles()}, ceilDiv(s.cfg.block, warpSize))
}

// ctaCycles draws a CTA's cycles uniformly from cycles·(1 ± jitter), at
// least 1.
func (s *synthTrace) ctaCycles() int64 {
	f := 1 + s.cfg.jitter*(2*s.rng.Float64()-1)
	return max(1, int64(math.Round(float64(s.cfg.cycles)*f)))
}

// kernel declares the next kernel: a 1-D grid of ctas, block threads each,
// 32 registers per thread (a mid-range count that leaves occupancy to the
// block size) and no shared memory.
func (s *synthTrace) kernel(name string, ctas int) *trace.Kernel {
	s.lastID++
	return &trace.Kernel{
		ID:    s.lastID,
		Name:  name,
		Grid:  [3]uint32{uint32(ctas), 1, 1},
		Block: [3]uint32{uint32(s.cfg.block), 1, 1},
		Regs:  32,
	}
}
