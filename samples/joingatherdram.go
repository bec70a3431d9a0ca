package samples

import (
	"container/heap"
	"math"
)

// join_gather under DRAM load (docs/calibration.md, "JOIN's join_gather").
//
// joinRegGatherKernel (join/joinRegDevice.h:379-411 at 1397e03) reads
// each partition's output pairs from the scattered buffers, where
// join_main and its children wrote them, and writes them to the compact
// ones: 8 bytes read and 8 written an output. Partition c's pairs sit at
// devOutBounds[c] in each scattered buffer, the prefix sum of
// "max(upperBound - lowerBound, leftEnd - leftStart) * JOIN_BLOCK_SF"
// (joinRegDevice.h:103; JOIN_BLOCK_SF 300 in tests/testJoin.cu's
// Settings), so a partition's pairs start 300 entries a tuple of its
// larger side after the previous one's, whatever it found. Where those
// regions land decides which DRAM channel serves them: GPGPU-Sim maps a
// 256-byte chunk of addresses to a channel as "(addr >> ADDR_CHIP_S) %
// m_n_channel" (src/gpgpu-sim/addrdec.cc:117 at 667834cf, dramid@8 in the
// captured -gpgpu_mem_addr_mapping, 12 channels), each channel's two
// sub-partitions holding their own slice of the L2 (-gpgpu_cache:dl2
// S:32:128:16 each: 64 KB, 128 KB a channel), and cudaMalloc places
// buffers one after another, each rounded up to 256 bytes
// ("m_dev_malloc += (256 - size % 256)", src/cuda-sim/cuda-sim.cc:453).
// With 128-tuple partitions a region is 153,600 bytes, 600 chunks, so at
// 30,720 keys every partition's first kilobyte falls on the same four
// channels; in the capture those four moved 66% of the kernel's DRAM
// atoms and the six quietest 13%.
//
// A channel's traffic (joinChannelDRAM) is what its L2 slice cannot keep
// of the partition bytes it serves: the scattered bytes, written before
// the kernel, that the copy reads, and the dirty lines it evicts. The
// kernel's DRAM time is its busiest channel's (joinGatherDRAMCycles): its
// 32-byte atoms (BL 8 × 4-byte bus, "dram_atom_size = BL * busW *
// gpu_n_mem_per_ctrlr", gpu-sim.h:254) at a loaded channel's time an
// atom (joinDRAMServiceMilli), over the share of the kernel the channel
// has a request to serve (joinDRAMChannelUtil). A busy channel refuses
// the L2 once its queue is full ("if (!m_L2_dram_queue->full() &&
// !m_icnt_L2_queue->empty())", l2cache.cc:517;
// -gpgpu_dram_partition_queues 32:32:32:32), the L2 then the
// interconnect, so every warp's loads wait in that one queue: the
// copying warps share the DRAM time (joinGatherDRAMCopy). The wait
// issues nothing and moves nothing, so the warps' demand stays their
// mix over their time alone (hostKernelAlone).
//
// GPGPU-Sim's DRAM counts each of a channel's cycles once
// (dram_t::cycle, dram.cc:491-525 at 667834cf): util_bw while a column
// command's data moves ("if (issued_col_cmd || CCDc)"), Wasted_Col while
// a row hit waits on a column timer (the read/write turnarounds WTRc and
// RTWc, set to tWTR and tRTW at dram.cc:609 and 573, and the bank
// group's CCDLc), Wasted_Row while its requests wait on activations, and
// Idle while no bank holds a request. The first three are the channel's
// service: 2 + 1.46 + 0.38 = 3.84 DRAM cycles an atom on the busiest
// channel of the calibration capture. Idle is the rest: the channel is
// fed by the requests in flight, which visit the channels in proportion
// to their traffic, so a channel that serves a larger share of them
// waits less for its next one. joinDRAMChannelUtil is that closed loop
// by mean-value analysis, the channels as queues with demands in
// proportion to their atoms and joinDRAMPopulation requests circulating
// (fitted, not stated: the copying warps, 896 of them with one load each,
// would keep every channel's queue full, where the captures' busiest
// channels idle 0.28 to 0.34 of the kernel).
//
// Cost: the layout walks each partition's pairs in 256-byte chunks
// (the kernel's output bytes over 256), the traffic is 12 closed forms,
// the loop joinDRAMPopulation × 12 steps, and the sharing a heap of the
// kernel's copying warps.
const (
	// joinBlockSF is Dragon_li's JOIN_BLOCK_SF (tests/testJoin.cu's
	// join Settings: 700, 300): a partition's room in the scattered
	// buffers, entries a tuple of its larger side.
	joinBlockSF = 300

	// The captured configuration's DRAM and L2 (its option dump):
	// -gpgpu_n_mem 12, dramid@8 (a channel a 256-byte chunk), 2
	// sub-partitions a channel, each an L2 of 32 sets × 16 ways × 128
	// bytes.
	joinDRAMChannels     = 12
	joinDRAMChunk        = 256
	joinL2ChannelBytes   = 2 * 32 * 16 * 128
	joinDRAMAtomBytes    = 32
	joinOutputEntryBytes = 4 // SizeType: an id in one buffer

	// joinDRAMCycleMilli is a DRAM cycle in thousandths of the trace's
	// 706 MHz cycles (-gpgpu_clock_domains 837:837:837:1502: the DRAM's
	// command clock 1502 MHz, n_cmd's unit): 706 × 1000 / 1502 = 470.
	joinDRAMCycleMilli = 706 * 1000 / 1502

	// joinDRAMServiceMilli is a loaded channel's time an atom while it
	// has requests, in thousandths of a DRAM cycle: tCCD (2 DRAM cycles,
	// -gpgpu_dram_timing_opt CCD=2: "CCDc = m_config->tCCD", dram.cc:571)
	// and what the column timers and activations waste beside it.
	// Measured, not stated by the configuration: in capture
	// dragonli-join-61440-cdp (validation/gpgpusim/whatif) channel 8, the
	// busiest, moved 12,161 atoms across join_gather, its bus carrying
	// data 24,322 DRAM cycles, Wasted_Col 17,758 and Wasted_Row 4,661
	// (the log's "BW Util details", differences across the kernel):
	// 46,741 / 12,161 = 3.844. At 30,720 and 46,080 keys the busiest
	// channel's was 3.248 and 3.479 (docs/calibration.md, "Left").
	joinDRAMServiceMilli = 3844

	// joinDRAMPopulation is the requests circulating among the channels
	// in joinDRAMChannelUtil's closed loop. Fitted on
	// dragonli-join-61440-cdp: with its twelve channels' atoms across
	// join_gather as their demands, 18 gives the busiest channel a
	// request 0.686 of the kernel, where the log's Idle leaves it 0.684
	// (1 − 21,585 / 68,326); 17 gives 0.671, 19 0.700.
	joinDRAMPopulation = 18
)

