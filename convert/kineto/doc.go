// Package kineto imports the Chrome-trace JSON that the PyTorch profiler
// (Kineto) writes, plain or gzip-compressed, as gpureplay trace records,
// so the kernel-level profiles practitioners already have can be replayed
// under every policy ("what if these kernels ran as Pagoda tasks?").
//
// # What is read
//
// The document is either {"traceEvents": [...], "deviceProperties":
// [...], ...} or a bare array of events. It is streamed with
// encoding/json's token API: the top-level keys one by one (unknown ones
// are skipped token by token), and traceEvents one event at a time, whose
// args are decoded only for the categories the importer uses. ts and dur
// are microseconds, integers in older traces and fractional in newer ones;
// they are held exactly as nanoseconds. pid, tid, stream, device and
// correlation may be numbers, decimal or hex strings, or negative.
// PyTorch 1.8 and 1.9 wrote the categories "Kernel", "Memcpy" and
// "Runtime", read as the ones below, and PyTorch 1.9 the device
// properties under "computeProperties".
//
//   - Kernel events (ph "X", cat "kernel") give the name, grid, block,
//     "registers per thread", "shared memory" (static + dynamic), stream
//     (args.stream, else tid), device (args.device, else pid) and dur.
//     On ROCm the kernel event carries only device, stream and
//     correlation: grid, block and shared memory are read from its launch
//     call ("grid"/"grid dim", "block"/"block dim", "shared
//     memory"/"shared size").
//   - Host calls (cat "cuda_runtime", "cuda_driver", "hip_runtime") are
//     matched to GPU events by args.correlation. A kernel's call is its
//     launch (cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, a CUDA
//     graph launch shared by several kernels). An op without one was
//     issued before the profile began or its call was lost (see
//     "Program order"); a kernel without one must carry its own grid and
//     block, else it is counted as unused.
//   - deviceProperties gives the captured GPU: numSms,
//     maxThreadsPerMultiprocessor, regsPerMultiprocessor,
//     sharedMemPerMultiprocessor, and maxBlocksPerMultiProcessor or else
//     the CUDA programming guide's resident-block limit for the compute
//     capability. ROCm's entry (from hipDeviceProp_t) has no
//     regsPerMultiprocessor and spells shared memory
//     maxSharedMemoryPerMultiProcessor: its regsPerBlock, which HIP fills
//     with the registers available per CU, stands in for the first, and
//     the second is read as sharedMemPerMultiprocessor. A trace without
//     them (old or bare-array traces), or whose entry lacks one of these
//     limits, needs Options.GPU, a model preset that stands in; complete
//     properties are the measured GPU and are never overridden.
//   - A copy's size is its gpu_memcpy event's args.bytes, else its host
//     call's "bytes" or "size" (ROCm keeps it on hipMemcpyWithStream,
//     hipMemcpyAsync: roctracer writes "size", rocprofiler "bytes", as
//     strings); its direction is read from its name (HtoD, DtoH,
//     HostToDevice, DeviceToHost), else from the ROCm event's kind, else
//     from the call's hipMemcpyKind (1 host-to-device, 2 device-to-host).
//   - The host's synchronisation calls and their cuda_sync events (see
//     "Synchronisation" below).
//   - Everything else — CPU operators, flow events, memsets, metadata,
//     host calls no GPU event points at, sync calls that cannot be
//     converted (with the reason) — is counted by category in
//     Summary.Unused, never silently dropped.
//
// # What is written
//
// The header records the device name as gpu and its limits as gpu_spec,
// so `replay --gpu=captured` replays on the captured machine shape.
// Kineto records no clock: times become cycles at Options.ClockMHz, or
// at the device's boost clock from a table of known GPUs (A100 1410 MHz,
// H100 1755, V100 1530, RTX 3090 1695, MI250X 1700, ..., from the
// vendors' whitepapers and product pages; the Nsight Systems importer
// uses the same table), or DefaultClockMHz.
//
// Each kernel of the converted device becomes, in program order (see
// below), a kernel record (ids 1, 2, ... in that order), a host launch
// on its stream (numeric streams keep their number; others get 2^32 + k)
// at the t of "Timing" below, and one cta record per thread block.
// Kineto measures only a kernel's duration, so the cycles per CTA are a
// first-order wave estimate:
//
//	CTAs per SM = model.GPU.CTAsPerSM(threads, registers, shared memory)
//	              on the captured GPU
//	waves       = ⌈CTAs ÷ (numSms × CTAs per SM)⌉
//	CTA cycles  = dur in cycles ÷ waves
//
// It assumes every CTA takes as long as every other, that the kernel had
// the GPU to itself (a kernel that overlapped another on the captured GPU
// had fewer SMs than the estimate assumes, so its CTAs come out too
// short), that the occupancy limits are the model's (no register
// allocation granularity or reserved shared memory), and that the GPU
// ran at the assumed clock. A kernel replayed alone on the captured GPU
// then takes its profiled duration within rounding (half a cycle per
// wave); the CTAs' relative cost, launch gaps and stream structure are
// what a replay under another policy can change. Summary.Overlapping
// counts the kernels that started while a kernel of another stream was
// running, for which the estimate is too short.
//
// Copies (cat "gpu_memcpy") from host to device and device to host become
// a buffer and a memcpy record: Kineto records no addresses, so each copy
// gets its own buffer (role input for HtoD, output for DtoH, args.bytes
// long, page-aligned after the previous one); its place in program order
// is the start of its host call (cudaMemcpyAsync), as a kernel's is.
// Device-to-device, peer and host-to-host copies have no trace record
// and are counted as unused; so are copies and kernels of other devices
// (Options.Device picks the device; by default that of the first kernel
// whose launch the profile has).
//
// # Program order
//
// Ops are written in the order the host issued them: by the start of
// their host call. Kineto's warm-up drops the host calls that started
// before the profile's window but keeps the GPU events that ran inside
// it, so a profile opens with kernels and copies the host issued before
// it (HTA's negative_queue_length_values_check trace: 705 of its 6,080
// kernels); a driver-API launch can also be missing mid-run. CUDA runs a
// stream's ops in issue order, so an op without a call goes after the op
// before it on its stream and before the next one with a call, and
// between those at its own GPU start (ties: GPU order). Ordering it by
// its GPU start alone would put it after ops of its stream launched while
// it waited; right after the op before it, an op on a stream of its own
// would be issued long before it ran. Summary.Uncalled counts them.
//
// # Synchronisation
//
// The host's synchronisation calls become sync records, in program order
// among the launches and copies by the start of their call (an op
// without a call that started on the GPU before a blocking sync returned
// goes before it: the waiting thread issued nothing meanwhile). The
// replay decides what each waits for from the operations it has issued,
// so a sync waits for what the replayed GPU is doing then:
//
//	cudaDeviceSynchronize ("Context Sync")     → sync device
//	cudaStreamSynchronize ("Stream Sync")      → sync stream
//	cudaEventSynchronize ("Event Sync")        → sync event
//	cudaEventRecord                            → sync record
//	cudaStreamWaitEvent ("Stream Wait Event")  → sync wait
//	hipDeviceSynchronize, hipStreamSynchronize → sync device, stream
//
// t is the call's ts and, for the three that block, ret its ts + dur,
// mapped to trace cycles as the ops' profiled times are (t = cycles(ts −
// base) − origin; see "Timing"), held between the t of the ops before
// and after it in program order (an op's t is its latest issue, not its
// call's start, and a stream's calls must stay in order).
//
// The cuda_runtime event has no stream or event: CUPTI's synchronisation
// record, which PyTorch 2.x writes as a cuda_sync event with the call's
// correlation, names them. A stream sync's and a stream wait's stream is
// the cuda_sync event's args.stream, else its tid; some PyTorch versions
// put these events on tid = stream + 1000000, read as the stream where
// the stream itself has no ops but the difference does. An event sync or
// stream wait names the cudaEventRecord it waits for
// (wait_on_cuda_event_record_corr_id, that call's correlation) and that
// record's stream (wait_on_stream). PyTorch 2.11 writes neither (−1),
// only the event's id (wait_on_cuda_event_id), and records with
// cudaEventRecordWithFlags, whose event has no cuda_sync event and no
// event or stream in its args; the record is then inferred: the last
// record call on the wait's host thread before it, where no wait or event
// sync between them named another event id and no other thread recorded
// meanwhile (else the wait is dropped, counted with the reason), on the
// stream of the last GPU op that thread launched before the record
// (PyTorch records on the current stream, where those ops ran). A record
// of an event nothing waits on (a timing event's) between the awaited
// record and its wait is taken for the awaited one, and a record on a
// stream other than the last launch's gets that launch's: the profile
// cannot tell them apart. Either way the record becomes a sync record on
// its stream, and each awaited record gets its own event, numbered 1,
// 2, ... in program order (an event recorded again is a new record,
// which is what a later wait names). A record no converted sync waits
// for is dropped (nothing in the replay depends on it); so is a wait or
// event sync whose record the profile lacks (the record came before the
// window; HTA's simple_add profiles have Stream Wait Events without
// wait_on_cuda_event_record_corr_id and no cudaEventRecord calls at
// all), and every event sync and stream wait of a profile without
// cuda_sync events (PyTorch before 2.2). Without a cuda_sync event a
// stream sync takes the stream of the last GPU op its host thread issued
// before it: PyTorch synchronises after the copy it has just issued
// (copy_kernel_cuda's memcpy_and_sync), which is what every
// cudaStreamSynchronize of HTA's test profiles follows. Each call left
// out is counted in Summary.Unused as "cuda_runtime:NAME (why)", and the
// cuda_sync events no record uses as "cuda_sync" (cudaEventQuery has
// one too).
//
// Syncs of another device (the cuda_sync event's args.device), and
// syncs whose call started before the first op in program order, are
// dropped, and so is a stream sync whose stream nothing (no GPU op,
// event record or stream wait) came on before it in program order: it
// waited for nothing, and a trace names a stream only from its first
// operation on (a profile that begins mid-run has them, as does a
// program that synchronises a stream before its first use). So is a blocking sync during which another host thread issued
// GPU work of the converted device: a trace has one host thread and the
// replay holds every later call until a blocking one returns, where the
// profile's other threads (PyTorch's autograd thread, data loaders) went
// on issuing; the calls after it then keep their profiled times.
//
// Copies: a gpu_memcpy whose call is cudaMemcpy (cuMemcpy*, hipMemcpy)
// is blocking; one whose name says Pageable ("Memcpy DtoH (Device ->
// Pageable)", "Memcpy HtoD (Pageable -> Device)") is pageable; either
// blocks the host (CUDA Runtime API, "API synchronization behavior"),
// and its ret is its call's ts + dur. A copy without its call, or during
// whose call another thread issued GPU work, is written as not blocking.
//
// lat.host_sync: the replay charges a blocking call that many cycles
// after its wait ends. The header's meta sets it (set.lat.host_sync,
// which --gpu=captured applies) to the median, over the blocking syncs
// and copies written, of ret − max(the call's start, the end of the last
// converted GPU op that ended by ret): the call's own cost beyond the
// GPU work it can have waited for (host_sync_calls, as the Nsight
// Systems importer writes it, says over how many calls). Without it,
// each sync that waited for nothing would return at once in the replay
// and move every later call earlier by its profiled cost.
//
// # Timing
//
// A replay does not start a kernel at its launch's t: the one host thread
// spends lat.host_issue per launch (launches serialise), the kernel
// reaches the GPU lat.host_launch later and is ready lat.kernel_dispatch
// after it heads its stream (docs/model.md); a copy is on the GPU after
// lat.host_issue + lat.host_launch. Taking t from the launch call's start
// would add these modelled latencies to real ones that are longer and
// vary (the first launch of a process takes tens of µs while CUDA loads
// modules), and move every kernel by a different amount. So t is chosen
// from where the profile shows each op on the GPU. Going backwards over
// the ops in program order,
//
//	issue_k = min(start_k − ready_k, issue_k+1 − lat.host_issue)
//	t_k     = issue_k − issue_1
//
// with start_k the op's profiled start on the GPU and ready_k its latency
// above: the latest issue that has the op ready on an idle GPU by its
// profiled start and still lets the host issue the next op by its own
// issue. An op that was not held up on the captured GPU then starts in
// the replay exactly when the profile says; one that queued behind its
// stream (kernels the host issued well ahead) is ready early and starts
// when its stream frees, as it did. On a trace without overlap between
// streams the replayed GPU busy span (first op's start to last op's end)
// matches the profile's; the makespan adds the first op's latency, about
// 8.7 µs, since a replay counts from the first issue.
//
// The latencies assumed are those of the configuration `replay
// --gpu=captured` builds: the default preset (model.DefaultPreset) with
// the header's gpu_spec, whose host-side costs keep their microseconds at
// the captured clock (model.FromSpec). The header's meta records them
// (lat.host_issue, lat.host_launch, lat.kernel_dispatch, in cycles at
// clock_mhz) and the profile ts, in µs, that t = 0 stands for
// (origin_ts_us). Replaying with other latencies (--set, another preset)
// shifts every op by the difference, and a slower host may fall behind.
// The model charges queued kernels only lat.kernel_dispatch between them
// where real GPUs take around a microsecond, and moves a copy at
// io.pcie_gbps rather than at its profiled rate, so ops behind a long
// queue or a copy may start somewhat early or late.
//
// Measured timing (measure.go). Where the profile shows them, the
// header's meta sets what the Nsight Systems importer measures, by the
// same rules (convert/internal/profile), and the mapping above uses
// them: set.lat.host_launch from the median call-to-start time of the
// kernels launched while the GPU was idle (every kernel, copy and memset
// event of the device that started before the kernel had ended by its
// call's ts), at least 3 of them, which is lat.host_issue +
// lat.host_launch + lat.kernel_dispatch (meta launch_ready_ns, over
// idle_launches); set.io.copy_latency and set.io.pcie_gbps from the
// converted copies' dur and bytes (profile.FitCopies: the pageable or
// the pinned ones, whichever took the more GPU time); and a blocking
// copy aimed no later than
//
//	max(call ts + its ready time, its return − lat.host_sync − its modelled time)
//
// so that a replay's host returns from it by its captured return (a
// pageable host-to-device cudaMemcpyAsync returns once its buffer is
// staged, before its transfer ends); one that waited on the GPU keeps
// the earlier t its start gives.
//
// Memory. The trace must be written in program order, but Kineto lists
// GPU events by completion and host calls elsewhere in the file, and
// deviceProperties may come after traceEvents; so the importer keeps
// every kernel and copy event and every host call (a few hundred bytes
// each) until the end of the document, then sorts them. That is memory
// in the number of kernels, not CTAs: cta records are generated while
// writing.
package kineto
