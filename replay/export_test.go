package replay

// SetKernelRunReuse turns the reuse of completed device kernels' running
// parts (kernelRuns) on or off, for a test that compares the two.
func SetKernelRunReuse(on bool) { reuseKernelRuns = on }
