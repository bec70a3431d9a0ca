#include "textflag.h"

// deltaBlockAVX2 (delta_amd64.go), register by register:
// SI the values, DI the deltas, DX the tops, R9 narrow, CX the
// miniblocks left; Y10 and Y11 the values' least and greatest, Y12 the
// deltas' least, Y13 the miniblock's greatest, Y14 MinInt64 in each lane.

// DELTAS sets Y2 to the deltas of the four values from off bytes on
// (their next values in Y1, the values in Y0).
#define DELTAS(off) \
	VMOVDQU off(SI), Y0; \
	VMOVDQU (off+8)(SI), Y1; \
	VPSUBQ Y0, Y1, Y2

// WRAP makes Y2's deltas INT32 ones: each the sign extension of its low
// half.
#define WRAP \
	VPSRAD $31, Y2, Y3; \
	VPSHUFD $0xa0, Y3, Y3; \
	VPBLENDD $0xaa, Y3, Y2, Y2

// TAKE stores Y2's deltas off bytes on and takes them into the deltas'
// least and the miniblock's greatest, and Y1's values into their
// bounds: a signed compare and a blend each.
#define TAKE(off) \
	VMOVDQU Y2, off(DI); \
	VPCMPGTQ Y2, Y12, Y3; \
	VPBLENDVB Y3, Y2, Y12, Y12; \
	VPCMPGTQ Y13, Y2, Y3; \
	VPBLENDVB Y3, Y2, Y13, Y13; \
	VPCMPGTQ Y1, Y10, Y3; \
	VPBLENDVB Y3, Y1, Y10, Y10; \
	VPCMPGTQ Y11, Y1, Y3; \
	VPBLENDVB Y3, Y1, Y11, Y11

#define WIDE(off) DELTAS(off); TAKE(off)
#define NARROW(off) DELTAS(off); WRAP; TAKE(off)

// HMAX sets AX to the greatest of Y's four lanes (X its low half).
#define HMAX(Y, X) \
	VEXTRACTI128 $1, Y, X0; \
	VPCMPGTQ X0, X, X1; \
	VPBLENDVB X1, X, X0, X0; \
	VPSHUFD $0x4e, X0, X1; \
	VPCMPGTQ X1, X0, X2; \
	VPBLENDVB X2, X0, X1, X1; \
	MOVQ X1, AX

// HMIN sets AX to the least of Y's four lanes (X its low half).
#define HMIN(Y, X) \
	VEXTRACTI128 $1, Y, X0; \
	VPCMPGTQ X, X0, X1; \
	VPBLENDVB X1, X, X0, X0; \
	VPSHUFD $0x4e, X0, X1; \
	VPCMPGTQ X0, X1, X2; \
	VPBLENDVB X2, X0, X1, X1; \
	MOVQ X1, AX

// WIDTH sets byte m of DI to the bit length of quadword m of DX less AX
// (R10 -1), and adds it to R12.
#define WIDTH(m) \
	MOVQ (m*8)(DX), BX; \
	SUBQ AX, BX; \
	BSRQ BX, BX; \
	CMOVQEQ R10, BX; \
	INCQ BX; \
	MOVB BX, m(DI); \
	ADDQ BX, R12

// func deltaBlockAVX2(d *[128]uint64, w *[129]int64, tops *[4]int64, widths *[4]byte, narrow bool, lo, hi int64) (least, blo, bhi int64, size int)
TEXT ·deltaBlockAVX2(SB), NOSPLIT, $0-88
	MOVQ d+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ tops+16(FP), DX
	MOVBLZX narrow+32(FP), R9
	VPBROADCASTQ lo+40(FP), Y10
	VPBROADCASTQ hi+48(FP), Y11
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X12
	VPBROADCASTQ X12, Y12
	MOVQ $0x8000000000000000, AX
	MOVQ AX, X14
	VPBROADCASTQ X14, Y14
	MOVQ $4, CX

mini:
	VMOVDQA Y14, Y13
	TESTQ R9, R9
	JNZ narrow
	WIDE(0); WIDE(32); WIDE(64); WIDE(96)
	WIDE(128); WIDE(160); WIDE(192); WIDE(224)
	JMP top

narrow:
	NARROW(0); NARROW(32); NARROW(64); NARROW(96)
	NARROW(128); NARROW(160); NARROW(192); NARROW(224)

top:
	HMAX(Y13, X13)
	MOVQ AX, (DX)
	ADDQ $8, DX
	ADDQ $256, SI
	ADDQ $256, DI
	DECQ CX
	JNZ mini

	HMIN(Y10, X10)
	MOVQ AX, blo+64(FP)
	HMAX(Y11, X11)
	MOVQ AX, bhi+72(FP)
	HMIN(Y12, X12)
	MOVQ AX, least+56(FP)
	VZEROUPPER

	// Each miniblock's width, that of its greatest delta less the least
	// (blockWidth), and their sum: a miniblock of w bits takes 4w bytes.
	MOVQ tops+16(FP), DX
	MOVQ widths+24(FP), DI
	MOVQ $-1, R10
	XORQ R12, R12
	WIDTH(0); WIDTH(1); WIDTH(2); WIDTH(3)
	SHLQ $2, R12
	MOVQ R12, size+80(FP)
	RET
