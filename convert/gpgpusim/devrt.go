package gpgpusim

import (
	"bytes"
	"strings"
)

// deviceRuntime reads the device runtime's report of a device launch,
// which GPGPU-Sim prints when the program runs with PTX_SIM_DEBUG set
// (cuda_device_runtime.cc's DEV_RUNTIME_REPORT). A launch is two calls:
//
//	cudaGetParameterBufferV2: "child kernel name N", "grid (x, y, z)",
//	  "block (x, y, z)", "shared memory S", "... parameter buffer
//	  allocated at 0xA"
//	cudaLaunchDeviceV2: "Parameter buffer locating at global memory 0xA",
//	  "child kernel launched by P, cta (x, y, z), thread (x, y, z)",
//	  "launching child kernel U to default stream of the cta S: 0x..."
//	  (or "... to stream S: 0x...")
//
// The lines carry no cycle; the launch lies between the stamps of the
// lines around it (see site).
func (r *Reader) deviceRuntime(b []byte) error {
	if i := bytes.Index(b, []byte(": ")); i >= 0 {
		b = b[i+2:] // the source line number
	}
	c := newCursor(b)
	switch {
	case bytes.HasPrefix(b, []byte("Calling cudaGetParameterBufferV2")):
		r.param = childShape{}
	case bytes.HasPrefix(b, []byte("child kernel name ")):
		r.param.name = strings.TrimSpace(string(b[len("child kernel name "):]))
	case bytes.HasPrefix(b, []byte("grid ")):
		c.skip("grid")
		r.param.grid = c.dim3(false)
	case bytes.HasPrefix(b, []byte("block ")):
		c.skip("block")
		r.param.block = c.dim3(false)
	case bytes.HasPrefix(b, []byte("shared memory ")):
		c.skip("shared memory")
		r.param.smem = c.int(0, 1<<40)
	case bytes.HasPrefix(b, []byte("child kernel arg size total")):
		c.past("parameter buffer allocated at ")
		addr := strings.TrimSpace(string(c.b))
		if c.ok && addr != "" {
			if r.param.name == "" || r.param.grid[0] == 0 || r.param.block[0] == 0 {
				return r.errf("a parameter buffer for a child kernel whose name, grid or block the log did not give")
			}
			r.params[addr] = r.param
		}
	case bytes.HasPrefix(b, []byte("Calling cudaLaunchDeviceV2")):
		r.child = pendingLaunch{active: true}
	case bytes.HasPrefix(b, []byte("Parameter buffer locating at global memory ")):
		addr := strings.TrimSpace(string(b[len("Parameter buffer locating at global memory "):]))
		s, ok := r.params[addr]
		if !ok || !r.child.active {
			return r.errf("a device launch of a parameter buffer (%s) that no cudaGetParameterBufferV2 before it allocated", addr)
		}
		delete(r.params, addr)
		r.child.shape = s
	case bytes.HasPrefix(b, []byte("child kernel launched by ")):
		return r.launchedBy(b)
	case bytes.HasPrefix(b, []byte("launching child kernel ")):
		return r.launchChild(b)
	}
	if !c.ok {
		return r.errf("a device-runtime line not as GPGPU-Sim prints it")
	}
	return nil
}

// launchedBy reads "child kernel launched by P, cta (x, y, z), thread
// (x, y, z)" and finds the parent: the running kernel named P whose CTA
// of that index is resident.
func (r *Reader) launchedBy(b []byte) error {
	c := newCursor(b[len("child kernel launched by "):])
	name := c.until(", cta")
	cta := c.dim3(true)
	c.skip(", thread")
	tid := c.dim3(true)
	if !c.ok || !r.child.active || r.child.shape.name == "" {
		return r.errf("a device launch's parent not as GPGPU-Sim prints it, or without its parameter buffer")
	}
	var found *kernel
	var lin uint64
	for _, k := range r.running[name] {
		i, ok := linear(cta, k.grid)
		if !ok || i >= uint64(len(k.ctas)) || k.ctas[i].end >= 0 {
			continue
		}
		if found != nil {
			return r.errf("two running kernels named %s (%d and %d) have CTA %v running; the log does not say which launched", name, found.id, k.id, cta)
		}
		found, lin = k, i
	}
	if found == nil {
		return r.errf("no running kernel named %s has CTA %v running", name, cta)
	}
	t, ok := linear(tid, found.block)
	if !ok {
		return r.errf("thread %v is outside kernel %d's blocks of %v", tid, found.id, found.block)
	}
	r.child.parent, r.child.cta, r.child.tid = found, lin, t
	return nil
}

// launchChild reads "launching child kernel U to default stream of the
// cta S: 0x..." (or "to stream S: 0x...") and records the launch at its
// warp's site.
func (r *Reader) launchChild(b []byte) error {
	c := newCursor(b[len("launching child kernel "):])
	uid := c.int(1, 1<<62)
	c.past("stream")
	stream := strings.TrimSpace(string(c.b))
	if i := strings.Index(stream, ":"); i >= 0 {
		stream = stream[:i]
	}
	if !c.ok || r.child.parent == nil {
		return r.errf("a device launch not as GPGPU-Sim prints it, or without its parent")
	}
	if r.streams[stream] {
		r.sum.SharedStreams++
	}
	r.streams[stream] = true
	k, err := r.newKernel(uint64(uid), r.child.shape)
	if err != nil {
		return err
	}
	p := r.child.parent
	warp, lane := int(r.child.tid/32), int(r.child.tid%32)
	s := r.lastSite
	if s == nil || r.stampedSince || s.parent != p || s.cta != r.child.cta || s.warp != warp {
		// A new instruction: lanes of one warp's launch instruction are
		// reported one after another, with no stamped line between.
		s = &site{parent: p, cta: r.child.cta, warp: warp, lo: r.cycle, hi: -1}
		p.sites = append(p.sites, s)
		r.openSites = append(r.openSites, s)
		r.lastSite = s
		r.sum.Sites++
	}
	s.kids = append(s.kids, k)
	k.site, k.lane = s, lane
	p.kids = append(p.kids, k.id)
	r.sum.DeviceKernels++
	r.stampedSince = false
	r.child = pendingLaunch{}
	return nil
}
