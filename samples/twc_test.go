package samples

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestTWCCTAHand checks the three stages on a CTA of 64 threads (two
// warps) whose threads hold lists of 100, 40 and 5 neighbours, with a
// prologue of 200, a loop of 10 a neighbour and a strip of 100 plus 1 a
// neighbour. By hand:
//   - CTA stage, the 100 (≥ 64): strips [0,64) and [64,100); warp 0 runs
//     [0,32) and [64,96), 132+132 = 264; warp 1 [32,64) and [96,100),
//     132+104 = 236, and waits 28 at the next barrier; both elect (40);
//   - warp stage, warp 0's 40 (≥ 32): elect 40, strips [0,32) 132 and
//     [32,40) 108;
//   - thread stage, warp 0's 5: 50.
//
// Warp 0: 200+40+40+50 = 330 own, 264+240 = 504 strips: 834. Warp 1, no
// vertex: idle 20 + elect 40 = 60 own, 236 strips, 28 waiting: 324. With
// parent demand 1 instruction a cycle and child 1 byte a cycle: 390
// instructions (own cycles), 740 bytes (strip cycles).
func TestTWCCTAHand(t *testing.T) {
	degrees := []int{100, 40, 5}
	c := twcCosts{
		base:   200,
		lane:   func(i int) int64 { return 10 * int64(degrees[i]) },
		strip:  func(_, lo, hi int) int64 { return 100 + int64(hi-lo) },
		parent: warpMix{ipc: 1},
		child:  warpMix{bpc: 1},
	}
	got := twcCTA(7, 3, 64, degrees, c)
	want := &trace.CTA{Kernel: 7, CTA: 3, Cycles: 834, WarpCycles: []int64{834, 324}, Insts: 390, DRAMBytes: 740}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("twcCTA = %+v, want %+v", got, want)
	}
}

// TestTWCCoversEveryNeighbourOnce checks, over many CTAs of random lists
// and shapes, that the stages hand every neighbour to exactly one lane of
// one strip or to its own thread's loop, and that with a block of whole
// warps the strips are the 32-neighbour chunks a DP child's warps take, so
// the flat variant's strip work is the children's warp work: with bfs's
// costs, the strips sum to the bfs_expand warps of the lists of 32 or
// more.
func TestTWCCoversEveryNeighbourOnce(t *testing.T) {
	rng := newRand(3)
	for trial := range 200 {
		block := []int{32, 64, 100, 256, 1024}[trial%5]
		degrees := make([]int, 1+rng.IntN(block))
		for i := range degrees {
			degrees[i] = rng.IntN(4 * block)
		}
		seen := make([][]int, len(degrees))
		for i, d := range degrees {
			seen[i] = make([]int, d)
		}
		var strips, children int64
		c := twcCosts{
			base: levelBaseCycles,
			lane: func(i int) int64 {
				for e := range seen[i] {
					seen[i][e]++
				}
				return int64(degrees[i])
			},
			strip: func(i, lo, hi int) int64 {
				if (block%warpSize == 0 && lo%warpSize != 0) || hi-lo > warpSize || hi <= lo {
					t.Fatalf("trial %d: strip [%d,%d) of list %d is not a chunk of one warp", trial, lo, hi, i)
				}
				for e := lo; e < hi; e++ {
					seen[i][e]++
				}
				strips += expandWarpCycles(hi - lo)
				return expandWarpCycles(hi - lo)
			},
		}
		twcCTA(1, 0, block, degrees, c)
		for i, d := range degrees {
			for e, n := range seen[i] {
				if n != 1 {
					t.Fatalf("trial %d (block %d): neighbour %d of list %d handled %d times", trial, block, e, i, n)
				}
			}
			if d >= warpSize {
				for cta := 0; cta < ceilDiv(d, bfsExpandBlock); cta++ {
					for w, wc := range (&bfsTrace{}).expandCTA(1, cta, bfsExpandBlock, d).WarpCycles {
						if cta*bfsExpandBlock+w*warpSize < d {
							children += wc
						}
					}
				}
			}
		}
		if block%warpSize == 0 && strips != children {
			t.Fatalf("trial %d: strips cost %d, the children's warps %d", trial, strips, children)
		}
	}
}

