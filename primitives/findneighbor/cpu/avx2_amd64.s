#include "textflag.h"

// WITHIN8 puts in d the mask of the 8 points at index i of the arrays px,
// py, pz within the squared distance Y3 of the query Y0-Y2 (all ones
// where in), as countSpanGo tests them: dx = px - x and so on, each
// square rounded, (dx² + dy²) + dz², then <= (predicate LE_OS: false on
// NaN, as Go's <=). No fused multiply-add, so the sums are Go's to the
// bit. Y5 and Y6 are scratch.
#define WITHIN8(px, py, pz, i, d) \
	VMOVUPS (px)(i*4), d \
	VSUBPS Y0, d, d \
	VMOVUPS (py)(i*4), Y5 \
	VSUBPS Y1, Y5, Y5 \
	VMOVUPS (pz)(i*4), Y6 \
	VSUBPS Y2, Y6, Y6 \
	VMULPS d, d, d \
	VMULPS Y5, Y5, Y5 \
	VMULPS Y6, Y6, Y6 \
	VADDPS Y5, d, d \
	VADDPS Y6, d, d \
	VCMPPS $2, Y3, d, d

// func countSpanAVX2(xs, ys, zs *float32, n int, x, y, z, e2 float32) uint32
//
// The full steps subtract each mask (-1 where in) from the 8 counts in
// Y7, added across at the end; the last, overlapping step counts the bits
// of its mask above those already counted.
TEXT ·countSpanAVX2(SB), NOSPLIT, $0-52
	MOVQ         xs+0(FP), SI
	MOVQ         ys+8(FP), DI
	MOVQ         zs+16(FP), DX
	MOVQ         n+24(FP), BX
	VBROADCASTSS x+32(FP), Y0
	VBROADCASTSS y+36(FP), Y1
	VBROADCASTSS z+40(FP), Y2
	VBROADCASTSS e2+44(FP), Y3
	VPXOR        Y7, Y7, Y7
	XORQ         AX, AX
	SUBQ         $8, BX             // BX: the last step's first index

count_loop:
	WITHIN8(SI, DI, DX, AX, Y4)
	VPSUBD Y4, Y7, Y7
	ADDQ   $8, AX
	CMPQ   AX, BX
	JLE    count_loop

	// AX - BX (0 to 8) points of the last 8 are counted: drop their bits.
	XORL R8, R8
	MOVQ AX, CX
	SUBQ BX, CX
	CMPQ CX, $8
	JEQ  count_sum
	WITHIN8(SI, DI, DX, BX, Y4)
	VMOVMSKPS Y4, R8
	SHRL      CX, R8
	POPCNTL   R8, R8

count_sum:
	VEXTRACTI128 $1, Y7, X4
	VPADDD       X4, X7, X7
	VPSHUFD      $0x4e, X7, X4
	VPADDD       X4, X7, X7
	VPSHUFD      $0xb1, X7, X4
	VPADDD       X4, X7, X7
	VMOVD        X7, AX
	ADDL         R8, AX
	MOVL         AX, ret+48(FP)
	VZEROUPPER
	RET

// KEEP8 puts in R9 the bit mask of the 8 points at index i within the
// squared distance Y3 of the query Y0-Y2 whose core flag (bit 0 of their
// byte in R10) is set. Y4-Y6 are scratch.
#define KEEP8(i) \
	WITHIN8(SI, DX, R8, i, Y4) \
	VPMOVZXBD (R10)(i*1), Y5 \
	VPSLLD    $31, Y5, Y5 \
	VANDPS    Y5, Y4, Y4 \
	VMOVMSKPS Y4, R9

// STORE8 writes the positions of the lanes of R9, Y7 + their lane numbers
// (compressLanes at R12), to out at DI, all 8 lanes, and advances DI past
// those kept. Y4 is scratch.
#define STORE8 \
	VPMOVZXBD (R12)(R9*8), Y4 \
	VPADDD    Y7, Y4, Y4 \
	VMOVDQU   Y4, (DI) \
	POPCNTL   R9, R9 \
	LEAQ      (DI)(R9*4), DI

// func coreWithinAVX2(out *int32, xs, ys, zs *float32, core *uint8, n int, lo int32, x, y, z, e2 float32) int
//
// Y7 holds the step's first position in every lane, Y8 the step, 8.
TEXT ·coreWithinAVX2(SB), NOSPLIT, $0-80
	MOVQ         out+0(FP), DI
	MOVQ         xs+8(FP), SI
	MOVQ         ys+16(FP), DX
	MOVQ         zs+24(FP), R8
	MOVQ         core+32(FP), R10
	MOVQ         n+40(FP), BX
	MOVL         lo+48(FP), AX
	VMOVD        AX, X7
	VPBROADCASTD X7, Y7
	VBROADCASTSS x+52(FP), Y0
	VBROADCASTSS y+56(FP), Y1
	VBROADCASTSS z+60(FP), Y2
	VBROADCASTSS e2+64(FP), Y3
	MOVL         $8, AX
	VMOVD        AX, X8
	VPBROADCASTD X8, Y8
	LEAQ         ·compressLanes(SB), R12
	MOVQ         DI, R11            // R11: the start of out
	XORQ         AX, AX
	SUBQ         $8, BX             // BX: the last step's first index

core_loop:
	KEEP8(AX)
	STORE8
	VPADDD Y8, Y7, Y7
	ADDQ   $8, AX
	CMPQ   AX, BX
	JLE    core_loop

	// AX - BX (0 to 8) points of the last 8 are done: drop their bits.
	MOVQ AX, CX
	SUBQ BX, CX
	CMPQ CX, $8
	JEQ  core_done
	KEEP8(BX)
	SHRL         CX, R9
	SHLL         CX, R9
	MOVL         lo+48(FP), AX
	ADDL         BX, AX
	VMOVD        AX, X7
	VPBROADCASTD X7, Y7
	STORE8

core_done:
	MOVQ DI, AX
	SUBQ R11, AX
	SHRQ $2, AX
	MOVQ AX, ret+72(FP)
	VZEROUPPER
	RET
