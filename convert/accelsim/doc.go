// Package accelsim imports the SASS traces that Accel-Sim's NVBit tracer
// writes (a kernelslist.g and one kernel-N.traceg or kernel-N.traceg.xz per
// kernel) as gpureplay trace records, so the traces the GPU-architecture
// community already has can be replayed under every policy.
//
// # What is read
//
// kernelslist.g lists, in program order, MemcpyHtoD,0xADDR,BYTES lines and
// the kernel trace files; other lines are ignored, as Accel-Sim ignores them.
// A kernel file is a header of "-key = value" lines ending at the first line
// starting with '#', then thread blocks: #BEGIN_TB, "thread block = x,y,z",
// optional cluster lines, and per warp "warp = N", "insts = N" and N
// instruction lines, then #END_TB. Tracer versions below 3 prefix each
// instruction line with the thread block and warp; "-enable lineinfo = 1"
// adds a source line number; tracer 5 (and some version-4 files) append an
// immediate. Address modes 0 (one address per active lane), 1 (base and
// stride over contiguous active lanes) and 2 (base and one delta per further
// active lane) are decoded. Kernel files are streamed line by line: no more
// than one instruction line is held at a time.
//
// # What is written
//
// Every kernel file becomes a kernel record (its id is the header's kernel
// id) and a host launch on its CUDA stream at the time Options.HostGap
// gives, and every thread block a cta record whose cycles come from the
// cost model described on Options. Thread blocks the trace leaves out (the
// tracer drops blocks that executed nothing) get a zero-cycle cta record,
// as Accel-Sim runs them as empty.
//
// Buffers. Every MemcpyHtoD region of a positive size becomes a buffer
// (overlapping regions merge into one) with a memcpy record per copy; its role is input, or
// inout when some kernel writes it. Global accesses outside every copied
// region are grouped into further buffers: one per run of consecutive 4 KiB
// pages (Options.PageBytes) touched between two copied regions, trimmed to
// the first and last byte touched; such a buffer is an output when a kernel
// writes it and temp when kernels only read it (nothing the trace shows put
// data there). The tracer records no allocations, so two allocations whose
// touched pages adjoin share a buffer. Shared and local memory are not
// buffers: instructions of the shared (LDS, STS, ATOMS, LDSM) and local
// (LDL, STL) spaces, constant loads, and lanes of generic instructions whose
// address lies in the kernel's 16 MiB shared or local window (NVBit's
// "shmem base_addr" and "local mem base_addr") are left out.
//
// Memory records. Each CTA gets exact pages records (the pages of every
// buffer it read and wrote) and access records that emulate the CRCS
// paper's sampling profiler: for each buffer, the range between the lowest
// and highest address that the CTA's corner threads (thread index 0 or N-1
// in every dimension) use. A corner thread that is active at an instruction
// is sampled directly; one that is not (a guarded tail, a warp that never
// reaches the instruction) is extrapolated from the instruction's active
// lanes when their addresses are an affine function of the thread index, as
// the profiler evaluates the index expression for it. Ranges are clipped to
// the buffer, as the profiler ignores bounds beyond the allocation. When any
// real address of some CTA falls outside its sampled range — what an
// indirect access does — the kernel is irregular and gets no access records
// at all, only pages.
//
// Positions. Every record says where in the CTA's run it first touches the
// buffer (at), from the instruction order the trace gives and the cost
// model: a warp's instruction issues at the warp's cost so far, t; the
// model runs the warps side by side from 0, so t lies t × cycles ÷ slowest
// warp into the CTA's run (stretched when the issue width bounds the CTA);
// a page's first touch is the earliest over the CTA's warps. Points are
// quantised down to multiples of ⌈cycles ÷ 16⌉, so a CTA gets at most 16
// pages records per buffer, one per point, each listing the pages first
// touched there (with the modes of the whole run); early rather than late,
// so gating the CTA at a page never waits later than its real first touch.
// An access record keeps its range and lies at the buffer's first point.
//
// Conversion reads every kernel file twice: the first pass checks the
// input and gathers the global footprint that decides the buffers and their
// roles, which must be declared before any kernel uses them; the second
// writes the records. Memory is bounded by the footprint bitmaps and one
// kernel's per-CTA access ranges, never by the number of instructions.
package accelsim
