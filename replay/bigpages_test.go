package replay_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// irregularTrace is the shape of a Kineto or nsys import: kernels of
// ctas CTAs each with no access records, and one buffer of bufBytes.
func irregularTrace(kernels, ctas int, bufBytes int64, role string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"header","version":1,"clock_mhz":1000}`+"\n")
	fmt.Fprintf(&b, `{"type":"buffer","id":1,"name":"b","base":0,"bytes":%d,"role":%q}`+"\n", bufBytes, role)
	for k := 1; k <= kernels; k++ {
		fmt.Fprintf(&b, `{"type":"kernel","id":%d,"name":"k","grid":[%d,1,1],"block":[128,1,1],"regs":0,"smem":0}`+"\n", k, ctas)
		fmt.Fprintf(&b, `{"type":"launch","kernel":%d,"t":0,"stream":0}`+"\n", k)
		for c := range ctas {
			fmt.Fprintf(&b, `{"type":"cta","kernel":%d,"cta":%d,"cycles":1000}`+"\n", k, c)
		}
	}
	return b.String()
}

// replayJSONL replays a JSONL trace under policy on preset gpu with sets
// applied.
func replayJSONL(t testing.TB, src, gpu, policy string, sink tables.Sink, sets ...string) (*replay.Stats, error) {
	t.Helper()
	cfg, err := model.Preset(gpu)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := policies.New(policy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
	return replay.Run(open, replay.Options{Config: cfg, Policy: pol}, sink)
}

// Kernels without access records reference every page (irregular), and
// a CTA of one gives its references back in one step: 20,000 CTAs over a
// 256 MiB buffer (65,536 pages) replay under crcs and ppcs as fast as
// under cdp, not in CTAs × pages steps (17 s before, 0.04 s after:
// BenchmarkCRCSIrregular measures it). The rows are a recorder's: each
// kernel's pages pass on once, when its last CTA ends.
func TestCRCSIrregularCostFollowsKernels(t *testing.T) {
	src := irregularTrace(4, 5000, 256<<20, "inout")
	for _, pol := range []string{"crcs", "ppcs"} {
		rec := &recorder{}
		st, err := replayJSONL(t, src, "k20c", pol, rec)
		if err != nil {
			t.Fatal(err)
		}
		if st.CTAs != 20000 {
			t.Errorf("%s: %d CTAs replayed, want 20000", pol, st.CTAs)
		}
		// 65,536 first owners, 3 × 65,536 passes and 65,536 copies back.
		if n := len(rec.Pages); n != 5*65536 {
			t.Errorf("%s: %d page rows, want %d", pol, n, 5*65536)
		}
	}
}

// A 2^46-byte buffer under crcs and ppcs replays in under 100 MB (and in
// milliseconds: BenchmarkHugeBuffer) whether it holds 2^34 pages of 4 KiB or 2^46 of 1 byte, with
// a kernel with no access records (the buffer is one page group) or one
// that names a few pages (three groups): the scoreboard's state follows
// the ranges the trace names, not the bytes it declares. (Before, a 1 TiB
// buffer needed 13 GB and ran out of memory.)
func TestHugeBufferCRCSMemory(t *testing.T) {
	const access = `{"type":"access","kernel":1,"cta":0,"buffer":1,"lo":4096,"hi":8191,"mode":"r"}` + "\n"
	for _, pageBytes := range []int{4096, 1} {
		for _, extra := range []string{"", access} {
			src := hugeBufferTrace(pageBytes, extra)
			for _, pol := range []string{"crcs", "ppcs"} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				st, err := replayJSONL(t, src, "k20c", pol, &discarder{})
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatalf("%s, %d-byte pages, access %v: %v", pol, pageBytes, extra != "", err)
				}
				if st.CTAs != 1 {
					t.Errorf("%s: %d CTAs, want 1", pol, st.CTAs)
				}
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
					t.Errorf("%s, %d-byte pages, access %v: %d MiB allocated, want under 100 MiB", pol, pageBytes, extra != "", alloc>>20)
				}
			}
		}
	}
}

// hugeBufferTrace is a 2^46-byte buffer of pageBytes pages, copied in,
// and a one-CTA kernel (extra: its access records, if any).
func hugeBufferTrace(pageBytes int, extra string) string {
	return fmt.Sprintf(`{"type":"header","version":1,"clock_mhz":1000,"page_bytes":%d}`+"\n", pageBytes) +
		`{"type":"buffer","id":1,"name":"b","base":0,"bytes":70368744177664,"role":"inout"}` + "\n" +
		`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":70368744177664,"stream":1,"t":0}` + "\n" +
		`{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}` + "\n" +
		`{"type":"launch","kernel":1,"t":0,"stream":0}` + "\n" +
		`{"type":"cta","kernel":1,"cta":0,"cycles":500}` + "\n" + extra
}

