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
package samples
