package replay

import "unsafe"

// SetKernelRunReuse turns the reuse of completed device kernels' running
// parts (kernelRuns) on or off, for a test that compares the two.
func SetKernelRunReuse(on bool) { reuseKernelRuns = on }

// TreeAheadBound is what the tree filer may hold for a trace whose largest
// host kernel has grid CTAs without per-warp cycles (docs/scale-out.md):
// the messages waiting, up to their byte limit, the one that crossed it,
// the one being filled and the one being read (treeMsgBytes filed and
// msgSpecs specs each, at most), and the window of its host CTAs read
// whose trees are not (a quarter more for its storage's growth).
func TreeAheadBound(grid int) int64 {
	msg := int64(treeMsgBytes) + int64(msgSpecs)*specBytes + 4*treeBatch*eventBytes
	return treeLimit + 3*msg + int64(grid)*int64(unsafe.Sizeof(slimSpec{}))*5/4
}
