package replay_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// streamRecorder keeps every row of every table in the one order the
// replay wrote them, as a sink that streams them all (the timeline)
// sees them: a row written before or after another table's is told.
type streamRecorder struct{ rows []any }

func (r *streamRecorder) Kernel(x tables.Kernel)       { r.rows = append(r.rows, x) }
func (r *streamRecorder) CTA(x tables.CTA)             { r.rows = append(r.rows, x) }
func (r *streamRecorder) Launch(x tables.Launch)       { r.rows = append(r.rows, x) }
func (r *streamRecorder) Occupancy(x tables.Occupancy) { r.rows = append(r.rows, x) }
func (r *streamRecorder) Page(x tables.Page)           { r.rows = append(r.rows, x) }
func (r *streamRecorder) Stage(x tables.Stage)         { r.rows = append(r.rows, x) }
func (r *streamRecorder) Sync(x tables.Sync)           { r.rows = append(r.rows, x) }
func (r *streamRecorder) kept() []any                  { return r.rows }

// fieldRecorder is a streamRecorder that takes CTA rows as their fields
// (tables.CTAFieldSink), as results' writers do, and keeps them as rows
// given whole (their names aside: the fields have none).
type fieldRecorder struct{ streamRecorder }

func (r *fieldRecorder) CTAFields(kernelID, cta uint64, sm int32, dispatch, start, end, stall int64, groupID *uint64, slowdown float64, hasSlowdown bool) {
	row := tables.CTA{KernelID: kernelID, CTA: cta, SM: sm, DispatchCycle: dispatch, StartCycle: start, EndCycle: end, StallCycles: stall, GroupID: groupID}
	if hasSlowdown {
		row.Slowdown = &slowdown
	}
	r.CTA(row)
}

// blockRecorder is a fieldRecorder that takes plain CTAs' rows a block
// at a time too (tables.CTABlockSink), as results' writers do.
type blockRecorder struct{ fieldRecorder }

func (r *blockRecorder) CTAs(b *tables.CTABlock) {
	for i := range b.N {
		r.CTAFields(b.KernelID[i], b.CTA[i], b.SM[i], b.Start[i], b.Start[i], b.End[i], 0, nil, b.Slowdown[i], b.HasSlowdown[i])
	}
}

// rowWays are the ways a sink may take CTA rows: whole (tables.Sink's
// CTA), as fields (tables.CTAFieldSink) and in blocks as well
// (tables.CTABlockSink).
var rowWays = []string{"whole", "fields", "blocks"}

// sinkFor is a recorder that takes CTA rows the way way names.
func sinkFor(way string) tables.Sink {
	switch way {
	case "fields":
		return &fieldRecorder{}
	case "blocks":
		return &blockRecorder{}
	}
	return &streamRecorder{}
}

// sameRows reports whether two recorders that took rows the way way
// names hold the same rows: in one order, or, in blocks, each table's in
// its order (a block's rows reach the sink after other tables' rows).
func sameRows(way string, a, b tables.Sink) bool {
	if way == "blocks" {
		return reflect.DeepEqual(byTable(a), byTable(b))
	}
	return reflect.DeepEqual(a, b)
}

// byTable is a recorder's rows a table each, in the order they were
// written.
func byTable(sink tables.Sink) map[reflect.Type][]any {
	m := map[reflect.Type][]any{}
	for _, x := range sink.(interface{ kept() []any }).kept() {
		m[reflect.TypeOf(x)] = append(m[reflect.TypeOf(x)], x)
	}
	return m
}

