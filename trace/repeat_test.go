package trace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// repeatTrace is a BFS-like trace (childTrace's host kernel) whose
// children have random grids, up to past ChildRun, and records that
// mostly repeat the one before byte for byte (as BFS's do), the rest
// changed in one field, some with demand and some without, and, with
// bad set, now and then a record that breaks a rule or leaves its
// place: the shapes the repeat path (repeat.go) reads.
func repeatTrace(rng *rand.Rand, hosts, kids int, bad bool) []Record {
	recs := []Record{
		&Header{Version: 1, ClockMHz: 706, OrderedTrees: true},
		&Kernel{ID: 1, Name: "level", Grid: [3]uint32{uint32(hosts), 1, 1}, Block: [3]uint32{256, 1, 1}, Regs: 32},
		&Launch{Kernel: 1, T: 10},
	}
	id := uint64(2)
	for h := range hosts {
		recs = append(recs, &CTA{Kernel: 1, CTA: uint64(h), Cycles: 5000})
		for k := range kids {
			grid := 1 + rng.IntN(3)
			if rng.IntN(4) == 0 {
				grid = 1 + rng.IntN(ChildRun+20)
			}
			recs = append(recs,
				&Kernel{ID: id, Name: "expand", Grid: [3]uint32{uint32(grid), 1, 1}, Block: [3]uint32{64, 1, 1}, Regs: 16},
				&Launch{Kernel: id, Parent: &Parent{Kernel: 1, CTA: uint64(h), Warp: k % 8, Lane: k % 32, At: int64(200 + k)},
					Workload: int64(250 + k), InlineCycles: int64(10000 + k)})
			prev := &CTA{Cycles: 224, WarpCycles: []int64{224, 224}, Insts: 92, DRAMBytes: 256}
			first := len(recs)
			for c := range grid {
				r := &CTA{Kernel: id, CTA: uint64(c), Cycles: prev.Cycles, WarpCycles: append([]int64(nil), prev.WarpCycles...), Insts: prev.Insts, DRAMBytes: prev.DRAMBytes}
				switch rng.IntN(10) {
				case 0: // another length, in as many bytes or more
					r.Cycles = int64(100 + rng.IntN(300))
					r.WarpCycles = []int64{r.Cycles, int64(rng.IntN(int(r.Cycles) + 1))}
				case 1: // another demand
					r.Insts, r.DRAMBytes = uint64(rng.IntN(200)), uint64(rng.IntN(1000))
				case 2: // none
					r.Insts, r.DRAMBytes = 0, 0
				case 3: // no warp_cycles
					r.WarpCycles = nil
				case 4: // a long cycles field (more than the repeat's two words)
					r.Cycles = 1<<30 + int64(rng.IntN(10))
					r.WarpCycles = []int64{r.Cycles, r.Cycles}
				}
				if bad && rng.IntN(200) == 0 {
					switch rng.IntN(6) {
					case 0:
						r.WarpCycles = []int64{r.Cycles, -1}
					case 1:
						r.Cycles++ // not its longest warp's
					case 2:
						r.Insts = 1 << 20 // past the demand's bound
					case 3:
						r.CTA++ // out of order, or outside the grid
					case 4:
						r.CTA = max(r.CTA, 1) - 1 // a second record of a CTA
					case 5:
						r.WarpCycles = []int64{r.Cycles} // a warp short
					}
				}
				recs = append(recs, r)
				prev = r
			}
			if grid > 3 && rng.IntN(8) == 0 {
				// CTA 1's record last: a device kernel's may come in
				// any order, and those after it are read in no run
				// that counts CTAs in order (keepsFrom).
				one := recs[first+1]
				recs = append(append(recs[:first+1], recs[first+2:]...), one)
			}
			id++
		}
	}
	return recs
}

// Child and CTAs read repeated records (repeat.go) as Next reads them,
// record for record, with the same positions and the same error, on
// random children: the repeat path against the general one.
func TestRepeatsReadAsNext(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 76))
		bad := seed%2 == 1
		recs := repeatTrace(rng, 4, 25, bad)
		data := encodeBinary(t, recs)
		want, _, _, wantErr := readChildren(t, data, false)
		got, n, _, gotErr := readChildren(t, data, true)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("seed %d: error %v, Next alone %v", seed, gotErr, wantErr)
		}
		if !bad && (wantErr != nil || n < 90) {
			t.Errorf("seed %d: error %v, %d pairs read by Child", seed, wantErr, n)
		}
		if len(got) != len(want) {
			t.Errorf("seed %d: %d records, Next alone %d", seed, len(got), len(want))
		} else if i := firstDiff(got, want); i >= 0 {
			t.Errorf("seed %d: record %d\n got %s\nwant %s", seed, i, got[i], want[i])
		}
		// And CTAs after each cta record Next reads, as the tree
		// reader asks for them, in runs of a few and of many.
		want, wantErr = readRuns(t, data, 0, false)
		for _, batch := range []int{3, 64} {
			got, gotErr := readRuns(t, data, batch, false)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("seed %d, runs of %d: error %v, Next alone %v", seed, batch, gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Errorf("seed %d, runs of %d: %d records, Next alone %d", seed, batch, len(got), len(want))
				continue
			}
			for i := range got {
				g, how := inRun(got[i])
				w := want[i]
				if how != "" {
					w = w[strings.IndexByte(w, ' ')+1:]
				}
				if g != w {
					t.Errorf("seed %d, runs of %d: record %d\n got %s\nwant %s", seed, batch, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// A run of repeats is read by the repeat path: CTAs reads them with no
// call of nextCTA after the first, and Child's run takes its first
// record's repeat.
func TestRepeatMatches(t *testing.T) {
	var m repeat
	rec := []byte{byte(KindCTA), 0, 0, 0xc0, 0x03, 2, 0, 0, 0xb8, 0x01, 0x80, 0x02, 0, 0, 0, 0}
	c := &CTA{Cycles: 224}
	m.set(rec, 10, c)
	if !m.matches(rec) {
		t.Error("a record does not repeat itself")
	}
	other := append([]byte(nil), rec...)
	other[9] = 0x02
	if m.matches(other) {
		t.Error("a record of another byte repeats")
	}
	other = append([]byte(nil), rec...)
	other[10] = 0x99 // past the record: its next's
	if !m.matches(other) {
		t.Error("the next record's bytes count")
	}
	other[2] = 1 // a CTA delta
	if m.matches(other) {
		t.Error("a record of another CTA repeats")
	}
	var body repeat
	body.setBody(byte(KindCTA), rec[3:], 7, c)
	if body != m {
		t.Errorf("setBody %+v, set %+v", body, m)
	}
	m.set(rec, repeatMax, c)
	if m.matches(rec) || noRepeat.matches(make([]byte, repeatMax)) {
		t.Error("a record of repeatMax bytes repeats, or noRepeat matches")
	}
}
