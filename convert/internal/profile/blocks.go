package profile

// residentCTAs is the CUDA programming guide's "maximum number of
// resident blocks per SM" by compute capability {major, minor}.
var residentCTAs = map[[2]int]int{
	{3, 0}: 16, {3, 2}: 16, {3, 5}: 16, {3, 7}: 16,
	{5, 0}: 32, {5, 2}: 32, {5, 3}: 32,
	{6, 0}: 32, {6, 1}: 32, {6, 2}: 32,
	{7, 0}: 32, {7, 2}: 32, {7, 5}: 16,
	{8, 0}: 32, {8, 6}: 16, {8, 7}: 16, {8, 9}: 24,
	{9, 0}: 32, {10, 0}: 32,
}

// DefaultMaxCTAsPerSM is the resident-block limit assumed for a compute
// capability the table does not list (the limit of most architectures
// since Maxwell).
const DefaultMaxCTAsPerSM = 32

// MaxCTAsPerSM is the resident-block limit of compute capability
// major.minor, for device properties that record the capability but not
// the limit (older PyTorch profiles, some Nsight Systems exports); the
// wave estimate needs it. A capability the table does not list gets
// DefaultMaxCTAsPerSM.
func MaxCTAsPerSM(major, minor int) int {
	if n, ok := residentCTAs[[2]int{major, minor}]; ok {
		return n
	}
	return DefaultMaxCTAsPerSM
}
