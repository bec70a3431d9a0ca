// Package xztest opens the xz-compressed logs and captures tests read.
// The repository keeps its measured GPGPU-Sim logs as `xz -9` files;
// tests in several packages decompress them, so the opening lives once,
// here, rather than as a helper copied into each package's tests.
package xztest

import (
	"io"
	"os"
	"testing"

	"github.com/ulikunitz/xz"
)

// Open is the xz-compressed file at path, decompressed. The file is
// closed when the test ends; a missing or malformed file fails the test
// with the path named.
func Open(t testing.TB, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := xz.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}
