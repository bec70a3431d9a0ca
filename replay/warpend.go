package replay

import "github.com/gpureplay/gpureplay/internal/gallop"

// warpEnd is the index after the run of sites (in sortSites' order)
// that holds sites[i], its warp's (gallop.End), where startWarps and
// startShared stepped through every site to find each warp's first (BFS
// --quick: 1 instruction a CTA fewer; a CTA whose warps have a site each
// pays some 10 a warp more).
func warpEnd(sites []siteRec, i int) int {
	w := sites[i].warp
	return gallop.End(i, len(sites), func(j int) bool { return sites[j].warp == w })
}
