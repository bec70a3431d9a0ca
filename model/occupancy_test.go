package model

import (
	"math"
	"testing"
)

func k20c(t *testing.T) GPU {
	t.Helper()
	c, err := Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	return c.GPU
}

func TestCTAsPerSM(t *testing.T) {
	g := k20c(t) // 16 CTAs, 2048 threads, 65536 regs, 48 KiB
	for _, tc := range []struct {
		name    string
		threads int
		regs    int
		smem    int64
		n       int
		limit   Limit
	}{
		{"threads", 256, 32, 0, 8, LimitThreads},               // 2048/256 = 8; regs 65536/8192 = 8 too: tie goes to threads
		{"ctas", 64, 0, 0, 16, LimitCTAs},                      // threads would allow 32
		{"regs", 128, 64, 0, 8, LimitRegs},                     // 65536/(64·128)
		{"smem", 64, 0, 6 << 10, 8, LimitSmem},                 // 48K/6K
		{"warp rounding", 33, 0, 0, 16, LimitCTAs},             // 2 warps each: 32 by threads
		{"warp rounding binds", 1000, 0, 0, 2, LimitThreads},   // 32 warps each
		{"regs count padding", 48, 64, 0, 16, LimitCTAs},       // 2 warps · 32 · 64 = 4096: 16 fit
		{"regs count padding binds", 48, 128, 0, 8, LimitRegs}, // 8192 each
		{"smem tie with ctas", 32, 0, 3 << 10, 16, LimitCTAs},  // both allow 16
		{"one fills the SM", 2048, 32, 48 << 10, 1, LimitThreads},
		{"too many threads", 2049, 0, 0, 0, LimitThreads},
		{"too many regs", 1024, 65, 0, 0, LimitRegs},
		{"regs per thread beyond the SM", 32, 1 << 20, 0, 0, LimitRegs},
		{"too much smem", 32, 0, 48<<10 + 1, 0, LimitSmem},
		{"no threads", 0, 0, 0, 0, LimitThreads},
		{"negative regs", 32, -1, 0, 0, LimitRegs},
		{"negative smem", 32, 0, -1, 0, LimitSmem},
		{"huge regs", 32, math.MaxInt, 0, 0, LimitRegs},
		{"huge threads", math.MaxInt, 0, 0, 0, LimitThreads},
	} {
		n, limit := g.CTAsPerSM(tc.threads, tc.regs, tc.smem)
		if n != tc.n || limit != tc.limit {
			t.Errorf("%s: CTAsPerSM(%d, %d, %d) = %d, %s; want %d, %s",
				tc.name, tc.threads, tc.regs, tc.smem, n, limit, tc.n, tc.limit)
		}
	}
}

func TestCTAsPerSMOtherGPUs(t *testing.T) {
	for _, tc := range []struct {
		preset  string
		threads int
		regs    int
		smem    int64
		n       int
		limit   Limit
	}{
		{"gk110-64", 64, 16, 0, 8, LimitCTAs},
		{"gk110-64", 256, 16, 0, 4, LimitThreads},
		{"gk110-64", 128, 64, 0, 4, LimitRegs},
		{"gk110-64", 32, 0, 16 << 10, 1, LimitSmem},
		{"titanx", 32, 0, 0, 32, LimitCTAs}, // the GeMTC default: 32 warps of 64, 50% occupancy
		{"h100", 128, 0, 100 << 10, 2, LimitSmem},
	} {
		c, err := Preset(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		n, limit := c.GPU.CTAsPerSM(tc.threads, tc.regs, tc.smem)
		if n != tc.n || limit != tc.limit {
			t.Errorf("%s: CTAsPerSM(%d, %d, %d) = %d, %s; want %d, %s",
				tc.preset, tc.threads, tc.regs, tc.smem, n, limit, tc.n, tc.limit)
		}
	}
}

// CTAsPerSM and dispatching Need from Capacity one CTA at a time agree, so
// the engine's per-SM accounting admits exactly as many CTAs as the
// calculator predicts.
func TestResourcesAgreeWithCTAsPerSM(t *testing.T) {
	g := k20c(t)
	for threads := 1; threads <= 2048; threads += 37 {
		for _, regs := range []int{0, 16, 32, 63, 255} {
			for _, smem := range []int64{0, 1000, 6 << 10, 20 << 10} {
				want, _ := g.CTAsPerSM(threads, regs, smem)
				need := g.Need(threads, regs, smem)
				free := g.Capacity()
				got := 0
				for need.Fits(free) {
					free = free.Sub(need)
					got++
				}
				if got != want {
					t.Fatalf("(%d, %d, %d): %d fit by Resources, CTAsPerSM says %d", threads, regs, smem, got, want)
				}
				for i := 0; i < got; i++ {
					free = free.Add(need)
				}
				if free != g.Capacity() {
					t.Fatalf("(%d, %d, %d): releasing every CTA leaves %+v", threads, regs, smem, free)
				}
			}
		}
	}
}

func TestNeed(t *testing.T) {
	g := k20c(t)
	got := g.Need(100, 20, 512)
	want := Resources{CTAs: 1, Warps: 4, Regs: 20 * 4 * 32, Smem: 512}
	if got != want {
		t.Errorf("Need = %+v, want %+v", got, want)
	}
	if c := g.Capacity(); c != (Resources{CTAs: 16, Warps: 64, Regs: 65536, Smem: 49152}) {
		t.Errorf("Capacity = %+v", c)
	}
}

func TestLimitString(t *testing.T) {
	for l, want := range map[Limit]string{LimitCTAs: "ctas", LimitThreads: "threads", LimitRegs: "regs", LimitSmem: "smem", 9: "unknown"} {
		if l.String() != want {
			t.Errorf("Limit(%d) = %q, want %q", l, l.String(), want)
		}
	}
}

func BenchmarkDispatchCheck(b *testing.B) {
	c, _ := Preset("k20c")
	need := c.GPU.Need(256, 32, 4096)
	free := c.GPU.Capacity()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if need.Fits(free) {
			free = free.Sub(need)
		} else {
			free = c.GPU.Capacity()
		}
	}
}
