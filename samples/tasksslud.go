package samples

import "strconv"

// Pagoda's SLUD is the Barcelona OpenMP Task Suite's sparselu: an nb×nb
// matrix of bs×bs blocks, many of them empty, factorised block by block,
// each block operation a task. The operations differ in kind and in how
// many threads they can use, which is what makes the benchmark irregular.
// The structure here is BOTS's own (genmat's pattern, fill-in as the
// factorisation creates it), so the mix of operations is the real one.

// sludOp is one of sparselu's four block operations.
type sludOp uint8

const (
	sludLU0  sludOp = iota // factorise the diagonal block
	sludFwd                // solve a block right of the diagonal (column by column)
	sludBdiv               // solve a block below the diagonal (row by row)
	sludBmod               // update an inner block: C −= A·B (element by element)
	sludOps
)

var sludOpNames = [sludOps]string{"lu0", "fwd", "bdiv", "bmod"}

// sludNonEmpty is BOTS genmat's structure: whether block (ii, jj) of the
// initial matrix holds data.
func sludNonEmpty(ii, jj int) bool {
	empty := (ii < jj && ii%3 != 0) || (ii > jj && jj%3 != 0) || ii%2 == 1 || jj%2 == 1
	return !empty || ii == jj || ii == jj-1 || ii-1 == jj
}

// sludWalk runs sparselu's task loop over an nb×nb block matrix, calling
// emit for each task in the order BOTS creates them, until emit returns
// false: for each diagonal block kk, lu0; fwd on each nonempty block of
// row kk; bdiv on each of column kk; then bmod on every inner block (ii,
// jj) whose row and column blocks are nonempty, allocating it if empty.
func sludWalk(nb int, emit func(sludOp) bool) {
	full := make([]bool, nb*nb)
	for i := range full {
		full[i] = sludNonEmpty(i/nb, i%nb)
	}
	for kk := 0; kk < nb; kk++ {
		if !emit(sludLU0) {
			return
		}
		for jj := kk + 1; jj < nb; jj++ {
			if full[kk*nb+jj] && !emit(sludFwd) {
				return
			}
		}
		for ii := kk + 1; ii < nb; ii++ {
			if full[ii*nb+kk] && !emit(sludBdiv) {
				return
			}
		}
		for ii := kk + 1; ii < nb; ii++ {
			if !full[ii*nb+kk] {
				continue
			}
			for jj := kk + 1; jj < nb; jj++ {
				if full[kk*nb+jj] {
					full[ii*nb+jj] = true
					if !emit(sludBmod) {
						return
					}
				}
			}
		}
	}
}

// sludCount is how many tasks sparselu creates on an nb×nb block matrix,
// counting no further than limit.
func sludCount(nb, limit int) int {
	n := 0
	sludWalk(nb, func(sludOp) bool { n++; return n < limit })
	return n
}

// sludSize is the smallest block count nb whose factorisation creates at
// least n tasks (found by doubling, then bisection; every nb it returns
// was checked).
func sludSize(n int) int {
	hi := 1
	for sludCount(hi, n) < n {
		hi *= 2
	}
	lo := hi / 2 // creates fewer than n tasks, or is 0
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if sludCount(mid, n) >= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// sludOpWarps is the cost of one operation on bs×bs blocks by a task of
// threads threads. BOTS's loops give the parallelism; Table 3 gives SLUD
// neither barriers nor shared memory, so only independent work spreads
// across warps:
//   - bmod's bs² elements are independent: dealt to all threads, each a
//     bs-long dot product plus loading and storing the element;
//   - fwd's columns, and bdiv's rows, are independent: one thread each,
//     so bs ≤ 32 of them keep one warp busy and the rest exit;
//   - lu0's elimination steps depend on each other, so one warp runs it,
//     its lanes sharing the rows, in lockstep (warp-synchronous) with no
//     barrier.
//
// Every elimination step k updates the bs−1−k trailing elements of a row
// in memory, after one division in lu0 and bdiv.
func sludOpWarps(op sludOp, bs, threads int) []int64 {
	tri := int64(bs * (bs - 1) / 2) // updates per row (or column) over all steps
	switch op {
	case sludBmod:
		return dealtWarps(bs*bs, threads, int64(bs)*tasksMACCycles+2*tasksStreamCycles)
	case sludFwd:
		return dealtWarps(bs, threads, tri*tasksUpdateCycles)
	case sludBdiv:
		return dealtWarps(bs, threads, int64(bs)*tasksDivCycles+tri*tasksUpdateCycles)
	}
	warps := dealtWarps(1, threads, 0) // lu0: the first warp, its start and first touch
	lanes := min(threads, warpSize)
	for k := 0; k < bs-1; k++ {
		rows := bs - 1 - k
		warps[0] += int64(ceilDiv(rows, lanes)) * (tasksDivCycles + int64(rows)*tasksUpdateCycles)
	}
	return warps
}

// sludTasks yields the first n of sparselu's tasks.
type sludTasks struct {
	ops   []sludOp
	warps [sludOps][]int64
	i     int
	block int64 // bytes of one block
}

// sludInputs is how many blocks each operation reads: lu0 its diagonal
// block, fwd and bdiv that and the block they update, bmod two factors and
// the block it updates. Each writes one block.
var sludInputs = [sludOps]int64{1, 2, 2, 3}

// lastIO implements taskIO.
func (s *sludTasks) lastIO() (int64, int64) {
	if s.i == 0 {
		return 0, 0
	}
	return sludInputs[s.ops[s.i-1]] * s.block, s.block
}

// newSludTasks sizes the block matrix for n tasks and lists them. The
// structure is BOTS's fixed pattern, so the seed plays no part.
func newSludTasks(c *tasksConfig, n int, _ uint64, meta map[string]string) taskSource {
	s := &sludTasks{ops: make([]sludOp, 0, n), block: int64(c.sludBlock) * int64(c.sludBlock) * float32Bytes}
	if n > 0 {
		nb := sludSize(n)
		var counts [sludOps]int
		sludWalk(nb, func(op sludOp) bool {
			s.ops = append(s.ops, op)
			counts[op]++
			return len(s.ops) < n
		})
		meta["slud_blocks"] = strconv.Itoa(nb)
		for op, k := range counts {
			meta["slud_"+sludOpNames[op]] = strconv.Itoa(k)
		}
	}
	for op := range sludOps {
		s.warps[op] = sludOpWarps(op, c.sludBlock, c.threads)
	}
	return s
}

func (s *sludTasks) next() []int64 {
	op := s.ops[s.i]
	s.i++
	return append([]int64(nil), s.warps[op]...)
}
