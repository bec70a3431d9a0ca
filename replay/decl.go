package replay

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// kernelDecl is what the engine keeps of a kernel's declaration: what one
// CTA is and occupies, without the kernel's id and grid (a Kernel has its
// own). Kernels declared alike share one, so the tens of thousands of
// children of one kernel function a launch-heavy trace has pending at once
// (BFS scale 20 under CDP) keep one copy, not one each.
type kernelDecl struct {
	Name  string
	Block [3]uint32
	Regs  int
	Smem  int64
	// need is what one CTA occupies on an SM, which the declaration
	// alone sets: kept here, not in each Kernel, it costs the kernels
	// declared alike nothing.
	need need
}

// declOf is what the engine keeps of declaration d.
func declOf(d *trace.Kernel) kernelDecl {
	kd := kernelDecl{Name: d.Name, Block: d.Block, Regs: d.Regs, Smem: d.Smem}
	warps := warpsPerCTA(kd.Threads())
	kd.need = need{warps: int32(warps), regs: int32(kd.Regs * warps * model.WarpSize), smem: kd.Smem}
	return kd
}

// declares reports whether kd is declaration d's (kd may be nil): what
// declOf takes from it is the same, so is what it makes of that. It
// spares declCache.of building the key of a kernel declared as the one
// before it, as a launch level's children are.
func (kd *kernelDecl) declares(d *trace.Kernel) bool {
	return kd != nil && kd.Name == d.Name && kd.Block == d.Block && kd.Regs == d.Regs && kd.Smem == d.Smem
}

// Threads is the number of threads per CTA.
func (d *kernelDecl) Threads() int {
	return int(d.Block[0]) * int(d.Block[1]) * int(d.Block[2])
}

// maxDecls bounds the declarations declCache remembers: a trace may
// declare any number of distinct ones, and sharing needs only the recent.
const maxDecls = 1024

// declCache hands out one kernelDecl per distinct declaration among those
// seen lately.
type declCache struct {
	m    map[kernelDecl]*kernelDecl
	last *kernelDecl // the one handed out last: a launch level's children are declared alike
}

// of is d's shared kernelDecl. Past maxDecls the cache starts afresh:
// kernels keep what they were given, so this bounds only the sharing.
func (c *declCache) of(d *trace.Kernel) *kernelDecl {
	if c.last.declares(d) {
		return c.last
	}
	key := declOf(d)
	kd := c.m[key]
	if kd == nil {
		if c.m == nil || len(c.m) >= maxDecls {
			c.m = make(map[kernelDecl]*kernelDecl)
		}
		kd = new(kernelDecl) // not &key: that would move every lookup's key to the heap
		*kd = key
		c.m[key] = kd
	}
	c.last = kd
	return kd
}