// joinChannelDRAM is the DRAM bytes an L2 slice of c bytes moves for a
// copy that reads s bytes written before it and writes w: its read
// misses and the dirty lines it evicts. The slice is taken as a fluid
// cache with random replacement: each byte brought in evicts a byte of
// the slice chosen at random, so a byte survives x bytes brought in after
// it with probability e^(−x/c). The s bytes were brought in (dirty) over
// the kernels before; the copy reads them while it writes its w in
// proportion, and brings in every byte it misses. With I(τ) the bytes
// brought in by the copy's fraction τ, a read hits with probability
// r0·e^(−I/c), r0 = (c/s)(1 − e^(−s/c)) the share of the s bytes the slice
// still holds at the start, so I′ = w + s(1 − r0·e^(−I/c)): with y =
// e^(I/c), y′ = a·y − b (a = (s+w)/c, b = s·r0/c), y(τ) = b/a + (1 −
// b/a)e^(aτ), and the read misses are I(1) − w = c·ln y(1) − w. The dirty
// bytes D start at c(1 − e^(−s/c)), gain w and lose their share D/c of
// each byte brought in, (D·y)′ = w·y, so D(1) = (D(0) + w∫y)/y(1) and the
// write-backs are D(0) + w − D(1). GPGPU-Sim's L2 replaces the least
// recently used line of a set, but 240 CTAs each reading and writing its
// own partition interleave their lines in no order the sets see, so the
// line a set evicts is nearly any: on the busiest channel of each
// capture, its keys rebuilt from glibc's rand(), the fluid rule gives
// 1.00× (dragonli-join-30720-cdp), 0.95× (-46080-cdp) and 0.93×
// (-61440-cdp) of the atoms the log's DRAM counters moved, where a
// stack-distance rule (strict LRU, the reads in the writes' order) gave
// 1.65× and 1.12× at 30,720 and 61,440. It overstates the quiet
// channels, whose bytes nearly fit their slice (an LRU slice keeps them
// where random replacement loses some); their traffic does not bound
// the kernel.
func joinChannelDRAM(s, w, c int64) int64 {
	if s+w == 0 {
		return 0
	}
	S, W, C := float64(s), float64(w), float64(c)
	held := -math.Expm1(-S / C) // 1 − e^(−s/c)
	r0 := 1.0
	if s > 0 {
		r0 = C / S * held
	}
	a, b := (S+W)/C, S*r0/C
	y1 := b/a + (1-b/a)*math.Exp(a)
	misses := C*math.Log(y1) - W
	intY := b/a + (1-b/a)*math.Expm1(a)/a
	d0 := C * held
	d1 := (d0 + W*intY) / y1
	return int64(math.Max(0, misses+d0+W-d1))
}

