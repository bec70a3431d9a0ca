// Package gpgpusim imports the output of a GPGPU-Sim run (the simulator
// the DTBL, SPAWN and CRCS papers used) as a gpureplay trace, so real CUDA
// programs, dynamic parallelism included, can be replayed and the replay
// checked against the simulator's own cycles.
//
// # Capturing
//
// Run the program under GPGPU-Sim with three config lines that log every
// CTA's start and end (docs/importers/gpgpusim.md names the config the
// project's captures use: GPGPU-Sim's tested SM7_QV100 with these appended):
//
//	-trace_enabled 1
//	-trace_components LIVENESS
//	-trace_sampling_core -1
//
// and keep the whole standard output. For dynamic parallelism
// (-gpgpu_cdp_enabled 1) also set PTX_SIM_DEBUG=1 in the environment:
// only then does the device runtime report its launches. The simulator's
// source is not changed. validation/gpgpusim/README.md gives the
// commands used for the committed captures.
//
// # What is read
//
//   - The options GPGPU-Sim prints first (or, when the log lacks them, a
//     gpgpusim.config: Options.Config, by default the one beside the log):
//     SMs (-gpgpu_n_clusters × -gpgpu_n_cores_per_cluster), the core clock
//     (-gpgpu_clock_domains), CTAs, threads, registers and shared memory
//     per SM, concurrent kernels, the kernel launch latency, the device
//     runtime's latencies (-cdp_latency), whether an SM runs several
//     kernels (-gpgpu_concurrent_kernel_sm), schedulers per SM and the
//     DRAM (channels, bus width, burst, clock).
//   - ptxas info ("GPGPU-Sim PTX: Kernel 'K' : regs=R, ..., smem=S"): a
//     kernel's registers and static shared memory, by name.
//   - Host launches ("pushing kernel 'K' to stream S, gridDim= ...
//     blockDim = ..."), in program order. GPGPU-Sim numbers kernels in the
//     order it creates them, host and device alike, so a push takes the
//     next free number; the first CTA's kernel_uid and name check it.
//   - CTA starts and ends (LIVENESS "cta: S, ... kernel_uid:K" and
//     "Finished CTA #S" on a core): S is the core's hardware CTA slot, not
//     the block index. GPGPU-Sim hands a kernel's CTAs out in linear block
//     order (kernel_info_t::get_next_cta_id_single), so the kernel's n-th
//     CTA to start is block n, and a Finished line ends the CTA its core
//     and slot hold. Nothing is lost in this mapping.
//   - Device launches (PTX_SIM_DEBUG's cuda_device_runtime.cc lines):
//     the child's name, grid, block and dynamic shared memory from
//     cudaGetParameterBufferV2, and from cudaLaunchDeviceV2 the child's
//     number and the parent's name, block and thread. The parent's kernel
//     number is not printed: it is the running kernel of that name whose
//     block is resident; where several are (a recursion's siblings), see
//     Reader.parentOf, and Summary.Ambiguous counts such choices.
//   - Statistics blocks (one per run of the simulator's loop: one kernel,
//     or a whole launch tree under CDP): which kernels they cover
//     (kernel_launch_uid), the warp instructions issued
//     (gpgpu_n_tot_w_icount) and DRAM accesses (total dram reads and
//     writes), all cumulative, so a block's share is its difference from
//     the block before.
//     Its gpu_tot_sim_cycle, the run's end so far and the time of a host
//     launch pushed after it, must be the previous block's plus the
//     block's gpu_sim_cycle, no earlier than the last cycle stamp above
//     it and no later than the next: a total that contradicts the stamps
//     is refused, since it would move every later launch.
//   - The host's synchronisation (sync.go has the source lines): each
//     launch into stream 0, which GPGPU-Sim makes block the host until
//     the GPU is empty, and the "synchronize waiting" / "detected
//     inactive" and "cudaEventSynchronize ** waiting for event" / "**
//     event detected" line pairs.
//   - The end-of-run line ("GPGPU-Sim: *** exit detected ***"): a log
//     without it was cut short (or the program failed), even where every
//     kernel it shows is whole, and is refused rather than converted to
//     part of the run.
//
// # What is written
//
// A header with the simulated GPU (--gpu=captured replays on it) and, in
// meta, the importer's model settings under "set." (model.FromHeader
// applies them; a --set still overrides them):
//
//	lat.host_issue, lat.host_launch  0: a push takes the simulator no time
//	lat.kernel_dispatch              launch latency + 1: a kernel's CTAs
//	                                 issue the cycle after its countdown ends
//	                                 (a 5000-cycle latency starts CTAs at 5001)
//	lat.stream_countdown             the launch latency, and before that
//	lat.stream_passes                countdown a device kernel at its
//	                                 stream's head waits for the stream
//	                                 manager's services, one head a pass of
//	                                 the simulation loop (a tick of any
//	                                 clock domain: 1751 per 1000 cycles on
//	                                 SM7_QV100); written where the latency
//	                                 is above 0 and the log is not 3.x's,
//	                                 whose stream manager serves one head
//	                                 at a time (streammgr.go, write.go)
//	cdp.param_b/_a, cdp.launch_b/_a  -cdp_latency's per-warp and per-lane
//	                                 stalls of the two calls; cdp.clock_mhz 0
//	cdp.stream_create                -cdp_latency's first figure: the warp
//	                                 stalls it at cudaStreamCreateWithFlags,
//	                                 charged at the launch that creates its
//	                                 stream (and taken out of the warp's
//	                                 measured time there)
//	cdp.launch_servers               0: each warp stalls on its own
//	gpu.concurrent_kernel_sm         -gpgpu_concurrent_kernel_sm (off by
//	                                 default in GPGPU-Sim and its configs)
//	gpu.cta_issue_interval           1: a cluster issues one CTA a core
//	                                 cycle (issue_block2core), so an SM of
//	                                 a one-SM cluster takes one a cycle
//	gpu.issue_width, gpu.dram_gbps   schedulers per SM; channels × bus width
//	                                 × 2 × DRAM clock
//	model.contention                 off: measured cycles already hold the
//	                                 run's sharing of the SMs and DRAM
//
// Then each host launch tree, once the log has shown all of it: the host
// kernel's kernel and launch records (t is the simulated cycle of its
// push: the last stamp or statistics block's gpu_tot_sim_cycle before
// it), its cta records, and its device-launched kernels breadth first.
//
// A CTA's cycles are its measured span (end − start), less its launch
// sites' stalls (the trace's cycles exclude launch-site work, which the
// replay's policy prices): the largest total of site costs of any one of
// its warps. A device launch's site is where its warp reached the launch
// in the warp's own run: the launch cycle L less the CTA's start, the
// call's stall (param_b + param_a·x + launch_b + launch_a·x for x lanes)
// and the warp's earlier sites' stalls. The log does not stamp L; it lies
// between the stamped lines around the launch's report and no later than
// the children's first CTA start less the dispatch (exact when an SM had
// room for it at once), and the importer takes the latest such cycle in
// the log's order: of the launches reported between two stamps, each lies
// a cycle before the next where the window has room (GPGPU-Sim numbers
// kernels in launch order; a tie would let the replay order them).
// Windows are wide at PTX_SIM_DEBUG=1 (the gap between stamps), so where
// a kernel's CTAs allow it the CTAs' ends place the launches closer: the
// launching warp runs the same instructions after its launch in every
// CTA, so a CTA ends a fixed tail after its last launch, and where one
// tail fits every window of a kernel's CTAs the launch lies that tail
// (the least that fits) before its CTA's end (placeSites).
// The lanes of one warp whose reports follow each other with no stamped
// line between are one warp-level site, as SIMT executed them. A launch's
// workload is the threads of the child's tree (the child and what it
// launched, recursively: inlined, it never runs to launch them); its
// inline_cycles, what a flat policy would charge the lane instead, is the
// tree's CTAs' own cycles, less --opt cta_once each, priced as the flat
// code --opt inline names: loop (the default: the launching thread loops
// over the tree's threads, each at its warp's time times --opt
// loop_share, and --opt loop_accesses cycles for each other lane of its
// warp launching in the same instruction, the accesses its loop body's
// per-lane memory instructions add at the SM's load/store unit, one a
// cycle; SPAWN's in-parent execution and Dragon_li's Reg codes),
// warp (the launching warp shares them: its warps one after another) or
// cta (the parent CTA's warps share that). Each is an estimate, not a
// measurement (GPGPU-Sim ran the launch); docs/validation.md holds it
// against GPGPU-Sim runs of flat twins.
//
// Between the launch trees, in program order, the host's waits
// (Options.Syncs, on by default): device sync records whose t is the
// call's cycle and ret the cycle the GPU was idle and the host went on;
// a host launch after one is made at its return (the host's own time
// costs GPGPU-Sim no cycles).
//
// Demand: a statistics block's warp instructions and DRAM bytes (accesses
// × burst length × bus width × chips per channel) are spread over its
// kernels' CTAs in proportion to their measured spans, exactly (the parts
// sum to the block's totals), then capped at the trace format's per-warp
// rates for the CTA's own cycles. The log has no per-CTA counts, so a CTA
// that computed more than another of the same span gets the same demand.
//
// # What is lost
//
//   - Memory: the log names no buffers or copies (they are printed only at
//     PTX_SIM_DEBUG=3), so the trace has no buffer, memcpy, access or pages
//     records, and CRCS sees every kernel as irregular.
//   - Copies, event records and stream waits on events, and which event
//     a cudaEventSynchronize waited for (written as a device sync): see
//     sync.go.
//   - Which thread created a stream: the device runtime's "Create stream
//     S" names the stream, not the thread, so the first launch into S
//     after it is taken to be its creator's (creates_stream). Each
//     launch's stream is read exactly: "to default stream of the cta" is
//     the CTA's default stream (stream_kind cta), "to stream S" a stream
//     the CTA created (created, stream S); a launch into a stream that no
//     earlier launch of its CTA took as created is an error at its line.
//   - Dynamic shared memory of host launches (the push line does not
//     give it); -gpgpu_TB_launch_latency (kept in meta when not 0).
//   - A device launch's cycle at PTX_SIM_DEBUG=1: the log bounds it by
//     the stamps around its report, and the CTAs' tails place it (see
//     above), to within the few cycles by which equal code's tails
//     differ. The stream manager's countdown (lat.stream_countdown)
//     magnifies that: a head that joins c cycles before n − 1 others
//     leads them by c·lat.stream_passes/1000 services, which at the idle
//     GPU they take about c·(n − 1) cycles to make up, so a few cycles of
//     placement move the later children's starts by tens
//     (docs/validation.md's nested-cdp pairs).
package gpgpusim
