package gpgpusim

import (
	"bytes"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
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
//	cudaStreamCreateWithFlags: "Create stream S: 0x..." (S is the
//	  stream's uid, which a later launch "to stream S" names)
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
			r.param.hi = -1
			r.params[addr] = r.param
			r.openParams = append(r.openParams, addr)
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
	case bytes.HasPrefix(b, []byte("Create stream ")):
		c.skip("Create stream")
		r.created[uint64(c.int(0, 1<<62))] = true
		r.sum.StreamsCreated++
	}
	if !c.ok {
		return r.errf("a device-runtime line not as GPGPU-Sim prints it")
	}
	return nil
}

// launchedBy reads "child kernel launched by P, cta (x, y, z), thread
// (x, y, z)" and finds the parent among the running kernels named P whose
// CTA of that index is resident (see parentOf).
func (r *Reader) launchedBy(b []byte) error {
	c := newCursor(b[len("child kernel launched by "):])
	name := c.until(", cta")
	cta := c.dim3(true)
	c.skip(", thread")
	tid := c.dim3(true)
	var hint uint64
	if bytes.HasPrefix(c.b, []byte(", parent_uid ")) {
		// Written by the 3.x dialect's translation where the log says
		// which kernel launched (dialect322.go); GPGPU-Sim prints no such
		// field.
		c.skip(", parent_uid")
		hint = uint64(c.int(1, 1<<62))
	}
	if !c.ok || !r.child.active || r.child.shape.name == "" {
		return r.errf("a device launch's parent not as GPGPU-Sim prints it, or without its parameter buffer")
	}
	k, lin, cands, err := r.parentOf(name, cta, tid, hint)
	if err != nil {
		return err
	}
	t, _ := linear(tid, k.block)
	r.child.parent, r.child.cta, r.child.tid, r.child.cands = k, lin, t, cands
	return nil
}

// parentOf picks the kernel that launched: the log names the parent
// kernel, CTA and thread but not the kernel's id, and several kernels of
// one name (a recursion's siblings) may have that CTA resident at once.
// Then, in order:
//
//  1. a lane of the instruction being reported (the last site, no stamped
//     line since, the same CTA and warp, a lane not yet in it) belongs to
//     that site's kernel;
//  2. a CTA that started later than the first stamped line after that
//     cudaGetParameterBufferV2 less the call's stall for one lane
//     (cdp_latency's b + a) is out: GPGPU-Sim stalls the warp before the
//     call issues (shader.cc:1391-1406 set m_cdp_latency on the first try
//     and issue nothing; 1303-1305 count it down, at most once a cycle),
//     so the call printed at least that long after the CTA started (the
//     call's own line, cuda_device_runtime.cc:32, prints as it issues);
//  3. a warp still stalled in an earlier launch (its last site less than
//     the two calls' fixed costs ago) cannot launch again, so it is out;
//  4. of those left, the CTA that started first (then the lower id), for
//     now: a new site's parent is settled when the first of those left
//     finishes (siblings.go), which it returns as cands.
//
// Step 2 is a bound the simulator's source sets, on this launch alone;
// 3 and 4 are guesses (3 compares with the last stamp, which may lie well
// before the launch), and a step that would leave no kernel is skipped.
// A choice made at step 4 among several is counted (Summary.Ambiguous).
// A hint other than 0 is the parent's number where the log gives it (the
// 3.x dialect's, dialect322.go): then no choice is made.
func (r *Reader) parentOf(name string, cta, tid [3]uint32, hint uint64) (*kernel, uint64, []siteCand, error) {
	type cand = siteCand
	var cands []cand
	for _, k := range r.running[name] {
		i, ok := linear(cta, k.grid)
		if ok && i < uint64(len(k.ctas)) && k.ctas[i].end < 0 {
			if _, ok := linear(tid, k.block); ok {
				cands = append(cands, cand{k, i})
			}
		}
	}
	if hint != 0 {
		for _, c := range cands {
			if c.k.id == hint {
				return c.k, c.cta, nil, nil
			}
		}
		return nil, 0, nil, r.errf("kernel %d (%s), which the log says launched, does not have CTA %v running with a thread %v", hint, name, cta, tid)
	}
	if len(cands) == 0 {
		return nil, 0, nil, r.errf("no running kernel named %s has CTA %v running with a thread %v", name, cta, tid)
	}
	warpOf := func(c cand) int {
		t, _ := linear(tid, c.k.block)
		return int(t / 32)
	}
	if s := r.lastSite; s != nil && !r.stampedSince {
		for _, c := range cands {
			t, _ := linear(tid, c.k.block)
			if s.parent == c.k && s.cta == c.cta && s.warp == warpOf(c) && !s.has(int(t%32)) {
				return c.k, c.cta, nil, nil
			}
		}
	}
	if hi := r.child.shape.hi; hi >= 0 && len(cands) > 1 {
		called := cands[:0:0]
		for _, c := range cands {
			if c.k.ctas[c.cta].start <= hi-r.g.cdpLatency[1]-r.g.cdpLatency[2] {
				called = append(called, c)
			}
		}
		if len(called) > 0 {
			cands = called
		}
	}
	stall := r.g.cdpLatency[1] + r.g.cdpLatency[3]
	free := cands[:0:0]
	for _, c := range cands {
		if lo, ok := c.k.lastLaunch[[2]uint64{c.cta, uint64(warpOf(c))}]; !ok || lo <= r.cycle-stall {
			free = append(free, c)
		}
	}
	if len(free) == 0 {
		free = cands
	}
	best := free[0]
	for _, c := range free[1:] {
		if s, b := c.k.ctas[c.cta].start, best.k.ctas[best.cta].start; s < b || s == b && c.k.id < best.k.id {
			best = c
		}
	}
	if len(free) > 1 {
		r.sum.Ambiguous++
		return best.k, best.cta, free, nil
	}
	return best.k, best.cta, nil, nil
}

