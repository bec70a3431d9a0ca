package replay_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// generated caches binary traces built by the generators, so benchmarks
// measure replay, not generation.
var generated sync.Map

func genTrace(b testing.TB, name string, params ...string) []byte {
	key := name + "|" + join(params)
	if v, ok := generated.Load(key); ok {
		return v.([]byte)
	}
	g, _ := samples.Lookup(name)
	p, err := g.ParseParams(params)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	if err := g.Run(p, w); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	generated.Store(key, buf.Bytes())
	return buf.Bytes()
}

func join(ss []string) string {
	var b bytes.Buffer
	for _, s := range ss {
		b.WriteString(s + ",")
	}
	return b.String()
}

// discard is a tables.Sink that keeps nothing.
type discard struct{}

func (discard) Kernel(tables.Kernel)       {}
func (discard) CTA(tables.CTA)             {}
func (discard) Launch(tables.Launch)       {}
func (discard) Occupancy(tables.Occupancy) {}
func (discard) Page(tables.Page)           {}
func (discard) Stage(tables.Stage)         {}

// benchReplay replays data under policy once per iteration and reports
// CTAs replayed per second (decoding the trace twice included).
func benchReplay(b *testing.B, data []byte, policy string) {
	benchReplayOn(b, data, "k20c", policy)
}

// benchReplayOn is benchReplay on a given GPU preset.
func benchReplayOn(b *testing.B, data []byte, gpu, policy string) {
	cfg, _ := model.Preset(gpu)
	benchReplayWith(b, cfg, policy, func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) })
}

// benchReplayWith replays the trace open gives under policy on cfg once
// per iteration and reports CTAs replayed per second.
func benchReplayWith(b *testing.B, cfg model.Config, policy string, open replay.Opener) {
	benchReplayOpt(b, replay.Options{Config: cfg}, policy, open)
}

// benchReplayOpt is benchReplayWith under opt (its Policy set from policy).
func benchReplayOpt(b *testing.B, opt replay.Options, policy string, open replay.Opener) {
	cfg := opt.Config
	pol, err := policies.New(policy, cfg)
	if err != nil {
		b.Fatal(err)
	}
	var ctas int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opt.Policy = pol
		st, err := replay.Run(open, opt, discard{})
		if err != nil {
			b.Fatal(err)
		}
		ctas += st.CTAs
	}
	b.ReportMetric(float64(ctas)/b.Elapsed().Seconds(), "CTAs/s")
}

// BFS over a scale-18 Kronecker graph: 137K CTAs, 53K device launches.
func BenchmarkReplayBFS(b *testing.B) {
	data := genTrace(b, "bfs", "scale=18")
	for _, p := range []string{"cdp", "flat", "dtbl", "spawn"} {
		b.Run(p, func(b *testing.B) { benchReplay(b, data, p) })
	}
}

// CDP replay of BFS at several sizes: the share of CTAs that are device
// launches changes with the graph.
func BenchmarkReplayBFSScale(b *testing.B) {
	for _, scale := range []string{"14", "16", "20"} {
		data := genTrace(b, "bfs", "scale="+scale)
		b.Run("scale"+scale, func(b *testing.B) { benchReplay(b, data, "cdp") })
	}
}

// BFS scale 20 under CDP with the trace decoded and validated on a second
// goroutine (Options.Ahead), as cmd/replay runs a lone replay.
func BenchmarkReplayPrefetch(b *testing.B) {
	data := genTrace(b, "bfs", "scale=20")
	cfg, _ := model.Preset("k20c")
	benchReplayOpt(b, replay.Options{Config: cfg, Ahead: readAhead(true)}, "cdp",
		func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) })
}

// BenchmarkReplayPrefetch from a trace with a host index, as cmd/replay
// reads a file our writer made: the host pass reads the index, not a skim
// of the whole trace.
func BenchmarkReplayPrefetchIndexed(b *testing.B) {
	data := genTrace(b, "bfs", "scale=20")
	cfg, _ := model.Preset("k20c")
	benchReplayOpt(b, replay.Options{Config: cfg, Ahead: readAhead(true)}, "cdp", openIndexed(data, nil))
}

