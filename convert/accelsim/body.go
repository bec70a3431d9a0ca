package accelsim

import (
	"bytes"
	"io"
	"math"
)

// visitor receives a kernel file's thread blocks as the body is read.
type visitor interface {
	// beginCTA starts thread block cta (its linear index in the grid).
	beginCTA(cta uint64) error
	// inst is one instruction of a warp of the current thread block. in is
	// reused for the next line.
	inst(warp int, in *inst) error
	// endCTA ends the current thread block.
	endCTA() error
}

// body reads the thread blocks of a kernel file after its header, checking
// the structure as it goes: every block opened and closed, one thread block
// line inside the grid, warps inside the block and each warp's instruction
// count matching its lines.
type body struct {
	lr   *lineReader
	h    *kernelHeader
	v    visitor
	in   inst
	seen ctaSet

	open      bool  // inside #BEGIN_TB ... #END_TB
	openLine  int64 // line of the #BEGIN_TB
	hasTB     bool  // the thread block line was read
	tb        [3]uint32
	warps     uint64 // warps of this block seen so far, one bit each
	warp      int    // current warp, -1 before the first
	counting  bool   // the current warp's insts line was read
	want, got uint64 // its instruction count and the lines read so far
	instsLine int64
}

// readBody reads the rest of a kernel file and returns the set of thread
// blocks it held.
func readBody(lr *lineReader, h *kernelHeader, v visitor) (*ctaSet, error) {
	b := &body{lr: lr, h: h, v: v, warp: -1}
	for {
		line, err := lr.next()
		if err == io.EOF {
			if b.open {
				return nil, errorf(lr.file, b.openLine, "missing #END_TB: the thread block opened here is still open at the end of the file")
			}
			return &b.seen, nil
		}
		if err != nil {
			return nil, err
		}
		if err := b.line(line); err != nil {
			return nil, err
		}
	}
}

