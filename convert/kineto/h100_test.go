package kineto_test

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/kineto"
	"github.com/gpureplay/gpureplay/trace"
)

// The project's Kineto captures of two host loops on an H100 with
// PyTorch 2.11 (validation/kineto-h100: the program torchcap.py, its
// README the provenance). TestReplayMatchesProfile replays them too.
const (
	h100Frontier = "../../validation/kineto-h100/frontier.json.gz"
	h100Streams  = "../../validation/kineto-h100/streams.json.gz"
)

// TestH100Syncs counts the sync records of the two H100 captures by op,
// against what torchcap.py calls:
//
//   - frontier(12): each of the 12 levels reads a count back with
//     .item(), a cudaMemcpyAsync and a cudaStreamSynchronize of the
//     current stream (7): 12 copies, 12 stream syncs; then
//     torch.cuda.synchronize() and the profiler's own synchronize on
//     exit, 2 device syncs. No events.
//   - streams(4): each of the 4 iterations has ev.record(s1) (a
//     cudaEventRecordWithFlags after `a = x @ x` on s1, Kineto stream 22),
//     s2.wait_event(ev) (stream 26), ev.synchronize() and s2.synchronize():
//     a record on 22, a wait of 26 and an event sync on that record, and a
//     stream sync of 26; the event is one torch.cuda.Event (id 20 in
//     every cuda_sync event), recorded anew each iteration, so each
//     iteration's record is an event of its own. Then the 2 device syncs.
//
// Every sync call converts: nothing is counted as unused with a reason.
func TestH100Syncs(t *testing.T) {
	var streams []string
	for i := 1; i <= 4; i++ {
		streams = append(streams,
			fmt.Sprintf("record stream 22 event %d", i), fmt.Sprintf("wait stream 26 event %d", i),
			fmt.Sprintf("event stream 0 event %d", i), "stream stream 26 event 0")
	}
	streams = append(streams, "device stream 0 event 0", "device stream 0 event 0")
	for _, tc := range []struct {
		file    string
		kernels int
		copies  int
		ops     map[trace.SyncOp]int
		seq     []string // the syncs in order, where given
	}{
		{h100Frontier, 66, 12, map[trace.SyncOp]int{trace.SyncStream: 12, trace.SyncDevice: 2}, nil},
		{h100Streams, 16, 0, map[trace.SyncOp]int{trace.EventRecord: 4, trace.StreamWait: 4, trace.SyncEvent: 4, trace.SyncStream: 4, trace.SyncDevice: 2}, streams},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var buf bytes.Buffer
			w := trace.NewWriter(&buf)
			sum, err := kineto.Convert(tc.file, w, kineto.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for k, n := range sum.Unused {
				if strings.Contains(k, "(") {
					t.Errorf("%d %s", n, k)
				}
			}
			r, err := trace.NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			ops := map[trace.SyncOp]int{}
			var seq []string
			var kernels, copies int
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				switch rec := rec.(type) {
				case *trace.Kernel:
					kernels++
				case *trace.Memcpy:
					copies++
				case *trace.Sync:
					ops[rec.Op]++
					seq = append(seq, fmt.Sprintf("%s stream %d event %d", rec.Op, rec.Stream, rec.Event))
				}
			}
			if kernels != tc.kernels || copies != tc.copies || !reflect.DeepEqual(ops, tc.ops) {
				t.Errorf("%d kernels, %d copies, syncs %v; want %d, %d, %v", kernels, copies, ops, tc.kernels, tc.copies, tc.ops)
			}
			if tc.seq != nil && !reflect.DeepEqual(seq, tc.seq) {
				t.Errorf("syncs\n%s\nwant\n%s", strings.Join(seq, "\n"), strings.Join(tc.seq, "\n"))
			}
		})
	}
}
