package samples

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// traceHash runs the named generator with kv and returns the SHA-256 of
// its JSONL encoding: a fingerprint of every byte the trace holds.
func traceHash(t *testing.T, name string, kv ...string) string {
	t.Helper()
	h := sha256.New()
	w := trace.NewJSONLWriter(h)
	for _, r := range generate(t, name, kv...) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dpTraces are DP-variant configurations and the SHA-256 of the trace each
// gave at commit 9b78662, before the variant parameter existed (join's
// with algo=hash, the algorithm it had then; amr's with code=fronts, the
// model of that commit, before the code parameter existed: see
// TestAMRFrontsUnchanged; sssp's with ssspcost.go's costs as fitted to
// the dragonli-sssp-sample capture, its child's warm, on the capture's
// perfect-cache rerun; join's, spmm's, sa's and sssp's with
// each site's inline_cycles by the lane-loop rule, laneloop.go).
var dpTraces = []struct {
	gen  string
	kv   []string
	hash string
}{
	{"amr", []string{"code=fronts"},
		"347cc7c8d1267e49cdcaf854204a6a7bfe4b6b295a0be27825d48544fa4d79ff"},
	{"amr", []string{"code=fronts", "cells=16", "depth=2", "seed=3"},
		"e9d1e086b18a90d03ce870990eeae202c89c70911e720ae3d9bb913bf4b440ff"},
	{"join", []string{"algo=hash"},
		"f52d3a9f8b8c6207fb3978cab05e3b5c27f2caf62ebcae70fddadc960a384ca4"},
	{"join", []string{"algo=hash", "dist=uniform", "r_tuples=4096", "s_tuples=2048", "seed=2"},
		"846e17b26882ddef32ca5b3de81bc1b2c3fa3219d06d5e851183d51c58e11a2f"},
	{"spmm", nil,
		"ae1f2602c989f37ce9c3996a75f54f8a225c08f27bb463fa213a26f5a5464c93"},
	{"spmm", []string{"dist=uniform", "rows=1024", "cols=64", "seed=2"},
		"6bc7b04c7ee9ac31f738ad3dbf81dc7f5263a422450dd23d7d56ba707e499bad"},
	{"mandel", nil,
		"dd13c9afc5a65b63e82988ecd421442fbe6931ca4bc9ac1a9382560100a51aad"},
	{"mandel", []string{"width=256", "height=192", "depth=2", "region=seahorse", "seed=2"},
		"0445d192aa44740ea9a6464b812bcfa890287e47ef99d5ab6e9b7febc8abeb00"},
	{"sa", nil,
		"af1e18aa1ef163438145dbf0f7304a488580bfe0df25611a65712f0a216ccb84"},
	{"sa", []string{"genome=65536", "reads=1024", "section=2", "seed=2"},
		"1bfd77ae3a9a1c19d51365fa296243303aaae4fc09f26f40812b3a97484ee7cd"},
	{"sssp", nil,
		"c73e6ee9e15b8b9d15ff92438972606c1441a0f08c5777acd895caf78f2b8ddd"},
	{"sssp", []string{"graph=uniform", "scale=9", "site_threshold=8", "seed=2"},
		"4b4a4bb9478b026351dd4d1c4a6f0d253af8e262da4578bdf8223e301ca9c36c"},
}

// TestDPVariantUnchanged checks that the dp variant, the default, writes
// byte for byte the traces these generators wrote before flat variants
// were added, with and without variant=dp given.
func TestDPVariantUnchanged(t *testing.T) {
	for _, c := range dpTraces {
		got := traceHash(t, c.gen, c.kv...)
		if got != c.hash {
			t.Errorf("%s %v: hash %s, want %s", c.gen, c.kv, got, c.hash)
		}
		if got := traceHash(t, c.gen, append(c.kv, "variant=dp")...); got != c.hash {
			t.Errorf("%s %v variant=dp: hash %s, want %s", c.gen, c.kv, got, c.hash)
		}
	}
}

// loopFlat are the generators whose flat variant is the DP code with every
// work item taking its loop branch (no launches), with the meta keys that
// count the algorithm's work and must not change with the variant. The
// flat variant's lanes loop at the cost model's own iteration; a dp
// site's inline_cycles is its child priced by the lane-loop rule
// (laneloop.go), an estimate from the child's CTAs that the bounds of
// checkFlatWarps do not hold to (rule), except where loop makes the dp
// trace price its sites at the flat variant's loop (sssp's loop_cycles,
// given at its cost model's iteration). amr prices a site as its flat
// code's loop over the child's tree.
var loopFlat = []struct {
	gen  string
	work []string
	loop []string
	rule bool
}{
	{"amr", []string{"subcells", "pool_cells"}, nil, false},
	{"join", []string{"buckets", "max_bucket", "matches"}, nil, true},
	{"spmm", []string{"nnz", "max_row_nnz", "rows", "cols"}, nil, true},
	{"sa", []string{"candidates", "max_candidates", "matches"}, nil, true},
	{"sssp", []string{"relaxations", "reached", "iterations"}, []string{"loop_cycles=" + strconv.Itoa(ssspEdgeCycles)}, false},
}

// TestFlatVariantLoops checks the amr, join, spmm, sa and sssp flat variants
// against their dp traces, on each dpTraces configuration: the same
// host kernels and CTAs, no launches, the same work (the meta totals), and
// every warp bounded by its dp warp: no faster than the dp warp or than
// any of its launching lanes doing its child's work itself (at +
// inline_cycles), and no slower than the dp warp with all its sites'
// inline_cycles added one after another (what replaying the dp trace
// under the flat policy charges, the launching and looping lanes
// diverging). A warp without sites is exactly its dp warp, so a dp trace
// without sites (join's and spmm's uniform inputs) has the same CTAs.
func TestFlatVariantLoops(t *testing.T) {
	sited := map[string]bool{} // a configuration whose dp trace has sites
	for _, g := range loopFlat {
		for _, c := range dpTraces {
			if c.gen != g.gen {
				continue
			}
			dp := generate(t, g.gen, append(c.kv[:len(c.kv):len(c.kv)], g.loop...)...)
			flat := generate(t, g.gen, append(c.kv, "variant=flat")...)
			if err := checkOrder(flat); err != nil {
				t.Fatalf("%s %v: %v", g.gen, c.kv, err)
			}
			checkFlatMeta(t, g.gen, g.work, dp[0].(*trace.Header), flat[0].(*trace.Header))
			checkFlatWarps(t, g.gen, dp, flat, !g.rule)
			sited[g.gen] = sited[g.gen] || dp[0].(*trace.Header).Meta["sites"] != "0"
			if again := generate(t, g.gen, append(c.kv, "variant=flat")...); !reflect.DeepEqual(flat, again) {
				t.Errorf("%s %v: flat variant not deterministic", g.gen, c.kv)
			}
		}
		if !sited[g.gen] {
			t.Errorf("%s: no configuration's dp trace has sites: the comparison shows nothing", g.gen)
		}
	}
}

// checkFlatMeta compares the headers of a dp and a flat trace: the work
// totals equal, no sites in the flat one, and the variant recorded only
// there.
func checkFlatMeta(t *testing.T, gen string, work []string, dp, flat *trace.Header) {
	t.Helper()
	for _, k := range work {
		if dp.Meta[k] == "" || dp.Meta[k] != flat.Meta[k] {
			t.Errorf("%s: meta %s: dp %q, flat %q", gen, k, dp.Meta[k], flat.Meta[k])
		}
	}
	if flat.Meta["sites"] != "0" || flat.Meta["variant"] != "flat" {
		t.Errorf("%s: flat meta sites=%q variant=%q", gen, flat.Meta["sites"], flat.Meta["variant"])
	}
	if _, ok := dp.Meta["variant"]; ok {
		t.Errorf("%s: dp meta records the default variant", gen)
	}
}

// hostWarp names a warp of a kernel by its kernel's place among the host
// kernels, which is the same in the dp and the flat trace.
type hostWarp struct {
	host int
	cta  uint64
	warp int
}

// dpSiteBounds is what a dp warp's launch sites allow its flat warp.
type dpSiteBounds struct {
	sum   int64 // the sites' inline_cycles, added up
	floor int64 // the largest at + inline_cycles
}

// checkFlatWarps checks each flat host kernel against the dp trace's
// host kernel in the same place, warp by warp (TestFlatVariantLoops).
//
// With bounded unset, a dp site's inline_cycles prices its child by the
// lane-loop rule, not as the flat code's loop, and a warp with sites is
// held only to be no faster than its dp warp.
func checkFlatWarps(t *testing.T, gen string, dp, flat []trace.Record, bounded bool) {
	t.Helper()
	dpHosts, dpWarps, sites := indexHostWarps(dp)
	flatHosts, flatWarps, flatSites := indexHostWarps(flat)
	if len(flatSites) != 0 || len(flatHosts) != len(dpHosts) {
		t.Fatalf("%s: flat has %d sites and %d host kernels, dp %d host kernels", gen, len(flatSites), len(flatHosts), len(dpHosts))
	}
	for i, fk := range flatHosts {
		dk := dpHosts[i]
		if fk.Name != dk.Name || fk.Grid != dk.Grid || fk.Block != dk.Block || fk.Regs != dk.Regs || fk.Smem != dk.Smem {
			t.Errorf("%s: host kernel %d: flat %+v, dp %+v", gen, i, fk, dk)
		}
	}
	if len(flatWarps) != len(dpWarps) {
		t.Fatalf("%s: %d flat warps, %d dp warps", gen, len(flatWarps), len(dpWarps))
	}
	widened := 0
	for k, f := range flatWarps {
		d, ok := dpWarps[k]
		if !ok {
			t.Fatalf("%s: flat warp %+v has no dp warp", gen, k)
		}
		b := sites[k]
		lo, hi := max(d, b.floor), d+b.sum
		if !bounded && b.sum > 0 {
			lo, hi = d, math.MaxInt64
		}
		if f < lo || f > hi {
			t.Errorf("%s: warp %+v: flat %d cycles, want in [%d, %d] (dp %d, sites %+v)", gen, k, f, lo, hi, d, b)
		}
		if b.sum == 0 && f != d {
			t.Errorf("%s: warp %+v without sites: flat %d cycles, dp %d", gen, k, f, d)
		}
		if f > d {
			widened++
		}
	}
	if widened == 0 && len(sites) > 0 {
		t.Errorf("%s: no flat warp does more than its dp warp with sites", gen)
	}
}

// indexHostWarps returns a trace's host kernels in order, the cycles of
// each of their warps, and the bounds the sites launched from them give.
func indexHostWarps(recs []trace.Record) ([]*trace.Kernel, map[hostWarp]int64, map[hostWarp]dpSiteBounds) {
	var hosts []*trace.Kernel
	place := map[uint64]int{} // host kernel id → its place in hosts
	kernels := map[uint64]*trace.Kernel{}
	warps := map[hostWarp]int64{}
	sites := map[hostWarp]dpSiteBounds{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			kernels[r.ID] = r
		case *trace.Launch:
			if r.Host() {
				place[r.Kernel] = len(hosts)
				hosts = append(hosts, kernels[r.Kernel])
			} else if h, ok := place[r.Parent.Kernel]; ok {
				k := hostWarp{host: h, cta: r.Parent.CTA, warp: r.Parent.Warp}
				b := sites[k]
				b.sum += r.InlineCycles
				b.floor = max(b.floor, r.Parent.At+r.InlineCycles)
				sites[k] = b
			}
		case *trace.CTA:
			if h, ok := place[r.Kernel]; ok {
				for w, c := range r.WarpCycles {
					warps[hostWarp{host: h, cta: r.CTA, warp: w}] = c
				}
			}
		}
	}
	return hosts, warps, sites
}