// line handles one line of the body.
func (b *body) line(line []byte) error {
	if len(line) > 0 && isSpace(line[0]) {
		line = trimBlanks(line)
	}
	if len(line) == 0 {
		return nil
	}
	if b.open && isHexDigit(line[0]) && !hasPrefix(line, "cluster") {
		return b.instLine(line)
	}
	t := trimBlanks(line)
	switch {
	case string(t) == "#BEGIN_TB":
		return b.begin()
	case string(t) == "#END_TB":
		return b.end()
	case !b.open && t[0] == '#':
		return nil // a comment between blocks, like the "#traces format" line
	case !b.open:
		return b.lr.errorf("expected #BEGIN_TB, got %q", clip(t))
	case hasPrefix(t, "thread block"):
		return b.threadBlock(t)
	case hasPrefix(t, "cluster"):
		return b.cluster(t)
	case hasPrefix(t, "warp"):
		return b.warpLine(t)
	case hasPrefix(t, "insts"):
		return b.insts(t)
	}
	return b.lr.errorf("unexpected line %q inside a thread block", clip(t))
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (b *body) begin() error {
	if b.open {
		return b.lr.errorf("#BEGIN_TB before the #END_TB of the thread block opened at line %d", b.openLine)
	}
	b.open, b.openLine, b.hasTB, b.warps, b.warp, b.counting = true, b.lr.line, false, 0, -1, false
	return nil
}

func (b *body) end() error {
	if !b.open {
		return b.lr.errorf("#END_TB without #BEGIN_TB")
	}
	if !b.hasTB {
		return b.lr.errorf("thread block opened at line %d has no \"thread block = x,y,z\" line", b.openLine)
	}
	if err := b.endWarp(); err != nil {
		return err
	}
	b.open = false
	return b.v.endCTA()
}

// threadBlock reads "thread block = x,y,z" and starts the block.
func (b *body) threadBlock(t []byte) error {
	if b.hasTB {
		return b.lr.errorf("second thread block line in the thread block opened at line %d", b.openLine)
	}
	val, ok := keyValue(t, "thread block")
	if !ok {
		return b.lr.errorf("bad thread block line %q: want \"thread block = x,y,z\"", clip(t))
	}
	tb, ok := parseTriple(val, 0, math.MaxUint32)
	if !ok {
		return b.lr.errorf("bad thread block line %q: want \"thread block = x,y,z\"", clip(t))
	}
	g := b.h.grid
	if tb[0] >= g[0] || tb[1] >= g[1] || tb[2] >= g[2] {
		return b.lr.errorf("thread block %d,%d,%d is outside the grid (%d,%d,%d)", tb[0], tb[1], tb[2], g[0], g[1], g[2])
	}
	cta := uint64(tb[0]) + uint64(g[0])*(uint64(tb[1])+uint64(g[1])*uint64(tb[2]))
	if !b.seen.add(cta) {
		return b.lr.errorf("thread block %d,%d,%d appears twice", tb[0], tb[1], tb[2])
	}
	b.hasTB, b.tb = true, tb
	return b.v.beginCTA(cta)
}

// cluster checks the "cluster id", "cluster cta" and "cluster rank" lines
// of newer tracers; the replay has no use for clusters.
func (b *body) cluster(t []byte) error {
	if !b.hasTB || b.warp >= 0 {
		return b.lr.errorf("cluster line %q outside the thread block's preamble", clip(t))
	}
	if val, ok := keyValue(t, "cluster rank"); ok {
		if _, ok := parseUint(val, math.MaxUint32); ok {
			return nil
		}
	}
	for _, key := range []string{"cluster id", "cluster cta"} {
		if val, ok := keyValue(t, key); ok {
			if _, ok := parseTriple(val, 0, math.MaxUint32); ok {
				return nil
			}
		}
	}
	return b.lr.errorf("bad cluster line %q: want \"cluster id = x,y,z\", \"cluster cta = x,y,z\" or \"cluster rank = n\"", clip(t))
}

// warpLine reads "warp = N", ending the previous warp.
func (b *body) warpLine(t []byte) error {
	if !b.hasTB {
		return b.lr.errorf("warp line before the \"thread block = x,y,z\" line")
	}
	val, ok := keyValue(t, "warp")
	n, ok2 := parseUint(val, math.MaxInt32)
	if !ok || !ok2 {
		return b.lr.errorf("bad warp line %q: want \"warp = N\"", clip(t))
	}
	if err := b.endWarp(); err != nil {
		return err
	}
	if n >= uint64(b.h.warps()) {
		return b.lr.errorf("warp %d is outside the block: block dim (%d,%d,%d) has %d warps", n, b.h.block[0], b.h.block[1], b.h.block[2], b.h.warps())
	}
	if b.warps&(1<<n) != 0 {
		return b.lr.errorf("warp %d appears twice in thread block %d,%d,%d", n, b.tb[0], b.tb[1], b.tb[2])
	}
	b.warps |= 1 << n
	b.warp, b.counting = int(n), false
	return nil
}

// insts reads "insts = N" for the current warp.
func (b *body) insts(t []byte) error {
	val, ok := keyValue(t, "insts")
	n, ok2 := parseUint(val, math.MaxUint64)
	switch {
	case !ok || !ok2:
		return b.lr.errorf("bad insts line %q: want \"insts = N\"", clip(t))
	case b.warp < 0:
		return b.lr.errorf("insts line before any \"warp = N\" line")
	case b.counting:
		return b.lr.errorf("second insts line for warp %d", b.warp)
	}
	b.counting, b.want, b.got, b.instsLine = true, n, 0, b.lr.line
	return nil
}

// endWarp checks that the current warp had as many lines as it said.
func (b *body) endWarp() error {
	switch {
	case b.warp < 0:
		return nil
	case !b.counting:
		return b.lr.errorf("warp %d has no \"insts = N\" line", b.warp)
	case b.got != b.want:
		return b.lr.errorf("warp %d has %d instruction lines but its insts line (line %d) says %d", b.warp, b.got, b.instsLine, b.want)
	}
	return nil
}

// instLine parses one instruction of the current warp.
func (b *body) instLine(line []byte) error {
	switch {
	case !b.counting:
		return b.lr.errorf("instruction line before the \"warp = N\" and \"insts = N\" lines")
	case b.got == b.want:
		return b.lr.errorf("warp %d has more instruction lines than its insts line (line %d) says (%d)", b.warp, b.instsLine, b.want)
	}
	in := &b.in
	if err := parseInst(in, line, b.h.tracerVersion, b.h.lineinfo); err != nil {
		return b.lr.errorf("%v", err)
	}
	if b.h.tracerVersion < 3 && (in.tb != b.tb || in.warp != uint64(b.warp)) {
		return b.lr.errorf("instruction of thread block %d,%d,%d warp %d inside thread block %d,%d,%d warp %d",
			in.tb[0], in.tb[1], in.tb[2], in.warp, b.tb[0], b.tb[1], b.tb[2], b.warp)
	}
	b.got++
	if err := b.v.inst(b.warp, in); err != nil {
		return b.located(err)
	}
	return nil
}

// located places a visitor's *Error that has no position at the current
// line.
func (b *body) located(err error) error {
	if e, ok := err.(*Error); ok && e.File == "" {
		e.File, e.Line = b.lr.file, b.lr.line
	}
	return err
}

// keyValue returns the trimmed text after "key =" in line.
func keyValue(line []byte, key string) ([]byte, bool) {
	if !hasPrefix(line, key) {
		return nil, false
	}
	rest := bytes.TrimLeft(line[len(key):], " \t")
	if len(rest) == 0 || rest[0] != '=' {
		return nil, false
	}
	return bytes.TrimSpace(rest[1:]), true
}
