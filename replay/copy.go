package replay

// Explicit host copies (`memcpy` records): a cudaMemcpyAsync the host issues
// in program order. It costs the host thread lat.host_issue like any CUDA
// call, reaches its stream lat.host_launch later, waits for the operations
// ahead of it in the stream, and then occupies its direction's copy engine
// (one each way over PCIe, io.pcie_gbps) for bytes / rate. Operations
// behind it in the stream wait until it is done. With io.memcpy=sync the
// call is a cudaMemcpy, which returns only when the copy is done (CUDA
// Runtime API, "API synchronization behavior"): the thread is held for
// the copy's own bytes / rate as well (copyWait).

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// copyOp is what a copy moves. A copy travels through the host and stream
// machinery as a Kernel with copy set, so it is ordered exactly like one.
type copyOp struct {
	dir   string
	bytes int64
	wait  *hostWait // the blocking call a copy that blocks is (trace.Memcpy.Blocks), else nil
}

func newCopy(m *trace.Memcpy) *Kernel {
	return &Kernel{host: true, stream: m.Stream,
		kernelRun: &kernelRun{startCycle: -1, order: -1, rare: &kernelRare{copy: &copyOp{dir: m.Dir, bytes: m.Bytes}}}}
}

// startCopy runs a copy that reached the head of its stream.
func (h *hostSide) startCopy(k *Kernel) {
	start, end := h.io.copy(k.copyOp().dir == trace.DirD2H, h.clock.now(), k.copyOp().bytes)
	k.startCycle = start
	h.out.busyFor(start, end)
	h.clock.kernel(end, evCopyDone, k)
}

// copyDone releases what waits behind a finished copy in its stream.
func (h *hostSide) copyDone(k *Kernel) {
	k.state = kComplete
	if h.an != nil {
		h.an.KernelDone(k)
	}
	h.nextInStream(k)
	if h.legacy != nil {
		for _, w := range h.legacy.copyDone(k) {
			h.enterStream(w)
		}
	}
	h.opDone(k)
}

// syncCopyWait is how long a synchronous copy of bytes holds its host
// thread beyond the call (io.memcpy=sync): its own time on the copy
// engine, io.copy_latency and its bytes at io.pcie_gbps (copyTime). It
// is a lower bound — a copy queued behind others on its
// copy engine would hold the thread longer — chosen because the host's
// issue times are planned when a call is read, before the engine's queue
// is known (with io.memcpy=legacy, before it is known what the copy waits
// for). Zero with io.memcpy=async. The task runtimes' driver uses it too.
// n is how many copies the bytes are (the task runtimes sum a task's).
func syncCopyWait(cfg model.Config, n, bytes int64) int64 {
	if cfg.IO.Memcpy == model.MemcpyAsync {
		return 0
	}
	return copyTime(cfg, n, bytes)
}

// copyTime is the time n copies of bytes in all hold their copy engine:
// n × io.copy_latency and the bytes at io.pcie_gbps, capped like every
// other cost, so absurd rates cannot wrap a thread's clock.
func copyTime(cfg model.Config, n, bytes int64) int64 {
	fixed := float64(n) * float64(cfg.IO.CopyLatency)
	return roundCycle(min(fixed+float64(bytes)*pcieCyclesPerByte(cfg.GPU.ClockMHz, cfg.IO.PCIeGBps), model.MaxCost))
}
