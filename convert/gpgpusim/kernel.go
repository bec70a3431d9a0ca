package gpgpusim

import "github.com/gpureplay/gpureplay/trace"

// kernel is one grid the log shows running, from its launch until its
// launch tree has been written.
type kernel struct {
	id          uint64
	name        string
	grid, block [3]uint32
	regs        int
	smem        int64
	host        bool
	stream      uint64 // host launches: the CUDA stream
	t           int64  // host launches: the cycle of the push
	line        int    // the log line that launched it

	// Device launches: the site that launched it, its lane there, and
	// the stream it went into (a created stream's uid; creates: the
	// first launch into a stream created since).
	site       *site
	lane       int
	devStream  trace.DeviceStream
	devStreamU uint64
	creates    bool

	ctas  []ctaRun // by linear CTA index, in the order they started
	ended uint64   // CTAs finished
	sites []*site  // launch sites reached by its CTAs, in log order
	// lastLaunch is the lo of each (CTA, warp)'s latest site.
	lastLaunch map[[2]uint64]int64
	kids       []uint64 // kernels its CTAs launched, in launch order
	stats      bool     // its statistics block has been read
	started    int64    // its first CTA's start cycle; -1 before
}

// ctaRun is one CTA's measured run and the demand spread onto it.
type ctaRun struct {
	start, end int64 // cycles; end is -1 while it runs
	insts      uint64
	dramBytes  uint64
}

// ctas is the number of CTAs in the grid.
func (k *kernel) total() uint64 {
	return uint64(k.grid[0]) * uint64(k.grid[1]) * uint64(k.grid[2])
}

// finished reports whether every CTA of the grid has run.
func (k *kernel) finished() bool { return k.ended == k.total() }

// threads is the number of threads per CTA.
func (k *kernel) threads() int64 {
	return int64(k.block[0]) * int64(k.block[1]) * int64(k.block[2])
}

// warps is the number of warps per CTA.
func (k *kernel) warps() int64 { return (k.threads() + 31) / 32 }

// linear is a CTA's (or thread's) index in x-then-y-then-z order, as
// GPGPU-Sim numbers CTAs (kernel_info_t::get_next_cta_id_single).
func linear(i, dim [3]uint32) (uint64, bool) {
	for a := range i {
		if i[a] >= dim[a] {
			return 0, false
		}
	}
	return uint64(i[0]) + uint64(dim[0])*(uint64(i[1])+uint64(dim[1])*uint64(i[2])), true
}

// site is one warp-level launch site: the lanes of one warp of one CTA
// whose device launches the simulator executed as one instruction.
type site struct {
	parent *kernel
	cta    uint64
	warp   int
	kids   []*kernel // in lane order of the log
	lo, hi int64     // the launch cycle lies in [lo, hi]; hi is -1 until known
	at     int64     // cycles into the warp's own run, set when written
	seq    int       // the sites' order in the log
}

// creates reports whether a lane of s created its child's stream first.
func (s *site) creates() bool {
	for _, k := range s.kids {
		if k.creates {
			return true
		}
	}
	return false
}

// has reports whether lane already launched at s.
func (s *site) has(lane int) bool {
	for _, k := range s.kids {
		if k.lane == lane {
			return true
		}
	}
	return false
}
