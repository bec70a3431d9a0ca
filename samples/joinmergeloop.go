package samples

import "sort"

// The block merge join of Dragon_li (github.com/gtcasl/dragon_li, by Jin
// Wang, the DTBL paper's first author), the source of the DTBL and SPAWN
// papers' "Relational Join" benchmark. This file models its structure; it
// holds none of its code. The parts, by file:
//
//   - tests/testJoin.cu: the settings (THREADS = 128, CTAS = 240,
//     CDP_THREADS_BITS = 7, CDP_THRESHOLD = 128, output scale factors 700
//     and 300) and the input: -l/-r tuples (default 1024 each) with keys
//     uniform in [0, -m) (default 1024), by joinData.h's
//     generateRandomData (util/random.h: rand() % max), which sorts both
//     inputs on the host. The public source has no other distribution.
//   - join/joinReg.h: the host side, JoinReg::join = findBounds (the
//     joinRegFindBoundsKernel, then a prefix scan of the per-CTA output
//     bounds), mainJoin (joinRegMainJoinKernel, CTAS × THREADS), gather (a
//     prefix scan of the per-CTA output counts, then joinRegGatherKernel,
//     CTAS × THREADS, compacting the outputs). join/joinCdp.h swaps in
//     joinCdpMainJoinKernel.
//   - join/joinRegDevice.h: joinRegThreadFindBounds gives CTA id the left
//     partition [id·⌈l/CTAS⌉, (id+1)·⌈l/CTAS⌉) and the right range
//     [lower_bound(its first key), upper_bound(its last key)).
//     joinRegMainJoinKernel is a persistent loop over 128-tuple blocks of
//     both ranges, staged in shared memory (mergeSteps), and
//     joinRegJoinBlock has each thread take one right key, binary-search
//     its lower and upper bounds in the left block and write its
//     foundCount = upper − lower output pairs in a loop (staged through
//     shared memory).
//   - join/joinCdpDevice.h: the same loop; joinCdpJoinBlock's thread, when
//     foundCount ≥ CDP_THRESHOLD, launches joinCdpThreadOutputKernel
//     (join/joinCdpThread.h) with foundCount>>7 CTAs of CDP_THREADS = 128
//     threads into a stream it creates, one output pair per child thread,
//     and writes the remaining foundCount − (foundCount>>7)·128 itself.
//   - util/primitive.h: prefixSumCta (the block's output offsets, a
//     log-step scan with __syncthreads) and memcpyCta (a strided
//     cooperative copy); util/threadWorkAssignment.h spreads the
//     partitions over the bounds kernel's threads.
//
// A thread's matches are those in one left block, so foundCount is at most
// THREADS: at the default settings a thread launches only when a whole
// left block holds its key, a 1-CTA child writing those 128 pairs.

// mergePartition is what one join_main CTA owns: left[lo:hi] and the
// right tuples right[rlo:rhi] whose keys lie within that slice's.
type mergePartition struct{ lo, hi, rlo, rhi int }

// mergePartitions divides the sorted left input over grid CTAs as
// joinRegThreadFindBounds does: ⌈len(left)/grid⌉ tuples each, the last
// ones short or empty; an empty partition gets the empty right range at
// the end of right.
func mergePartitions(left, right []int32, grid int) []mergePartition {
	size := ceilDiv(len(left), grid)
	parts := make([]mergePartition, grid)
	for id := range parts {
		lo, hi := min(size*id, len(left)), min(size*(id+1), len(left))
		parts[id] = mergePartition{lo: lo, hi: hi, rlo: len(right), rhi: len(right)}
		if lo < hi {
			parts[id].rlo = lowerBound(right, left[lo])
			parts[id].rhi = upperBound(right, left[hi-1])
		}
	}
	return parts
}

// lowerBound is the index of the first key of sorted keys not below key.
func lowerBound(keys []int32, key int32) int {
	return sort.Search(len(keys), func(i int) bool { return keys[i] >= key })
}

// upperBound is the index of the first key of sorted keys above key.
func upperBound(keys []int32, key int32) int {
	return sort.Search(len(keys), func(i int) bool { return keys[i] > key })
}

// mergeStep is one trip of a join_main CTA's block loop: it stages a left
// and a right block (or, inside the inner loop, a right block) in shared
// memory and, when join is set, joins left[l:l+lb] with right[r:r+rb].
type mergeStep struct {
	join         bool
	l, lb, r, rb int
}

// mergeSteps is partition p's block loop as joinRegMainJoinKernel runs it
// with blocks of block tuples. The outer loop stages a left and a right
// block; if the left block ends below the right one it moves to the next
// left block, if the right block ends below the left one to the next right
// block, and otherwise it joins them, then joins the left block with each
// following right block until one starts above the left block's last key
// (that block's staging is a step of its own that joins nothing), and
// moves to the next left block, the right position unchanged.
func mergeSteps(left, right []int32, p mergePartition, block int) []mergeStep {
	var steps []mergeStep
	l, r := p.lo, p.rlo
	for l < p.hi && r < p.rhi {
		lb, rb := min(p.hi-l, block), min(p.rhi-r, block)
		lMax := left[l+lb-1]
		if lMax < right[r] {
			steps = append(steps, mergeStep{l: l, lb: lb, r: r, rb: rb})
			l += lb
			continue
		}
		if right[r+rb-1] < left[l] {
			steps = append(steps, mergeStep{l: l, lb: lb, r: r, rb: rb})
			r += rb
			continue
		}
		steps = append(steps, mergeStep{join: true, l: l, lb: lb, r: r, rb: rb})
		for ri := r + rb; ri < p.rhi; {
			next := min(block, p.rhi-ri)
			if lMax < right[ri] {
				steps = append(steps, mergeStep{l: l, lb: lb, r: ri, rb: next})
				break
			}
			steps = append(steps, mergeStep{join: true, l: l, lb: lb, r: ri, rb: next})
			ri += next
		}
		l += lb
	}
	return steps
}

// mergeFound is thread th's foundCount in join step s: how many keys of
// the left block equal its right key, upper minus lower bound.
func mergeFound(left, right []int32, s mergeStep, th int) int {
	blk, key := left[s.l:s.l+s.lb], right[s.r+th]
	return upperBound(blk, key) - lowerBound(blk, key)
}
