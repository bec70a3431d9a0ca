package samples

import (
	"math"

	"github.com/gpureplay/gpureplay/trace"
)

// Demands: what each generated CTA asks of the shared hardware (the trace
// fields insts and dram_bytes, which the contention model of
// docs/model.md shares out). The generators' cost models give each warp's
// time alone as a sum of named operations — memory round trips, loop
// iterations, gathers — so each kernel's demand comes from the same
// operations: the warp instructions its loop body issues, and the bytes it
// brings from DRAM, per cycle of that body's cost. The derivations sit
// beside each mix; docs/model.md ("Demands of the generated traces")
// tabulates them.
//
// DRAM bytes are compulsory traffic: the bytes of the arrays a warp streams
// (coalesced, 128 bytes per warp instruction) plus, for data-dependent
// gathers, nothing beyond the first touch — the generated inputs (graphs of
// 2^11 to 2^16 vertices, hash tables, matrices) keep the gathered arrays
// within a K20c's 1.5 MiB L2, so gathers hit it. Load-unit replays of a
// divergent gather (one transaction per cache line) are issue slots, so
// they count as instructions.

// warpMix is a kernel's demand per cycle of a warp's time alone.
type warpMix struct {
	ipc float64 // warp instructions per cycle
	bpc float64 // DRAM bytes per cycle
}

// set gives rec the demand of its warps at mix m: each warp's cycles alone
// (warp_cycles, or cycles for every one of warps) times the rates.
func (m warpMix) set(rec *trace.CTA, warps int) *trace.CTA {
	var total int64
	if len(rec.WarpCycles) > 0 {
		for _, w := range rec.WarpCycles {
			total += w
		}
	} else {
		total = rec.Cycles * int64(warps)
	}
	rec.Insts = uint64(math.Round(float64(total) * m.ipc))
	rec.DRAMBytes = uint64(math.Round(float64(total) * m.bpc))
	return rec
}

// loopMix is the mix of a loop body that issues insts warp instructions
// and streams bytes from DRAM per iteration of cycles.
func loopMix(insts, bytes, cycles float64) warpMix {
	return warpMix{ipc: insts / cycles, bpc: bytes / cycles}
}

// warpStream is the DRAM bytes of one coalesced 4-byte element per lane of
// a full warp.
const warpStream = 4 * warpSize

// demandSink gives the CTAs a generator writes their kernel's demand, by
// kernel name (mixes[""] for names it does not list); a CTA that already
// carries a demand (the tiled pipelines and the tasks compute theirs per
// CTA) keeps it.
type demandSink struct {
	trace.Sink
	mixes  map[string]warpMix
	kernel map[uint64]kernelMix // kernels declared, by id
	last   uint64
	cur    kernelMix
}

type kernelMix struct {
	mix   warpMix
	warps int
}

func (d *demandSink) Write(r trace.Record) error {
	switch r := r.(type) {
	case *trace.Kernel:
		m, ok := d.mixes[r.Name]
		if !ok {
			m = d.mixes[""]
		}
		d.kernel[r.ID] = kernelMix{mix: m, warps: ceilDiv(r.Threads(), warpSize)}
	case *trace.CTA:
		if r.Kernel != d.last || d.cur.warps == 0 {
			d.last, d.cur = r.Kernel, d.kernel[r.Kernel]
		}
		if !r.HasDemand() {
			d.cur.mix.set(r, d.cur.warps)
		}
	}
	return d.Sink.Write(r)
}

// Run writes a complete trace of the workload with parameters p to out:
// header first, every CTA with its demand.
func (g *Generator) Run(p Params, out trace.Sink) error {
	done, err := g.setCosts(p)
	if err != nil {
		return err
	}
	defer done()
	if g.mixes != nil {
		out = &demandSink{Sink: out, mixes: g.mixes, kernel: map[uint64]kernelMix{}}
	}
	return g.run(p, out)
}
