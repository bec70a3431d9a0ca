package gpgpusim

import (
	"bytes"
	"io"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// discard is a trace.Sink that keeps nothing.
type discard struct{}

func (discard) Write(trace.Record) error { return nil }

// writable is the sink a fuzz target checks an importer's records with:
// the trace's rules (trace.NewCheckedSink), and every record written as
// JSONL to nowhere, which a trace file must hold too (its strings UTF-8
// and at most trace.MaxString bytes: the validator does not look at
// them, and a name not UTF-8 passed the targets to fail the command).
func writable() *trace.CheckedSink {
	return trace.NewCheckedSink(trace.NewJSONLWriter(io.Discard))
}

// FuzzReader feeds arbitrary text to the importer as a log: it must never
// panic, and whatever it converts without an error must be a trace the
// replay accepts (an invalid trace from valid-looking input is the
// importer's bug, not the input's). Its seeds are the cases of
// testdata/convert.txt, among them the end-of-run line's (a log cut
// between launch trees or before the first push) and the statistics
// block's (a gpu_tot_sim_cycle against gpu_sim_cycle and the stamps) and
// the host's synchronisation lines' (cudaDeviceSynchronize's and
// cudaEventSynchronize's call and return, a return without its call, a
// log ending inside a wait, launches into stream 0 beside another
// stream's, the host's lines inside the simulation thread's), so
// mutations start from both sides of each check. The byte opt picks how
// inlined work is priced (fuzzOptions): each case is seeded under the
// four flat codes (levels writing the launch trees' depths as host
// kernels, writeLevels), a lone thread's share and a CTA's once-only
// cycles.
//
//	go test ./convert/gpgpusim -fuzz FuzzReader
func FuzzReader(f *testing.F) {
	for _, c := range readCases(&testing.T{}, "testdata/convert.txt") {
		for _, opt := range []uint8{0, 1, 2, 3, 5, 200} {
			f.Add([]byte(c.input), opt)
		}
	}
	f.Fuzz(func(t *testing.T, log []byte, opt uint8) {
		checked := writable()
		_, err := Read(bytes.NewReader(log), "fuzz.log", checked, fuzzOptions(opt))
		if err != nil {
			// Bad input is an *Error naming its line; anything else (the
			// validator refusing a record) is the importer's own fault.
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T, not *Error: %v", err, err)
			}
			return
		}
		if err := checked.Finish(); err != nil {
			t.Fatalf("converted without error, but the trace is refused: %v", err)
		}
	})
}

// fuzzOptions are the default options with inlined work priced as opt
// picks: inline loop, warp, cta or levels (opt mod 4), a lone thread's
// share of 1, 3/4, 1/2 or 1/4 (opt/3 mod 4) and cta_once 7·opt.
func fuzzOptions(opt uint8) Options {
	o := DefaultOptions()
	o.Inline = [...]string{"loop", "warp", "cta", "levels"}[opt%4]
	o.LoopShare = 1 - float64(opt/3%4)/4
	o.CTAOnce = 7 * int64(opt)
	return o
}
