package gpgpusim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

var update = flag.Bool("update", false, "rewrite testdata/real/*.jsonl from the logs")

// The real logs are GPGPU-Sim 4.2 runs of our own programs
// (validation/gpgpusim/programs; validation/gpgpusim/README.md says how
// they were captured): vecadd 4096 (16 CTAs), imbalance 16 16 (two
// kernels of 16 CTAs in one stream), cdp 4 (a parent launching 4
// children), cdpmulti 2 (four-lane launch sites in two warps, stream
// creation, grandchildren) and cdpstreams default 2 3 400 (two warps of
// each of 6 CTAs launching into their CTA's default stream, which
// GPGPU-Sim runs in order: validation/gpgpusim/captures'
// cdpstreams-default).
var realLogs = []struct {
	name string
	tot  int64 // gpu_tot_sim_cycle at the end of the run
}{
	{"vecadd", 5569}, {"imbalance", 13282}, {"cdp", 33055}, {"cdpmulti", 83594}, {"cdpstreams", 51033},
}

// TestRealLogs converts each captured log and compares the records with
// testdata/real/NAME.jsonl (go test -run TestRealLogs -update rewrites
// them; review the diff).
func TestRealLogs(t *testing.T) {
	for _, l := range realLogs {
		t.Run(l.name, func(t *testing.T) {
			got := convertFile(t, filepath.Join("testdata/real", l.name+".log.xz"))
			golden := filepath.Join("testdata/real", l.name+".jsonl")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: records differ from %s", l.name, golden)
			}
		})
	}
}

// TestReplayMatchesSimulator replays each captured log as `replay
// --gpu=captured --policy=cdp` does and requires the makespan GPGPU-Sim
// simulated, within 0.5%: the importer's cycles, launch sites and
// latencies must put every CTA where the simulator ran it. It fails when
// a site's cost is charged twice or the launch latency is off by a few
// hundred cycles.
func TestReplayMatchesSimulator(t *testing.T) {
	for _, l := range realLogs {
		t.Run(l.name, func(t *testing.T) {
			jsonl := convertFile(t, filepath.Join("testdata/real", l.name+".log.xz"))
			makespan := replayCaptured(t, jsonl)
			// GPGPU-Sim's cycle count is one more than its last cycle's index.
			if d := float64(makespan-(l.tot-1)) / float64(l.tot); d > 0.005 || d < -0.005 {
				t.Errorf("%s: replay makespan %d, GPGPU-Sim %d cycles (%+.2f%%)", l.name, makespan, l.tot, 100*d)
			}
		})
	}
}

func convertFile(t *testing.T, path string) []byte {
	t.Helper()
	jsonl, _ := convertLog(t, path)
	return jsonl
}

// convertLog converts the log at path through a checked sink and returns
// the JSONL records and the importer's summary.
func convertLog(t *testing.T, path string) ([]byte, Summary) {
	t.Helper()
	var buf bytes.Buffer
	w := trace.NewJSONLWriter(&buf)
	checked := trace.NewCheckedSink(w)
	sum, err := Convert(path, checked, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := checked.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), sum
}

// replayCaptured replays a JSONL trace under cdp on the k20c model with
// the header's GPU and measured settings (what --gpu=captured builds).
func replayCaptured(t *testing.T, jsonl []byte) int64 {
	t.Helper()
	open := func() (trace.Source, error) { return trace.NewJSONLReader(bytes.NewReader(jsonl)), nil }
	src, _ := open()
	r, err := src.Next()
	if err != nil {
		t.Fatal(err)
	}
	base, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := model.FromHeader(base, r.(*trace.Header))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, noRows{})
	if err != nil {
		t.Fatal(err)
	}
	return st.MakespanCycles
}

// noRows is a tables.Sink that keeps no rows.
type noRows struct{}

func (noRows) Kernel(tables.Kernel)       {}
func (noRows) CTA(tables.CTA)             {}
func (noRows) Launch(tables.Launch)       {}
func (noRows) Occupancy(tables.Occupancy) {}
func (noRows) Page(tables.Page)           {}
func (noRows) Stage(tables.Stage)         {}