// joinGatherChannels is the bytes each DRAM channel serves of
// join_gather's copy: the scattered regions of partitions with outputs
// (outputs[c] pairs at the prefix of room[c] × joinBlockSF entries, in
// the left buffer of est entries and the right one after it) and the
// compact buffers' 8 bytes an output spread evenly. The left buffer
// starts on channel 0 (which channel is immaterial: the busiest's load
// is what counts).
func joinGatherChannels(outputs, room []int, est int64) (scattered, compact [joinDRAMChannels]int64) {
	bufBytes := est * joinOutputEntryBytes
	if r := bufBytes % joinDRAMChunk; r != 0 {
		bufBytes += joinDRAMChunk - r
	}
	var off int64
	total := int64(0)
	for p, n := range outputs {
		for _, base := range []int64{0, bufBytes} {
			lo, hi := base+off*joinOutputEntryBytes, base+(off+int64(n))*joinOutputEntryBytes
			for a := lo; a < hi; {
				next := min(hi, (a/joinDRAMChunk+1)*joinDRAMChunk)
				scattered[(a/joinDRAMChunk)%joinDRAMChannels] += next - a
				a = next
			}
		}
		off += int64(room[p]) * joinBlockSF
		total += int64(n)
	}
	for ch := range compact {
		compact[ch] = 2 * joinOutputEntryBytes * total / joinDRAMChannels
	}
	return scattered, compact
}

// joinGatherDRAMCycles is join_gather's DRAM time in the trace's cycles:
// its busiest channel's traffic (joinChannelDRAM on each channel's
// bytes, joinGatherChannels) in atoms, at joinDRAMServiceMilli each,
// over the share of the kernel the channel has a request
// (joinDRAMChannelUtil on every channel's atoms). None while every
// channel's slice holds its bytes.
func joinGatherDRAMCycles(outputs, room []int, est int64) int64 {
	scattered, compact := joinGatherChannels(outputs, room, est)
	var atoms [joinDRAMChannels]int64
	var busiest int64
	for ch := range scattered {
		b := joinChannelDRAM(scattered[ch], compact[ch], joinL2ChannelBytes)
		atoms[ch] = (b + joinDRAMAtomBytes - 1) / joinDRAMAtomBytes
		busiest = max(busiest, atoms[ch])
	}
	if busiest == 0 {
		return 0
	}
	return joinDRAMAtomCycles(busiest, joinDRAMChannelUtil(atoms[:], joinDRAMPopulation))
}

// joinDRAMAtomCycles is the time a loaded channel takes to move atoms
// 32-byte atoms, in the trace's cycles, when it has a request a share
// util of the time: joinDRAMServiceMilli DRAM cycles each, over util.
func joinDRAMAtomCycles(atoms int64, util float64) int64 {
	if atoms <= 0 || util <= 0 {
		return 0
	}
	return int64(math.Round(float64(atoms*joinDRAMServiceMilli*joinDRAMCycleMilli) / 1e6 / util))
}

