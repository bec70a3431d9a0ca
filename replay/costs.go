package replay

// What CRCS costs besides the scoreboard's stalls.
//
// The pre-profiler (§4.2.2): "The pre-profiler is launched with the same
// grid dimensions as the original kernel, but each CTA requires only one
// thread to calculate the CTA's memory access range bounds. ... the
// SetRange function is called once for each array", and (§4.2.4) "the
// profiler kernel can be concurrently executed with any other kernels
// except for its corresponding main kernel, which can start execution
// after its pre-profiler." A host kernel's CTAs therefore start no earlier
// than its pre-profiler's end: from when the kernel is ready, its
// profiler's CTAs run in waves of as many as the GPU holds (SMs ×
// max_ctas_per_sm one-thread CTAs), each wave as long as one CTA's
// SetRange calls, crcs.profile_cycles each. A SetRange call is one per
// access record of the CTA (one per array it touches); a kernel with no
// records (irregular) is found so by one call a CTA. The profilers hold no
// SM room here (one thread a CTA) and run beside everything else.
//
// The L1 flush (§4.3): "an SM has to flush its L1 cache when all CTAs
// running in an SM are finished such that the next kernel's CTAs that will
// be scheduled on the SM can fetch the most recent data from L2". An SM
// that turns from one kernel's CTAs to another's starts them
// crcs.l1_flush cycles later.

// flushL1 starts an L1 flush on SM s, turning to kernel k's CTAs at now,
// when it ran another kernel's last (under policies that keep kernels
// apart: a.l1Flush is 0 otherwise).
func (a *smArray) flushL1(s *sm, k *Kernel, now int64) {
	if s.last != nil && s.last != k && a.l1Flush > 0 {
		s.flushUntil = now + a.l1Flush
	}
	s.last = k
}
