package accelsim

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Address modes of a memory instruction (Accel-Sim's address_format).
const (
	modeList       = 0 // one address per active lane
	modeBaseStride = 1 // base of the first active lane, constant stride over contiguous lanes
	modeBaseDelta  = 2 // base, then one delta per further active lane from the previous
)

// maxRegFields bounds an instruction's register counts (the tracer writes at
// most one destination and four sources), so a corrupt count is caught on
// its own line instead of swallowing the rest of it.
const maxRegFields = 16

// maxWidth bounds mem_width: the widest SASS access is 128 bytes per lane.
const maxWidth = 128

// inst is one instruction line. The opcode aliases the line it was parsed
// from. Addresses are kept for the active lanes only, in lane order.
type inst struct {
	tb      [3]uint32 // thread block, tracer versions below 3
	warp    uint64    // warp, tracer versions below 3
	pc      uint64
	mask    uint32
	opcode  []byte
	width   uint32 // bytes per lane; 0 for an instruction without memory access
	n       int    // lanes with an address
	lane    [32]uint8
	addr    [32]uint64
	hasImm  bool
	imm     int64
	lineNum uint64
}

// parseInst parses one instruction line of a trace written by the given
// tracer version, with or without line numbers. Its errors say which field
// was wrong; the caller adds the file and line.
func parseInst(in *inst, line []byte, version int, lineinfo bool) error {
	f := fields{b: line}
	in.n, in.hasImm, in.imm = 0, false, 0
	if version < 3 {
		if err := in.parsePrefix(&f); err != nil {
			return err
		}
	}
	if lineinfo {
		v, ok := parseUint(f.next(), math.MaxUint32)
		if !ok {
			return errors.New("bad or missing line number (the header says lineinfo is enabled)")
		}
		in.lineNum = v
	}
	var ok bool
	tok := f.next()
	if in.pc, ok = parseHex(tok); !ok {
		return fmt.Errorf("bad PC %q: want a hex number", clip(tok))
	}
	tok = f.next()
	mask, ok := parseHex(tok)
	if !ok || mask > math.MaxUint32 {
		return fmt.Errorf("bad active mask %q: want a 32-bit hex number", clip(tok))
	}
	in.mask = uint32(mask)
	if err := skipRegs(&f, "destination"); err != nil {
		return err
	}
	in.opcode = f.next()
	if len(in.opcode) == 0 || !isLetter(in.opcode[0]) {
		return fmt.Errorf("bad opcode %q", clip(in.opcode))
	}
	if err := skipRegs(&f, "source"); err != nil {
		return err
	}
	tok = f.next()
	width, ok := parseUint(tok, maxWidth)
	if !ok {
		return fmt.Errorf("bad mem_width %q: want a decimal number of bytes up to %d", clip(tok), maxWidth)
	}
	in.width = uint32(width)
	if width > 0 {
		if err := in.parseAddrs(&f, version); err != nil {
			return err
		}
	}
	return in.parseTail(&f)
}

// parsePrefix reads the "tb_x tb_y tb_z warp" of old tracer versions.
func (in *inst) parsePrefix(f *fields) error {
	for i := range in.tb {
		v, ok := parseUint(f.next(), math.MaxUint32)
		if !ok {
			return errors.New("bad thread block prefix: tracer versions below 3 start each instruction with tb_x tb_y tb_z warp")
		}
		in.tb[i] = uint32(v)
	}
	v, ok := parseUint(f.next(), math.MaxUint32)
	if !ok {
		return errors.New("bad warp prefix: tracer versions below 3 start each instruction with tb_x tb_y tb_z warp")
	}
	in.warp = v
	return nil
}

// skipRegs reads a register count and that many register names.
func skipRegs(f *fields, what string) error {
	tok := f.next()
	n, ok := parseUint(tok, maxRegFields)
	if !ok {
		return fmt.Errorf("bad %s register count %q: want 0 to %d", what, clip(tok), maxRegFields)
	}
	for i := uint64(0); i < n; i++ {
		tok = f.next()
		if !isReg(tok) {
			return fmt.Errorf("%s register %d of %d is %q; want R<n> or UR<n>", what, i+1, n, clip(tok))
		}
	}
	return nil
}

// isReg reports whether b names a register: R<n> or UR<n>.
func isReg(b []byte) bool {
	if len(b) > 0 && b[0] == 'U' {
		b = b[1:]
	}
	if len(b) < 2 || b[0] != 'R' {
		return false
	}
	_, ok := parseUint(b[1:], math.MaxUint32)
	return ok
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// parseAddrs reads the address mode and the addresses of the active lanes.
func (in *inst) parseAddrs(f *fields, version int) error {
	tok := f.next()
	mode, ok := parseUint(tok, math.MaxUint32)
	if !ok {
		return fmt.Errorf("bad address mode %q: want 0, 1 or 2", clip(tok))
	}
	switch {
	case mode == modeList:
		return in.parseList(f)
	case mode == modeBaseStride:
		return in.parseStride(f)
	case mode == modeBaseDelta && version >= 3:
		return in.parseDelta(f)
	case mode == modeBaseDelta:
		return fmt.Errorf("address mode 2 in a tracer version %d trace; versions below 3 write only modes 0 and 1", version)
	}
	return fmt.Errorf("unknown address mode %d: want 0, 1 or 2", mode)
}

// parseList reads one hex address per active lane.
func (in *inst) parseList(f *fields) error {
	for m := in.mask; m != 0; m &= m - 1 {
		tok := f.next()
		a, ok := parseHex(tok)
		if !ok {
			return fmt.Errorf("bad address %q for lane %d (mode 0 lists one hex address per active lane)", clip(tok), bits.TrailingZeros32(m))
		}
		in.add(bits.TrailingZeros32(m), a)
	}
	return nil
}

// parseStride reads a base and a stride; the active lanes must be
// contiguous, as the tracer uses this mode only then.
func (in *inst) parseStride(f *fields) error {
	tok := f.next()
	base, ok := parseHex(tok)
	if !ok {
		return fmt.Errorf("bad base address %q (mode 1 is a hex base and a decimal stride)", clip(tok))
	}
	tok = f.next()
	stride, ok := parseInt(tok)
	if !ok {
		return fmt.Errorf("bad stride %q (mode 1 is a hex base and a decimal stride)", clip(tok))
	}
	if in.mask == 0 {
		return nil
	}
	first := bits.TrailingZeros32(in.mask)
	run := in.mask >> first
	if run&(run+1) != 0 {
		return fmt.Errorf("address mode 1 with active mask %08x: base and stride need contiguous active lanes", in.mask)
	}
	a := base
	for l := first; l < 32 && in.mask&(1<<l) != 0; l++ {
		in.add(l, a)
		a += uint64(stride)
	}
	return nil
}

// parseDelta reads the first active lane's address and one delta per
// further active lane, each from the previous lane's address.
func (in *inst) parseDelta(f *fields) error {
	tok := f.next()
	a, ok := parseHex(tok)
	if !ok {
		return fmt.Errorf("bad base address %q (mode 2 is a hex base and one decimal delta per further active lane)", clip(tok))
	}
	for m := in.mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if in.n > 0 {
			tok = f.next()
			d, ok := parseInt(tok)
			if !ok {
				return fmt.Errorf("bad delta %q for lane %d (mode 2 has one decimal delta per active lane after the first)", clip(tok), l)
			}
			a += uint64(d)
		}
		in.add(l, a)
	}
	return nil
}

func (in *inst) add(lane int, a uint64) {
	in.lane[in.n] = uint8(lane)
	in.addr[in.n] = a
	in.n++
}

// parseTail reads the optional immediate and insists nothing follows it, so
// an address list longer than the mask says is caught.
func (in *inst) parseTail(f *fields) error {
	tok := f.next()
	if tok == nil {
		return nil
	}
	v, ok := parseInt(tok)
	if !ok {
		return fmt.Errorf("unexpected field %q after the instruction (more addresses than active lanes?)", clip(tok))
	}
	in.hasImm, in.imm = true, v
	if tok = f.next(); tok != nil {
		return fmt.Errorf("unexpected field %q after the immediate", clip(tok))
	}
	return nil
}