// joinDRAMChannelUtil is the share of the time the busiest of the
// channels has a request, when n requests circulate among them, each
// visiting a channel in proportion to its atoms and held there for an
// atom's service: exact mean-value analysis of a closed network of
// single-server queues without think time (Reiser and Lavenberg, 1980),
// whose arrival theorem gives a request arriving at channel k with i
// requests in the loop the queue the loop holds there with i − 1:
//
//	R_k(i) = D_k (1 + Q_k(i−1)),  X(i) = i / Σ R_k(i),  Q_k(i) = X(i) R_k(i)
//
// with D_k channel k's share of the atoms (the service time cancels in
// the share). The busiest channel's utilisation is X(n) × its D. One
// channel is busy whenever a request is in the loop (1); k equal
// channels give n / (n + k − 1).
func joinDRAMChannelUtil(atoms []int64, n int) float64 {
	var total int64
	for _, a := range atoms {
		total += a
	}
	if total <= 0 || n <= 0 {
		return 0
	}
	q := make([]float64, len(atoms))
	var x, most float64
	for i := 1; i <= n; i++ {
		sum := 0.0
		for k, a := range atoms {
			sum += float64(a) / float64(total) * (1 + q[k])
		}
		x = float64(i) / sum
		for k, a := range atoms {
			q[k] = x * float64(a) / float64(total) * (1 + q[k])
		}
	}
	for _, a := range atoms {
		most = max(most, x*float64(a)/float64(total))
	}
	return most
}

// joinGatherDRAMCopy is each copying warp's copy time, in the trace's
// cycles, when the kernel's DRAM time dram is shared among the warps in
// flight (processor sharing: one queue serves them all, so each trip's
// loads wait behind the trips of every warp copying beside it). trips[c]
// are CTA c's warps' copy trips; the first wave CTAs start together
// and each later CTA when one of the wave ends, in order, as the
// hardware's CTA scheduler hands them out. With k warps copying, a trip
// takes k times a trip's share of the DRAM time (dram over all trips),
// or its unloaded time (joinCopyCycles), the longer. It returns the
// copy time of each CTA's warps, nil where dram is none.
func joinGatherDRAMCopy(trips [][]int, wave int, dram int64) [][]int64 {
	var total int
	for _, ws := range trips {
		for _, x := range ws {
			total += x
		}
	}
	if dram <= 0 || total == 0 || wave <= 0 {
		return nil
	}
	share := float64(dram) / float64(total) // DRAM cycles a trip
	unloaded := float64(joinCopyCycles())
	out := make([][]int64, len(trips))
	// Every copying warp is served alike, so one count of trips served
	// to each (served) tells them all: a warp that joined at served = s0
	// with x trips ends when served reaches s0 + x. ends orders them.
	var ends warpEnds
	ctaLeft := make([]int, len(trips)) // warps of a CTA still copying
	now, served := 0.0, 0.0
	next, running := 0, 0 // running: CTAs holding a slot, a warp still copying
	fill := func() {
		for ; next < len(trips) && running < wave; next++ {
			c := next
			out[c] = make([]int64, len(trips[c]))
			for w, x := range trips[c] {
				if x > 0 {
					heap.Push(&ends, warpEnd{at: served + float64(x), cta: c, w: w, start: now})
					ctaLeft[c]++
				}
			}
			if ctaLeft[c] > 0 {
				running++
			}
		}
	}
	fill()
	for ends.Len() > 0 {
		e := heap.Pop(&ends).(warpEnd)
		k := float64(ends.Len() + 1) // warps copying until e ends
		now += (e.at - served) * max(unloaded, share*k)
		served = e.at
		out[e.cta][e.w] = int64(math.Round(now - e.start))
		if ctaLeft[e.cta]--; ctaLeft[e.cta] == 0 {
			running--
			fill()
		}
	}
	return out
}

// warpEnd is a copying warp in joinGatherDRAMCopy: the trips served
// each warp when it ends, its CTA and index, and the cycle it started.
type warpEnd struct {
	at     float64
	cta, w int
	start  float64
}

// warpEnds is a min-heap of warpEnd by at, then CTA and warp (so equal
// ends pop in one order).
type warpEnds []warpEnd

func (h warpEnds) Len() int { return len(h) }
func (h warpEnds) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	if h[i].cta != h[j].cta {
		return h[i].cta < h[j].cta
	}
	return h[i].w < h[j].w
}
func (h warpEnds) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *warpEnds) Push(x any)   { *h = append(*h, x.(warpEnd)) }
func (h *warpEnds) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