// TestMandelFlatEscapeTime checks variant=flat's mandelbrot_k by hand: a
// 64×4 block a pixel per thread, warp w of CTA (bx, by) holding pixels
// 64·bx + 32·(w mod 2) … +31 of row 4·by + ⌊w/2⌋, costed for its slowest
// pixel; the frame's edge CTAs partial.
func TestMandelFlatEscapeTime(t *testing.T) {
	const w, h = 100, 10 // 2×3 CTAs: the right column and bottom row partial
	kv := []string{"width=100", "height=10", "region=seahorse", "seed=3", "variant=flat"}
	recs := generate(t, "mandel", kv...)
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	_, host, device := countKinds(recs)
	if host != 1 || device != 0 {
		t.Fatalf("%d host and %d device launches, want 1 and 0", host, device)
	}
	hdr := recs[0].(*trace.Header)
	if hdr.Meta["evaluated_pixels"] != "1000" || hdr.Meta["sites"] != "0" || hdr.Meta["ctas"] != "6" || hdr.Meta["variant"] != "flat" {
		t.Errorf("meta %v", hdr.Meta)
	}
	cfg, err := parseMandel(mustParams(t, "mandel", kv...))
	if err != nil {
		t.Fatal(err)
	}
	rng := newRand(cfg.seed)
	img := newMandelImage(w, h, cfg.maxIter, cfg.region, rng.Float64(), rng.Float64())
	ctas := 0
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			if r.Name != "mandelbrot_k" || r.Grid != [3]uint32{2, 3, 1} || r.Block != [3]uint32{64, 4, 1} {
				t.Errorf("kernel %+v", r)
			}
		case *trace.CTA:
			ctas++
			bx, by := int(r.CTA%2), int(r.CTA/2)
			for wi, got := range r.WarpCycles {
				y, x0 := 4*by+wi/2, 64*bx+32*(wi%2)
				active, longest := 0, 0
				for x := x0; x < x0+32 && x < w && y < h; x++ {
					active++
					longest = max(longest, img.evaluate(x, y))
				}
				if want := mandelPixelsWarpCycles(active, longest); got != want {
					t.Errorf("cta %d warp %d: %d cycles, want %d (%d pixels, dwell %d)", r.CTA, wi, got, want, active, longest)
				}
			}
		}
	}
	if ctas != 6 {
		t.Errorf("%d CTAs, want 6", ctas)
	}
}

