package samples

import (
	"math"
	"math/rand/v2"
)

// Pagoda's 3DES encrypts network packets, each packet a task (Table 4);
// the packets' sizes, 2K to 64K bytes from NetBench, are what make the
// benchmark irregular. DES's work per block does not depend on the data,
// so a task's cost follows from its packet's size alone.

// desTasks draws each task's packet size.
type desTasks struct {
	rng      *rand.Rand
	min, max int
	threads  int
	last     int // the last packet's bytes
}

// lastIO implements taskIO: a packet goes in and comes back encrypted.
func (d *desTasks) lastIO() (int64, int64) { return int64(d.last), int64(d.last) }

// newDESTasks draws packet sizes from the kind's seed.
func newDESTasks(c *tasksConfig, _ int, seed uint64, _ map[string]string) taskSource {
	return &desTasks{rng: newRand(seed), min: c.packetMin, max: c.packetMax, threads: c.threads}
}

// packet draws a size in [min, max] bytes, log-uniformly: as many packets
// between 2K and 4K as between 32K and 64K. NetBench's own size
// distribution is not in the paper, and spreading sizes over octaves keeps
// both the short tasks and the long ones common.
func (d *desTasks) packet() int {
	lo, hi := math.Log(float64(d.min)), math.Log(float64(d.max))
	return min(d.max, max(d.min, int(math.Round(math.Exp(lo+d.rng.Float64()*(hi-lo))))))
}

func (d *desTasks) next() []int64 {
	d.last = d.packet()
	return desTaskWarps(d.last, d.threads)
}

// desTaskWarps is the cost of encrypting a packet of bytes bytes, padded
// to whole 8-byte blocks, with the blocks independent (ECB or counter
// mode: a chained mode would leave one thread per packet) and dealt to the
// threads, each block one thread's whole Triple DES.
func desTaskWarps(bytes, threads int) []int64 {
	return dealtWarps(ceilDiv(bytes, 8), threads, desBlockCycles+desRounds*desRoundCycles)
}
