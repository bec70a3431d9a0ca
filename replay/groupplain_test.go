package replay_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// A plain DTBL replay (its sink keeps no rows) has the same totals, every
// float64 of them, with aggregated groups' CTAs placed with no record
// (placeGroup) and with them all on the general path: BFS, AMR (nested:
// groups whose CTAs launch, which stay on the general path), SSSP and a
// merge join, under DTBL matching by shape and by function, with an AGT
// of one entry (groups spill, their metadata loaded for the first CTA or
// for each), the tie seed, small GPUs (two CTAs an SM; one SM) and the
// contention model off (no CTA is a job: none is placed so). The totals
// hold the makespan, the CTAs' stall, the occupancy's warp-cycles and the
// issue and DRAM utilisation, sums of every SM's progress in the order
// the model advanced the SMs: a plain group CTA placed, started or ended
// otherwise than the general path does, or in another order, or with
// another slot (the AGT's hash reads it), moves them. Fails too where no
// group is placed so on BFS under DTBL with the model on (the test would
// then prove nothing), or one is with the path off.
func TestGroupsPlainSameStats(t *testing.T) {
	traces := []genSpec{
		{"bfs", "bfs", []string{"scale=11"}},
		{"amr", "amr", nil},
		{"sssp", "sssp", []string{"scale=10"}},
		{"join", "join", []string{"algo=merge"}},
	}
	sets := [][]string{nil, {"dtbl.match=function"}, {"dtbl.agt_entries=1"},
		{"dtbl.agt_entries=1", "dtbl.spill_loads=first"}, {"model.tie_seed=7"},
		{"gpu.max_ctas_per_sm=2", "gpu.sms=3"}, {"gpu.sms=1"}, {"model.contention=off"}}
	defer replay.SetGroupsPlain(true)
	for _, tr := range traces {
		data := genTrace(t, tr.gen, tr.params...)
		for _, gpu := range []string{"k20c", "titanx"} {
			for _, set := range sets {
				cfg := presetWith(t, gpu, set)
				replayed := func(on bool) (*replay.Stats, int64) {
					replay.SetGroupsPlain(on)
					pol, err := policies.New("dtbl", cfg)
					if err != nil {
						t.Fatal(err)
					}
					open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
					st, groups, err := replay.RunGroupsPlain(open, replay.Options{Config: cfg, Policy: pol}, &discarder{})
					if err != nil {
						t.Fatalf("%s on %s %v: %v", tr.name, gpu, set, err)
					}
					return st, groups
				}
				on, groups := replayed(true)
				off, none := replayed(false)
				if *on != *off {
					t.Errorf("%s on %s %v: totals differ with plain group CTAs (%d groups):\n%+v\n%+v", tr.name, gpu, set, groups, *on, *off)
				}
				if none != 0 {
					t.Errorf("%s on %s %v: %d groups placed plain with the path off", tr.name, gpu, set, none)
				}
				if tr.name == "bfs" && set == nil && groups < on.Coalesced/2 {
					t.Errorf("bfs on %s: %d of %d groups placed plain; the test proves little", gpu, groups, on.Coalesced)
				}
				t.Logf("%s on %s %v: %d of %d groups placed plain", tr.name, gpu, set, groups, on.Coalesced)
			}
		}
	}
}

// A DTBL replay that keeps rows has the same rows, every table's in its
// order, and the same totals, with aggregated groups' CTAs placed with no
// record (their rows written at their ends from what groupTable.held
// kept: index, placement, stall, time alone) and with them all on the
// general path (ctaRow): BFS and AMR, with spills loaded for every CTA
// or the first, one AGT entry, the tie seed, a small GPU, and with the
// occupancy table's window short; into a sink that takes CTA rows as
// fields (results' writers), the same in blocks with the plain CTAs'
// (the order within each table), and one that takes them whole (the
// timeline's kind), where no group CTA takes the plain path. A row
// written with another group, index, cycle, stall or slowdown, an
// occupancy window integrated otherwise, or a row out of its table's
// order fails it; so does a sink taking fields with no group CTA placed
// plain on BFS (the test would prove nothing), or one taking rows whole
// with any.
func TestGroupsPlainSameRows(t *testing.T) {
	traces := []genSpec{
		{"bfs", "bfs", []string{"scale=10"}},
		{"amr", "amr", nil},
	}
	sets := [][]string{nil, {"dtbl.agt_entries=1", "dtbl.spill_loads=first"}, {"dtbl.agt_entries=1"},
		{"model.tie_seed=7", "output.occupancy_window=5000"}, {"gpu.max_ctas_per_sm=2", "gpu.sms=3"}}
	defer replay.SetGroupsPlain(true)
	for _, tr := range traces {
		data := genTrace(t, tr.gen, tr.params...)
		for _, set := range sets {
			cfg := presetWith(t, "k20c", set)
			for _, way := range rowWays {
				replayed := func(on bool) (*replay.Stats, tables.Sink, int64) {
					replay.SetGroupsPlain(on)
					pol, err := policies.New("dtbl", cfg)
					if err != nil {
						t.Fatal(err)
					}
					sink := sinkFor(way)
					open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
					st, groups, err := replay.RunGroupsPlain(open, replay.Options{Config: cfg, Policy: pol}, sink)
					if err != nil {
						t.Fatalf("%s %v (%s): %v", tr.name, set, way, err)
					}
					return st, sink, groups
				}
				on, ra, groups := replayed(true)
				off, rb, _ := replayed(false)
				if *on != *off {
					t.Errorf("%s %v (%s): totals differ with plain group CTAs:\n%+v\n%+v", tr.name, set, way, *on, *off)
				}
				if !sameRows(way, ra, rb) {
					t.Errorf("%s %v (%s): rows differ with plain group CTAs (%d groups placed so)", tr.name, set, way, groups)
				}
				switch {
				case way == "whole" && groups != 0:
					t.Errorf("%s %v: %d groups placed plain for a sink that takes rows whole", tr.name, set, groups)
				case way != "whole" && tr.name == "bfs" && groups == 0:
					t.Errorf("bfs %v (%s): no group placed plain; the test proves little", set, way)
				}
				t.Logf("%s %v (%s): %d of %d groups placed plain", tr.name, set, way, groups, on.Coalesced)
			}
		}
	}
}
