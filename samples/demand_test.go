package samples

import (
	"math"
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// Every generator gives every CTA an instruction demand within what its
// warps can issue (the validator's bound), and DRAM bytes where its kernels
// stream memory.
func TestEveryGeneratorWritesDemands(t *testing.T) {
	small := map[string][]string{
		"bfs": {"scale=9"}, "sssp": {"scale=9"}, "gc": {"scale=9"}, "tasks": {"count=32"},
		"synth": {"kernels=2", "ctas=20", "site_rate=0.2"}, "join": {"r_tuples=1024", "s_tuples=1024"},
	}
	noDRAM := map[string]bool{"mandel_tile": true, "mandel_pixels": true, "mandel_subtile": true, "sa_verify": true}
	for _, g := range List() {
		t.Run(g.Name, func(t *testing.T) {
			recs := generate(t, g.Name, small[g.Name]...)
			if _, err := trace.ReadAll(trace.NewValidator(&sliceSource{recs: slices.Clone(recs)})); err != nil {
				t.Fatalf("the validator refuses the trace: %v", err)
			}
			names := map[uint64]string{}
			ctas := 0
			for _, r := range recs {
				switch r := r.(type) {
				case *trace.Kernel:
					names[r.ID] = r.Name
				case *trace.CTA:
					ctas++
					if r.Insts == 0 {
						t.Fatalf("CTA %d of %s has no insts", r.CTA, names[r.Kernel])
					}
					if (r.DRAMBytes == 0) != noDRAM[names[r.Kernel]] {
						t.Fatalf("CTA %d of %s moves %d DRAM bytes", r.CTA, names[r.Kernel], r.DRAMBytes)
					}
				}
			}
			if ctas == 0 {
				t.Fatal("no CTAs")
			}
		})
	}
}

// Hand-computed demands. A bfs_expand CTA over 40 edges has a full warp
// (120 + 40 + 2·32 = 224 cycles) and one of 8 lanes (176): 400 warp-cycles
// at 46/224 instructions and 128/224 bytes a cycle: 82.14 → 82
// instructions, 228.57 → 229 bytes.
func TestDemandByHand(t *testing.T) {
	c := bfsMixes["bfs_expand"].set((&bfsTrace{}).expandCTA(1, 0, bfsExpandBlock, 40), 2)
	if c.Insts != 82 || c.DRAMBytes != 229 {
		t.Errorf("bfs_expand CTA: insts %d, dram_bytes %d; want 82, 229", c.Insts, c.DRAMBytes)
	}
	// synth: 64-thread CTAs of exactly 1000 cycles at 0.25 instructions and
	// 2 bytes a warp-cycle: 2 warps × 1000 × 0.25 = 500, × 2 = 4000.
	recs := generate(t, "synth", "kernels=1", "ctas=3", "block=64", "cycles=1000", "jitter=0")
	for _, r := range recs {
		if c, ok := r.(*trace.CTA); ok && (c.Insts != 500 || c.DRAMBytes != 4000) {
			t.Errorf("synth CTA %d: insts %d, dram_bytes %d; want 500, 4000", c.CTA, c.Insts, c.DRAMBytes)
		}
	}
	// A pipeline tile: compute issue slots plus one instruction per 128
	// coalesced bytes; its footprint bytes from DRAM.
	if d := streamDemand(1000, 300); d.insts != 308 || d.dram != 1000 {
		t.Errorf("streamDemand(1000 bytes, 300 slots) = %+v; want 308 instructions, 1000 bytes", d)
	}
	// A matmul task of 256 threads: 8 warps at 3 instructions per 38-cycle
	// step (one accumulator a thread: the measured chain binds), 0.63 a
	// cycle; at 128 threads, 4 warps at 3 per 19 cycles, the same.
	for _, tc := range []struct {
		threads, warps int
		want           uint64
	}{{256, 8, 632}, {128, 4, 632}} {
		task := &trace.CTA{Cycles: 1000}
		(&warpMix{ipc: lookupTaskKind("matmul").rate(&tasksConfig{threads: tc.threads})}).set(task, tc.warps)
		if task.Insts != tc.want {
			t.Errorf("matmul task of %d threads: insts %d, want %d", tc.threads, task.Insts, tc.want)
		}
	}
}

// smem=off: a 256-thread matmul task of a 64×64 multiply works on one
// 16×16 output tile at a time, 16 tiles of 4 k-steps. With shared memory a
// k-step is an L2 trip, two staged loads, two barriers and 16 MACs from
// shared memory on one accumulator, 38 cycles each: 200 + 8 + 40 + 608 =
// 856, so 40 + 400 + 16·(4·856 + 4) = 55288 cycles and 2048 bytes
// declared, at 3 instructions per 38 cycles. Without, a k-step is an L2 trip
// and 16 MACs streaming from memory: 200 + 128 = 328, so 21496 cycles,
// none declared, and the MACs' lower issue rate (2 per 8 cycles).
func TestTasksWithoutSharedMemory(t *testing.T) {
	for _, tc := range []struct {
		smem         string
		cycles       int64
		declared     int64
		instsPerWarp float64
	}{
		{"on", 55288, 2048, 3.0 / 38},
		{"off", 21496, 0, 0.25},
	} {
		recs := generate(t, "tasks", "kind=matmul", "threads=256", "count=1", "work=model", "smem="+tc.smem)
		for _, r := range recs {
			switch r := r.(type) {
			case *trace.Kernel:
				if r.Smem != tc.declared {
					t.Errorf("smem=%s: kernel declares %d bytes, want %d", tc.smem, r.Smem, tc.declared)
				}
			case *trace.CTA:
				if want := uint64(math.Round(tc.instsPerWarp * 8 * float64(tc.cycles))); r.Cycles != tc.cycles || r.Insts != want {
					t.Errorf("smem=%s: cycles %d, insts %d; want %d, %d", tc.smem, r.Cycles, r.Insts, tc.cycles, want)
				}
			}
		}
	}
}
