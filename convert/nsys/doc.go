// Package nsys imports Nsight Systems reports, exported as SQLite (nsys
// export --type sqlite report.nsys-rep), as gpureplay trace records, so
// the kernel-level timelines practitioners already capture can be replayed
// under every policy ("what if these kernels ran as Pagoda tasks?").
//
// # What is read
//
// The database is read, read-only, by internal/sqlite, a reader of
// SQLite's file format (no SQL engine), after checking the SQLite magic
// so "not an export" is a clear error. The importer's selections, joins
// and orders are Go (query.go), comparing values as SQLite's SQL does
// (value.go). Nsight Systems creates tables
// lazily and adds columns between versions (greenContextId, say), so
// tables and columns are looked up by name, and a missing one that the
// conversion needs is an error that names it. The names come from each
// table's CREATE TABLE, which the reader parses skipping SQL comments:
// every export checked (Nsight Systems 2022.1 to 2026.1) comments each
// column, with commas and parentheses inside.
//
//   - CUPTI_ACTIVITY_KIND_KERNEL gives each kernel's device, stream,
//     correlation id, grid, block, registersPerThread, static plus
//     dynamic shared memory, start and end (ns), and its name through
//     StringIds (demangledName, or shortName with Options.Names).
//   - CUPTI_ACTIVITY_KIND_RUNTIME gives the API call each kernel or copy
//     came from, by correlation id. A call can appear twice under one id
//     (cudaLaunchKernel_v7000 and cudaLaunchKernel): the rows are one
//     call, at the earliest start, and names lose their _vNNNN suffix.
//     Correlation ids are per process, so where the kernel table has
//     globalPid and the runtime table globalTid the process (the bits
//     above the low 24) must match too. A kernel without its call is an
//     error: its launch time would be unknown.
//   - CUPTI_ACTIVITY_KIND_MEMCPY: host-to-device and device-to-host copies
//     (copyKind 1 and 2) of at least one byte; their call's function
//     (every one but the ...Async ones blocks) and the host side's memory
//     kind (pageable in ENUM_CUDA_MEM_KIND) say whether the host waited.
//   - CUPTI_ACTIVITY_KIND_CUDA_EVENT (cudaEventRecord: event and stream)
//     and CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (device, stream and event
//     syncs, stream waits), for the host's synchronisation (sync.go).
//   - TARGET_INFO_GPU gives the captured GPU: name, smCount,
//     maxWarpsPerSm × threadsPerWarp threads, maxRegistersPerSm,
//     maxShmemPerSm, maxBlocksPerSm (or the CUDA programming guide's
//     resident-block limit for computeMajor.computeMinor) and clockRate.
//     The device's row is found by cuDevice, else through
//     TARGET_INFO_CUDA_DEVICE (cudaId → gpuId), else by id. Some older
//     exports (no export metadata table) keep only names there and the
//     limits in TARGET_INFO_CUDA_GPU (numMultiprocessors,
//     maxWarpsPerMultiprocessor, coreClockRate, ... by deviceId, a row per
//     process: the one of the process that ran the device's first kernel
//     is taken), read when TARGET_INFO_GPU has no row for the device or
//     one without the limits. A report without either needs Options.GPU, a
//     model preset that stands in.
//   - Everything else in those tables is counted in Summary.Unused, never
//     silently dropped: other devices' kernels, copies, memsets, syncs and
//     event records; memsets; copies the trace cannot express
//     (device-to-device, peer, unified-memory migrations, empty ones);
//     synchronizations and event records that cannot become sync records
//     (a wait for an event with no earlier record, a stream sync of a
//     stream nothing used); and API calls no activity row points at
//     (cudaMalloc, ...). Tables the importer does
//     not read (NVTX, OS runtime, ...) are not counted.
//
// One device is converted: Options.Device, by default the one with the
// most kernels.
//
// # What is written
//
// The header records the device name as gpu and its limits as gpu_spec,
// so `replay --gpu=captured` replays on the captured machine shape, and
// the clock: Options.ClockMHz, else TARGET_INFO_GPU.clockRate, else the
// boost clock of a table of known GPUs (A100 1410 MHz, H100 1755, V100
// 1530, ...: the Kineto importer's table), else DefaultClockMHz. The export schema
// documents clockRate in Hz, but CUDA's cudaDeviceProp.clockRate, which
// it mirrors, is in kHz; a core clock of 100 MHz to 10 GHz falls in
// disjoint ranges in Hz, kHz and MHz, so the magnitude decides the unit
// (the header's meta clock_source says which was taken).
//
// Kernels and copies are written in host order: by the start of their
// API call (for a copy without one, its own start), kernels sharing a
// call (a CUDA graph launch) by correlation id and GPU start. Each
// kernel becomes a kernel record (ids 1, 2, ... in that order), a host
// launch at the t of "Timing" below, and one cta record per thread
// block; each copy becomes a memcpy record (at its t) of its own buffer (no addresses are recorded, so each copy gets
// a buffer, role input for host-to-device and output for
// device-to-host, page-aligned after the previous one; the buffers are
// declared up front). Streams keep their CUDA stream id; streams of
// other processes, or ids beyond 32 bits, get 2^32 + k.
//
// The host's synchronisation becomes sync records in program order
// among the launches and copies: a synchronization row's API call decides
// its op (cudaDeviceSynchronize: device, cudaStreamSynchronize: stream,
// cudaEventSynchronize: event, cudaStreamWaitEvent: wait), else its
// syncType; each CUDA_EVENT row is an event record. A sync's t is its
// call's start on the launches' clock, kept between the kernels and
// copies around it in program order; a blocking call's ret is its call's
// end. The replay decides what each waits for; the importer no longer
// writes after edges. Copies carry blocking, pageable and, where they
// block, ret. The header's meta set.lat.host_sync is the median cost of
// a blocking sync once the GPU work before its return has finished
// (converter.hostSync; a device sync that returned before the end of an
// activity that started by then measures nothing). A copy that blocks is issued no later than
// where the model's wait returns by its captured return (ret −
// lat.host_sync − its modelled time − its ready time) and no earlier
// than its call (converter.boundBlocking): a pageable host-to-device
// cudaMemcpy returns once its buffer is staged, before its transfer
// ends, and would otherwise return late by the transfer. Not handled: waits on events recorded before the
// capture or without a CUDA_EVENT row (the table is only exported by some
// versions and with CUDA event tracing on), which are counted as unused;
// the legacy default stream's implicit synchronisation with other
// streams; and sync calls without a synchronization row.
//
// The report measures only a kernel's duration, so the cycles per CTA
// are a first-order wave estimate, as for Kineto:
//
//	CTAs per SM = model.GPU.CTAsPerSM(threads, registers, shared memory)
//	              on the captured GPU
//	waves       = ⌈CTAs ÷ (smCount × CTAs per SM)⌉
//	CTA cycles  = (end − start) in cycles ÷ waves
//
// It assumes every CTA takes as long as every other, that the kernel had
// the GPU to itself (a kernel that overlapped another on the captured
// GPU had fewer SMs than the estimate assumes, so its CTAs come out too
// short), that the occupancy limits are the model's (no register
// allocation granularity or reserved shared memory), and that the GPU
// ran at the assumed clock (boost clocks vary under load). A kernel
// replayed alone on the captured GPU then takes its measured duration
// within rounding; the CTAs' relative cost, launch gaps and stream
// structure are what a replay under another policy can change.
//
// # Timing
//
// A replay does not start a kernel at its launch's t: the one host thread
// spends lat.host_issue per launch (launches serialise), the kernel
// reaches the GPU lat.host_launch later and is ready lat.kernel_dispatch
// after it heads its stream (docs/model.md); a copy is on the GPU after
// lat.host_issue + lat.host_launch. Taking t from the API call's start
// would add these modelled latencies to the real ones the report already
// shows between a call and its GPU activity, which are different and
// vary (the first launch of a process takes tens of µs while CUDA loads
// modules), moving every op by a different amount. So t is chosen, as
// the Kineto importer does, from where the report shows each op on the
// GPU. Going backwards over the kernels and copies in host order,
//
//	issue_k = min(start_k − ready_k, issue_k+1 − lat.host_issue)
//	t_k     = issue_k − issue_1
//
// with start_k the op's start on the GPU and ready_k its latency above:
// the latest issue that has the op ready on an idle GPU by its start and
// still lets the host issue the next op by its own issue. An op that was
// not held up on the captured GPU then starts in the replay exactly when
// the report says; one that queued behind its stream is ready early and
// starts when its stream frees, as it did. Where the report's host issued
// ops faster than lat.host_issue allows, the earlier ops are issued
// early to keep the later ones on time: the replayed busy span grows by
// what the model's host cannot keep up with.
//
// The latencies assumed are those of the configuration `replay
// --gpu=captured` builds: the default preset (model.DefaultPreset) with
// the header's gpu_spec, whose host-side costs keep their microseconds at
// the captured clock (model.FromSpec), and the launch path measured
// where the report shows it: over the launches made while the GPU was
// idle (every op that started before the kernel had ended by the call),
// at least 3 of them, the median time from the call's start to the
// kernel's GPU start (meta launch_ready_ns, over idle_launches) is
// lat.host_issue + lat.host_launch + lat.kernel_dispatch, and
// set.lat.host_launch is what makes it so (profile.IdleLaunchReady), the
// other two kept. The header's meta records them
// (lat.host_issue, lat.host_launch, lat.kernel_dispatch, in cycles at
// clock_mhz) and the report time, in ns, that t = 0 stands for
// (origin_ns; a replay's cycle c is report time origin_ns + c / clock).
// The meta's nsys_version is the exporting version (EXPORT_PRODUCT_VERSION
// of META_DATA_EXPORT, or of EXPORT_META_DATA up to 2023.2).
// Replaying with other latencies (--set, another preset) shifts every op
// by the difference. The model charges queued kernels only
// lat.kernel_dispatch between them, so ops behind a long queue may start
// somewhat early or late.
//
// Copies. The model moves a copy in io.copy_latency + bytes /
// io.pcie_gbps; the header's meta sets both from the copies' GPU
// durations where the report has enough copies (profile.FitCopies: the
// latency is the median over at least 3 copies of at most 4 KiB, the rate
// Σ bytes / Σ (duration − latency) over the larger ones, any number, both
// directions, from the copies of the memory kind, pageable or pinned,
// that took the more GPU time; meta copy_latency_copies, pcie_copies,
// copy_memory).
//
// Memory. Each query's rows of the device are put in host order by
// their sort keys and rowids, held in memory, and read again one at a
// time, by rowid, as the walk merges the queries; the API calls' start
// times are held by correlation id and process, and StringIds as a map
// (docs/performance.md has a large export's figures). The backward pass needs every op's GPU start before the
// first launch is written, so a first walk over the copies and kernels
// keeps of each its start and kind (16 bytes) until the pass has run,
// and its t (8 bytes) until it is written. Beyond these, a few entries
// per stream and per CUDA event; cta records are generated while
// writing.
package nsys