// launchChild reads "launching child kernel U to default stream of the
// cta S: 0x..." (or "to stream S: 0x...") and records the launch at its
// warp's site.
func (r *Reader) launchChild(b []byte) error {
	c := newCursor(b[len("launching child kernel "):])
	uid := c.int(1, 1<<62)
	// The CTA's default stream is shared by its launches that name no
	// stream (kernel_info_t::get_default_stream_cta); a named one is a
	// stream the CTA created (create_stream_cta), whose uid the log gave
	// when it was created.
	kind, stream := trace.CTAStream, uint64(0)
	if bytes.Contains(c.b, []byte("to default stream of the cta")) {
		c.past("to default stream of the cta")
		c.int(0, 1<<62)
	} else {
		c.skip("to stream")
		kind, stream = trace.CreatedStream, uint64(c.int(0, 1<<62))
	}
	if !c.ok || r.child.parent == nil {
		return r.errf("a device launch not as GPGPU-Sim prints it, or without its parent")
	}
	k, err := r.newKernel(uint64(uid), r.child.shape)
	if err != nil {
		return err
	}
	k.devStream, k.devStreamU = kind, stream
	if kind == trace.CTAStream {
		r.sum.DefaultStream++
	} else {
		r.sum.CreatedStream++
		// The first launch into a stream created since is taken to be
		// its creator's: the log does not say which thread created it.
		k.creates = r.created[stream]
		delete(r.created, stream)
	}
	p := r.child.parent
	warp, lane := int(r.child.tid/32), int(r.child.tid%32)
	s := r.lastSite
	if s == nil || r.stampedSince || s.parent != p || s.cta != r.child.cta || s.warp != warp || s.has(lane) {
		// A new instruction: lanes of one warp's launch instruction are
		// reported one after another, with no stamped line between.
		s = &site{parent: p, cta: r.child.cta, warp: warp, lo: r.cycle, hi: -1, seq: r.sum.Sites}
		p.sites = append(p.sites, s)
		if r.child.cands == nil {
			// A site still undecided (deferSite) marks no warp busy: its
			// parent for now is a guess, which would keep the next
			// site from the warp that may be its own.
			if p.lastLaunch == nil {
				p.lastLaunch = map[[2]uint64]int64{}
			}
			p.lastLaunch[[2]uint64{r.child.cta, uint64(warp)}] = r.cycle
		}
		r.openSites = append(r.openSites, s)
		r.lastSite = s
		r.sum.Sites++
		if r.child.cands != nil {
			r.deferSite(s, r.child.cands)
		}
	}
	s.kids = append(s.kids, k)
	k.site, k.lane = s, lane
	p.kids = append(p.kids, k.id)
	r.sum.DeviceKernels++
	r.stampedSince = false
	r.child = pendingLaunch{}
	return nil
}
