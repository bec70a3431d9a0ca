package gpgpusim

import (
	"cmp"
	"slices"
)

// A device launch whose parent the log leaves to several same-named
// kernels (a recursion's siblings: the log names the parent's function,
// CTA and thread, not its kernel) is first given to the oldest of them
// (parentOf's step 4) and then settled by the CTAs' ends: its site waits
// (Reader.undecided) until one of those CTAs finishes, and goes to the
// first to finish. A launching warp ends soon after its launch, since
// GPGPU-Sim prints a cudaLaunchDeviceV2 line only once the warp's stall
// for the call is over (shader.cc:1391-1406 at 667834cf, parentOf's step
// 2) and the code after a launch is the kernel's tail; siblings run the
// same code, so the next of them to finish is the one that launched. In
// dragonli-amr-cdp, where 32 one-CTA kernels of one name launch the
// third level's 756 children, every run of a warp's launching lanes is
// followed in the log by one of them finishing, before the next run;
// given to the oldest, 7 of the 32 took all 756 launches (up to 142
// each, where a warp launches at most 32 at a site) and their CTAs' spans
// went to their sites' stalls, while 16 took none.
//
// A CTA that finishes can launch nothing after: it leaves every site
// still undecided, and a site left with one candidate goes to it.

// undecided is a launch site whose parent is one of cands: CTA cta of
// kernel k for each, none of them finished when the site was reported.
type undecided struct {
	s     *site
	cands []siteCand
}

// siteCand is a candidate parent CTA.
type siteCand struct {
	k   *kernel
	cta uint64
}

// defer holds s, given to the oldest of cands for now, until one of
// cands finishes.
func (r *Reader) deferSite(s *site, cands []siteCand) {
	r.undecided = append(r.undecided, undecided{s: s, cands: slices.Clone(cands)})
}

// settleSites is CTA cta of k finished: the first site still undecided
// that it could have made goes to it, and it leaves the others' candidates.
func (r *Reader) settleSites(k *kernel, cta uint64) {
	if len(r.undecided) == 0 {
		return
	}
	ended := func(c siteCand) bool { return c.k == k && c.cta == cta }
	for i, u := range r.undecided {
		if slices.ContainsFunc(u.cands, ended) {
			moveSite(u.s, k, cta)
			r.undecided = slices.Delete(r.undecided, i, i+1)
			break
		}
	}
	left := r.undecided[:0]
	for _, u := range r.undecided {
		u.cands = slices.DeleteFunc(u.cands, ended)
		if len(u.cands) == 1 {
			moveSite(u.s, u.cands[0].k, u.cands[0].cta)
			continue
		}
		left = append(left, u)
	}
	clear(r.undecided[len(left):])
	r.undecided = left
}

// moveSite gives site s, and the kernels its lanes launched, to CTA cta
// of q, keeping each kernel's sites in log order and its kids in launch
// order.
func moveSite(s *site, q *kernel, cta uint64) {
	p := s.parent
	if p == q && s.cta == cta {
		return
	}
	p.sites = slices.DeleteFunc(p.sites, func(x *site) bool { return x == s })
	p.kids = slices.DeleteFunc(p.kids, func(id uint64) bool {
		return slices.ContainsFunc(s.kids, func(k *kernel) bool { return k.id == id })
	})
	s.parent, s.cta = q, cta
	q.sites = append(q.sites, s)
	slices.SortStableFunc(q.sites, func(a, b *site) int { return cmp.Compare(a.seq, b.seq) })
	for _, k := range s.kids {
		q.kids = append(q.kids, k.id)
	}
	slices.Sort(q.kids)
	if q.lastLaunch == nil {
		q.lastLaunch = map[[2]uint64]int64{}
	}
	key := [2]uint64{cta, uint64(s.warp)}
	q.lastLaunch[key] = max(q.lastLaunch[key], s.lo)
}
