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
//     graph launch shared by several kernels); a kernel without one is an
//     error.
//   - deviceProperties gives the captured GPU: numSms,
//     maxThreadsPerMultiprocessor, regsPerMultiprocessor,
//     sharedMemPerMultiprocessor, and maxBlocksPerMultiProcessor or else
//     the CUDA programming guide's resident-block limit for the compute
//     capability. A trace without them (old or bare-array traces) needs
//     Options.GPU, a model preset that stands in.
//   - Everything else — CPU operators, flow events, syncs, memsets,
//     metadata, host calls no GPU event points at — is counted by
//     category in Summary.Unused, never silently dropped.
//
// # What is written
//
// The header records the device name as gpu and its limits as gpu_spec,
// so `replay --gpu=captured` replays on the captured machine shape.
// Kineto records no clock: times become cycles at Options.ClockMHz, or
// at the device's boost clock from a table of known GPUs (see
// knownClocks: A100 1410 MHz, H100 1755, V100 1530, RTX 3090 1695, ...,
// from the vendors' whitepapers and product pages), or DefaultClockMHz.
//
// Each kernel of the converted device becomes, in program order (by the
// start of its launch call), a kernel record (ids 1, 2, ... in that
// order), a host launch at t = the call's start minus the first
// converted call's start, on its stream (numeric streams keep their
// number; others get 2^32 + k), and one cta record per thread block.
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
// then takes its profiled duration within rounding; the CTAs' relative
// cost, launch gaps and stream structure are what a replay under another
// policy can change.
//
// Copies (cat "gpu_memcpy") from host to device and device to host become
// a buffer and a memcpy record: Kineto records no addresses, so each copy
// gets its own buffer (role input for HtoD, output for DtoH, args.bytes
// long, page-aligned after the previous one) and its t is the start of
// its host call (cudaMemcpyAsync), or its own start when the profile
// shows none. Device-to-device, peer and host-to-host copies have no
// trace record and are counted as unused; so are copies and kernels of
// other devices (Options.Device picks the device; by default that of the
// first kernel launched).
//
// Memory. The trace must be written in program order, but Kineto lists
// GPU events by completion and host calls elsewhere in the file, and
// deviceProperties may come after traceEvents; so the importer keeps
// every kernel and copy event and every host call (a few hundred bytes
// each) until the end of the document, then sorts them. That is memory
// in the number of kernels, not CTAs: cta records are generated while
// writing.
package kineto
