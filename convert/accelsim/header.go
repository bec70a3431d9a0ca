package accelsim

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// kernelHeader is what a kernel trace's "-key = value" lines say. Keys the
// trace leaves out keep their defaults, as in Accel-Sim: a name from the
// file, grid and block 1,1,1, zeros elsewhere — tracer version 0 included,
// which means the old format whose instruction lines carry the thread block
// and warp.
type kernelHeader struct {
	name          string
	id            uint64
	hasID         bool
	grid, block   [3]uint32
	shmem         int64
	nregs         int
	binaryVersion int
	stream        uint64
	shmemBase     uint64
	localBase     uint64
	nvbitVersion  string
	tracerVersion int
	lineinfo      bool
}

// Limits a header must respect (CUDA's, and the trace format's).
const (
	maxBlockThreads = 1024
	maxGridCTAs     = 1 << 32 // far beyond any traceable kernel; bounds the CTA bitmap
	maxRegs         = 255
)

func newKernelHeader(defaultName string) *kernelHeader {
	return &kernelHeader{name: defaultName, grid: [3]uint32{1, 1, 1}, block: [3]uint32{1, 1, 1}}
}

// readHeader reads header lines up to and including the first line that
// starts with '#'. Blank lines are skipped; any other line must be a
// "-key = value" line.
func readHeader(lr *lineReader, defaultName string) (*kernelHeader, error) {
	h := newKernelHeader(defaultName)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil, errorf(lr.file, 0, "no thread blocks: the header has no line starting with '#'")
		}
		if err != nil {
			return nil, err
		}
		switch {
		case blank(line):
		case line[0] == '#':
			return h, nil
		case line[0] == '-':
			if err := h.set(line[1:]); err != nil {
				return nil, lr.errorf("%v", err)
			}
		default:
			return nil, lr.errorf("expected a \"-key = value\" header line or the '#' line that ends the header, got %q", clip(line))
		}
	}
}

// set applies one header line, without its leading '-'. Unknown keys are
// ignored so newer tracers' additions do not stop a conversion.
func (h *kernelHeader) set(line []byte) error {
	eq := bytes.IndexByte(line, '=')
	if eq < 0 {
		return fmt.Errorf("header line %q has no '='", clip(line))
	}
	key := strings.Join(strings.Fields(string(line[:eq])), " ")
	val := bytes.TrimSpace(line[eq+1:])
	var ok bool
	switch key {
	case "kernel name":
		ok = len(val) > 0
		h.name = strings.ToValidUTF8(string(val), string(utf8.RuneError))
	case "kernel id":
		h.id, ok = parseUint(val, math.MaxUint64)
		h.hasID = true
	case "grid dim":
		h.grid, ok = parseDim(val, math.MaxInt32)
		if n := h.ctas(); ok && n > maxGridCTAs {
			return fmt.Errorf("grid dim %s has %d CTAs, more than this importer handles (%d)", val, n, uint64(maxGridCTAs))
		}
	case "block dim":
		h.block, ok = parseDim(val, maxBlockThreads)
		if n := h.threads(); ok && n > maxBlockThreads {
			return fmt.Errorf("block dim %s has %d threads; a CTA has at most %d", val, n, maxBlockThreads)
		}
	case "shmem":
		var v uint64
		v, ok = parseUint(val, math.MaxInt64)
		h.shmem = int64(v)
	case "nregs":
		var v uint64
		v, ok = parseUint(val, maxRegs)
		h.nregs = int(v)
	case "binary version":
		var v uint64
		v, ok = parseUint(val, 1<<20)
		h.binaryVersion = int(v)
	case "cuda stream id":
		h.stream, ok = parseUint(val, math.MaxUint64)
	case "shmem base_addr":
		h.shmemBase, ok = parseHex(val)
	case "local mem base_addr":
		h.localBase, ok = parseHex(val)
	case "nvbit version":
		ok = true
		h.nvbitVersion = strings.ToValidUTF8(string(val), string(utf8.RuneError))
	case "accelsim tracer version":
		// Written with %s; Accel-Sim reads the leading integer ("4.1" is 4).
		n := 0
		for n < len(val) && val[n] >= '0' && val[n] <= '9' {
			n++
		}
		var v uint64
		v, ok = parseUint(val[:n], 1<<20)
		h.tracerVersion = int(v)
		if ok && v > maxTracerVersion {
			return fmt.Errorf("accelsim tracer version %s is newer than this importer reads (up to %d): its instruction lines may differ", clip(val), maxTracerVersion)
		}
	case "enable lineinfo":
		var v uint64
		v, ok = parseUint(val, 1)
		h.lineinfo = v == 1
	default:
		return nil
	}
	if !ok {
		return fmt.Errorf("bad value %q for header key %q", clip(val), key)
	}
	return nil
}

// maxTracerVersion is the newest Accel-Sim tracer format the importer
// knows (version 5 adds thread-block clusters).
const maxTracerVersion = 5

// ctas is the number of thread blocks in the grid.
func (h *kernelHeader) ctas() uint64 {
	return uint64(h.grid[0]) * uint64(h.grid[1]) * uint64(h.grid[2])
}

// threads is the number of threads per thread block.
func (h *kernelHeader) threads() int {
	return int(h.block[0]) * int(h.block[1]) * int(h.block[2])
}

// warps is the number of warps per thread block.
func (h *kernelHeader) warps() int { return (h.threads() + 31) / 32 }

// parseDim parses "(x,y,z)" (blanks allowed), each from 1 to max.
func parseDim(b []byte, max uint64) ([3]uint32, bool) {
	var d [3]uint32
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '(' || b[len(b)-1] != ')' {
		return d, false
	}
	return parseTriple(b[1:len(b)-1], 1, max)
}

// parseTriple parses "x,y,z" (blanks allowed), each from min to max.
func parseTriple(b []byte, min, max uint64) ([3]uint32, bool) {
	var d [3]uint32
	parts := bytes.Split(b, []byte{','})
	if len(parts) != 3 {
		return d, false
	}
	for i, p := range parts {
		v, ok := parseUint(bytes.TrimSpace(p), max)
		if !ok || v < min {
			return d, false
		}
		d[i] = uint32(v)
	}
	return d, true
}

// clip shortens a line for an error message.
func clip(b []byte) string {
	const n = 60
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
