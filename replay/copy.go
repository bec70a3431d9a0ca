package replay

// Explicit host copies (`memcpy` records): a cudaMemcpyAsync the host issues
// in program order. It costs the host thread lat.host_issue like any CUDA
// call, reaches its stream lat.host_launch later, waits for the operations
// ahead of it in the stream, and then occupies its direction's copy engine
// (one each way over PCIe, io.pcie_gbps) for bytes / rate. Operations
// behind it in the stream wait until it is done.

import (
	"github.com/gpureplay/gpureplay/trace"
)

// copyOp is what a copy moves. A copy travels through the host and stream
// machinery as a Kernel with copy set, so it is ordered exactly like one.
type copyOp struct {
	dir   string
	bytes int64
}

func newCopy(m *trace.Memcpy) *Kernel {
	return &Kernel{host: true, stream: m.Stream, order: -1, startCycle: -1,
		copy: &copyOp{dir: m.Dir, bytes: m.Bytes}}
}

// startCopy runs a copy that reached the head of its stream.
func (e *engine) startCopy(k *Kernel) {
	ch, st := &e.io.h2d, stH2D
	if k.copy.dir == trace.DirD2H {
		ch, st = &e.io.d2h, stD2H
	}
	start, end := ch.move(e.now, k.copy.bytes)
	e.io.stages[st].cover(start, end)
	k.startCycle = start
	e.busy.cover(start, end)
	e.scheduleKernel(end, evCopyDone, k)
}

// copyDone releases what waits behind a finished copy in its stream.
func (e *engine) copyDone(k *Kernel) {
	k.state = kComplete
	e.nextInStream(k)
}
