package replay

// KLAP's kernel launch aggregation (El Hajj et al., "KLAP: Kernel Launch
// Aggregation and Promotion for Optimizing Dynamic Parallelism", MICRO
// 2016): "Kernel launch aggregation fuses kernels launched by threads in
// the same warp, block, or kernel into a single aggregated kernel,
// thereby reducing the total number of kernels spawned and increasing the
// amount of work per kernel to improve occupancy." docs/model.md, "KLAP",
// says what each scope charges and what the public compiler does.

import "github.com/gpureplay/gpureplay/model"

// Aggregation is the scope over which a policy's device launches are
// aggregated (Policy.Aggregate).
type Aggregation uint8

const (
	// AggregateNone launches each lane's child kernel on its own.
	AggregateNone Aggregation = iota
	// AggregateWarp aggregates the children of one warp-level site: the
	// lanes of a warp executing the launch statement together.
	AggregateWarp
	// AggregateBlock aggregates the children of the k-th site of every
	// launching warp of a CTA, after a barrier: the last warp to arrive
	// launches, the others wait for it.
	AggregateBlock
	// AggregateKernel stores the children of every CTA of a kernel; when
	// its CTAs are done the host launches them as one kernel per name,
	// and the kernel completes after it (launch promotion to the host).
	AggregateKernel
)

func (a Aggregation) String() string {
	switch a {
	case AggregateWarp:
		return "warp"
	case AggregateBlock:
		return "block"
	case AggregateKernel:
		return "kernel"
	}
	return "none"
}

// aggregator is the device runtime's launch aggregation: it gathers the
// children a warp, a block or a kernel launches into batches, and turns a
// complete batch into its aggregated kernels. It owns the batches in
// flight and the blocks' barriers; the site engine asks it for a site's
// batch (batchAt) and launches what a batch seals, and the engine asks it
// for a kernel's stored children when the kernel's CTAs are done
// (promoted). It never launches or completes a kernel itself.
type aggregator struct {
	scope   Aggregation
	blocks  map[*ctaRun]*blockSync // AggregateBlock: the CTAs with a round open
	kernels map[*Kernel]*batch     // AggregateKernel: each kernel's stored children
}

func newAggregator(scope Aggregation) *aggregator {
	return &aggregator{scope: scope, blocks: map[*ctaRun]*blockSync{}, kernels: map[*Kernel]*batch{}}
}

// granularity is the scope the aggregator gathers launches over.
func (a *aggregator) granularity() Aggregation { return a.scope }

// batch is one aggregation group's children: for each child kernel name
// its aggregated kernel, the first child of that name, which the others
// join as groups of its pool (as KLAP's aggregated kernel is one call of
// the child's code per child name).
type batch struct {
	heads []*aggKernel
}

// aggKernel is one aggregated kernel in the making.
type aggKernel struct {
	head    *Kernel  // the first child: its id, name and own CTAs
	members []*group // the other children, in arrival order
	grid    uint64   // CTAs of all of them: the aggregated grid
	decl    *kernelDecl
}

// add puts child, launched by owner, into b and returns the aggregated
// kernel it runs in. A member's launcher waits for it from now on (the
// head's adopts at its launch).
func (b *batch) add(child *Kernel, owner launcher) *Kernel {
	for _, a := range b.heads {
		if a.head.decl.Name != child.decl.Name {
			continue
		}
		g := &group{id: child.id, src: child, target: a.head, owner: owner, agtSlot: -1}
		owner.adopt(1)
		a.members = append(a.members, g)
		a.grid += child.total
		a.decl = widest(a.decl, child.decl)
		return a.head
	}
	b.heads = append(b.heads, &aggKernel{head: child, grid: child.total, decl: child.decl})
	return child
}

// seal makes b's aggregated kernels and returns them, ready to launch:
// each head gets its members as groups of its pool, so that its CTAs are
// its own then theirs in one grid, each CTA shaped as the widest child
// ("the group then scans the children's block counts ... takes the max
// of their block sizes and shared memory": src/Transform/AWB/Kernel.cpp).
func (b *batch) seal() []*Kernel {
	heads := make([]*Kernel, len(b.heads))
	for i, a := range b.heads {
		k := a.head
		heads[i] = k
		k.decl = a.decl
		if len(a.members) == 0 {
			continue
		}
		k.kernelRun = &kernelRun{startCycle: -1, order: -1, pool: &pool{groups: a.members, pooled: a.grid - k.total, open: len(a.members)}}
		k.rareParts().grid = a.grid
	}
	return heads
}

