package accelsim

import "bytes"

// space is the memory space an instruction's opcode names.
type space uint8

const (
	spaceGeneric  space = iota // global, or generic: decided per lane by the address windows
	spaceShared                // shared memory: not a buffer
	spaceLocal                 // thread-local memory: not a buffer
	spaceConstant              // constant memory: not a buffer
)

// access is what a memory instruction does to the bytes it names.
type access uint8

const (
	accRead  access = 1
	accWrite access = 2
	accBoth         = accRead | accWrite
)

// classify maps an opcode to its memory space and access kind by its first
// dot-separated token (LDG.E.128 → LDG). Opcodes it does not know read, in
// the generic space.
func classify(opcode []byte) (space, access) {
	if i := bytes.IndexByte(opcode, '.'); i >= 0 {
		opcode = opcode[:i]
	}
	switch string(opcode) {
	case "LDG", "LD", "LDGSTS", "SULD", "TLD", "TEX", "TLD4", "TXD":
		return spaceGeneric, accRead
	case "STG", "ST", "SUST":
		return spaceGeneric, accWrite
	case "ATOMG", "ATOM", "RED", "SUATOM", "SURED":
		return spaceGeneric, accBoth
	case "LDS", "LDSM":
		return spaceShared, accRead
	case "STS", "STSM":
		return spaceShared, accWrite
	case "ATOMS":
		return spaceShared, accBoth
	case "LDL":
		return spaceLocal, accRead
	case "STL":
		return spaceLocal, accWrite
	case "LDC", "ULDC":
		return spaceConstant, accRead
	}
	return spaceGeneric, accRead
}

// windowBytes is the size of the shared and local windows of the generic
// address space: NVBit documents each as 16 MiB from its base address.
const windowBytes = 16 << 20

// windows are a kernel's shared and local memory windows; a zero base means
// the header did not say and nothing falls in that window.
type windows struct {
	shared, local uint64
}

// where returns the space a generic address is in: shared or local when it
// lies in that window, else global (spaceGeneric).
func (w windows) where(a uint64) space {
	switch {
	case w.shared != 0 && a-w.shared < windowBytes:
		return spaceShared
	case w.local != 0 && a-w.local < windowBytes:
		return spaceLocal
	}
	return spaceGeneric
}

// isBarrier reports whether an opcode is a CTA-wide barrier a warp waits
// at (__syncthreads: BAR.SYNC, BAR.RED, plain BAR on older ISAs), as
// opposed to BAR.ARV, which only signals arrival and does not wait.
func isBarrier(opcode []byte) bool {
	if !bytes.HasPrefix(opcode, []byte("BAR")) || len(opcode) > 3 && opcode[3] != '.' {
		return false
	}
	return !bytes.HasPrefix(opcode, []byte("BAR.ARV"))
}
