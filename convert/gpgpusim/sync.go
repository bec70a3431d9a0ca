package gpgpusim

import (
	"bytes"

	"github.com/gpureplay/gpureplay/trace"
)

// The host's synchronisation, as GPGPU-Sim 4.2 (accel-sim/
// gpgpu-sim_distribution, commit 667834cf) runs it and logs it.
//
// The simulator advances its cycle only while the GPU has work
// (gpgpusim_entrypoint.cc:87-89 spins without simulating while the
// stream manager is empty; :127-130 cycles only an active GPU), so the
// host's own time between calls costs no simulated cycles: each point
// where the GPU went idle and the host went on is a wait the trace must
// carry for a replay to move the host with the GPU. Three kinds show in
// a log taken with PTX_SIM_DEBUG=1:
//
//   - cudaDeviceSynchronize, cudaThreadSynchronize and
//     cudaStreamSynchronize(0) call gpgpu_context::synchronize
//     (cuda_runtime_api.cc:2294, :2278, :2047), which prints "GPGPU-Sim:
//     synchronize waiting for inactive GPU simulation" and, once the
//     stream manager is empty and the simulation thread idle, "GPGPU-Sim:
//     detected inactive GPU simulation thread" (gpgpusim_entrypoint.cc:
//     173, 185): a device sync, t at the first line, ret at the second.
//   - cudaEventSynchronize prints "GPGPU-Sim API: cudaEventSynchronize
//     ** waiting for event" and "** event detected" around its wait
//     (cuda_runtime_api.cc:2884, 2889). The lines name no event, and
//     cudaEventRecord prints nothing on the host side, so it is written
//     as a device sync with the same t and ret (Summary.EventSyncs
//     counts them): exact where the host's earlier calls left only the
//     event's stream busy. One that returns at its call is not written
//     (Summary.EventSyncsAtCall): in 667834cf built -O3 the wait's busy
//     loop is compiled away and the call never waits (every committed
//     capture's cudaEventSynchronize returns at its call), so a device
//     sync there would make the replay's host wait where the
//     simulator's did not.
//   - A launch into stream 0 (the NULL stream; created streams' uids
//     start at 1, stream_manager.cc:35-39 with the manager's own stream
//     0 made first): stream_manager::push blocks the host until every
//     other stream is empty before queueing it (stream_manager.cc:
//     446-453) and until the whole manager is empty after
//     (stream_manager.cc:475-485), which for a kernel is once its launch
//     tree has finished (register_finished_kernel pops it when
//     kernel_info_t::is_finished, children included:
//     stream_manager.cc:277-291, abstract_hardware_model.cc:847-848). So
//     such a push is written as its launch and then a device sync at the
//     launch's t returning at the gpu_tot_sim_cycle of the statistics
//     block its tree completed in, preceded, where a host launch into
//     another stream was still running at the push, by a device sync
//     returning when that work had finished (the launch then issues at
//     that return).
//
// Not in the log at PTX_SIM_DEBUG=1, so not written: cudaMemcpy (pushed
// into stream 0 and so blocking like a launch there, cuda_runtime_api.cc:
// 1176-1196, but printed only at PTX_SIM_DEBUG=3, and costing no
// simulated cycles: do_operation runs it outside gpgpu_sim::cycle,
// stream_manager.cc:121-147), cudaEventRecord and cudaStreamWaitEvent
// (the "event update" and "stream wait event" lines are the simulation
// thread's and name neither event nor stream, stream_manager.cc:179,
// 187), and cudaStreamDestroy's wait for its stream (cuda_runtime_api.cc:
// 2029). cudaStreamSynchronize on a created stream returns at once in
// this GPGPU-Sim (cuda_runtime_api.cc:2047-2049 returns before
// stream->synchronize()), so there is no wait to carry.

var (
	lineSyncWait    = []byte("GPGPU-Sim: synchronize waiting for inactive GPU simulation")
	lineSyncDone    = []byte("GPGPU-Sim: detected inactive GPU simulation thread")
	lineEventWait   = []byte("GPGPU-Sim API: cudaEventSynchronize ** waiting for event")
	lineEventDone   = []byte("GPGPU-Sim API: cudaEventSynchronize ** event detected")
	prefixSyncLines = []byte("GPGPU-Sim")
)