// widest is the declaration of an aggregated kernel's CTA: the larger
// block, registers and shared memory of a and b (a when it holds).
func widest(a, b *kernelDecl) *kernelDecl {
	if a == b || a.Threads() >= b.Threads() && a.Regs >= b.Regs && a.Smem >= b.Smem {
		return a
	}
	w := *a
	if b.Threads() > a.Threads() {
		w.Block = b.Block
	}
	w.Regs, w.Smem = max(a.Regs, b.Regs), max(a.Smem, b.Smem)
	warps := warpsPerCTA(w.Threads())
	w.need = need{warps: int32(warps), regs: int32(w.Regs * warps * model.WarpSize), smem: w.Smem}
	return &w
}

// blockSync is a CTA's barriers under AggregateBlock: its k-th round is
// the k-th site of each of its warps that launch.
type blockSync struct {
	passed []int32       // per warp: the rounds it has reached
	rounds []*blockRound // per round
	open   int           // rounds not yet sealed
}

// blockRound is one round of a CTA's barrier: how many warps it waits
// for, the batch so far and the warps waiting at it.
type blockRound struct {
	want    int
	b       batch
	waiting []launchWait
}

// batchAt returns the batch warp w's site at sites[first] joins: a fresh
// one for a warp's site, the CTA's current round for a block's, the
// kernel's for a kernel's; and, for a block, its round.
func (a *aggregator) batchAt(c *ctaRun, w int) (*batch, *blockRound) {
	switch a.scope {
	case AggregateBlock:
		bs := a.blocks[c]
		if bs == nil {
			bs = newBlockSync(c)
			a.blocks[c] = bs
		}
		r := bs.rounds[bs.passed[w]]
		bs.passed[w]++
		return &r.b, r
	case AggregateKernel:
		b := a.kernels[c.k]
		if b == nil {
			b = &batch{}
			a.kernels[c.k] = b
		}
		return b, nil
	}
	return &batch{}, nil
}

// newBlockSync counts, for each round, the warps of c that reach it: a
// warp's sites are the runs of its launching lanes at one point.
func newBlockSync(c *ctaRun) *blockSync {
	sites := c.spec().x.sites
	bs := &blockSync{passed: make([]int32, len(c.warps))}
	n := 0 // the current warp's sites so far
	for i := range sites {
		if i > 0 && sites[i].warp != sites[i-1].warp {
			n = 0
		}
		if i > 0 && sites[i].warp == sites[i-1].warp && sites[i].at == sites[i-1].at {
			continue
		}
		if n == len(bs.rounds) {
			bs.rounds = append(bs.rounds, &blockRound{})
		}
		bs.rounds[n].want++
		n++
	}
	bs.open = len(bs.rounds)
	return bs
}

// arrive is a warp reaching round r of c's barrier: it reports whether it
// is the last, and forgets c once its every round is sealed.
func (a *aggregator) arrive(c *ctaRun, r *blockRound) bool {
	r.want--
	if r.want > 0 {
		return false
	}
	bs := a.blocks[c]
	if bs.open--; bs.open == 0 {
		delete(a.blocks, c)
	}
	return true
}

// promoted takes the batch kernel k's CTAs stored, now that they are
// done, sealed; nil when they stored none (or the scope is not the
// kernel's).
func (a *aggregator) promoted(k *Kernel) []*Kernel {
	b := a.kernels[k]
	if b == nil {
		return nil
	}
	delete(a.kernels, k)
	return b.seal()
}

// launcherAt is who waits for the children stored at c's sites: the CTA's
// launcher, or under AggregateKernel the kernel, which completes after
// the aggregated kernel the host launches at its end.
func (a *aggregator) launcherAt(c *ctaRun) launcher {
	if a.scope == AggregateKernel {
		return launcher{k: c.k}
	}
	return launcherOf(c)
}

// gridCTAs is k's grid in the kernels table: an aggregated kernel's
// counts its members' CTAs too.
func (k *Kernel) gridCTAs() uint64 {
	if k.kernelRun != nil && k.rare != nil && k.rare.grid > 0 {
		return k.rare.grid
	}
	return k.total
}
