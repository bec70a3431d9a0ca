package replay_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// indexedFile is a binary trace in memory as trace.Open gives a file: a
// Reader with the file's host index beside it. reads counts the records
// its Reader yields.
type indexedFile struct {
	*trace.Reader
	data  []byte
	reads *int
}

func (f indexedFile) HostIndex() (*trace.HostIndex, error) {
	return trace.ReadHostIndex(bytes.NewReader(f.data), int64(len(f.data)))
}

func (f indexedFile) Next() (trace.Record, error) {
	*f.reads++
	return f.Reader.Next()
}

// openIndexed opens data as indexedFile; reads, when not nil, gets the
// records each opened Source yields, in the order they were opened.
func openIndexed(data []byte, reads *[]int) replay.Opener {
	return func() (trace.Source, error) {
		r, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		n := new(int)
		if reads != nil {
			*reads = append(*reads, 0)
			defer func(i int) { (*reads)[i] = *n }(len(*reads) - 1)
		}
		return indexedFile{r, data, n}, nil
	}
}

// binaryOf is a JSONL trace in the binary encoding, with its host index;
// false if it does not read as records.
func binaryOf(jsonl string) ([]byte, bool) {
	recs, err := trace.ReadAll(trace.NewJSONLReader(strings.NewReader(jsonl)))
	if err != nil {
		return nil, false
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	for _, r := range recs {
		if w.Write(r) != nil {
			return nil, false
		}
	}
	if w.Close() != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// hostOpsTrace has memcpys both ways and host launches with t, streams and
// after, each host kernel launching a child.
const hostOpsTrace = `{"type":"header","version":1,"clock_mhz":706,"ordered_trees":true}
{"type":"buffer","id":1,"name":"in","base":0,"bytes":65536,"role":"inout"}
{"type":"memcpy","dir":"h2d","buffer":1,"bytes":65536,"stream":1,"t":0}
{"type":"kernel","id":1,"name":"a","grid":[2,1,1],"block":[64,1,1],"regs":16,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":1}
{"type":"cta","kernel":1,"cta":0,"cycles":1000}
{"type":"cta","kernel":1,"cta":1,"cycles":800}
{"type":"kernel","id":2,"name":"c","grid":[1,1,1],"block":[32,1,1],"regs":16,"smem":0}
{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":1,"lane":3,"at":200},"workload":8,"inline_cycles":500}
{"type":"cta","kernel":2,"cta":0,"cycles":300}
{"type":"kernel","id":3,"name":"b","grid":[1,1,1],"block":[64,1,1],"regs":16,"smem":0}
{"type":"launch","kernel":3,"t":50,"stream":2}
{"type":"cta","kernel":3,"cta":0,"cycles":700}
{"type":"kernel","id":4,"name":"d","grid":[1,1,1],"block":[64,1,1],"regs":16,"smem":0}
{"type":"launch","kernel":4,"t":60,"stream":3,"after":[1,3]}
{"type":"cta","kernel":4,"cta":0,"cycles":400}
{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4096,"stream":3,"t":90}`

// splice is stream's records with index's host index: a file put
// together from two, whose index is a good copy of another trace's.
func splice(t *testing.T, stream, index []byte) []byte {
	t.Helper()
	frame := func(data []byte) int {
		n := binary.LittleEndian.Uint32(data[len(data)-20:])
		return 8 + int(n) + 20
	}
	return append(bytes.Clone(stream[:len(stream)-frame(stream)]), index[len(index)-frame(index):]...)
}

func replayPolicy(t *testing.T, open replay.Opener, policy string, prefetch bool) (*replay.Stats, error) {
	t.Helper()
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policies.New(policy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return replay.Run(open, replay.Options{Config: cfg, Policy: pol, Ahead: readAhead(prefetch)}, discard{})
}

// With a host index the host pass reads no record of the stream, and the
// run is the run the skim gives, for BFS and for copies and tasks.
func TestHostIndexReplay(t *testing.T) {
	traces := map[string][]byte{
		"bfs":   generateBytes(t, "bfs", "scale=10"),
		"tasks": generateBytes(t, "tasks", "kind=mixed", "count=64"),
	}
	traces["host ops"], _ = binaryOf(hostOpsTrace)
	for name, data := range traces {
		skim := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
		for _, policy := range []string{"cdp", "dtbl", "spawn", "crcs"} {
			for _, prefetch := range []bool{false, true} {
				want, err := replayPolicy(t, skim, policy, prefetch)
				if err != nil {
					t.Fatalf("%s under %s: %v", name, policy, err)
				}
				var reads []int
				got, err := replayPolicy(t, openIndexed(data, &reads), policy, prefetch)
				if err != nil {
					t.Fatalf("%s under %s from the index: %v", name, policy, err)
				}
				if *got != *want {
					t.Errorf("%s under %s (prefetch %v): from the index\n%+v\nskimming\n%+v", name, policy, prefetch, got, want)
				}
				if reads[0] != 0 {
					t.Errorf("%s under %s: the host pass read %d records of the stream", name, policy, reads[0])
				}
			}
		}
	}
}

// An index that differs from the stream in any host operation stops the
// run with an error naming the record, whichever field differs and
// however far the engine had got with the index's copy.
func TestHostIndexMismatch(t *testing.T) {
	stream, _ := binaryOf(hostOpsTrace)
	for _, c := range []struct{ name, from, to, want string }{
		{"launch t", `"kernel":3,"t":50`, `"kernel":3,"t":51`, `record 12 (launch)`},
		{"launch stream", `"t":50,"stream":2`, `"t":50,"stream":3`, `record 12 (launch)`},
		{"launch after", `"after":[1,3]`, `"after":[3]`, `record 15 (launch)`},
		{"launch kernel", `{"type":"launch","kernel":3,"t":50,"stream":2}`, `{"type":"launch","kernel":9,"t":50,"stream":2}`, `record 12 (launch)`},
		{"memcpy bytes", `"bytes":65536,"stream":1`, `"bytes":512,"stream":1`, `record 3 (memcpy)`},
		{"memcpy t", `"stream":3,"t":90`, `"stream":3,"t":80`, `record 17 (memcpy)`},
		{"memcpy dropped", "\n" + `{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4096,"stream":3,"t":90}`, ``, `record 17 (memcpy)`},
		{"memcpy added", `"t":90}`, `"t":90}` + "\n" + `{"type":"memcpy","dir":"d2h","buffer":1,"bytes":8,"stream":3,"t":95}`, `at end of trace: the host index lists 6 host operations, the trace has 5`},
	} {
		other, ok := binaryOf(strings.Replace(hostOpsTrace, c.from, c.to, 1))
		if !ok || bytes.Equal(other, stream) {
			t.Fatalf("%s: no other trace", c.name)
		}
		data := splice(t, stream, other)
		for _, policy := range []string{"cdp", "dtbl"} {
			for _, prefetch := range []bool{false, true} {
				_, err := replayPolicy(t, openIndexed(data, nil), policy, prefetch)
				if err == nil || !strings.Contains(err.Error(), c.want) || !replay.IsInputError(err) {
					t.Errorf("%s under %s (prefetch %v): %v; want %q", c.name, policy, prefetch, err, c.want)
				}
			}
		}
	}
}

// A damaged index fails the run, naming the index.
func TestHostIndexDamagedReplay(t *testing.T) {
	data, _ := binaryOf(hostOpsTrace)
	data[len(data)-21] ^= 1 // the last byte of the index's records
	_, err := replayPolicy(t, openIndexed(data, nil), "cdp", false)
	if err == nil || !strings.Contains(err.Error(), "host index: checksum mismatch") {
		t.Errorf("got %v", err)
	}
}

// TasksRefuse finds in a trace's host index the first host call that
// the task runtimes refuse (one that waits for the GPU), with the words
// their replay says at it; a trace whose index lists none, or that has
// no index, is left to the replay. Its verdict and the replay's agree.
func TestTasksRefuse(t *testing.T) {
	const head = `{"type":"header","version":1,"clock_mhz":706,"gpu":"k20c"}
{"type":"kernel","id":1,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":8,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":1}
{"type":"cta","kernel":1,"cta":0,"cycles":100}
`
	for _, tc := range []struct{ name, syncs, want string }{
		{"none", ``, ""},
		{"an event record and a stream wait", `{"type":"sync","op":"record","t":200,"stream":1,"event":1}
{"type":"sync","op":"wait","t":210,"stream":2,"event":1}
`, ""},
		{"a device sync after a record", `{"type":"sync","op":"record","t":200,"stream":1,"event":1}
{"type":"sync","op":"device","t":300}
{"type":"sync","op":"stream","t":400,"stream":1}
`, "device sync at t=300: task runtimes run the host loop of Pagoda's Fig. 1a"},
	} {
		data, ok := binaryOf(head + tc.syncs)
		if !ok {
			t.Fatalf("%s: not a trace", tc.name)
		}
		x, err := trace.ReadHostIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil || x == nil {
			t.Fatalf("%s: index %v, %v", tc.name, x, err)
		}
		got := replay.TasksRefuse(x)
		if tc.want == "" && got != nil || tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, got, tc.want)
		}
		cfg, _ := model.Preset("k20c")
		pol, err := policies.New("gemtc", cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = replay.Run(openIndexed(data, nil), replay.Options{Config: cfg, Policy: pol}, discard{})
		if fmt.Sprint(err) != fmt.Sprint(got) {
			t.Errorf("%s: the replay says %v, TasksRefuse %v", tc.name, err, got)
		}
	}
	if err := replay.TasksRefuse(nil); err != nil {
		t.Errorf("no index: %v", err)
	}
}