// hostLines are lines the host thread prints, each with one printf, while
// the simulation thread may be printing: the calls' waits above, the
// stream manager's state that gpgpu_context::synchronize prints after its
// first line (stream_manager.cc:434, 101-102), and a kernel's push
// (cuda_runtime_api.cc:1003). The simulation thread writes the
// statistics of a finished kernel after the host's wait for it is over
// (print_stats runs once the kernel has left the stream manager,
// gpgpusim_entrypoint.cc:112-113 and 148-153), and writes some lines in
// pieces (the interconnect's averages go to cout one << at a time,
// intersim2/trafficmanager.cpp:2118; a LIVENESS line's "GPGPU-Sim Cycle
// N: ... - " prefix is a printf of its own, trace.h:60), so a host line
// can land inside one of its lines, and the rest of that line starts the
// line after: validation/gpgpusim/workloads/pathfinder-20k.log.xz:6651
// reads "Injected packet rate average = 0.226009 (GPGPU-Sim: synchronize
// waiting for inactive GPU simulation", then "4GPGPU-Sim API: Stream
// Manager State", then " samples)".
var hostLines = [][]byte{
	lineSyncWait, lineSyncDone, lineEventWait, lineEventDone,
	[]byte("GPGPU-Sim API: Stream Manager State"),
	[]byte("GPGPU-Sim API:    "), // a stream's line and its operations'
	prefixPush,
}

// hostLineAt is where in b a host line begins after the line's start, or
// -1: the simulation thread's line it cut is b[:i].
func hostLineAt(b []byte) int {
	for off := 1; off < len(b); {
		i := bytes.Index(b[off:], prefixSyncLines)
		if i < 0 {
			return -1
		}
		off += i
		for _, h := range hostLines {
			if bytes.HasPrefix(b[off:], h) {
				return off
			}
		}
		off++
	}
	return -1
}

// hostOpKind is the kind of a host call read: none yet, a launch or a
// sync.
type hostOpKind uint8

const (
	hostOpNone hostOpKind = iota
	hostOpLaunch
	hostOpSync
)

// hostOp is one host operation in program order: a host launch (k) or a
// synchronisation (sync), written once the log has shown it whole.
type hostOp struct {
	k    *kernel
	sync *trace.Sync
	// How a sync's return is known: at its closing line (explicit, done
	// once read), or once every operation before it has been written
	// (drain: the GPU is idle then, at the last block's total).
	drain bool
	done  bool
	skip  bool   // a cudaEventSynchronize that returned at its call: not written
	what  string // for errors: the call
	line  int
}

// syncLine reads the synchronisation lines; it reports whether b was one.
func (r *Reader) syncLine(b []byte) (bool, error) {
	if !bytes.HasPrefix(b, prefixSyncLines) {
		return false, nil
	}
	var open bool
	var what string
	switch {
	case bytes.HasPrefix(b, lineSyncWait):
		open, what = true, "cudaDeviceSynchronize"
	case bytes.HasPrefix(b, lineEventWait):
		open, what = true, "cudaEventSynchronize"
	case bytes.HasPrefix(b, lineSyncDone):
		what = "cudaDeviceSynchronize"
	case bytes.HasPrefix(b, lineEventDone):
		what = "cudaEventSynchronize"
	default:
		return false, nil
	}
	if err := r.start(); err != nil {
		return true, err
	}
	if !r.opts.Syncs {
		return true, nil
	}
	r.endState()
	if open {
		if r.waiting != nil {
			return true, r.errf("%s waits while %s, called on line %d, has not returned; one host thread makes one call at a time", what, r.waiting.what, r.waiting.line)
		}
		t := r.now()
		if r.idlePush() {
			// Called on an idle GPU after a launch: the host took over
			// where the GPU went idle, after waiting for it in a way the
			// log does not show (idlePush) or working; the call's own
			// wait stands for both, from the launch on.
			t = r.prevHostT
		}
		op := &hostOp{sync: &trace.Sync{Op: trace.SyncDevice, T: t}, what: what, line: r.line}
		r.waiting = op
		r.host = append(r.host, op)
		r.prevHostOp = hostOpSync
		if what == "cudaEventSynchronize" {
			r.sum.EventSyncs++
		}
		return true, nil
	}
	if r.waiting == nil || r.waiting.what != what {
		return true, r.errf("%s returns here, but the log shows no call of it waiting", what)
	}
	r.waiting.sync.Ret = r.now()
	r.waiting.done = true
	if what == "cudaEventSynchronize" && r.waiting.sync.Ret == r.waiting.sync.T {
		// It returned at its call: the simulator did not wait (in
		// 667834cf built -O3 the wait's busy loop, `while
		// (!e->done());`, has no side effect and is compiled away:
		// validation/gpgpusim/hostloop/README.md) or had nothing to wait
		// for. A device sync here would make the replay's host wait
		// where the simulator's did not.
		r.waiting.skip = true
		r.sum.EventSyncs--
		r.sum.EventSyncsAtCall++
	}
	r.waiting = nil
	return true, r.flush()
}