// A replay that keeps rows writes the same rows, in the same order
// across its tables (in each table's order where the sink takes plain
// CTAs' rows in blocks, which it is given at the block's end), and has the same totals, with its rows kept on the plain
// paths (plainrows.go: placePlain, placePacked, swapPlain, ctaEnded) and
// on the general path: the traces and GPUs of TestSwapSameStats under
// four policies, the contention model on (the plain paths keep rows only
// there) and off, into a sink that takes CTA rows as their fields (the
// plain paths keep rows only for such a sink), one that takes them in
// blocks too, and one that takes rows whole (the general path either
// way). A plain CTA's row that named another index,
// start or slowdown, an occupancy window integrated at another cycle or
// with other counts, or an end taken in another order, fails it. Fails
// too where no replay took the plain paths with rows, or where the synth
// trace's swapped no cycle (the test would prove little), or where a
// replay with them off, or into a sink that takes no fields, took them.
func TestPlainRowsSameRows(t *testing.T) {
	traces := []genSpec{
		{"synth", "synth", []string{"kernels=6", "ctas=1500"}},
		{"streams", "synth", []string{"kernels=8", "ctas=600", "streams=4"}},
		{"nodram", "synth", []string{"kernels=3", "ctas=1000", "dram_bpc=0", "ipc=0", "jitter=0"}},
		{"sites", "synth", []string{"kernels=3", "ctas=800", "site_rate=0.05"}},
		{"bfs", "bfs", []string{"scale=10"}},
	}
	type run struct {
		gpu, policy string
		set         []string
	}
	var runs []run
	for _, c := range []string{"on", "off"} {
		runs = append(runs, run{"k20c", "cdp", []string{"model.contention=" + c}},
			run{"k20c", "cdp", []string{"model.contention=" + c, "model.tie_seed=7", "output.occupancy_window=5000"}},
			run{"k20c", "cdp", []string{"model.contention=" + c, "gpu.max_ctas_per_sm=2", "gpu.sms=3"}},
			run{"h100", "flat", []string{"model.contention=" + c, "gpu.sms=1"}})
	}
	for _, p := range []string{"flat", "dtbl", "spawn"} {
		runs = append(runs, run{"titanx", p, nil})
	}
	defer replay.SetPlainRows(true)
	plain, swapped := 0, int64(0)
	for _, tr := range traces {
		data := genTrace(t, tr.gen, tr.params...)
		for _, r := range runs {
			cfg := presetWith(t, r.gpu, r.set)
			for _, way := range rowWays {
				fields := way != "whole"
				replayed := func(on bool) (*replay.Stats, tables.Sink, bool, int64) {
					replay.SetPlainRows(on)
					pol, err := policies.New(r.policy, cfg)
					if err != nil {
						t.Fatal(err)
					}
					sink := sinkFor(way)
					open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
					st, rows, swaps, err := replay.RunPlainRows(open, replay.Options{Config: cfg, Policy: pol}, sink)
					if err != nil {
						t.Fatalf("%s on %s under %s %v: %v", tr.name, r.gpu, r.policy, r.set, err)
					}
					return st, sink, rows, swaps
				}
				on, ra, rows, swaps := replayed(true)
				off, rb, none, _ := replayed(false)
				if *on != *off {
					t.Errorf("%s on %s under %s %v: totals differ with the plain paths' rows:\n%+v\n%+v", tr.name, r.gpu, r.policy, r.set, *on, *off)
				}
				if !sameRows(way, ra, rb) {
					t.Errorf("%s on %s under %s %v (%s): rows differ with the plain paths' rows (%d swaps)", tr.name, r.gpu, r.policy, r.set, way, swaps)
				}
				if none {
					t.Errorf("%s on %s under %s %v: the plain paths kept rows with them off", tr.name, r.gpu, r.policy, r.set)
				}
				if rows && !fields {
					t.Errorf("%s on %s under %s %v: the plain paths kept rows for a sink that takes no fields", tr.name, r.gpu, r.policy, r.set)
				}
				if rows {
					plain++
				}
				if tr.name == "synth" && rows {
					swapped += swaps
				}
			}
		}
	}
	t.Logf("%d replays kept rows on the plain paths; the synth trace's swapped %d cycles", plain, swapped)
	if plain == 0 || swapped == 0 {
		t.Errorf("%d replays kept rows on the plain paths, the synth trace's swapped %d cycles: the test proves little", plain, swapped)
	}
}
