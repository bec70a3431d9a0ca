package gpgpusim

import (
	"bytes"
	"strconv"
)

// The line shapes the importer reads. GPGPU-Sim's other output (statistics
// it does not use, the program's own printing) is skipped.
var (
	prefixCycle    = []byte("GPGPU-Sim Cycle ")
	prefixPush     = []byte("GPGPU-Sim PTX: pushing kernel '")
	prefixPTXInfo  = []byte("GPGPU-Sim PTX: Kernel '")
	prefixVersion  = []byte("*** GPGPU-Sim Simulator Version ")
	prefixDevRT    = []byte("cuda_device_runtime.cc, ")
	prefixUIDs     = []byte("kernel_launch_uid = ")
	prefixWarpInst = []byte("gpgpu_n_tot_w_icount = ")
	prefixDRAMRd   = []byte("total dram reads = ")
	prefixDRAMWr   = []byte("total dram writes = ")
	prefixTotCycle = []byte("gpu_tot_sim_cycle = ")
	prefixSimCycle = []byte("gpu_sim_cycle = ")
	prefixExit     = []byte("GPGPU-Sim: *** exit detected ***")
	markStatsEnd   = []byte("END-of-Interconnect-DETAILS")

	prefixUArch      = []byte("GPGPU-Sim uArch: ")
	livenessCTA      = []byte("GPGPU-Sim uArch: cta:")
	livenessFinished = []byte("GPGPU-Sim uArch: Finished CTA #")
	livenessCore     = []byte("LIVENESS - Core ")
)

// cursor reads fields left to right from one line; the first failure
// sticks, so a caller checks ok once at the end.
type cursor struct {
	b  []byte
	ok bool
}

func newCursor(b []byte) cursor { return cursor{b: b, ok: true} }

// skip consumes lit, which must come next (after spaces).
func (c *cursor) skip(lit string) {
	c.b = bytes.TrimLeft(c.b, " \t")
	if !c.ok || !bytes.HasPrefix(c.b, []byte(lit)) {
		c.ok = false
		return
	}
	c.b = c.b[len(lit):]
}

// past consumes everything up to and including lit.
func (c *cursor) past(lit string) {
	i := bytes.Index(c.b, []byte(lit))
	if !c.ok || i < 0 {
		c.ok = false
		return
	}
	c.b = c.b[i+len(lit):]
}

// until returns the text up to lit and consumes both.
func (c *cursor) until(lit string) string {
	i := bytes.Index(c.b, []byte(lit))
	if !c.ok || i < 0 {
		c.ok = false
		return ""
	}
	s := string(c.b[:i])
	c.b = c.b[i+len(lit):]
	return s
}

// int reads a decimal integer (after spaces) from lo to hi.
func (c *cursor) int(lo, hi int64) int64 {
	c.b = bytes.TrimLeft(c.b, " \t")
	n := 0
	for n < len(c.b) && (c.b[n] >= '0' && c.b[n] <= '9' || n == 0 && c.b[n] == '-') {
		n++
	}
	v, err := strconv.ParseInt(string(c.b[:n]), 10, 64)
	if !c.ok || err != nil || v < lo || v > hi {
		c.ok = false
		return 0
	}
	c.b = c.b[n:]
	return v
}

// dim3 reads "(x,y,z)" or "(x, y, z)", each from 1 (0 when zero is
// allowed) to 2^31-1.
func (c *cursor) dim3(zero bool) [3]uint32 {
	var d [3]uint32
	lo := int64(1)
	if zero {
		lo = 0
	}
	c.skip("(")
	for i := range d {
		if i > 0 {
			c.skip(",")
		}
		d[i] = uint32(c.int(lo, 1<<31-1))
	}
	c.skip(")")
	return d
}

// lastInt is the decimal integer a "name = N" line ends with.
func lastInt(line []byte, prefix []byte) (int64, bool) {
	c := newCursor(line[len(prefix):])
	v := c.int(0, 1<<62)
	return v, c.ok
}
