package accelsim

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/trace"
)

// command is one line of kernelslist.g that the conversion acts on: a host
// to device copy or a kernel trace file, in program order.
type command struct {
	line   int64  // line in kernelslist.g
	file   string // kernel trace path; empty for a copy
	addr   uint64 // copy destination
	bytes  uint64 // copy size
	region int    // the copied region holding the copy; -1 for none
}

// readKernelsList reads the program-order commands of a kernelslist.g. A
// directory stands for the kernelslist.g inside it. Lines that are neither a
// MemcpyHtoD nor a kernel file are errors (blank lines, # comments and
// other Memcpy lines aside): Accel-Sim skips them silently, which hides a
// wrong file.
func readKernelsList(path string) (string, []command, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "kernelslist.g")
	}
	f, err := tempfile.Open(path)
	if err != nil {
		return path, nil, &Error{File: path, Msg: "cannot open the kernel list", Err: err}
	}
	defer f.Close()
	dir := filepath.Dir(path)
	lr := newLineReader(f, path)
	var cmds []command
	for {
		line, err := lr.next()
		if err == io.EOF {
			if !slices.ContainsFunc(cmds, func(c command) bool { return c.file != "" }) {
				return path, nil, &Error{File: path, Msg: "the kernel list names no kernel trace file (kernel-N.traceg lines); is it an Accel-Sim kernelslist.g?"}
			}
			return path, cmds, nil
		}
		if err != nil {
			return path, nil, err
		}
		line = bytes.TrimSpace(line)
		switch {
		case hasPrefix(line, "MemcpyHtoD"):
			c, err := parseMemcpy(line)
			if err != nil {
				return path, nil, lr.errorf("%s", err.Msg)
			}
			c.line = lr.line
			cmds = append(cmds, c)
		case len(line) == 0 || line[0] == '#', hasPrefix(line, "Memcpy"):
			// Blank lines, comments, and copies other than to the device
			// (MemcpyDtoH, which gates nothing the replay models).
		case hasPrefix(line, "kernel"):
			name := string(line)
			if err := checkKernelFile(name); err != nil {
				return path, nil, lr.errorf("%s", err.Msg)
			}
			if !filepath.IsAbs(name) {
				name = filepath.Join(dir, name)
			}
			cmds = append(cmds, command{line: lr.line, file: name})
		default:
			return path, nil, lr.errorf("%s is neither a MemcpyHtoD nor a kernel trace file line", quote(line))
		}
	}
}

// parseMemcpy parses "MemcpyHtoD,0x<hex address>,<decimal bytes>".
func parseMemcpy(line []byte) (command, *Error) {
	parts := bytes.Split(line, []byte{','})
	if len(parts) != 3 || string(bytes.TrimSpace(parts[0])) != "MemcpyHtoD" {
		return command{}, &Error{Msg: "bad MemcpyHtoD line " + quote(line) + ": want MemcpyHtoD,0x<address>,<bytes>"}
	}
	addr, ok := parseHex(bytes.TrimSpace(parts[1]))
	if !ok {
		return command{}, &Error{Msg: "bad MemcpyHtoD address " + quote(parts[1]) + ": want a hex number"}
	}
	n, ok := parseUint(bytes.TrimSpace(parts[2]), math.MaxInt64)
	if !ok {
		return command{}, &Error{Msg: "bad MemcpyHtoD size " + quote(parts[2]) + ": want a decimal number of bytes"}
	}
	if n > trace.MaxBytes {
		return command{}, &Error{Msg: fmt.Sprintf("MemcpyHtoD of %d bytes: a trace's buffer holds at most 2^46 (64 TiB)", n)}
	}
	if n > 0 && addr > math.MaxUint64-(n-1) {
		return command{}, &Error{Msg: "MemcpyHtoD region runs past the end of the address space"}
	}
	return command{addr: addr, bytes: n}, nil
}

// checkKernelFile accepts the post-processed trace names the tracer's
// post-processing writes into kernelslist.g.
func checkKernelFile(name string) *Error {
	switch {
	case strings.HasSuffix(name, ".traceg"), strings.HasSuffix(name, ".traceg.xz"):
		return nil
	case strings.HasSuffix(name, ".trace"), strings.HasSuffix(name, ".trace.xz"):
		return &Error{Msg: quote([]byte(name)) + " is the tracer's raw output; run Accel-Sim's post-traces-processing on the trace directory first"}
	}
	return &Error{Msg: quote([]byte(name)) + " is not a kernel trace: want a .traceg or .traceg.xz file"}
}

func quote(b []byte) string { return strconv.Quote(clip(b)) }
