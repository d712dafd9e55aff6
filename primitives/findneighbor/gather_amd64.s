#include "textflag.h"

// Lane numbers 0..15, added to a broadcast position.
DATA iota16<>+0(SB)/4, $0
DATA iota16<>+4(SB)/4, $1
DATA iota16<>+8(SB)/4, $2
DATA iota16<>+12(SB)/4, $3
DATA iota16<>+16(SB)/4, $4
DATA iota16<>+20(SB)/4, $5
DATA iota16<>+24(SB)/4, $6
DATA iota16<>+28(SB)/4, $7
DATA iota16<>+32(SB)/4, $8
DATA iota16<>+36(SB)/4, $9
DATA iota16<>+40(SB)/4, $10
DATA iota16<>+44(SB)/4, $11
DATA iota16<>+48(SB)/4, $12
DATA iota16<>+52(SB)/4, $13
DATA iota16<>+56(SB)/4, $14
DATA iota16<>+60(SB)/4, $15
GLOBL iota16<>(SB), RODATA|NOPTR, $64

// func gatherKeysAVX512(out *uint64, xs, ys, zs *float32, n int, x, y, z, lim float32, pos0, skip uint32) int
//
// 16 points per step: the squared distances as gatherKeysGo computes them
// (no fused multiply-add, the same order of additions, so the same bits),
// a mask of those within lim and not at position skip, and the position
// keys of the masked lanes compressed into out, 8 at a time with a full
// 8-key store (out needs room for 8 keys beyond the last one written).
TEXT ·gatherKeysAVX512(SB), NOSPLIT, $0-72
	MOVQ out+0(FP), DI
	MOVQ xs+8(FP), SI
	MOVQ ys+16(FP), R8
	MOVQ zs+24(FP), R9
	MOVQ n+32(FP), CX
	VBROADCASTSS x+40(FP), Z16
	VBROADCASTSS y+44(FP), Z17
	VBROADCASTSS z+48(FP), Z18
	VBROADCASTSS lim+52(FP), Z19
	MOVL pos0+56(FP), AX
	VPBROADCASTD AX, Z20
	VPADDD iota16<>(SB), Z20, Z20
	MOVL skip+60(FP), AX
	VPBROADCASTD AX, Z21
	MOVL $16, AX
	VPBROADCASTD AX, Z22
	XORQ R10, R10 // keys written
	XORQ R11, R11 // points done
	MOVL $0xffff, R12

loop:
	MOVQ CX, AX
	SUBQ R11, AX
	JLE  done
	MOVL R12, BX
	CMPQ AX, $16
	JGE  full
	BZHIL AX, R12, BX // the first n - i lanes

full:
	KMOVW BX, K3
	VMOVUPS.Z (SI)(R11*4), K3, Z0
	VMOVUPS.Z (R8)(R11*4), K3, Z1
	VMOVUPS.Z (R9)(R11*4), K3, Z2
	VSUBPS Z16, Z0, Z0
	VSUBPS Z17, Z1, Z1
	VSUBPS Z18, Z2, Z2
	VMULPS Z0, Z0, Z0
	VMULPS Z1, Z1, Z1
	VMULPS Z2, Z2, Z2
	VADDPS Z1, Z0, Z0
	VADDPS Z2, Z0, Z0
	VCMPPS $2, Z19, Z0, K3, K1 // d² ≤ lim, in the span
	VPCMPD $4, Z21, Z20, K1, K1 // and not skip

	// Lanes 0-7: key = d² bits << 32 | position.
	VPMOVZXDQ Y0, Z4
	VPSLLQ    $32, Z4, Z4
	VPMOVZXDQ Y20, Z5
	VPORQ     Z5, Z4, Z4
	VPCOMPRESSQ Z4, K1, Z6
	VMOVDQU64 Z6, (DI)(R10*8)
	KMOVW K1, AX
	MOVL  AX, BX
	ANDL  $0xff, BX
	POPCNTL BX, BX
	ADDQ  BX, R10

	// Lanes 8-15.
	VEXTRACTI64X4 $1, Z0, Y7
	VPMOVZXDQ Y7, Z7
	VPSLLQ    $32, Z7, Z7
	VEXTRACTI64X4 $1, Z20, Y8
	VPMOVZXDQ Y8, Z8
	VPORQ     Z8, Z7, Z7
	KSHIFTRW $8, K1, K2
	VPCOMPRESSQ Z7, K2, Z9
	VMOVDQU64 Z9, (DI)(R10*8)
	SHRL  $8, AX
	POPCNTL AX, AX
	ADDQ  AX, R10

	VPADDD Z22, Z20, Z20
	ADDQ   $16, R11
	JMP    loop

done:
	VZEROUPPER
	MOVQ R10, ret+64(FP)
	RET
