package samples

import (
	"fmt"
	"path/filepath"
	"testing"
)

// sectors counts the 32-byte sectors of 4-byte elements, by hand: 0–7
// share sector 0, 8 starts sector 1, 4,541 lies in sector 567.
func TestSectors(t *testing.T) {
	for _, c := range []struct {
		idx  []int32
		want int64
	}{
		{[]int32{0}, 1}, {[]int32{0, 7, 3}, 1}, {[]int32{7, 8}, 2}, {[]int32{4541, 5661, 4543, 8}, 3}, {nil, 0},
	} {
		if got := sectors(c.idx); got != c.want {
			t.Errorf("sectors(%v) = %d, want %d", c.idx, got, c.want)
		}
	}
}

// ssspPrologueAccesses by hand: a warp of 32 entries from position 8
// (sectors 1–4: 3 past a lone lane's) holding vertices 0, 8, 16, …, 248
// (32 sectors: 31 past one, for dist[v] and row_offsets[v] each) whose
// successors 1, 9, …, 249 lie in the same sectors (31): 3 + 62 + 31 =
// 96; the same vertices from position 4 cross one more sector of the
// worklist (positions 4–35: sectors 0–4): 97; a lone lane: 0.
func TestSSSPPrologueAccesses(t *testing.T) {
	wl := make([]int32, 40)
	for i := range 32 {
		wl[8+i] = int32(8 * i)
	}
	if got := ssspPrologueAccesses(wl, 8, 40); got != 96 {
		t.Errorf("aligned warp: %d, want 96", got)
	}
	w4 := make([]int32, 36)
	copy(w4[4:], wl[8:])
	if got := ssspPrologueAccesses(w4, 4, 36); got != 97 {
		t.Errorf("warp from position 4: %d, want 97", got)
	}
	if got := ssspPrologueAccesses(wl, 9, 10); got != 0 {
		t.Errorf("lone lane: %d, want 0", got)
	}
}

// TestSSSPPrologueSectorsMeasured holds the sector rule and the Reg
// code's frontier order (dlLoops) to the rerun of dragonli-sssp-tree3-reg
// that counts each memory instruction's accesses
// (validation/gpgpusim/whatif, dragonli-sssp-tree3-reg-ldst): its 343
// warps of 32 vertices over the run (relaxations 2 to 4) send 9,169,
// 9,098 and 9,169 accesses at the prologue's three gathers (PCs 728, 744
// and 752 of testSssp-reg.1.sm_35.ptx), and the generator's frontiers on
// the same graph give 9,028 for dist[v] and row_offsets[v] and 9,030 for
// row_offsets[v+1], 1.3% fewer than their mean (its frontiers' order is
// the simulator's but for races).
func TestSSSPPrologueSectorsMeasured(t *testing.T) {
	want := map[uint64]uint64{}
	sc := xzLines(t, filepath.Join(whatifDir, "dragonli-sssp-tree3-reg-ldst.txt.xz"), 1<<10)
	for sc.Scan() {
		var pc, lanes, insts, accesses uint64
		if n, _ := fmt.Sscanf(sc.Text(), "LDSTLOG pc %d lanes %d insts %d accesses %d", &pc, &lanes, &insts, &accesses); n != 4 {
			t.Fatalf("line %q", sc.Text())
		}
		if lanes == 32 && (pc == 728 || pc == 744 || pc == 752) {
			if insts != 343 {
				t.Fatalf("pc %d: %d warps of 32 lanes, want 343", pc, insts)
			}
			want[pc] = accesses
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	tr := regTraceOn(t, "dragonli-tree-200-40x140-20x260.gr.xz")
	s, wl := newSSSPSolver(tr.g, tr.weight, tr.root)
	tr.dragonliSolver(s)
	var warps, at, next int64
	for len(wl) > 0 {
		after := s.relax(wl)
		for lo := 0; lo+warpSize <= len(wl); lo += warpSize {
			vs := wl[lo : lo+warpSize]
			succ := make([]int32, warpSize)
			for i, v := range vs {
				succ[i] = v + 1
			}
			warps, at, next = warps+1, at+sectors(vs), next+sectors(succ)
		}
		wl = after
	}
	mean := float64(want[728]+want[744]+want[752]) / 3
	t.Logf("%d warps of 32: sectors of v %d, of v+1 %d; the rerun's gathers %v (mean %.0f)", warps, at, next, want, mean)
	if warps != 343 {
		t.Fatalf("%d warps of 32 vertices, the rerun 343", warps)
	}
	for _, got := range []int64{at, next} {
		if r := float64(got) / mean; r < 0.98 || r > 1.02 {
			t.Errorf("the rule's %d accesses against the rerun's %.0f: %.3f×, want within 2%%", got, mean, r)
		}
	}
}