// 1M CTAs in 100 host kernels, no launch sites: the engine's core loop.
func BenchmarkReplaySynth1M(b *testing.B) {
	benchReplay(b, genTrace(b, "synth", "kernels=100", "ctas=10000"), "cdp")
}

// The CRCS pipelines with the host I/O stages (gk110-64): HotSpot's 10
// kernels × 1024 CTAs, gated by the page scoreboard, with its pre-pass.
func BenchmarkReplayHotspot(b *testing.B) {
	data := genTrace(b, "hotspot")
	for _, p := range []string{"baseline", "crcs", "ppcs"} {
		b.Run(p, func(b *testing.B) { benchReplayOn(b, data, "gk110-64", p) })
	}
}

// 32K narrow tasks (the mixed benchmark) on titanx under the three task
// policies: the hardware path and both software runtimes.
func BenchmarkReplayTasks32K(b *testing.B) {
	data := genTrace(b, "tasks", "kind=mixed", "count=32768")
	for _, p := range []string{"hyperq", "gemtc", "pagoda"} {
		b.Run(p, func(b *testing.B) { benchReplayOn(b, data, "titanx", p) })
	}
}

// demanding wraps a trace so every CTA records a demand: two warp
// instructions and 16 DRAM bytes per cycle alone, so that several CTAs on
// an SM exceed its issue width and the SMs together the DRAM bandwidth,
// and the contention model works on every start and end.
type demanding struct{ trace.Source }

func (d demanding) Next() (trace.Record, error) {
	r, err := d.Source.Next()
	if c, ok := r.(*trace.CTA); ok && c.Cycles > 0 {
		c.Insts, c.DRAMBytes = uint64(c.Cycles)*2, uint64(c.Cycles)*16
	}
	return r, err
}

// benchContention replays data under cdp with every CTA demanding, with
// the contention model on and off (off: the demand is ignored).
func benchContention(b *testing.B, data []byte) {
	for _, mode := range []model.Switch{model.On, model.Off} {
		b.Run("contention="+string(mode), func(b *testing.B) {
			cfg, _ := model.Preset("k20c")
			cfg.Model.Contention = mode
			benchReplayWith(b, cfg, "cdp", func() (trace.Source, error) {
				r, err := trace.NewReader(bytes.NewReader(data))
				return demanding{r}, err
			})
		})
	}
}

// The contention model's cost on the engine's core loop: 5M CTAs in 500
// host kernels, every one demanding.
func BenchmarkContentionSynth5M(b *testing.B) {
	benchContention(b, genTrace(b, "synth", "kernels=500", "ctas=10000"))
}

// ... and on a launch-heavy trace, where CTAs with sites run one unit per
// warp with sites: BFS scale 18.
func BenchmarkContentionBFS(b *testing.B) {
	benchContention(b, genTrace(b, "bfs", "scale=18"))
}

// quiet is a sink that keeps no rows (tables.Discarder): a plain run, as
// replay -q gives.
type quiet struct{ discard }

func (quiet) DiscardsRows() bool { return true }

// The engine's swap (swapPlain) against the general path it stands for:
// 200K CTAs of synth in 20 host kernels, the contention model on (k20c),
// a sink that keeps no rows, with swapPlain on and off.
func BenchmarkSwapSynth(b *testing.B) {
	data := genTrace(b, "synth", "kernels=20", "ctas=10000")
	cfg, _ := model.Preset("k20c")
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		b.Fatal(err)
	}
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
	defer replay.SetSwap(true)
	for _, on := range []bool{true, false} {
		b.Run(map[bool]string{true: "swap=on", false: "swap=off"}[on], func(b *testing.B) {
			replay.SetSwap(on)
			var ctas int64
			b.ReportAllocs()
			for b.Loop() {
				st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, quiet{})
				if err != nil {
					b.Fatal(err)
				}
				ctas += st.CTAs
			}
			b.ReportMetric(float64(ctas)/b.Elapsed().Seconds(), "CTAs/s")
		})
	}
}
