package replay

// CUDA's legacy default stream (io.memcpy=legacy): a plain cudaMemcpy
// issued there "synchronizes with all other streams" (CUDA Runtime API,
// "Stream synchronization behavior"): it begins only when every operation
// issued before it, in any stream, has completed, and every operation
// issued after it waits for it to complete. Host operations reach the GPU
// in issue order (each lat.host_launch after its call), so the gate below
// works in arrival order. Every copy of the trace is such a copy; kernels
// keep their own streams.

// legacyGate holds host operations behind a copy on the legacy stream.
type legacyGate struct {
	active  int       // host kernels let through and not complete
	barrier *Kernel   // the legacy copy waiting for them, or running
	waiting bool      // barrier waits for active to reach zero
	held    []*Kernel // operations that arrived behind the barrier, in order
}

// admit says whether k, a host operation that just arrived, may enter its
// stream now; otherwise the gate keeps it until the barrier ahead of it
// is done (or, for a copy, until what is ahead of it has completed).
func (g *legacyGate) admit(k *Kernel) bool {
	switch {
	case g.barrier != nil:
		g.held = append(g.held, k)
		return false
	case k.copyOp() != nil:
		g.barrier = k
		g.waiting = g.active > 0
		return !g.waiting
	default:
		g.active++
		return true
	}
}

// kernelDone notes a host kernel's completion and returns the barrier copy
// it released, or nil.
func (g *legacyGate) kernelDone() *Kernel {
	g.active--
	if g.active == 0 && g.waiting {
		g.waiting = false
		return g.barrier
	}
	return nil
}

// copyDone notes the barrier's completion and returns the operations it
// releases, in order, up to and including the next barrier copy.
func (g *legacyGate) copyDone(k *Kernel) []*Kernel {
	if k != g.barrier {
		return nil
	}
	g.barrier = nil
	var out []*Kernel
	for len(g.held) > 0 && g.barrier == nil {
		h := g.held[0]
		g.held[0] = nil
		g.held = g.held[1:]
		if g.admit(h) {
			out = append(out, h)
		}
	}
	return out
}