// BenchmarkCRCSIrregular replays TestCRCSIrregularCostFollowsKernels's
// trace (4 kernels of 5,000 CTAs without access records, a 256 MiB
// buffer) under cdp, crcs and ppcs, with a sink that keeps no rows: crcs
// and ppcs should cost about what cdp does (compare with benchstat).
func BenchmarkCRCSIrregular(b *testing.B) {
	src := irregularTrace(4, 5000, 256<<20, "inout")
	for _, pol := range []string{"cdp", "crcs", "ppcs"} {
		b.Run(pol, func(b *testing.B) {
			for b.Loop() {
				if _, err := replayJSONL(b, src, "k20c", pol, &discarder{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHugeBuffer replays TestHugeBufferCRCSMemory's 2^46-byte buffer
// of 1-byte pages under crcs and ppcs.
func BenchmarkHugeBuffer(b *testing.B) {
	src := hugeBufferTrace(1, "")
	for _, pol := range []string{"crcs", "ppcs"} {
		b.Run(pol, func(b *testing.B) {
			for b.Loop() {
				if _, err := replayJSONL(b, src, "k20c", pol, &discarder{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Where the replay must walk pages one by one — the pages table's rows
// (a sink that keeps them, as --out), the host stages' prelude and copies
// — a page space beyond 2^22 pages is refused with an input error (exit
// 2) naming the buffer, before any page is walked.
func TestHugeBufferRefusedWherePerPage(t *testing.T) {
	src := irregularTrace(1, 1, 1<<40, "input")
	for _, c := range []struct {
		gpu, policy string
		sink        tables.Sink
		want        string
	}{
		{"k20c", "crcs", &recorder{}, "the pages table (kept with --out)"},
		{"k20c", "ppcs", &recorder{}, "the pages table (kept with --out)"},
		{"gk110-64", "crcs", &discarder{}, "the host I/O stages (io.model=stages)"},
		{"gk110-64", "baseline", &discarder{}, "the host I/O stages (io.model=stages)"},
	} {
		_, err := replayJSONL(t, src, c.gpu, c.policy, c.sink)
		if err == nil || !replay.IsInputError(err) || !strings.Contains(err.Error(), "buffer 1 has 268435456 pages of 4096 bytes") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: got %v, want an input error naming buffer 1 and %q", c.policy, c.gpu, err, c.want)
		}
	}
	// Without the pages table and the stages, the same trace replays.
	if _, err := replayJSONL(t, src, "k20c", "crcs", &discarder{}); err != nil {
		t.Errorf("crcs without rows: %v", err)
	}
}

// PPCS on the stock HotSpot generator's trace at io.ssd_mbps 220 to 255
// placed younger kernels' CTAs that waited for pages the first kernel's
// unplaced CTAs would make, until every SM was held so and the first
// kernel could never be placed ("deadlock at cycle 5872208: kernel 1 has
// 728 CTA(s) that policy ppcs never placed"). Every rate replays now, and
// PPCS still beats FIFO.
func TestPPCSHotspotNoDeadlock(t *testing.T) {
	data := generateBytes(t, "hotspot")
	cfg, err := model.Preset("gk110-64")
	if err != nil {
		t.Fatal(err)
	}
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
	for _, ssd := range []string{"220", "250", "255"} {
		if err := cfg.Set("io.ssd_mbps", ssd); err != nil {
			t.Fatal(err)
		}
		var fifo int64
		for _, name := range []string{"crcs", "ppcs", "spawn+ppcs"} {
			pol, err := policies.New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, &discarder{})
			if err != nil {
				t.Fatalf("%s at io.ssd_mbps=%s: %v", name, ssd, err)
			}
			if name == "crcs" {
				fifo = st.MakespanCycles
			} else if st.MakespanCycles >= fifo {
				t.Errorf("%s at io.ssd_mbps=%s: makespan %d, not below crcs's %d", name, ssd, st.MakespanCycles, fifo)
			}
		}
	}
}
