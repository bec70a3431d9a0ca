package kineto

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/model"

	"github.com/gpureplay/gpureplay/convert/internal/profile"

	"github.com/gpureplay/gpureplay/trace"
)

// writer emits a plan's records in trace order.
type writer struct {
	pl   *plan
	out  trace.Sink
	sum  *Summary
	kid  uint64 // last kernel id
	bid  uint64 // last buffer id
	base uint64 // next buffer base address
}

// write emits the header, one buffer per copy, and then the copies and
// kernels in program order, each kernel's launch and cta records right
// after its kernel record.
func (w *writer) write() error {
	if err := w.out.Write(w.header()); err != nil {
		return err
	}
	for _, op := range w.pl.ops {
		if op.copy {
			if err := w.buffer(op); err != nil {
				return err
			}
		}
	}
	w.bid = 0
	for _, h := range w.pl.host {
		if h.sync != nil {
			if err := w.sync(h.sync); err != nil {
				return err
			}
			continue
		}
		op := h.op
		if err := profile.CheckT(op.t, w.pl.gpu.Spec.ClockMHz); err != nil {
			what := "kernel " + quote(op.name)
			if op.copy {
				what = "copy"
			}
			return errorf(w.pl.file, op.index, op.offset, "%s %v", what, err)
		}
		var err error
		if op.copy {
			err = w.memcpy(op)
		} else {
			err = w.kernel(op)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// header describes the captured GPU and records in meta what the timing
// mapping assumed: the replay latencies (cycles at clock_mhz) that each
// launch's t allows for, and the profile ts that t = 0 stands for.
func (w *writer) header() *trace.Header {
	meta := map[string]string{
		"file":         filepath.Base(w.pl.file),
		"device":       string(w.pl.device),
		"clock_source": w.pl.gpu.Clock,
		"options":      w.pl.opts.String(),
		"origin_ts_us": w.pl.originMicros(),
	}
	w.pl.lat.Record(meta)
	if w.pl.hostSyncN > 0 {
		meta[model.SetPrefix+"lat.host_sync"] = strconv.FormatInt(w.pl.hostSync, 10)
		meta["host_sync_calls"] = strconv.Itoa(w.pl.hostSyncN)
	}
	w.pl.recordMeasured(meta)
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  w.pl.gpu.Spec.ClockMHz,
		PageBytes: trace.DefaultPageBytes,
		Source:    "kineto",
		GPU:       w.pl.gpu.Name,
		GPUSpec:   w.pl.gpu.Spec,
		Meta:      meta,
	}
}

// buffer declares the allocation a copy moves: Kineto records no
// addresses, so each copy gets its own buffer, page-aligned one after the
// other; host-to-device copies fill inputs, device-to-host copies read
// back outputs.
func (w *writer) buffer(op *gpuOp) error {
	w.bid++
	n := bytesOf(op)
	role := trace.RoleInput
	if copyDir(op) == trace.DirD2H {
		role = trace.RoleOutput
	}
	name := fmt.Sprintf("copy %d: %s", w.bid, op.name)
	if len(name) > trace.MaxString {
		return w.errorf(op, "has a name of %d bytes; a trace holds at most %d (2^20)", len(op.name), trace.MaxString)
	}
	b := &trace.Buffer{ID: w.bid, Name: name, Base: w.base, Bytes: n, Role: role}
	w.base += (uint64(n) + trace.DefaultPageBytes - 1) / trace.DefaultPageBytes * trace.DefaultPageBytes
	return w.out.Write(b)
}

func (w *writer) memcpy(op *gpuOp) error {
	w.bid++
	w.sum.Memcpys++
	m := &trace.Memcpy{
		Dir: copyDir(op), Buffer: w.bid, Bytes: bytesOf(op),
		Stream: w.pl.streams[op.stream], T: op.t,
	}
	if copyBlocks(op) {
		m.Blocking = syncCopies[op.call.name]
		m.Pageable = strings.Contains(op.name, "Pageable")
		m.Ret = max(w.pl.at(op.call.ts+op.call.dur), m.T)
		if err := profile.CheckT(m.Ret, w.pl.gpu.Spec.ClockMHz); err != nil {
			return errorf(w.pl.file, op.index, op.offset, "copy's return %v", err)
		}
	}
	return w.out.Write(m)
}

// copyBlocks reports whether a copy is written as blocking its host
// thread: a synchronous call, or pageable host memory (the CUDA Runtime
// API's "API synchronization behavior": "for transfers from pageable
// host memory to device memory, a stream sync is performed before the
// copy is initiated" and the function returns once the buffer is staged;
// "for transfers from device memory to pageable host memory, the
// function will return only once the copy has completed"), whose call
// the profile has, with no other host thread issuing GPU work while it
// ran (markConcurrent). A copy without its call is written as not
// blocking: where and when its call returned is unknown.
func copyBlocks(op *gpuOp) bool {
	return op.call != nil && !op.call.concurrent && (syncCopies[op.call.name] || strings.Contains(op.name, "Pageable"))
}

// syncCopies are the copy calls that are synchronous whatever the host
// memory (cudaMemcpy; the driver API's cuMemcpy*; hipMemcpy), as opposed
// to the *Async ones.
var syncCopies = map[string]bool{
	"cudaMemcpy": true, "cuMemcpy": true, "cuMemcpyHtoD_v2": true, "cuMemcpyDtoH_v2": true,
	"cuMemcpyHtoD": true, "cuMemcpyDtoH": true, "hipMemcpy": true,
}

// sync writes a sync record.
func (w *writer) sync(s *hostSync) error {
	for _, t := range []int64{s.rec.T, s.rec.Ret} {
		if err := profile.CheckT(t, w.pl.gpu.Spec.ClockMHz); err != nil {
			return errorf(w.pl.file, -1, -1, "%s at ts %s µs %v", s.call.key, micro(s.ts), err)
		}
	}
	w.sum.Syncs++
	rec := s.rec
	return w.out.Write(&rec)
}

// micro formats ns as Kineto's microseconds.
func micro(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', -1, 64) }
