package samples

// The flat join's staged copy. Dragon_li's flat join (JoinReg, the
// generator's variant=flat) does not write a join step's output pairs
// the way the CDP code's remainder loop does, each thread straight to
// global memory in a loop of its own beside the others
// (join/joinCdpDevice.h:94-100 at 1397e03). joinRegJoinBlock is compiled
// with STAGE_COPY defined (join/joinRegDevice.h:159), which its comment
// gives as "data are first copied to shared memory and then to global
// memory": each thread writes its foundCount pairs at its prefix-sum
// index into a shared cache of JOIN_BLOCK_CACHE_SIZE = THREADS = 128
// entries a side (:21), and the CTA copies the cache out with memcpyCta.
// When the step's pairs do not fit, it loops (:222-268):
//
//	while(copiedSoFar < total) {
//		if(index + foundCount <= JOIN_BLOCK_CACHE_SIZE && !done) { /* write */ done = true; }
//		if(index <= JOIN_BLOCK_CACHE_SIZE && index + foundCount > JOIN_BLOCK_CACHE_SIZE) //overbounded thread
//			sharedCopiedThisTime = index;
//		else if (threadIdx.x == THREADS - 1 && done)
//			sharedCopiedThisTime = index + foundCount;
//		__syncthreads();
//		/* index -= copied; memcpyCta both sides */
//		__syncthreads();
//	}
//
// A round holds the threads whose pairs fit in the cache in thread order,
// and the rounds run one after another. Four threads that found 128 pairs
// each write in four rounds, one lane looping 128 times in each, where the
// CDP code's remainder loops (and this generator's flat variant before)
// run side by side: the step costs the sum of its rounds' longest loops,
// not its longest loop.
//
// A round's loop trip (joinStageTripCycles) computes a left id and stores
// both ids to shared memory: it waits on nothing, so its price is its
// instructions. It is fitted on capture dragonli-join-30720-reg's
// join_main CTAs (joinmergecost.go). The rest of a round is priced by the
// package's constants, which are invented (stage_sync_cycles,
// search_step_cycles and store_cycles, which the cost grids vary ×0.5 and
// ×2; the trip was fitted with them at their defaults): the barrier
// (joinStageSyncCycles), and each side's copy, one trip of memcpyCta a
// thread for at most 128 pairs, a shared load (joinSearchStepCycles) and
// the global store that waits for it (joinStoreCycles); a step of several
// rounds waits at a second barrier after each. At 128 pairs a round they
// are 160 of a round's 3,616 cycles.

// stageRound is one round of the staged copy: the longest loop among the
// threads that write in it and the pairs it copies out.
type stageRound struct{ loop, copied int }

// stageRounds runs the source's loop on the counts: found[th] is thread
// th's foundCount for th below len(found), the CTA's other threads up to
// threads finding none, and size is the cache's entries. A step whose
// pairs fit is one round.
func stageRounds(found []int, threads, size int) []stageRound {
	total, longest := 0, 0
	index := make([]int, len(found))
	for th, f := range found {
		index[th] = total
		total += f
		longest = max(longest, f)
	}
	if total <= size {
		return []stageRound{{loop: longest, copied: total}}
	}
	// The last thread, THREADS − 1: past found's end it finds none and
	// its index is the total.
	lastIndex, lastFound := total, 0
	if len(found) == threads {
		lastIndex, lastFound = index[threads-1], found[threads-1]
	}
	var rounds []stageRound
	done := make([]bool, len(found))
	lastDone := false
	shared := 0 // sharedCopiedThisTime, a shared variable: kept between rounds
	for copied := 0; copied < total; {
		var r stageRound
		for th, f := range found {
			if !done[th] && index[th]+f <= size {
				r.loop = max(r.loop, f)
				done[th] = true
			}
		}
		lastDone = lastDone || lastIndex+lastFound <= size
		over := false
		for th, f := range found {
			if index[th] <= size && index[th]+f > size {
				shared, over = index[th], true
			}
		}
		if !over && lastDone {
			shared = lastIndex + lastFound
		}
		if shared <= 0 {
			// Only a count above size leaves a round empty, and a
			// thread's count is at most a left block (size).
			shared = total - copied
		}
		r.copied = shared
		copied += shared
		for th := range index {
			index[th] -= shared
		}
		lastIndex -= shared
		rounds = append(rounds, r)
	}
	return rounds
}

// joinStagedCycles is a join step's staged copy at trip cycles a loop
// trip: its cycles and its loops' trips, in turn.
func joinStagedCycles(found []int, size int, trip int64) (cycles, trips int64) {
	rounds := stageRounds(found, size, size)
	for _, r := range rounds {
		trips += int64(r.loop)
		cycles += int64(r.loop)*trip + joinStageSyncCycles + 2*(joinSearchStepCycles+joinStoreCycles)
		if len(rounds) > 1 {
			cycles += joinStageSyncCycles
		}
	}
	return cycles, trips
}