// inlinedLongestCTA is the longest parent CTA of a dp trace with every
// launch site inlined (the flat policy): each warp waits for its largest
// site's inline_cycles after its own cycles (docs/model.md, "Launch
// sites": every site of these generators is one per warp, at the
// prologue's end).
func inlinedLongestCTA(recs []trace.Record) int64 {
	type warpKey struct {
		kernel, cta uint64
		warp        int
	}
	ctas := map[[2]uint64]*trace.CTA{}
	inline := map[warpKey]int64{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.CTA:
			ctas[[2]uint64{r.Kernel, r.CTA}] = r
		case *trace.Launch:
			if p := r.Parent; p != nil {
				k := warpKey{p.Kernel, p.CTA, p.Warp}
				inline[k] = max(inline[k], r.InlineCycles)
			}
		}
	}
	longest := int64(0)
	for key, c := range ctas {
		for w, wc := range c.WarpCycles {
			longest = max(longest, wc+inline[warpKey{key[0], key[1], w}])
		}
	}
	return longest
}

// longestCTA is the longest CTA of a trace.
func longestCTA(recs []trace.Record) int64 {
	longest := int64(0)
	for _, r := range recs {
		if c, ok := r.(*trace.CTA); ok {
			longest = max(longest, c.Cycles)
		}
	}
	return longest
}

// TestFlatVariant checks variant=flat of bfs and gc and sssp's
// variant=twc (its flat being the loop branch, TestFlatVariantLoops): a valid trace
// with no launch sites, deterministic, whose longest CTA on the skewed
// Kronecker graph is well under the dp trace's with every site inlined for
// bfs and sssp (CTA- and warp-wide expansion spread a hub's list over up
// to block lanes), and no longer for gc (GraphBIG's kernel loops per
// thread, as inlining does, but a warp waits once for its longest lane
// where inlining adds the longest site's loop to the rest's).
func TestFlatVariant(t *testing.T) {
	for _, tc := range []struct {
		gen     string
		params  []string
		shorter float64 // the least inlined/flat ratio of longest CTAs
	}{
		{"bfs", []string{"scale=12"}, 1.5},
		{"sssp", []string{"scale=11"}, 2.5},
		{"gc", []string{"scale=10"}, 1},
	} {
		variant := "variant=flat"
		if tc.gen == "sssp" {
			variant = "variant=twc"
		}
		flat := generate(t, tc.gen, append(tc.params, variant)...)
		if err := checkOrder(flat); err != nil {
			t.Errorf("%s flat: %v", tc.gen, err)
		}
		if _, _, device := countKinds(flat); device != 0 {
			t.Errorf("%s flat: %d launch sites, want none", tc.gen, device)
		}
		if again := generate(t, tc.gen, append(tc.params, variant)...); !reflect.DeepEqual(flat, again) {
			t.Errorf("%s flat: two runs differ", tc.gen)
		}
		dp := generate(t, tc.gen, tc.params...)
		inl, fl := inlinedLongestCTA(dp), longestCTA(flat)
		t.Logf("%s: longest CTA inlined %d, flat %d (%.1fx)", tc.gen, inl, fl, float64(inl)/float64(fl))
		if float64(inl) < tc.shorter*float64(fl) {
			t.Errorf("%s: longest CTA inlined %d, flat %d: want the flat one %gx shorter", tc.gen, inl, fl, tc.shorter)
		}
	}
}

// TestVariantDPUnchanged checks that naming the default variant writes the
// same bytes as before the parameter existed (the header leaves it out).
func TestVariantDPUnchanged(t *testing.T) {
	for _, gen := range []string{"bfs", "sssp", "gc"} {
		a, b := encode(t, gen, "scale=8"), encode(t, gen, "scale=8", "variant=dp")
		if !bytes.Equal(a, b) {
			t.Errorf("%s: variant=dp changes the trace", gen)
		}
		if bytes.Contains(a, []byte(`"variant"`)) {
			t.Errorf("%s: the dp trace's header names its variant", gen)
		}
	}
}

// encode runs the generator and writes its records as JSON lines.
func encode(t *testing.T, gen string, kv ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range generate(t, gen, kv...) {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(b, '\n'))
	}
	return buf.Bytes()
}
