package accelsim

import (
	"bufio"
	"io"
	"strings"

	"github.com/ulikunitz/xz"

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// openKernel opens a kernel trace for reading, decompressing a .xz file on
// the fly (in Go, so no xz binary is needed).
func openKernel(path string) (io.ReadCloser, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot open the kernel trace", Err: err}
	}
	if !strings.HasSuffix(path, ".xz") {
		return f, nil
	}
	zr, err := xz.NewReader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		f.Close()
		return nil, &Error{File: path, Msg: "not an xz file", Err: err}
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, f}, nil
}
