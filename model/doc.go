// # Presets
//
// A replay runs on one Config, chosen with --gpu: a built-in preset (see
// Presets), a JSON file, or "captured" (FromSpec). The presets' GPU limits
// are the tables of the papers (docs/design.md §5):
//
//	preset      source           SMs  MHz   CTAs/SM threads/SM regs/SM smem/SM  kernels
//	k20c        DTBL Table 2      13   706  16      2048       65536   49152    32
//	k20c-spawn  SPAWN Table II    13  1400  16      2048       65536   49152    32
//	gk110-64    CRCS Table 1      64   700   8      1024       32768   16384    32
//	titanx      Pagoda §2, §6     24  1000  32      2048       65536   98304    32
//	h100        H100 SXM specs   132  1755  32      2048       65536  233472   128
//
// gpu.concurrent_kernel_sm = on in every preset: CTAs of different kernels
// share an SM (concurrent kernel execution, Kepler onwards, and the DTBL
// authors' GPGPU-Sim). off keeps an SM to one kernel at a time, as
// GPGPU-Sim's -gpgpu_concurrent_kernel_sm 0 (its default and its tested
// configs'); the GPGPU-Sim importer sets it for --gpu=captured.
//
// gpu.cta_issue_interval = 0 in every preset: an SM takes any number of
// CTAs in a cycle (no datasheet states the rate of NVIDIA's CTA
// scheduler). n > 0 lets an SM take a CTA at most every n cycles, so a
// kernel's CTAs spread over the SMs that free up in the next cycles:
// GPGPU-Sim issues one CTA to a cluster a core cycle, and its importer
// sets 1 for --gpu=captured (docs/model.md "CTA issue").
//
// # Shared throughput (the contention model)
//
// model.contention = on: co-resident CTAs that record a demand (trace
// fields insts, dram_bytes) share their SM's issue width and the GPU's DRAM
// bandwidth (docs/model.md). "off" runs every CTA for its trace cycles.
//
// # Tie order
//
// model.tie_seed = 0: the engine's events of one cycle fire in the order
// they were scheduled. Another value permutes them by a hash of the seed
// and the scheduling order (the host's calls keep their order), to measure
// how much a result owes to the order of simultaneous events
// (docs/model.md "Time"; `experiment ties`).
//
//	preset      gpu.issue_width  gpu.dram_gbps  source
//	k20c        4                208            Kepler GK110 whitepaper (4 warp
//	k20c-spawn  4                208            schedulers per SMX, "allowing four warps to
//	                                            be issued and executed concurrently");
//	                                            Tesla K20c board spec: 208 GB/s
//	gk110-64    4                307.2          CRCS Table 1: 6 MCs at 1600 MHz; with
//	                                            GPGPU-Sim's GDDR5 partition (2 × 32-bit
//	                                            chips, data at 4× the command clock,
//	                                            which gives the GTX 480 config its real
//	                                            177.4 GB/s at 924 MHz): 6 × 8 B × 4 × 1.6 GHz
//	titanx      4                336.5          Maxwell GM200: 4 warp schedulers per SMM
//	                                            (GTX 980 whitepaper); GTX Titan X spec
//	                                            336.5 GB/s
//	h100        4                3350           Hopper: 4 SM sub-partitions, one warp
//	                                            scheduler each dispatching one warp
//	                                            instruction per clock (H100 whitepaper);
//	                                            H100 SXM5 spec 3.35 TB/s
//
// Dual issue (Kepler, Maxwell) lets one scheduler send two independent
// instructions of one warp in a cycle; issue_width counts warps selected
// per cycle, the sustained ceiling the papers' simulators reach on real
// code, not the peak of eight instruction dispatches.
//
// # Device latencies
//
// The device-side costs are the papers' cycle counts and are the same in
// every preset but for k20c-spawn's stream creation (cdp.* are converted
// from cdp.clock_mhz's cycles to the preset's, keeping their duration): they were measured on a K20c (DTBL Table 3) or used as-is by
// the SPAWN simulator, and no paper gives figures for the other GPUs.
//
//	lat.kernel_dispatch 283                  DTBL Table 3 (KMU → Kernel Distributor)
//	cdp.stream_create   7165                 DTBL Table 3; k20c-spawn: 0 (SPAWN Table II's
//	                                         Ax + b is Table 3's parameter buffer and
//	                                         cudaLaunchDevice alone)
//	cdp.param_b/_a      8023 + 129·x         DTBL Table 3 (cudaGetParameterBuffer)
//	cdp.launch_b/_a     12187 + 1592·x       DTBL Table 3 (cudaLaunchDevice)
//	cdp.clock_mhz       706                  DTBL §5.1: Table 3 was measured "on the K20c
//	                                         GPU with the clock() function"; the costs
//	                                         above are converted from it to gpu.clock_mhz
//	                                         as trace cycles are (0: no conversion)
//	cdp.launch_servers  1; k20c 0            DTBL §2.4 ("a path from each SMX to the
//	                                         KMU"): each SM serves one call's
//	                                         launch_a·x at a time (0: unlimited,
//	                                         DTBL §5.1's simulator: "the execution
//	                                         of the device API calls will be
//	                                         interleaved for all the warps")
//	cdp.streams         traced               the trace's stream_kind (docs/model.md,
//	                                         "Device streams"); child, cta, tail,
//	                                         fire_and_forget: every device launch
//	                                         into one kind of stream (what-if)
//	cdp.pending_limit   0 (unlimited)        GPGPU-Sim, the papers' simulator, has no
//	                                         limit, and CUDA on Kepler never stalls a
//	                                         launch (it falls back to a virtualized
//	                                         pool); 2048 is CUDA's
//	                                         cudaLimitDevRuntimePendingLaunchCount
//	                                         default, for the fixed pool alone
//	spawn.overhead_b/_a -1, -1               t_overhead is the engine's charge (cdp.*):
//	                                         on k20c-spawn SPAWN Table II's 20210 + 1721·x
//	spawn.window        1024                 SPAWN §IV-B (n_con, t_warp window)
//	spawn.max_queue     65536                SPAWN §IV-A (CCQS size, Algorithm 1)
//	spawn.no_twarp      launch               SPAWN Algorithm 1 lines 2–3 (launch while a
//	                                         metric is still its initial 0; inline:
//	                                         t_parent = 0 as line 2 literally gives)
//	spawn.queue         arrival              SPAWN §IV-A (a child's CTAs join n when it
//	                                         reaches the KMU; decision: at the decision,
//	                                         Algorithm 1 line 8, the behaviour before)
//	spawn.ncon          window               docs/design.md §4 (n_con over the whole window;
//	                                         busy: over cycles a child CTA runs)
//	dtbl.agt_entries    1024                 DTBL §4.3 (1024-entry AGT)
//	dtbl.fallback       dispatch             DTBL §4.2 (match when the command arrives;
//	                                         none: a new kernel through the KMU and
//	                                         lat.kernel_dispatch); instant: the behaviour before
//	dtbl.spill_loads    cta                  DTBL §4.3 (a spilled group's metadata loaded
//	                                         for each CTA the scheduler distributes);
//	                                         first: its first CTA only, the behaviour before
//	dtbl.match          shape                DTBL §4.2 (same entry PC and thread block
//	                                         configuration); function: the authors'
//	                                         simulator's function-only match
//	dtbl.launch_cost    front                DTBL §4.3 (parameter buffers or KDE search);
//	                                         cdp: both device-runtime calls, as the
//	                                         authors' simulator charges them
//	dtbl.agt_spill      140                  docs/design.md §4: a fixed cost for the global-memory
//	                                         load DTBL §4.3 says "is dependent on the
//	                                         global memory traffic"
//	io.model            none; gk110-64: stages  CRCS §3, §5.1: the host I/O stages
//	                                         are the CRCS paper's host model; the DTBL
//	                                         and SPAWN papers time the kernels alone
//	io.ssd_mbps         500                  CRCS §5.1
//	io.pcie_gbps        15.75                CRCS §5.1 (PCIe 3.0 x16, each direction)
//	io.page_bytes       4096                 CRCS §5.1
//	io.copy_latency     0                    an explicit copy's fixed cost: none in
//	                                         the papers' models; an importer measures
//	                                         a capture's (nsys)
//	io.memcpy           async                the trace's copies are cudaMemcpyAsync
//	                                         calls; sync: cudaMemcpy, which holds
//	                                         its thread until done (Pagoda Fig. 1a);
//	                                         legacy: sync on the legacy default
//	                                         stream, ordered with every stream
//	crcs.pages          ranges               what the CRCS profiler computes
//	crcs.share          available            §4.4's wording: GPU-made pages count
//	                                         once their producer has released them
//	crcs.gate           access               §4.1: pages checked as a CTA touches them
//	crcs.irregular      ready                §4.1: the oldest irregular kernel's ready bits
//	crcs.profile_cycles 400                  one SetRange call (§4.2.2): a DRAM round trip
//	crcs.l1_flush       256                  §4.3; Table 1: 32 KB of 128 B lines
//	output.occupancy_window 5000             cycles per occupancy-table row
//
// # Host-side costs
//
// lat.host_issue, lat.host_launch, pagoda.spawn_cycles and
// pagoda.sched_cycles appear in no paper's table, so they are chosen as
// times and converted to cycles at each preset's clock (rounded half up),
// which keeps their duration the same on every GPU:
//
//   - lat.host_issue = 3.5 µs, the host CPU time of one cudaLaunchKernel
//     call, and lat.host_launch = 5 µs from the call to the kernel reaching
//     the GPU: the commonly measured CUDA launch overheads (a few µs per
//     call, ~5 µs launch-to-start on an idle GPU). k20c: 2471 and 3530
//     cycles; titanx: 3500 and 5000.
//   - pagoda.spawn_cycles = 3.5 µs. Pagoda §4.2.1 spawns each task with one
//     cudaMemcpyAsync of its TaskTable entry ("1 cudamemcopy per task table
//     entry" in the steady state) and calls spawning a high-overhead
//     operation (§4.3), but gives no figure; one host CUDA API call is
//     costed like one launch call, lat.host_issue.
//   - pagoda.sched_cycles = 1 µs. The scheduler warp's work per task
//     (Algorithm 1: read the TaskTable entry from global memory, fence,
//     update the WarpTable, flag the executor warps) is a couple of
//     global-memory round trips with __threadfence, about 1000 cycles on
//     the Titan X. The paper gives no measured figure.
//   - lat.host_threads = 1: docs/design.md §3's single host thread, whose calls
//     serialise. Pagoda's host programs spawn from two OpenMP threads
//     (Fig. 1a, "#pragma omp parallel num_threads(2)", on §6.1's
//     quad-core i7). lat.host_issue = 3.5 µs is on the low side of
//     measured CUDA call costs (Wu et al., "DualPath", arXiv:2602.21548,
//     §5.2, measure 5–7 µs per cudaMemcpyAsync). The Pagoda experiments
//     set neither from these: they take the host Pagoda's Table 3
//     allows (4 threads and the largest per-call cost with which the
//     host binds no HyperQ run, cmd/experiment/table3host.go; see
//     docs/experiments.md).
//
// FromSpec rescales lat.host_issue, lat.host_launch,
// pagoda.spawn_cycles and pagoda.sched_cycles when a captured clock
// replaces the preset's.
// A --set gpu.clock_mhz does not: a set value is taken as given.
//
// # Policy parameters
//
//   - launch.threshold = 128: SPAWN §II-B's example THRESHOLD ("threads with
//     more than 128 edges to traverse will launch a child kernel"); the
//     paper notes most DP applications use a small value. Sweep it to
//     reproduce SPAWN's Offline-Search.
//   - gemtc.threads = 128: Pagoda §6.2 runs GeMTC with 128 threads per task
//     ("128 threads per task for HyperQ, GeMTC, and Pagoda"), and its
//     SuperKernel reaches 100% occupancy "from 64 threads onwards".
//     gemtc.worker = warp: GeMTC's SuperKernel.cu:48–71 has every warp
//     take and run tasks on its own.
//   - gemtc.batch = 1000: GeMTC's own drivers push 1000 tasks and then
//     poll for their 1000 results (Tests/gemtc-benchmarking/
//     APITestMain.cu:26–47, Tests/TaskBundling/BundlingTest.cu:29–41, and
//     APIbenchmark.sh's loop size of 1000 for APIThreadTest.cu). The same
//     on every preset: it is the host program's, not the GPU's.
//   - gemtc.dequeue_cycles = 1035 and gemtc.result_cycles = 621: how long
//     a take and a result hold their queue's lock, counted in dependent
//     L2 round trips of the critical sections (Queues/QueueJobs.cu:308–349,
//     QueueHelpers.cu:25–47; the queue record is written by other SMs, so
//     every access goes to the L2, where atomics also execute): a take is
//     the winning atomicCAS's return (½ trip), the emptiness check's loads
//     (1), the loads of Front and the array pointer (1), the load of the
//     slot (1), the reload of Front and Capacity before the store (1) and
//     the releasing atomicExch reaching the L2 (½): 5 trips; a result is
//     ½ + the fullness check (1) + the loads of Rear, Capacity and the
//     array pointer (1) + ½: 3 trips. A trip is 207 cycles, the L2 hit
//     latency Jia et al. report for Maxwell (Tesla M60, the Titan X's
//     generation) in "Dissecting the NVIDIA Volta GPU Architecture via
//     Microbenchmarking" (arXiv:1804.06826, 2018, chapter 3's latency
//     table). Device cycles, the same on
//     every preset (no paper measures the others' atomics).
//   - gemtc.smem_slowdown = dct:1.08/matmul:1.26: GeMTC has no shared
//     memory (Pagoda §6.2: "The GeMTC versions do not use shared memory,
//     since GeMTC has no support for it"); Pagoda Table 5's versions
//     without it are 1.35/1.25 = 1.08× (DCT) and 1.51/1.20 = 1.26× (MM)
//     slower than those with it, over the same HyperQ. Table 3 marks only
//     DCT and MM as benefiting from shared memory, so no other kind is
//     listed ("none" restores the old reading: the same task times).
//   - pagoda.spawn = pipelined: Pagoda §4.1–4.2.2's spawn lifecycle, the
//     MasterKernel launched before the first spawn, a task schedulable
//     once the next spawn's entry has arrived, the last one flushed by a
//     status copy-back and a copy, and the host's waitAll copy-back at
//     the end (package taskrun). direct restores the reading before:
//     the MasterKernel resident at 0, each task schedulable at its own
//     spawn, nothing after the last.
//   - pagoda.mtbs_per_sm = 2, pagoda.table_rows = 32, pagoda.smem_per_mtb =
//     32768 (Pagoda §4.1–4.2, on the Titan X). The MasterKernel must be
//     resident, so where it would not fit the preset scales it down:
//     k20c and k20c-spawn use 2 MTBs of 16384 bytes (2 × 32 KiB exceeds
//     48 KiB; 16 KiB is the largest power-of-two buddy heap that fits), and
//     gk110-64 uses 1 MTB of 16384 bytes (one 1024-thread MTB fills its
//     1024 threads and 16 KiB).
//
// # Keys and files
//
// Every leaf field is a dotted key "section.field" named by the json tags
// (Keys). Config.Set and Config.Get read and write keys as text;
// Config.Validate checks ranges. A JSON GPU file has the shape of the
// preset files under presets/, may name only some keys (the rest come from
// DefaultPreset), and may not name unknown ones.
//
// A policy built outside this module declares keys of its own sections
// with DeclareParam (through policies.Register); Set, Get and Validate
// take them like Config's own, and Int and Float read them.
//
// # Ranges
//
// Every numeric key has a range derived from what it means (ranges.go;
// Validate refuses a value outside it, naming the key and the range). A
// key that sizes a table is bounded by what a run can use, not by memory:
// the table is sized to what the run can use.
//
//	cdp.clock_mhz            0 to 1000000: MHz, 0 for gpu.clock_mhz, else at least 1
//	cdp.launch_a             0 to 2^40: cycles a lane
//	cdp.launch_b             0 to 2^40: cycles
//	cdp.launch_servers       0 to 64: calls an SM serves at once, 0 unlimited
//	cdp.param_a              0 to 2^40: cycles a lane
//	cdp.param_b              0 to 2^40: cycles
//	cdp.pending_limit        0 to 2^30: launches pending at once, 0 unlimited
//	cdp.stream_create        0 to 2^40: cycles
//	crcs.l1_flush            0 to 2^40: cycles
//	crcs.profile_cycles      0 to 2^40: cycles
//	dtbl.agt_entries         1 to 2^62: a power of two; the table holds only the entries an SM's hardware threads can index
//	dtbl.agt_spill           0 to 2^40: cycles
//	gemtc.batch              1 to 2^30: tasks a batch
//	gemtc.dequeue_cycles     0 to 2^40: cycles
//	gemtc.result_cycles      0 to 2^40: cycles
//	gemtc.threads            1 to 1024: threads of one SuperKernel block, a CUDA block
//	gpu.clock_mhz            1 to 1000000: MHz; no GPU clocks below 1 MHz or above 1 THz (1e-308 made makespan_us +Inf)
//	gpu.cta_issue_interval   0 to 2^40: cycles; a cost like any other
//	gpu.dram_gbps            1e-06 to 10000000: GB/s; 1 kB/s at least, so a byte's cycles fit int64
//	gpu.issue_width          0.03125 to 1024: warp instructions an SM issues a cycle; below one every 32 cycles no GPU
//	gpu.max_ctas_per_sm      1 to 4096: resident CTAs an SM holds
//	gpu.max_kernels          1 to 65536: kernels resident at once (Kernel Distributor entries)
//	gpu.max_threads_per_sm   32 to 2^22: a multiple of 32, at most 4096 CTAs of 1024 threads
//	gpu.regs_per_sm          1 to 1069547520: at most 255 registers for each thread an SM can hold
//	gpu.smem_per_sm          0 to 2^40: bytes; far above any SM, so sums over CTAs fit int64
//	gpu.sms                  1 to 65536: SMs; the replay keeps state per SM
//	io.copy_latency          0 to 2^40: cycles
//	io.page_bytes            1 to 2^30: bytes; no MMU maps a page over 1 GiB
//	io.pcie_gbps             1e-06 to 10000000: GB/s; 1 kB/s at least
//	io.ssd_mbps              0.001 to 1000000000: MB/s; 1 kB/s at least
//	lat.host_issue           0 to 2^40: cycles
//	lat.host_launch          0 to 2^40: cycles
//	lat.host_sync            0 to 2^40: cycles
//	lat.host_threads         1 to 4096: host threads; a clock is kept per thread
//	lat.kernel_dispatch      0 to 2^40: cycles
//	lat.stream_countdown     0 to 2^40: services; 0 turns the stream manager off
//	lat.stream_passes        0 to 2^20: passes per 1000 cycles; 0 only with the countdown off
//	launch.threshold         0 to 2^40: a child's threads
//	model.tie_seed           0 to 2^63-1: any seed
//	output.occupancy_window  1 to 2^40: cycles a row
//	pagoda.mtbs_per_sm       1 to 4096: MasterKernel blocks an SM holds, CTAs
//	pagoda.sched_cycles      0 to 2^40: cycles
//	pagoda.smem_per_mtb      0 to 2^40: bytes, 0 or 512 times a power of two
//	pagoda.spawn_cycles      0 to 2^40: cycles
//	pagoda.table_rows        1 to 2^24: task table rows a column; more change nothing a trace shows
//	spawn.max_queue          1 to 2^40: CTAs the CCQS holds; a bound, nothing is allocated
//	spawn.overhead_a         -1 to 2^40: cycles a lane, -1 for the engine's charge
//	spawn.overhead_b         -1 to 2^40: cycles, -1 for the engine's charge
//	spawn.window             1 to 2^40: cycles
//
// # Occupancy
//
// GPU.CTAsPerSM applies the four per-SM limits of docs/design.md §3. Threads are
// rounded up to whole warps and a CTA's registers are regs/thread × warps ×
// 32 with no allocation granularity, a simplification that can admit a CTA
// more than the hardware would when registers bind.
package model
