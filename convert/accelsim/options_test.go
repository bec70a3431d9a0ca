package accelsim

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestOptionsSet(t *testing.T) {
	o := DefaultOptions()
	for k, v := range map[string]string{"cpi": "1.5", "issue_width": "2", "global_latency": "600", "sector_cycles": "1",
		"shared_latency": "20", "mem_parallelism": "8", "clock_mhz": "1000", "page_bytes": "65536", "host_gap": "1000"} {
		if err := o.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	want := "cpi=1.5 issue_width=2 global_latency=600 sector_cycles=1 shared_latency=20 mem_parallelism=8 clock_mhz=1000 page_bytes=65536 host_gap=1000"
	if o.String() != want {
		t.Errorf("String() = %q; want %q", o.String(), want)
	}
	for _, c := range []struct{ key, value, msg string }{
		{"cpi", "x", "not a number"},
		{"issue_width", "0", "want a number > 0"},
		{"page_bytes", "3000", "power of two"},
		{"host_gap", "1.5", "not an integer"},
		{"latency", "1", "unknown accelsim option \"latency\"; valid: clock_mhz, cpi,"},
		{"clock_mhz", "NaN", "want a number > 0"},
	} {
		before := o
		err := o.Set(c.key, c.value)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Set(%s, %s) = %v; want an error containing %q", c.key, c.value, err, c.msg)
		}
		if o.String() != before.String() {
			t.Errorf("a failed Set(%s, %s) changed the options", c.key, c.value)
		}
	}
}

func TestConvertChecksOptions(t *testing.T) {
	o := DefaultOptions()
	o.MemParallelism = 0
	if err := Convert("testdata/golden/v4", discard{}, o); err == nil || !strings.Contains(err.Error(), "mem_parallelism") {
		t.Errorf("Convert with mem_parallelism 0 = %v; want an error naming it", err)
	}
}

// TestCostModel checks the formula on Options against a hand count of the
// v4 golden's first kernel, whose CTAs are one warp of 10 instructions: 5
// off-chip memory instructions (LDG, STL, STG of 4 sectors each; a
// broadcast LD and a one-lane ATOMG of 1) and 3 on-chip ones (STS, LDS, and
// an LD inside the shared window).
func TestCostModel(t *testing.T) {
	set := func(o Options, kv ...string) Options {
		for i := 0; i < len(kv); i += 2 {
			if err := o.Set(kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	simple := set(DefaultOptions(), "cpi", "1", "global_latency", "100", "shared_latency", "10", "mem_parallelism", "1", "sector_cycles", "0")
	for _, c := range []struct {
		opts Options
		want int64
	}{
		{DefaultOptions(), 567}, // 10×4 + (5×400 + 9×2)/4 + 3×30/4 = 566.5
		{simple, 10 + 5*100 + 3*10},
		{set(simple, "sector_cycles", "1"), 540 + 9},
		{set(simple, "issue_width", "0.01"), 1000}, // 10 warp instructions ÷ 0.01
	} {
		recs := convert(t, "testdata/golden/v4", c.opts)
		for _, r := range recs {
			if cta, ok := r.(*trace.CTA); ok {
				if cta.Cycles != c.want {
					t.Errorf("%s: the first CTA takes %d cycles; want %d", c.opts, cta.Cycles, c.want)
				}
				break
			}
		}
	}
}

// TestBarrierPhases checks the barrier rule by hand on testdata/golden/
// barrier (one CTA: warp 0 runs 5 MOVs and a BAR.SYNC, own time 24 there,
// then MOV and EXIT; warp 1 a MOV, a BAR.ARV, the BAR.SYNC at 12, then 5
// MOVs and EXIT; 9 instructions before the barrier, 8 after).
func TestBarrierPhases(t *testing.T) {
	for _, c := range []struct {
		issueWidth string
		want       int64
	}{
		// The barrier releases at 24; warp 1 ends 24 + 24 = 48 (36 alone).
		{"4", 48},
		// Issue width 0.35: the 9 instructions before the barrier take
		// 25.71 cycles, so it releases then; warp 1 ends 25.71 + 24 =
		// 49.71, after the 8 later instructions' 22.86: 50. Bounding the
		// whole CTA by its 17 instructions instead gives 48.57: 49.
		{"0.35", 50},
	} {
		o := DefaultOptions()
		if err := o.Set("issue_width", c.issueWidth); err != nil {
			t.Fatal(err)
		}
		for _, r := range convert(t, "testdata/golden/barrier", o) {
			if cta, ok := r.(*trace.CTA); ok && cta.Cycles != c.want {
				t.Errorf("issue width %s: %d cycles; want %d", c.issueWidth, cta.Cycles, c.want)
			}
		}
	}
}