// idlePush reports whether a host call made now, a launch into a
// created stream or a sync, finds the GPU idle after the host's previous
// call was a launch: every host kernel's tree has run its CTAs. GPGPU-Sim's host costs no cycles
// and its clock stands still while the GPU is idle (gpgpusim_entrypoint.cc
// 87-89, 127-130), so the host took over where the GPU went idle: after a
// call the log does not show at PTX_SIM_DEBUG=1 (a cudaMemcpy, pushed
// into stream 0, which blocks until every stream is empty:
// stream_manager.cc:446-453, 475-485) or after host work of its own. A
// device sync returning where the GPU went idle carries it, so a what-if
// moves the launch with the GPU; without it the launch kept its captured
// cycle however much sooner or later the replayed GPU finished.
func (r *Reader) idlePush() bool {
	if r.prevHostOp != hostOpLaunch {
		return false // the first launch, or one after a sync that returned there
	}
	for _, op := range r.host {
		if op.k != nil && !r.eachInTree(op.k, (*kernel).finished) {
			return false
		}
	}
	return true
}

// treesPending reports whether a host launch read has its tree still to
// write.
func (r *Reader) treesPending() bool {
	for _, op := range r.host {
		if op.k != nil {
			return true
		}
	}
	return false
}

// pushSyncs adds the NULL stream's waits around a host launch k into
// stream 0 (stream_manager::push, stream_manager.cc:446-453 and
// 475-485): before it, when a launch into another stream is still
// running; after it, until its tree has finished.
func (r *Reader) pushSyncs(k *kernel) {
	if !r.opts.Syncs {
		r.host = append(r.host, &hostOp{k: k})
		return
	}
	switch {
	case k.stream == 0:
		for _, op := range r.host {
			if op.k != nil && op.k.stream != 0 && !op.k.finished() {
				r.host = append(r.host, &hostOp{sync: &trace.Sync{Op: trace.SyncDevice, T: r.now()}, drain: true, what: "the NULL stream's wait before a launch", line: r.line})
				break
			}
		}
	case r.idlePush():
		// Called, as far as the log can tell, right after the host's
		// previous launch (host code costs no cycles), and returned where
		// the GPU went idle: now, where every tree has been written (its
		// statistics read), else at the last one's block (drain).
		op := &hostOp{sync: &trace.Sync{Op: trace.SyncDevice, T: r.prevHostT}, drain: true, what: "the host's wait before a launch on an idle GPU", line: r.line}
		if !r.treesPending() {
			op.sync.Ret, op.drain, op.done = r.now(), false, true
		}
		r.host = append(r.host, op)
	}
	r.host = append(r.host, &hostOp{k: k})
	r.prevHostOp, r.prevHostT = hostOpLaunch, r.now()
	if k.stream == 0 {
		r.host = append(r.host, &hostOp{sync: &trace.Sync{Op: trace.SyncDevice, T: r.now()}, drain: true, what: "the NULL stream's wait after a launch", line: r.line})
		r.prevHostOp = hostOpSync
	}
}