// TestMandelFlatWork checks what the escape-time variant does that
// Mariani-Silver does not: it evaluates every pixel, which the DP variant
// saves on uniform tiles. Same seed, same frame.
func TestMandelFlatWork(t *testing.T) {
	kv := []string{"width=256", "height=256"}
	dp := generate(t, "mandel", kv...)[0].(*trace.Header)
	flat := generate(t, "mandel", append(kv, "variant=flat")...)
	if flat[0].(*trace.Header).Meta["evaluated_pixels"] != "65536" {
		t.Errorf("flat meta %v", flat[0].(*trace.Header).Meta)
	}
	if n, err := strconv.Atoi(dp.Meta["evaluated_pixels"]); err != nil || n <= 0 || n >= 65536 {
		t.Errorf("dp evaluated %d pixels (%v), want fewer than the frame's 65536", n, err)
	}
	if again := generate(t, "mandel", append(kv, "variant=flat")...); !reflect.DeepEqual(flat, again) {
		t.Error("flat variant not deterministic")
	}
	if other := generate(t, "mandel", append(kv, "variant=flat", "seed=9")...); reflect.DeepEqual(flat, other) {
		t.Error("flat variant ignores the seed")
	}
}

// TestVariantBadValue checks that a variant other than dp or flat is a
// parameter error naming it, for every generator that takes one.
func TestVariantBadValue(t *testing.T) {
	for _, name := range []string{"amr", "join", "spmm", "mandel", "sa"} {
		g, _ := Lookup(name)
		p := mustParams(t, name, "variant=nested")
		err := g.Run(p, &sliceSink{})
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "variant" {
			t.Errorf("%s: variant=nested gave %v, want a ParamError for variant", name, err)
		}
	}
}
