// Package profile holds what the importers of kernel-level profiles
// (convert/kineto for the PyTorch profiler, convert/nsys for Nsight
// Systems) share: both see a GPU timeline of kernels and copies with
// their durations, the device's limits and no per-CTA cost, and both
// must turn that into trace records that a replay on the captured GPU
// reproduces. One implementation keeps their assumptions the same, so a
// kernel converted from either tool replays alike:
//
//   - the boost clocks of known GPUs, for profiles that record none
//     (ClockFor);
//   - the resident-block limit by compute capability, for devices whose
//     properties lack it (MaxCTAsPerSM);
//   - the captured GPU as header and occupancy model, or a preset
//     standing in for it (GPU, FromPreset);
//   - the per-CTA wave estimate and the kernel's records (CTACycles,
//     WriteKernel);
//   - the timing mapping that chooses each launch's t so that the op
//     reaches the GPU when the profile says it started (Schedule);
//   - the "not converted" counts of a summary (NotConverted).
//
// It is internal: the importers' exported API is theirs, and this
// package may change with them.
package profile
