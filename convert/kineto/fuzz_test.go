package kineto

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// errTooMany stops a fuzzed conversion whose grids would take long to
// write out.
var errTooMany = errors.New("too many records")

// collect is a trace.Sink that keeps at most 10000 records.
type collect struct{ recs []trace.Record }

func (c *collect) Write(r trace.Record) error {
	if len(c.recs) == 10000 {
		return errTooMany
	}
	c.recs = append(c.recs, r)
	return nil
}

// FuzzKineto feeds documents to the importer: it must never panic, every
// failure must be an *Error, and a document it accepts must become a
// trace that passes trace.NewValidator.
//
//	go test ./convert/kineto -fuzz FuzzKineto
func FuzzKineto(f *testing.F) {
	for _, name := range []string{"testdata/triton_example.json", "testdata/rocm.json", "testdata/rocm_roctracer.json", "testdata/event_sync_trace.json", "testdata/queued.json", "testdata/overlap.json", "testdata/warmup.json", "testdata/midrun.json", "testdata/pytorch19.json", "testdata/syncs.json", "testdata/threads.json", "testdata/eventids.json", "testdata/measured.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(kernelDoc(`{"correlation":1,"grid":[2,1,1],"block":[64,1,1],"registers per thread":32,"shared memory":1024}`)))
	f.Add([]byte(`[{"ph":"X","cat":"kernel","ts":1.5,"dur":2,"pid":-1,"tid":"s","args":{"correlation":"1","grid":"[1]","block":[1]}}]`))
	f.Add([]byte(`{"traceEvents":[],"deviceProperties":[{"id":0}]}`))
	// Syncs whose cuda_sync events name streams by string, hex and
	// biased tid, await a record that comes after them or none (-1), and
	// a sync event without a runtime call.
	f.Add([]byte(`[{"ph":"X","cat":"kernel","ts":1,"dur":2,"pid":0,"tid":7,"args":{"correlation":1,"grid":[1,1,1],"block":[1,1,1],"stream":7}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":0,"dur":1,"pid":9,"tid":9,"args":{"correlation":1}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","ts":2,"dur":1,"pid":9,"tid":9,"args":{"correlation":2}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","ts":2,"dur":0,"pid":0,"tid":"0x7","args":{"correlation":2,"wait_on_stream":"7","wait_on_cuda_event_record_corr_id":3}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","ts":3,"dur":1,"pid":9,"tid":9,"args":{"correlation":3}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","ts":4,"dur":-1,"pid":9,"tid":8,"args":{"correlation":4}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Stream Sync","ts":4,"dur":1,"pid":0,"tid":1000007,"args":{"correlation":4}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaEventSynchronize","ts":5,"dur":1,"pid":9,"tid":9,"args":{"correlation":5}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Event Sync","ts":5,"dur":1,"pid":0,"tid":-1,"args":{"correlation":5,"wait_on_stream":-1,"wait_on_cuda_event_record_corr_id":-1}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Context Sync","ts":6,"dur":1,"pid":0,"tid":"s","args":{"correlation":6,"stream":"s"}}]`))
	// PyTorch 2.11: waits that name the event only by
	// wait_on_cuda_event_id (a number, a string, -1), record calls
	// without a cuda_sync event, on two threads, one before any launch.
	f.Add([]byte(`[{"ph":"X","cat":"cuda_runtime","name":"cudaEventRecordWithFlags","ts":0,"dur":1,"pid":9,"tid":8,"args":{"correlation":7}},` +
		`{"ph":"X","cat":"kernel","ts":1,"dur":2,"pid":0,"tid":7,"args":{"correlation":1,"grid":[1,1,1],"block":[1,1,1],"stream":7}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":0,"dur":1,"pid":9,"tid":9,"args":{"correlation":1}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaEventRecordWithFlags","ts":1,"dur":1,"pid":9,"tid":9,"args":{"correlation":2}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","ts":2,"dur":1,"pid":9,"tid":9,"args":{"correlation":3}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","ts":2,"dur":0,"pid":0,"tid":8,"args":{"correlation":3,"stream":8,"wait_on_stream":-1,"wait_on_cuda_event_record_corr_id":-1,"wait_on_cuda_event_id":20}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaEventSynchronize","ts":3,"dur":1,"pid":9,"tid":9,"args":{"correlation":4}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Event Sync","ts":3,"dur":1,"pid":0,"tid":-1,"args":{"correlation":4,"wait_on_stream":-1,"wait_on_cuda_event_record_corr_id":-1,"wait_on_cuda_event_id":"21"}},` +
		`{"ph":"X","cat":"cuda_runtime","name":"cudaEventSynchronize","ts":4,"dur":1,"pid":9,"tid":8,"args":{"correlation":5}},` +
		`{"ph":"X","cat":"cuda_sync","name":"Event Sync","ts":4,"dur":1,"pid":0,"tid":-1,"args":{"correlation":5,"wait_on_cuda_event_record_corr_id":-1,"wait_on_cuda_event_id":-1}}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var c collect
		_, err := Read(bytes.NewReader(doc), "fuzz.json", &c, DefaultOptions())
		if errors.Is(err, errTooMany) {
			return
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
			return
		}
		v := trace.NewValidator(&slice{recs: c.recs})
		w := trace.NewJSONLWriter(io.Discard) // what a file must hold besides: strings UTF-8 and at most MaxString
		for {
			rec, err := v.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("accepted input converts to an invalid trace: %v", err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatalf("accepted input converts to a trace no file can hold: %v", err)
			}
		}
	})
}

// slice is a trace.Source over records in memory.
type slice struct{ recs []trace.Record }

func (s *slice) Next() (trace.Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return r, nil
}
