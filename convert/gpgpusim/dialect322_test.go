package gpgpusim

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestConvert322 runs the data-driven cases of testdata/convert322.txt,
// GPGPU-Sim 3.x logs (the DTBL authors' simulator), as TestConvert runs
// convert.txt's.
func TestConvert322(t *testing.T) {
	for _, c := range readCases(t, "testdata/convert322.txt") {
		t.Run(c.name, func(t *testing.T) {
			got, err := convertString(c.input, DefaultOptions())
			if want, ok := strings.CutPrefix(c.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(want)) {
					t.Fatalf("line %d: want error containing %q, got %v", c.line, want, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("line %d: %v", c.line, err)
			}
			if got != c.want {
				t.Errorf("line %d: records differ\n got:\n%s\nwant:\n%s", c.line, got, c.want)
			}
		})
	}
}

// FuzzReader322 is FuzzReader seeded with the 3.x dialect's cases: the
// CTA lines, the stamped device-runtime calls, aggregated groups and the
// appended files.
//
//	go test ./convert/gpgpusim -fuzz FuzzReader322
func FuzzReader322(f *testing.F) {
	for _, c := range readCases(&testing.T{}, "testdata/convert322.txt") {
		f.Add([]byte(c.input))
	}
	f.Fuzz(func(t *testing.T, log []byte) {
		checked := trace.NewCheckedSink(discard{})
		_, err := Read(bytes.NewReader(log), "fuzz.log", checked, DefaultOptions())
		if err != nil {
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

// forkRuns are validation/gpgpusim/dtbl-sim's 21 runs of the DTBL
// authors' simulator: what each converts to, and the cycles it ran
// (times.tsv's gpu_tot_sim_cycle). off is the replay's error under
// --gpu=captured --policy=cdp where it is not within 5%, and why is
// where docs/validation.md ("DTBL against its authors' simulator") names
// the difference.
var forkRuns = []struct {
	name                  string
	kernels, device, ctas int
	tot                   int64
	off                   float64 // the replay's known error, or 0 for within 5%
}{
	{"vecadd", 1, 0, 256, 8107, 0},
	{"balanced-flat", 1, 0, 32, 26340, 0},
	{"balanced-cdp", 33, 32, 160, 49633, 0},
	{"balanced-dtbl", 33, 32, 160, 43564, 0},
	{"skewed-cdp", 33, 32, 160, 57347, 0},
	{"skewed-dtbl", 33, 32, 160, 54850, 0},
	{"nested-cdp", 49, 48, 80, 99769, 0},
	{"nested-dtbl", 49, 48, 80, 59942, 0},
	{"cdp-cdp", 65, 64, 352, 30458, 0},
	{"cdp-dtbl", 65, 64, 352, 26495, 0},
	{"balanced-cdp-maxk32", 33, 32, 160, 43564, 0},
	{"balanced-dtbl-maxk32", 33, 32, 160, 43564, 0},
	{"nested-cdp-maxk32", 49, 48, 80, 60084, 0},
	{"nested-dtbl-maxk32", 49, 48, 80, 59942, 0},
	{"balanced-cdp-cdplat0", 33, 32, 160, 28743, 0},
	{"balanced-dtbl-cdplat0", 33, 32, 160, 22507, 0},
	{"balanced-cdp-launch5000", 33, 32, 160, 97763, -0.277},
	{"balanced-dtbl-launch5000", 33, 32, 160, 44284, 0},
	{"balanced-cdp-smk", 33, 32, 160, 49633, 0},
	{"balanced-dtbl-smk", 33, 32, 160, 43564, 0},
	{"balanced-dtbl-kq8", 33, 32, 160, 43555, 0},
}

const forkDir = "../../validation/gpgpusim/dtbl-sim"

// TestForkRuns converts every committed run of the DTBL authors'
// simulator: each must convert whole (its kernels, device launches and
// groups, CTAs and cycles as the log and times.tsv have them).
func TestForkRuns(t *testing.T) {
	for _, r := range forkRuns {
		t.Run(r.name, func(t *testing.T) {
			_, sum := convertLog(t, filepath.Join(forkDir, r.name+".log.xz"))
			if sum.Kernels != r.kernels || sum.DeviceKernels != r.device || sum.CTAs != uint64(r.ctas) || sum.Cycles != r.tot {
				t.Errorf("%s: %d kernels (%d from the device), %d CTAs, %d cycles; want %d (%d), %d, %d",
					r.name, sum.Kernels, sum.DeviceKernels, sum.CTAs, sum.Cycles, r.kernels, r.device, r.ctas, r.tot)
			}
		})
	}
}

// TestForkReplayCDP replays every committed CDP and flat run as `replay
// --gpu=captured --policy=cdp` does: the makespan must be the
// simulator's within 5%, or within a point of the error the entry names.
// balanced-cdp-launch5000 runs 27.7% short: the simulator counts one
// kernel's -gpgpu_kernel_launch_latency down at a time
// (stream_manager::front, src/stream_manager.cc:313-350, hands
// stream_manager::operation, :234-249, the first ready stream only, and
// only that kernel's m_launch_latency is decremented, :185-187), so 32
// children launched together start one after another; the replay counts
// every kernel's down at once.
func TestForkReplayCDP(t *testing.T) {
	for _, r := range forkRuns {
		if strings.Contains(r.name, "dtbl") {
			continue
		}
		t.Run(r.name, func(t *testing.T) {
			jsonl := convertFile(t, filepath.Join(forkDir, r.name+".log.xz"))
			makespan := replayCaptured(t, jsonl)
			d := float64(makespan-(r.tot-1)) / float64(r.tot)
			if r.off == 0 && (d > 0.05 || d < -0.05) || r.off != 0 && (d > r.off+0.01 || d < r.off-0.01) {
				t.Errorf("%s: replay makespan %d, the simulator %d cycles (%+.2f%%; want %+.1f%%)", r.name, makespan, r.tot, 100*d, 100*r.off)
			}
		})
	}
}
