package accelsim

import (
	"slices"
	"testing"
)

// TestParseInst covers each line layout and address mode against the
// addresses Accel-Sim's decompression gives.
func TestParseInst(t *testing.T) {
	for _, c := range []struct {
		name     string
		line     string
		version  int
		lineinfo bool
		width    uint32
		lanes    []uint8
		addrs    []uint64
		imm      int64
		hasImm   bool
	}{
		{name: "no memory, v4", line: "0008 ffffffff 1 R1 MOV 0 0 ", version: 4},
		{name: "no memory, v5 immediate", line: "0010 ffffffff 1 R2 IADD3 2 R1 R1 0 -4 ", version: 5, imm: -4, hasImm: true},
		{name: "mode 0", line: "0098 00000005 1 R4 LDG.E.CG 1 R4 4 0 0x00007f2b2d500000 0x00007f2b2d500010 ", version: 4,
			width: 4, lanes: []uint8{0, 2}, addrs: []uint64{0x7f2b2d500000, 0x7f2b2d500010}},
		{name: "mode 1, negative stride", line: "0098 00000ff0 0 STG.E.64 2 R2 R3 8 1 0x1000 -8 ", version: 4,
			width: 8, lanes: []uint8{4, 5, 6, 7, 8, 9, 10, 11}, addrs: []uint64{0x1000, 0xff8, 0xff0, 0xfe8, 0xfe0, 0xfd8, 0xfd0, 0xfc8}},
		{name: "mode 1, no active lane", line: "0098 00000000 1 R4 LDG.E 1 R4 4 1 0x0 0 ", version: 4, width: 4},
		{name: "mode 2", line: "00a0 80000003 1 R4 LDG.E 1 R4 4 2 0x2000 -16 64 7 ", version: 5,
			width: 4, lanes: []uint8{0, 1, 31}, addrs: []uint64{0x2000, 0x1ff0, 0x2030}, imm: 7, hasImm: true},
		{name: "mode 2, one lane", line: "0080 00000001 1 R11 ATOMG.E.ADD 2 R12 R13 4 2 0x7f4000040000 ", version: 4,
			width: 4, lanes: []uint8{0}, addrs: []uint64{0x7f4000040000}},
		{name: "line numbers", line: "14 0020 ffffffff 1 R3 LDG.E.64 1 R2 8 1 0x100 8 0 ", version: 4, lineinfo: true,
			width: 8, lanes: rangeLanes(32), addrs: strided(0x100, 8, 32), hasImm: true},
		{name: "old prefix", line: "1 0 0 3 0010 00000003 1 R2 LDG.E 1 R4 4 1 0x40 4 ", version: 2,
			width: 4, lanes: []uint8{0, 1}, addrs: []uint64{0x40, 0x44}},
		{name: "old prefix and line numbers", line: "1 0 0 3 88 0010 00000001 1 R2 LDG.E 1 R4 4 0 0x40", version: 2, lineinfo: true,
			width: 4, lanes: []uint8{0}, addrs: []uint64{0x40}},
		{name: "tabs, uniform register", line: "0010\tffffffff\t1 UR4 ULDC.64 0\t0", version: 4},
		{name: "address without 0x", line: "0010 00000001 1 R2 LD.E 1 R4 4 0 7f00", version: 4, width: 4, lanes: []uint8{0}, addrs: []uint64{0x7f00}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in inst
			if err := parseInst(&in, []byte(c.line), c.version, c.lineinfo); err != nil {
				t.Fatal(err)
			}
			if in.width != c.width || in.hasImm != c.hasImm || in.imm != c.imm {
				t.Errorf("width %d imm %v %d; want %d %v %d", in.width, in.hasImm, in.imm, c.width, c.hasImm, c.imm)
			}
			if !slices.Equal(in.lane[:in.n], c.lanes) || !slices.Equal(in.addr[:in.n], c.addrs) {
				t.Errorf("lanes %v addresses %x; want %v %x", in.lane[:in.n], in.addr[:in.n], c.lanes, c.addrs)
			}
		})
	}
}

func rangeLanes(n int) []uint8 {
	l := make([]uint8, n)
	for i := range l {
		l[i] = uint8(i)
	}
	return l
}

func strided(base, stride uint64, n int) []uint64 {
	a := make([]uint64, n)
	for i := range a {
		a[i] = base + uint64(i)*stride
	}
	return a
}

// TestClassify checks the memory spaces the opcodes name.
func TestClassify(t *testing.T) {
	for op, want := range map[string]struct {
		sp  space
		acc access
	}{
		"LDG.E.128.CONSTANT": {spaceGeneric, accRead},
		"STG.E":              {spaceGeneric, accWrite},
		"ATOMG.E.ADD.F32":    {spaceGeneric, accBoth},
		"RED.E.ADD":          {spaceGeneric, accBoth},
		"LD.E.64":            {spaceGeneric, accRead},
		"LDS.U.128":          {spaceShared, accRead},
		"STS":                {spaceShared, accWrite},
		"ATOMS.ADD":          {spaceShared, accBoth},
		"LDL.LU":             {spaceLocal, accRead},
		"STL.64":             {spaceLocal, accWrite},
		"ULDC.64":            {spaceConstant, accRead},
	} {
		sp, acc := classify([]byte(op))
		if sp != want.sp || acc != want.acc {
			t.Errorf("classify(%s) = %d, %d; want %d, %d", op, sp, acc, want.sp, want.acc)
		}
	}
	w := windows{shared: 0x7f0001000000, local: 0x7f0000000000}
	for a, want := range map[uint64]space{
		0x7f0001000000: spaceShared, 0x7f0001ffffff: spaceShared, 0x7f0002000000: spaceGeneric,
		0x7f0000000010: spaceLocal, 0x7efffffffff0: spaceGeneric, 0x10: spaceGeneric,
	} {
		if got := w.where(a); got != want {
			t.Errorf("windows.where(%#x) = %d; want %d", a, got, want)
		}
	}
	if (windows{}).where(0x7f0001000000) != spaceGeneric {
		t.Error("with no windows known every address is global")
	}
}
