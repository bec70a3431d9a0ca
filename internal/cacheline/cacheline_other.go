//go:build !amd64

package cacheline

import "unsafe"

// Prefetch does nothing on this architecture: a prefetch is only a hint.
func Prefetch(p unsafe.Pointer) {}
