// Package samples generates gpureplay traces of workloads shaped like the
// benchmarks of the papers the replay policies come from. The paper-shaped
// generators run the real algorithm on a real-structured input (bfs walks an
// actual Graph500 Kronecker graph), so launch sites, workloads and CTA costs
// follow the true distributions rather than invented ones; only the cycle
// cost of each operation is modelled, by named, documented constants. The
// synth generator is the exception: plain synthetic load, for benchmarks and
// memory tests.
//
// Generators are found by name (Lookup, List), take documented name=value
// parameters with defaults (Generator.ParseParams), and stream their records
// into any trace.Sink, so a trace of millions of CTAs never sits in memory.
//
// Every generator keeps the same conventions, which tests check:
//
//   - It registers itself from an init function in its own file.
//   - Run reads and range-checks all its parameters before writing a record,
//     so a bad value is a *ParamError and the sink stays untouched.
//   - Output is a pure function of the parameters: all randomness comes from
//     newRand(seed), never the global functions, and no map order reaches
//     the output.
//   - The header comes first (k20cHeader: times in K20c cycles; gk110Header,
//     700 MHz, for the CRCS pipelines), then the buffers (laid out by a
//     deviceHeap), then the kernels.
//   - Kernel ids count up from 1 in the order kernel records are written; a
//     kernel record precedes its launch and CTA records.
//   - Streaming order: all records of a host-launched kernel and its
//     descendants come before the next host launch, and a parent's CTA
//     records all come before its children's records, so a reader holds one
//     host kernel's family in flight.
//
// # Launch-site times
//
// A device launch record's parent.at is the cycle of the parent warp's own
// run at which the launching lane reaches its launch, derived from the
// generator's cost model and the loop structure of the original CDP code:
//
//   - Where a thread holds several work items and launches from inside its
//     loop over them (sa: a thread maps its section's reads one after
//     another; join's default algo=merge: a persistent CTA's threads take a
//     right key of each block its loop joins, the CTA's barriers making
//     each step wait for its slowest warp; bfs and sssp with code=dragonli:
//     a persistent grid's thread takes a vertex a chunk, dragonli.go), a
//     lane's site is at the cycle the loop reaches that item:
//     the cost of the steps before it, each step waiting for the warp's
//     slowest lane, as SIMT runs a loop whose trip counts differ across
//     lanes. A warp's sites are then spread and ordered as its loop
//     reaches them. amr's code=dragonli host kernels are persistent: a
//     thread takes one cell per pass of its CTA's chunk loop, and each
//     pass's launching lanes of a warp form one site at the pass's end,
//     after the barrier-synchronised scan, so later passes' sites come
//     later (amrdragonli.go).
//   - Where a thread holds one work item (bfs, sssp, gc: a frontier or
//     worklist vertex; join's algo=hash: an S tuple; spmm: a row of A; amr: a cell;
//     mandel: a tile), the original kernel is `if (work > threshold)
//     launch; else loop over the work;` after a prologue every lane runs
//     in step (load the item and its extent; mandel: walk the tile's
//     border, the warp waiting for its longest walk). All of a warp's
//     launching lanes take the launch branch together, so SIMT executes
//     the launch once for all of them at one cycle: one warp-level site
//     (docs/model.md, "Launch sites"), whose device-runtime cost already
//     grows with its lane count (cdp.launch_a·x). Spreading these lanes
//     over distinct cycles would split one call into x calls, each paying
//     the fixed cost, which the original does not. The grid has a thread
//     per item, as the generated kernels declare it, so no thread has a
//     second item whose loop could spread its warp's sites. (Within one
//     chunk of the dragonli code the same holds: a warp's launching lanes
//     of a chunk share one site.)
//
// Each generator's run function says which case it is and which cost
// constant sets at.
package samples
