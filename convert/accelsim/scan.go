package accelsim

import (
	"slices"
	"strconv"
)

// summary is what the first pass learns of the kernels as a whole, for the
// trace header.
type summary struct {
	binaryVersion  int      // the highest: the GPU runs every kernel's SASS
	tracerVersions []string // distinct, in order of appearance
	nvbitVersions  []string
}

func (s *summary) add(h *kernelHeader) {
	s.binaryVersion = max(s.binaryVersion, h.binaryVersion)
	if v := strconv.Itoa(h.tracerVersion); !slices.Contains(s.tracerVersions, v) {
		s.tracerVersions = append(s.tracerVersions, v)
	}
	if v := h.nvbitVersion; v != "" && !slices.Contains(s.nvbitVersions, v) {
		s.nvbitVersions = append(s.nvbitVersions, v)
	}
}

// scan is the first pass: it reads every kernel file, checking it
// completely, and gathers the global footprint into fp.
func (c *converter) scan(fp *footprint) (*summary, error) {
	c.startPass(1)
	sum := &summary{}
	ids := make(map[uint64]string)
	err := c.forEachCommand(func(cmd command, h *kernelHeader, lr *lineReader) error {
		if h == nil {
			return nil
		}
		if prev, dup := ids[h.id]; dup {
			return errorf(cmd.file, 0, "kernel id %d is also the id of %s", h.id, prev)
		}
		ids[h.id] = cmd.file
		sum.add(h)
		v := &scanner{c: c, fp: fp, win: windows{shared: h.shmemBase, local: h.localBase}}
		_, err := readBody(lr, h, v)
		return err
	})
	return sum, err
}

// scanner is the first pass's visitor: it records the global bytes each
// memory instruction touches.
type scanner struct {
	c   *converter
	fp  *footprint
	win windows
}

func (s *scanner) beginCTA(uint64) error { return nil }

func (s *scanner) inst(_ int, in *inst) error {
	if in.width == 0 {
		return nil
	}
	sp, acc := classify(in.opcode)
	if sp != spaceGeneric {
		return nil
	}
	for j := 0; j < in.n; j++ {
		if a := in.addr[j]; s.win.where(a) == spaceGeneric {
			s.fp.touch(a, lastByte(a, in.width), acc)
		}
	}
	return nil
}

func (s *scanner) endCTA() error {
	s.c.ctas++
	s.c.report()
	return nil
}
