// Package cacheline asks the processor to start loading a cache line that
// the caller will read soon, without waiting for it. A plain load of a
// line out of the cache stalls the core once its reorder window fills
// (hundreds of cycles from memory); a prefetch issued early, while other
// work runs, lets the later read find the line in the cache. The replay
// engine knows some of its next reads well ahead: the kernel that takes the
// next Kernel Distributor entry has waited in a FIFO, out of the cache,
// for thousands of events (BFS scale 20 under CDP: tens of thousands wait).
//
// Go has no portable prefetch, so Prefetch is one instruction of assembly on
// amd64 and does nothing elsewhere.
package cacheline
