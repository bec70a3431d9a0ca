package replay_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// FuzzReplay replays arbitrary valid traces under every policy on a small
// GPU: the engine must finish or report an error, never panic. Seeds are
// the golden cases' traces. The staged runs read the trace through
// prefetching goroutines.
func FuzzReplay(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		for _, tr := range goldenTraces(f, path) {
			f.Add([]byte(tr))
		}
	}
	// Traces the golden cases have no like of: testdata/seeds/dtbl-bfs5.jsonl
	// is `replay gen bfs --param scale=5 --param site_threshold=2`, whose
	// CTAs demand issue and DRAM (jobs of the contention model), so that
	// DTBL's groups' CTAs take their plain path (groupplain.go).
	seeds, _ := filepath.Glob("testdata/seeds/*.jsonl")
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	cfg, err := model.Preset("k20c")
	if err != nil {
		f.Fatal(err)
	}
	cfg.GPU.SMs, cfg.GPU.MaxKernels = 2, 4
	cfg.DTBL.AGTEntries = 2
	staged := cfg
	staged.IO.Model = "stages" // the host I/O stages and the CRCS scoreboard's page arrivals
	// The page-level policies once more with a sink that keeps no rows
	// (the terminal summary's), where huge buffers replay rather than
	// being refused, over 1-byte pages (a header without page_bytes: a
	// page per byte of every buffer) and exact pages.
	tiny := cfg
	tiny.IO.PageBytes = 1
	exact := cfg
	exact.CRCS.Pages = "exact"
	// klap at its other granularities (every policy runs at its defaults:
	// klap's is block).
	// DTBL once more with a sink that keeps no rows and one that takes CTA
	// rows as fields, where its groups' CTAs take their plain path
	// (groupplain.go), spilled ones waiting for every CTA or the first.
	first := cfg
	first.DTBL.SpillLoads = model.SpillLoadsFirst
	var klaps []model.Config
	for _, g := range []string{"warp", "kernel"} {
		c := cfg
		if err := c.Set("klap.granularity", g); err != nil {
			f.Fatal(err)
		}
		klaps = append(klaps, c)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !small(data) {
			return
		}
		open := func() (trace.Source, error) { return trace.NewJSONLReader(bytes.NewReader(data)), nil }
		for _, c := range []model.Config{cfg, staged} {
			for _, name := range policies.Names() {
				pol, err := policies.New(name, c)
				if err != nil {
					t.Fatal(err)
				}
				replay.Run(open, replay.Options{Config: c, Policy: pol, Ahead: readAhead(c.IO.Model == "stages")}, discard{})
			}
		}
		for _, c := range klaps {
			pol, err := policies.New("klap", c)
			if err != nil {
				t.Fatal(err)
			}
			replay.Run(open, replay.Options{Config: c, Policy: pol}, discard{})
		}
		for _, c := range []model.Config{cfg, first} {
			for _, sink := range []tables.Sink{quietDiscard{}, &fieldRecorder{}} {
				pol, err := policies.New("dtbl", c)
				if err != nil {
					t.Fatal(err)
				}
				replay.Run(open, replay.Options{Config: c, Policy: pol}, sink)
			}
		}
		for _, c := range []model.Config{cfg, tiny, exact} {
			for _, name := range []string{"crcs", "ppcs"} {
				pol, err := policies.New(name, c)
				if err != nil {
					t.Fatal(err)
				}
				replay.Run(open, replay.Options{Config: c, Policy: pol}, quietDiscard{})
			}
		}
	})
}

// quietDiscard is a sink that keeps no rows and says so
// (results.Discarder), as the terminal summary's does.
type quietDiscard struct{ discard }

func (quietDiscard) DiscardsRows() bool { return true }

// small accepts valid traces of few records and small grids. Times,
// cycles and clocks may be as large as the validator allows: the engine's
// work no longer grows with simulated time (occupancy rows merge unchanged
// windows), so the fuzzer reaches the extreme values.
func small(data []byte) bool {
	recs, err := trace.ReadAll(trace.NewValidator(trace.NewJSONLReader(bytes.NewReader(data))))
	if err != nil || len(recs) > 200 {
		return false
	}
	const limit = trace.MaxCycles
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			if r.CTAs() > 64 {
				return false
			}
		case *trace.Launch:
			if r.T > limit || r.InlineCycles > limit || (r.Parent != nil && r.Parent.At > limit) {
				return false
			}
		case *trace.CTA:
			if r.Cycles > limit {
				return false
			}
			for _, w := range r.WarpCycles {
				if w > limit {
					return false
				}
			}
		}
	}
	return true
}

// goldenTraces returns the JSONL traces of a golden file's cases.
func goldenTraces(f testing.TB, path string) []string {
	fh, err := os.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer fh.Close()
	var out []string
	var cur []string
	in := false
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "run"):
			in, cur = true, nil
		case line == "----" && in:
			out = append(out, strings.Join(cur, "\n"))
			in = false
		case in:
			cur = append(cur, line)
		}
	}
	return out
}
