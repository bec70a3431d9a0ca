package kineto_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/convert/kineto"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// TestReplayMatchesProfile is issue 8's criterion: a converted trace
// replayed with --gpu=captured --policy=cdp has every kernel last its
// profiled duration within 10%, and its GPU busy span (first GPU op's
// start to last one's end) within 10% of the profile's, for traces whose
// kernels do not overlap between streams. The profile side is read here
// with encoding/json, not by the importer.
//
// The makespan is that busy span (or, where the host waits at a sync
// after the last op, up to the host's last return) plus the latency
// before the first op can start — lat.host_issue + lat.host_launch (+ lat.kernel_dispatch for
// a kernel) from the header's meta, 8.7 µs on an A100 — because a replay
// counts from the first host issue. That part the profile's busy span
// does not have, so for the short samples here the makespan itself is
// 3% (event_sync) to 494% (triton, one 1.76 µs kernel) over it.
//
// Samples: the two shared ones (testdata copies of the project's
// captured Kineto traces), rocm.json (a leading H2D copy, two
// streams one after the other), rocm_roctracer.json (ROCm as Kineto's
// roctracer logger writes it: AMD deviceProperties, copy sizes on the
// hipMemcpy* calls), queued.json (ten 1 µs kernels queued
// behind a 100 µs one, launched 4 µs apart, faster than the model's host
// can issue them), warmup.json (a copy and kernels issued before the
// profile began, which has no host call for them), midrun.json (two
// kernels of a stream of their own whose calls are lost, between kernels
// of another stream), pytorch19.json (the
// categories and device keys of PyTorch 1.9) and overlap.json, whose two streams run kernels at
// the same time: the one sample exempt from the criterion, as the test
// checks (a kernel starts while a kernel of another stream is running);
// syncs.json (every kind of sync call and copy; exempt too, its copies
// last far longer on the profile than at the model's PCIe rate) and
// threads.json (blocking calls made while another host thread launched;
// its streams overlap), measured.json (launches, copies and a blocking
// copy whose timing the importer measures; TestMeasuredTiming). Then the two H100 captures of PyTorch 2.11
// (validation/kineto-h100): frontier.json.gz, one stream and a host
// that waits on it 12 times, meets the criterion; streams.json.gz's two
// streams overlap, so it is exempt, and the exempt samples' busy spans
// are logged (docs/importers/kineto.md has its figures and why).
func TestReplayMatchesProfile(t *testing.T) {
	for _, file := range []string{
		"testdata/event_sync_trace.json",
		"testdata/triton_example.json",
		"testdata/rocm.json",
		"testdata/rocm_roctracer.json",
		"testdata/queued.json",
		"testdata/warmup.json",
		"testdata/midrun.json",
		"testdata/pytorch19.json",
		"testdata/overlap.json",
		"testdata/syncs.json",
		"testdata/threads.json",
		"testdata/measured.json",
		h100Frontier,
		h100Streams,
	} {
		t.Run(file, func(t *testing.T) {
			prof := readTimeline(t, file)
			var buf bytes.Buffer
			w := trace.NewWriter(&buf)
			sum, err := kineto.Convert(file, w, kineto.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			overlap := prof.crossStreamOverlap()
			if overlap != (sum.Overlapping > 0) {
				t.Fatalf("profile has cross-stream overlap %v, but the importer counts %d overlapping kernels", overlap, sum.Overlapping)
			}
			if overlap {
				run := replayCaptured(t, buf.Bytes())
				first, last := run.span()
				busy, want := float64(last-first)/run.clock, prof.end-prof.start
				t.Logf("exempt: kernels of different streams overlap; busy span replayed %.3f µs, profiled %.3f µs (%.3f)", busy, want, busy/want)
				return
			}
			if file == "testdata/syncs.json" {
				// Its copies take 5 and 2 µs on the profile and a few
				// hundred ns at io.pcie_gbps; the host's calls after
				// a blocking copy move with the replayed copy's end,
				// so the replay runs some 10 µs ahead.
				run := replayCaptured(t, buf.Bytes())
				first, last := run.span()
				t.Logf("exempt: busy span replayed %.3f µs, profiled %.3f µs", float64(last-first)/run.clock, prof.end-prof.start)
				return
			}
			checkReplay(t, prof, buf.Bytes())
		})
	}
}

// checkReplay replays a converted trace and compares it with the profile.
func checkReplay(t *testing.T, prof *timeline, bin []byte) {
	t.Helper()
	run := replayCaptured(t, bin)
	us := func(cycles int64) float64 { return float64(cycles) / run.clock }
	if len(run.kernels) != len(prof.kernels) {
		t.Fatalf("%d kernels replayed, the profile has %d", len(run.kernels), len(prof.kernels))
	}
	sort.SliceStable(run.kernels, func(i, j int) bool { return run.kernels[i].StartCycle < run.kernels[j].StartCycle })
	first, last := run.span()
	p0, p1 := prof.span()
	for i, k := range run.kernels {
		want := prof.kernels[i]
		if k.Name != want.name {
			t.Fatalf("kernel %d to start replayed is %q, the profile's is %q", i+1, k.Name, want.name)
		}
		got := us(k.EndCycle - k.StartCycle)
		if !within(got, want.dur, 0.1) {
			t.Errorf("kernel %d (%s) ran %.3f µs, profile says %.3f µs", k.KernelID, k.Name, got, want.dur)
		}
		// Each op is issued to be ready by its profiled start, so none
		// starts late; a kernel queued in its stream may start early, by
		// the gap between queued kernels the model does not charge.
		if late := us(k.StartCycle-first) - (want.start - p0); late > 0.01*(p1-p0) || late < -0.1*(p1-p0) {
			t.Errorf("kernel %d (%s) started %+.3f µs off its profiled start (relative to the first op)", k.KernelID, k.Name, late)
		}
	}
	busy, want := us(last-first), p1-p0
	if !within(busy, want, 0.1) {
		t.Errorf("replayed GPU busy span %.3f µs, profile's %.3f µs", busy, want)
	}
	// The makespan ends with the GPU's last op, or later where the host
	// waits at a blocking call after it (a trailing
	// cudaDeviceSynchronize), by no more than the captured return of the
	// host's last blocking call and 5% of the span.
	end := max(last, run.hostEnd)
	if lead := run.firstReady(prof); first != lead || run.makespan < last || run.makespan > end+(end-first)/20 {
		t.Errorf("first op starts at cycle %d and the makespan is %d; want %d (the first op's latency) and from %d (the last op's end) to %d (the host's last captured return %d, +5%%)", first, run.makespan, lead, last, end+(end-first)/20, run.hostEnd)
	}
	t.Logf("busy span: replayed %.3f µs, profiled %.3f µs (%+.1f%%); makespan %.3f µs (%+.1f%% of the profiled busy span)",
		busy, want, 100*(busy/want-1), us(run.makespan), 100*(us(run.makespan)/want-1))
}

func within(got, want, frac float64) bool { return math.Abs(got-want) <= frac*want }

// timeline is the GPU side of a profile: its kernels by start, and the
// extent of its kernels and host↔device copies (what the importer
// converts), in microseconds.
type timeline struct {
	kernels    []profiled
	start, end float64
	firstCopy  bool // the first GPU op to start is a copy
}

type profiled struct {
	name       string
	stream     string
	start, dur float64
}

func (p *timeline) span() (float64, float64) { return p.start, p.end }

// crossStreamOverlap reports whether a kernel ran while a kernel of
// another stream was running.
func (p *timeline) crossStreamOverlap() bool {
	for i, a := range p.kernels {
		for _, b := range p.kernels[i+1:] {
			if a.stream != b.stream && a.start < b.start+b.dur && b.start < a.start+a.dur {
				return true
			}
		}
	}
	return false
}

// readTimeline reads a Kineto JSON file's kernel and copy events.
func readTimeline(t *testing.T, file string) *timeline {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Ts, Dur       float64
			Tid           any
			Args          map[string]any
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	p := &timeline{start: math.Inf(1), end: math.Inf(-1)}
	for _, e := range doc.TraceEvents {
		switch e.Cat { // PyTorch 1.9's names
		case "Kernel":
			e.Cat = "kernel"
		case "Memcpy":
			e.Cat = "gpu_memcpy"
		}
		isCopy := e.Cat == "gpu_memcpy" && (strings.Contains(e.Name, "HtoD") || strings.Contains(e.Name, "DtoH") || strings.Contains(e.Name, "HostToDevice") || strings.Contains(e.Name, "DeviceToHost"))
		if e.Ph != "X" || e.Cat != "kernel" && !isCopy {
			continue
		}
		if e.Ts < p.start {
			p.start, p.firstCopy = e.Ts, isCopy
		}
		p.end = max(p.end, e.Ts+e.Dur)
		if isCopy {
			continue
		}
		stream, ok := e.Args["stream"]
		if !ok {
			stream = e.Tid
		}
		p.kernels = append(p.kernels, profiled{name: e.Name, stream: fmt.Sprint(stream), start: e.Ts, dur: e.Dur})
	}
	sort.SliceStable(p.kernels, func(i, j int) bool { return p.kernels[i].start < p.kernels[j].start })
	return p
}

// replayed is what a replay of a converted trace gives.
type replayed struct {
	kernels  []tables.Kernel
	copies   []tables.Stage // the h2d and d2h stages, which copies cover
	syncs    []tables.Sync  // the blocking calls
	makespan int64
	clock    float64           // replay MHz
	meta     map[string]string // the trace header's
	hostEnd  int64             // the last captured return of a blocking call
}

// span is the first start and last end of a GPU op, in cycles.
func (r *replayed) span() (first, last int64) {
	first, last = math.MaxInt64, math.MinInt64
	for _, k := range r.kernels {
		first, last = min(first, k.StartCycle), max(last, k.EndCycle)
	}
	for _, s := range r.copies {
		first, last = min(first, s.StartCycle), max(last, s.EndCycle)
	}
	return first, last
}

// firstReady is the latency the importer allowed before the profile's
// first GPU op, from the header's meta.
func (r *replayed) firstReady(p *timeline) int64 {
	var sum int64
	keys := []string{"lat.host_issue", "lat.host_launch"}
	if !p.firstCopy {
		keys = append(keys, "lat.kernel_dispatch")
	}
	for _, k := range keys {
		v, err := strconv.ParseInt(r.meta[k], 10, 64)
		if err != nil {
			return -1
		}
		sum += v
	}
	return sum
}

// rows is a tables.Sink that keeps the kernels and stages tables.
type rows struct {
	kernels []tables.Kernel
	stages  []tables.Stage
	syncs   []tables.Sync
}

func (r *rows) Kernel(x tables.Kernel)   { r.kernels = append(r.kernels, x) }
func (*rows) CTA(tables.CTA)             {}
func (*rows) Launch(tables.Launch)       {}
func (*rows) Occupancy(tables.Occupancy) {}
func (*rows) Page(tables.Page)           {}
func (r *rows) Stage(x tables.Stage)     { r.stages = append(r.stages, x) }
func (r *rows) Sync(x tables.Sync)       { r.syncs = append(r.syncs, x) }

// replayCaptured replays a binary trace as `replay --gpu=captured
// --policy=cdp` does: the default preset with the header's GPU.
func replayCaptured(t *testing.T, bin []byte) *replayed {
	t.Helper()
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(bin)) }
	src, err := open()
	if err != nil {
		t.Fatal(err)
	}
	r, err := src.Next()
	if err != nil {
		t.Fatal(err)
	}
	h := r.(*trace.Header)
	cfg := capturedConfig(t, bin)
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var hostEnd int64
	for {
		r, err := src.Next()
		if err != nil {
			break
		}
		switch r := r.(type) {
		case *trace.Sync:
			hostEnd = max(hostEnd, r.Returned())
		case *trace.Memcpy:
			if r.Blocks() {
				hostEnd = max(hostEnd, r.Returned())
			}
		}
	}
	rec := &rows{}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, rec)
	if err != nil {
		t.Fatal(err)
	}
	out := &replayed{kernels: rec.kernels, syncs: rec.syncs, makespan: st.MakespanCycles, clock: cfg.GPU.ClockMHz, meta: h.Meta, hostEnd: hostEnd}
	for _, s := range rec.stages {
		if s.Stage == "h2d" || s.Stage == "d2h" {
			out.copies = append(out.copies, s)
		}
	}
	return out
}

// TestMeasuredTimingReplay replays testdata/measured.json at 1000 MHz
// with the settings its header measured (TestMeasuredTiming works them
// out): the device sync and the pageable copy each return at their
// captured return, the copy's transfer ending at 905000 cycles, 1 µs
// (lat.host_sync) before it, where the t of its GPU start would have it
// return 3 µs late.
func TestMeasuredTimingReplay(t *testing.T) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	if _, err := kineto.Convert("testdata/measured.json", w, kineto.Options{Common: profile.Common{ClockMHz: 1000, Device: -1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	run := replayCaptured(t, buf.Bytes())
	if len(run.syncs) != 2 {
		t.Fatalf("%d blocking calls replayed, want 2", len(run.syncs))
	}
	for _, s := range run.syncs {
		if s.ReturnCycle != s.CapturedReturn {
			t.Errorf("%s returned at %d, captured %d", s.Call, s.ReturnCycle, s.CapturedReturn)
		}
	}
	if _, last := run.span(); last != 905000 {
		t.Errorf("the GPU's last op ends at %d, want 905000", last)
	}
}
