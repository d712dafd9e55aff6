#include "textflag.h"

// kthBisectFrom is the probe of kthDistAVX512 from which every other one
// bisects.
#define kthBisectFrom 6

// AXISDIST puts in d the squared distance along one axis from q to the
// 16 boxes at R11 of the rows lo (their minima) and hi (maxima), as
// boxDistSq: max(lo - q, 0, q - hi)²; K3 masks the boxes, Z20 is 0, t is
// scratch.
#define AXISDIST(lo, hi, q, d, t) \
	VMOVUPS.Z (lo)(R11*4), K3, d; \
	VMOVUPS.Z (hi)(R11*4), K3, t; \
	VSUBPS q, d, d; \
	VSUBPS t, q, t; \
	VMAXPS Z20, d, d; \
	VMAXPS t, d, d; \
	VMULPS d, d, d

// HSUM stores at off(DI) the sum of the 8 float64 lanes of z (y, x: its
// lower halves), using Y10 and X11.
#define HSUM(z, y, x, off) \
	VEXTRACTF64X4 $1, z, Y10 \
	VADDPD Y10, y, y \
	VEXTRACTF128 $1, y, X11 \
	VADDPD X11, x, x \
	VPERMILPD $1, x, X11 \
	VADDSD X11, x, x \
	VMOVSD x, off(DI)

// HREDUCEQ puts in r the op (VPMAXUQ or VPMINUQ) of the 8 uint64 lanes
// of z (y, x: its lower halves), using X4/Y4.
#define HREDUCEQ(op, z, y, x, r) \
	VEXTRACTI64X4 $1, z, Y4 \
	op Y4, y, y \
	VEXTRACTI128 $1, y, X4 \
	op X4, x, x \
	VPSHUFD $0x4e, x, X4 \
	op X4, x, x \
	VMOVQ x, r

// PROBESTEP is one step of kthDistAVX512's probe over the keys at DX, in
// the lanes of mask k: Z1 the keys, K1 those within the bound Z0 (counted
// into AX), K5 the others; Z2 keeps the largest within, Z3 the smallest
// beyond.
#define PROBESTEP(k) \
	VMOVDQU64.Z (DX), k, Z1 \
	VPCMPUQ $5, Z1, Z0, k, K1 \
	KXORW K1, k, K5 \
	VPMAXUQ Z1, Z2, K1, Z2 \
	VPMINUQ Z1, Z3, K5, Z3 \
	KMOVB K1, CX \
	POPCNTL CX, CX \
	ADDQ CX, AX

// MOMENTHALF adds to the sums Z0-Z8 the float64 offsets of 8 points (x,
// y, z in the float32 registers y, the lanes of mask k) from the query
// Z24-Z26: Z0-Z2 the offsets, Z3-Z8 their products xx xy xz yy yz zz.
// Z27-Z29 are scratch.
#define MOMENTHALF(px, py, pz, k) \
	VCVTPS2PD px, Z27 \
	VCVTPS2PD py, Z28 \
	VCVTPS2PD pz, Z29 \
	VSUBPD Z24, Z27, Z27 \
	VSUBPD Z25, Z28, Z28 \
	VSUBPD Z26, Z29, Z29 \
	VADDPD Z27, Z0, k, Z0 \
	VADDPD Z28, Z1, k, Z1 \
	VADDPD Z29, Z2, k, Z2 \
	VFMADD231PD Z27, Z27, k, Z3 \
	VFMADD231PD Z28, Z27, k, Z4 \
	VFMADD231PD Z29, Z27, k, Z5 \
	VFMADD231PD Z28, Z28, k, Z6 \
	VFMADD231PD Z29, Z28, k, Z7 \
	VFMADD231PD Z29, Z29, k, Z8

// DIST16 loads the 16 points at position R11 of the arrays SI, R8, R9 (x,
// y, z; the lanes of K3) into px, py, pz and puts their squared distances
// from the query Z16-Z18 in d, as dist2 computes them (no fused
// multiply-add, the same order of additions: the same bits); t1 and t2
// are scratch.
#define DIST16(px, py, pz, d, t1, t2) \
	VMOVUPS.Z (SI)(R11*4), K3, px \
	VMOVUPS.Z (R8)(R11*4), K3, py \
	VMOVUPS.Z (R9)(R11*4), K3, pz \
	VSUBPS Z16, px, d \
	VSUBPS Z17, py, t1 \
	VSUBPS Z18, pz, t2 \
	VMULPS d, d, d \
	VMULPS t1, t1, t1 \
	VMULPS t2, t2, t2 \
	VADDPS t1, d, d \
	VADDPS t2, d, d

// POSLANES sets up the span kernels' position lanes: Z21 the position to
// leave out (AX, which it overwrites), Z22 16 in every lane, Z23 the lane
// numbers.
#define POSLANES \
	VPBROADCASTD AX, Z21 \
	MOVL $16, AX \
	VPBROADCASTD AX, Z22 \
	VMOVDQU32 iota16<>(SB), Z23

// ZEROSUMS clears the moment sums Z0-Z8.
#define ZEROSUMS \
	VPXORQ Z0, Z0, Z0 \
	VPXORQ Z1, Z1, Z1 \
	VPXORQ Z2, Z2, Z2 \
	VPXORQ Z3, Z3, Z3 \
	VPXORQ Z4, Z4, Z4 \
	VPXORQ Z5, Z5, Z5 \
	VPXORQ Z6, Z6, Z6 \
	VPXORQ Z7, Z7, Z7 \
	VPXORQ Z8, Z8, Z8

// STORESUMS stores the lane sums of Z0-Z8 at 0(DI)..64(DI) (HSUM).
#define STORESUMS \
	HSUM(Z0, Y0, X0, 0) \
	HSUM(Z1, Y1, X1, 8) \
	HSUM(Z2, Y2, X2, 16) \
	HSUM(Z3, Y3, X3, 24) \
	HSUM(Z4, Y4, X4, 32) \
	HSUM(Z5, Y5, X5, 40) \
	HSUM(Z6, Y6, X6, 48) \
	HSUM(Z7, Y7, X7, 56) \
	HSUM(Z8, Y8, X8, 64)

// RANKLANES sets k to the lanes of the next 8 keys of rankSortAVX512 that
// exist, AX of them or more (none where AX ≤ 0), and counts them off AX
// (R12 is 0, R13 0xff).
#define RANKLANES(k) \
	MOVQ AX, BX \
	TESTQ BX, BX \
	CMOVQLT R12, BX \
	BZHIL BX, R13, DX \
	KMOVB DX, k \
	SUBQ $8, AX

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

// func gatherSpansAVX512(out *uint64, xs, ys, zs *float32, spans *int32, masks *uint16, nmasks int, x, y, z, lim float32, skip uint32) int
//
// For the spans of points [spans[2j], spans[2j+1]) of the arrays xs, ys,
// zs whose bit j is set in the masks (bit j%16 of masks[j/16], j <
// 16·nmasks), 16 points per step: the squared distances as gatherKeysGo
// computes them (no fused multiply-add, the same order of additions, so
// the same bits), a mask of those within lim and not at position skip,
// and the position keys of the masked lanes compressed into out, 8 at a
// time with a full 8-key store (out needs room for 8 keys beyond the last
// one written). One call serves all the leaves a query gathers from.
TEXT ·gatherSpansAVX512(SB), NOSPLIT, $0-88
	MOVQ out+0(FP), DI
	MOVQ xs+8(FP), SI
	MOVQ ys+16(FP), R8
	MOVQ zs+24(FP), R9
	MOVQ spans+32(FP), R13
	MOVQ masks+40(FP), DX
	VBROADCASTSS x+56(FP), Z16
	VBROADCASTSS y+60(FP), Z17
	VBROADCASTSS z+64(FP), Z18
	VBROADCASTSS lim+68(FP), Z19
	MOVL skip+72(FP), AX
	POSLANES
	XORQ R10, R10 // keys written

word:
	DECQ nmasks+48(FP)
	JL   done
	MOVWLZX (DX), R12 // the spans of this word still to gather
	ADDQ $2, DX

span:
	TESTL R12, R12
	JZ   nextword
	BSFL R12, AX
	LEAL -1(R12), BX
	ANDL BX, R12
	MOVLQSX 0(R13)(AX*8), R11 // first point of the span
	MOVLQSX 4(R13)(AX*8), CX  // end of the span
	VPBROADCASTD R11, Z20
	VPADDD Z23, Z20, Z20 // the lanes' positions

loop:
	MOVQ CX, AX
	SUBQ R11, AX
	JLE  span
	MOVL $0xffff, BX
	CMPQ AX, $16
	JGE  full
	BZHIL AX, BX, BX // the lanes left in the span
full:
	KMOVW BX, K3
	DIST16(Z9, Z10, Z11, Z0, Z1, Z2)
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

nextword:
	ADDQ $128, R13 // the next 16 spans
	JMP  word

done:
	VZEROUPPER
	MOVQ R10, ret+80(FP)
	RET

// func boxMaskAVX512(boxes *float32, stride, n int, x, y, z, lim float32, masks *uint16)
//
// For n boxes stored as six rows of stride floats (min x, y, z, max x, y,
// z), 16 at a time: bit j of masks[j/16] is set when the squared distance
// from (x, y, z) to box j, computed as boxDistSq computes it, is within
// lim.
TEXT ·boxMaskAVX512(SB), NOSPLIT, $0-48
	MOVQ boxes+0(FP), SI
	MOVQ stride+8(FP), AX
	SHLQ $2, AX
	LEAQ (SI)(AX*1), R8  // min y
	LEAQ (R8)(AX*1), R9  // min z
	LEAQ (R9)(AX*1), R10 // max x
	LEAQ (R10)(AX*1), R13 // max y
	LEAQ (R13)(AX*1), DX // max z
	MOVQ n+16(FP), CX
	VBROADCASTSS x+24(FP), Z16
	VBROADCASTSS y+28(FP), Z17
	VBROADCASTSS z+32(FP), Z18
	VBROADCASTSS lim+36(FP), Z19
	MOVQ masks+40(FP), DI
	VPXORD Z20, Z20, Z20
	XORQ R11, R11
	MOVL $0xffff, R12

bloop:
	MOVQ CX, AX
	SUBQ R11, AX
	JLE  bdone
	MOVL R12, BX
	CMPQ AX, $16
	JGE  bfull
	BZHIL AX, R12, BX

bfull:
	KMOVW BX, K3
	AXISDIST(SI, R10, Z16, Z0, Z1)
	AXISDIST(R8, R13, Z17, Z2, Z3)
	AXISDIST(R9, DX, Z18, Z4, Z5)
	VADDPS Z2, Z0, Z0
	VADDPS Z4, Z0, Z0
	VCMPPS $2, Z19, Z0, K3, K1
	KMOVW K1, AX
	MOVW AX, (DI)
	ADDQ $2, DI
	ADDQ $16, R11
	JMP  bloop

bdone:
	VZEROUPPER
	RET

// func boundsAVX512(pts *kdPoint, n int, out *[8]float32)
//
// The minimum (out[0..2]) and maximum (out[4..6]) coordinates of n ≥ 1
// packed points (x, y, z, index: 16 bytes), 4 points per step; out[3] and
// out[7] are the index bits' minimum and maximum as floats, meaningless.
TEXT ·boundsAVX512(SB), NOSPLIT, $0-24
	MOVQ pts+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ out+16(FP), DI
	VBROADCASTF32X4 (SI), Z0 // min
	VMOVAPS Z0, Z1           // max
	XORQ R11, R11
	MOVL $0xffff, R12

bbloop:
	MOVQ CX, AX
	SUBQ R11, AX
	JLE  bbdone
	MOVL R12, BX
	CMPQ AX, $4
	JGE  bbfull
	SHLQ $2, AX
	BZHIL AX, R12, BX // 4 lanes per point left

bbfull:
	KMOVW BX, K1
	MOVQ R11, DX
	SHLQ $4, DX
	VMOVUPS (SI)(DX*1), K1, Z2 // lanes beyond n keep no value: masked below
	VMINPS Z2, Z0, K1, Z0
	VMAXPS Z2, Z1, K1, Z1
	ADDQ $4, R11
	JMP  bbloop

bbdone:
	VEXTRACTF64X4 $1, Z0, Y2
	VMINPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X2
	VMINPS X2, X0, X0
	VMOVUPS X0, 0(DI)
	VEXTRACTF64X4 $1, Z1, Y2
	VMAXPS Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VMAXPS X2, X1, X1
	VMOVUPS X1, 16(DI)
	VZEROUPPER
	RET

// func kthDistAVX512(keys *uint64, n, k int, lim uint32) uint32
//
// kthDistAVX512's search (avx512_amd64.go): every probe counts the keys
// within its distance t, 8 at a time, and finds the largest distance
// within t and the smallest beyond it. Registers: SI the keys, R12 the
// end of their full steps, K2 the tail's lanes, K6 all 8 lanes, R8 k, R9
// lo, R10 hi, R11 count(lo), R13 count(hi), DI the probes made, BX the
// probe t, AX its count, CX and DX the largest distance within t and the
// smallest beyond it.
TEXT ·kthDistAVX512(SB), NOSPLIT, $0-36
	MOVQ keys+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ k+16(FP), R8
	MOVL lim+24(FP), R10
	MOVQ CX, R13
	MOVQ $-1, R9
	XORQ R11, R11
	XORQ DI, DI
	MOVQ CX, AX
	ANDQ $-8, AX
	LEAQ (SI)(AX*8), R12
	ANDL $7, CX
	MOVL $0xff, AX
	KMOVW AX, K6
	BZHIL CX, AX, AX
	KMOVW AX, K2
	MOVL $0x3f000000, AX // 0.5
	VMOVD AX, X5

probe:
	MOVQ R10, CX
	SUBQ R9, CX // hi - lo
	CMPQ CX, $1
	JLE  rethi
	MOVQ CX, BX
	SHRQ $1, BX
	ADDQ R9, BX // t = lo + (hi - lo)/2
	INCQ DI
	CMPQ DI, $kthBisectFrom
	JL   interp
	TESTQ $1, DI
	JNZ  count

interp:
	// t = vlo + (vhi - vlo)(k - count(lo) - 0.5)/(count(hi) - count(lo))
	// where that is strictly between lo and hi.
	XORL DX, DX
	TESTQ R9, R9
	CMOVQGE R9, DX
	VMOVD DX, X1 // vlo (0 for lo = -1)
	VMOVD R10, X2 // vhi
	VSUBSS X1, X2, X2
	MOVQ R8, DX
	SUBQ R11, DX
	VCVTSI2SSQ DX, X3, X3
	VSUBSS X5, X3, X3
	MOVQ R13, DX
	SUBQ R11, DX
	VCVTSI2SSQ DX, X4, X4
	VMULSS X3, X2, X2
	VDIVSS X4, X2, X2
	VADDSS X1, X2, X2
	VMOVD X2, DX
	CMPQ DX, R9
	JLE  count
	CMPQ DX, R10
	JGE  count
	MOVQ DX, BX

count:
	MOVQ BX, DX
	SHLQ $32, DX
	MOVL $0xffffffff, AX
	ORQ  AX, DX
	VPBROADCASTQ DX, Z0 // the bound: distance t, any position
	VPXORQ Z2, Z2, Z2 // the largest key within, per lane
	VPTERNLOGD $0xff, Z3, Z3, Z3 // the smallest beyond
	XORQ AX, AX
	MOVQ SI, DX

cstep:
	CMPQ DX, R12
	JAE  ctail
	PROBESTEP(K6)
	ADDQ $64, DX
	JMP  cstep

ctail:
	PROBESTEP(K2)
	CMPQ AX, R8
	JEQ  rett
	// The largest distance within t (CX) and the smallest beyond (DX).
	HREDUCEQ(VPMAXUQ, Z2, Y2, X2, CX)
	SHRQ $32, CX
	HREDUCEQ(VPMINUQ, Z3, Y3, X3, DX)
	SHRQ $32, DX
	// One fewer than k within t: the k-th is the smallest beyond.
	LEAQ 1(AX), BX
	CMPQ BX, R8
	JEQ  retnext
	// Narrow the bracket to the keys: lo just below the smallest
	// beyond t, hi at the largest within it, so that every probe drops
	// at least one key from it.
	DECQ DX
	CMPQ AX, R8
	CMOVQLT DX, R9
	CMOVQLT AX, R11
	CMOVQGT CX, R10
	CMOVQGT AX, R13
	JMP  probe

retnext:
	MOVQ DX, BX
	JMP  rett

rethi:
	MOVQ R10, BX

rett:
	MOVL BX, ret+32(FP)
	VZEROUPPER
	RET

// func keepLEAVX512(keys *uint64, n int, lim uint64) (m int, top uint64)
//
// Moves the keys at most lim to the front of the n keys, in order, 8 keys
// per step, and returns their number and the largest of them (0 if none).
TEXT ·keepLEAVX512(SB), NOSPLIT, $0-40
	MOVQ keys+0(FP), SI
	MOVQ SI, DI
	MOVQ n+8(FP), CX
	VPBROADCASTQ lim+16(FP), Z0
	VPXORQ Z3, Z3, Z3 // largest kept, per lane
	MOVL $0xff, R12

kloop:
	TESTQ CX, CX
	JLE  kdone
	MOVL R12, BX
	CMPQ CX, $8
	JGE  kfull
	BZHIL CX, R12, BX

kfull:
	KMOVB BX, K2
	VMOVDQU64.Z (SI), K2, Z1
	VPCMPUQ $5, Z1, Z0, K2, K1 // lim ≥ key
	VPMAXUQ Z1, Z3, K1, Z3
	VPCOMPRESSQ Z1, K1, Z2
	KMOVB K1, DX
	POPCNTL DX, DX
	BZHIL DX, R12, BX
	KMOVB BX, K3
	VMOVDQU64 Z2, K3, (DI)
	LEAQ (DI)(DX*8), DI
	ADDQ $64, SI
	SUBQ $8, CX
	JMP  kloop

kdone:
	HREDUCEQ(VPMAXUQ, Z3, Y3, X3, AX)
	MOVQ AX, top+32(FP)
	SUBQ keys+0(FP), DI
	SHRQ $3, DI
	MOVQ DI, m+24(FP)
	VZEROUPPER
	RET

// func bucketsAVX512(xyz *float32, n int, table *uint32, depth int, out *uint16)
//
// kdTop.bucket for the n points xyz (x, y, z after one another), 16 at a
// time: each lane descends the depth levels of the table (node v's split
// bits, their low 2 bits the axis) from node 1, going to 2v+1 where its
// coordinate along the axis is at least the split, else to 2v.
TEXT ·bucketsAVX512(SB), NOSPLIT, $0-40
	MOVQ xyz+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ table+16(FP), R8
	MOVQ depth+24(FP), R9
	MOVQ out+32(FP), DI
	VMOVDQU32 iota16<>(SB), Z23
	VPADDD Z23, Z23, Z22
	VPADDD Z23, Z22, Z22 // lane × 3: the lanes' x
	MOVL $1, AX
	VPBROADCASTD AX, Z21
	MOVL $2, AX
	VPBROADCASTD AX, Z20
	MOVL $3, AX
	VPBROADCASTD AX, Z19
	MOVL $1, AX
	SHLXL R9, AX, AX
	VPBROADCASTD AX, Z18 // the first bucket's node
	MOVL $0xffff, R12

uloop:
	TESTQ CX, CX
	JLE  udone
	MOVL R12, BX
	CMPQ CX, $16
	JGE  ufull
	BZHIL CX, R12, BX

ufull:
	KMOVW BX, K3
	VPXORD Z0, Z0, Z0
	KMOVW K3, K1
	VGATHERDPS (SI)(Z22*4), K1, Z0
	VPXORD Z1, Z1, Z1
	KMOVW K3, K1
	VGATHERDPS 4(SI)(Z22*4), K1, Z1
	VPXORD Z2, Z2, Z2
	KMOVW K3, K1
	VGATHERDPS 8(SI)(Z22*4), K1, Z2
	VMOVDQA32 Z21, Z4 // node 1
	MOVQ R9, DX

ulevel:
	DECQ DX
	JL   uleaf
	KXNORW K1, K1, K1
	VPGATHERDD (R8)(Z4*4), K1, Z5
	VPANDD Z19, Z5, Z6
	VMOVAPS Z0, Z7
	VPCMPEQD Z21, Z6, K4
	VMOVAPS Z1, K4, Z7
	VPCMPEQD Z20, Z6, K5
	VMOVAPS Z2, K5, Z7
	VCMPPS $13, Z5, Z7, K6 // coordinate ≥ split
	VPADDD Z4, Z4, Z4
	VPADDD Z21, Z4, K6, Z4
	JMP  ulevel

uleaf:
	VPSUBD Z18, Z4, Z4
	VPMOVDW Z4, K3, (DI)
	ADDQ $192, SI
	ADDQ $32, DI
	SUBQ $16, CX
	JMP  uloop

udone:
	VZEROUPPER
	RET

// func momentSpansAVX512(xs, ys, zs *float32, spans *span, nspans int, x, y, z, e2 float32, self int32, out *[9]float64) int
//
// momentSpan over the spans [spans[j].lo, spans[j].hi) of the arrays xs,
// ys, zs, 16 points per step: the squared distances as momentSpan
// computes them, a mask of those not beyond e2 (as its test, NaN kept) and
// not at position self, and for the masked lanes the float64 offsets from
// (x, y, z) summed with their products in 8 lanes per half (in another
// order than momentSpan's, equal to rounding); out gets the three offset
// sums and the six products, the result is the number of points summed.
TEXT ·momentSpansAVX512(SB), NOSPLIT, $0-80
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), R8
	MOVQ zs+16(FP), R9
	MOVQ spans+24(FP), R13
	MOVQ nspans+32(FP), DX
	VBROADCASTSS x+40(FP), Z16
	VBROADCASTSS y+44(FP), Z17
	VBROADCASTSS z+48(FP), Z18
	VBROADCASTSS e2+52(FP), Z19
	MOVL self+56(FP), AX
	POSLANES
	VCVTPS2PD Y16, Z24 // the query in float64
	VCVTPS2PD Y17, Z25
	VCVTPS2PD Y18, Z26
	ZEROSUMS
	XORQ R10, R10 // points summed

mspan:
	DECQ DX
	JL   mdone
	MOVLQSX 0(R13), R11 // first point of the span
	MOVLQSX 4(R13), CX  // end of the span
	ADDQ $8, R13
	VPBROADCASTD R11, Z20
	VPADDD Z23, Z20, Z20 // the lanes' positions

mstep:
	MOVQ CX, AX
	SUBQ R11, AX
	JLE  mspan
	MOVL $0xffff, BX
	CMPQ AX, $16
	JGE  mfull16
	BZHIL AX, BX, BX // the lanes left in the span
mfull16:
	KMOVW BX, K3
	DIST16(Z9, Z10, Z11, Z12, Z13, Z14)
	VCMPPS $10, Z19, Z12, K3, K1 // not d² > e2 (NGT), in the span
	VPCMPD $4, Z21, Z20, K1, K1 // and not self
	KMOVW K1, AX
	POPCNTL AX, AX
	ADDQ AX, R10
	MOMENTHALF(Y9, Y10, Y11, K1)
	VEXTRACTF64X4 $1, Z9, Y9
	VEXTRACTF64X4 $1, Z10, Y10
	VEXTRACTF64X4 $1, Z11, Y11
	KSHIFTRW $8, K1, K2
	MOMENTHALF(Y9, Y10, Y11, K2)
	VPADDD Z22, Z20, Z20
	ADDQ   $16, R11
	JMP    mstep

mdone:
	MOVQ out+64(FP), DI
	STORESUMS
	MOVQ R10, ret+72(FP)
	VZEROUPPER
	RET

// func rankSortAVX512(keys *uint64, n int) (ties bool)
//
// Sorts the n distinct keys (1 ≤ n ≤ 32) in place without a branch on
// them, by rank: they sit in Z1-Z4 (lanes beyond n masked off by K1-K4);
// every key is broadcast and compared with them, and their counts of
// smaller keys in Z5-Z8 grow where it is smaller; then they are scattered
// to their counts. Then it reports whether two neighbours in the sorted
// keys have the same high half (distance), 8 pairs a step.
TEXT ·rankSortAVX512(SB), NOSPLIT, $0-17
	MOVQ keys+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ $1, AX
	VPBROADCASTQ AX, Z9
	XORQ R12, R12
	MOVL $0xff, R13
	MOVQ CX, AX
	RANKLANES(K1)
	RANKLANES(K2)
	RANKLANES(K3)
	RANKLANES(K4)
	VMOVDQU64.Z (SI), K1, Z1
	VMOVDQU64.Z 64(SI), K2, Z2
	VMOVDQU64.Z 128(SI), K3, Z3
	VMOVDQU64.Z 192(SI), K4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	XORQ R9, R9

rkey:
	CMPQ R9, CX
	JGE  rscatter
	VPBROADCASTQ (SI)(R9*8), Z0
	VPCMPUQ $6, Z0, Z1, K5 // the key in the lane > key R9
	VPADDQ Z9, Z5, K5, Z5
	VPCMPUQ $6, Z0, Z2, K6
	VPADDQ Z9, Z6, K6, Z6
	VPCMPUQ $6, Z0, Z3, K5
	VPADDQ Z9, Z7, K5, Z7
	VPCMPUQ $6, Z0, Z4, K6
	VPADDQ Z9, Z8, K6, Z8
	INCQ R9
	JMP  rkey

rscatter:
	VPSCATTERQQ Z1, K1, (SI)(Z5*8)
	VPSCATTERQQ Z2, K2, (SI)(Z6*8)
	VPSCATTERQQ Z3, K3, (SI)(Z7*8)
	VPSCATTERQQ Z4, K4, (SI)(Z8*8)
	XORL AX, AX
	LEAQ -1(CX), R10 // the pairs
	XORQ R9, R9

rtie:
	CMPQ R9, R10
	JGE  rret
	MOVQ R10, DX
	SUBQ R9, DX
	BZHIL DX, R13, BX // the pairs left, up to 8
	KMOVB BX, K1
	VMOVDQU64.Z (SI)(R9*8), K1, Z1
	VMOVDQU64.Z 8(SI)(R9*8), K1, Z2
	VPSRLQ $32, Z1, Z1
	VPSRLQ $32, Z2, Z2
	VPCMPEQQ Z1, Z2, K1, K2
	KMOVB K2, BX
	ORL  BX, AX
	ADDQ $8, R9
	JMP  rtie

rret:
	TESTL AX, AX
	SETNE ties+16(FP)
	VZEROUPPER
	RET

// func sumNearestAVX512(keys *uint64, n int, xs, ys, zs *float32, x, y, z float32, out *[10]float64)
//
// One key after another, as sumNearestGo: its position loads the point's
// coordinates, whose float64 offsets from (x, y, z) make the terms of the
// three offset sums and the first five products in the lanes of Z0, each
// lane adding them in the keys' order; the last product (zz) and the
// float32 square root of the key's squared distance go to X6 and X8. No
// fused multiply-add, so that every sum is sumNearestGo's to the bit.
TEXT ·sumNearestAVX512(SB), NOSPLIT, $0-64
	MOVQ keys+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ xs+16(FP), R8
	MOVQ ys+24(FP), R9
	MOVQ zs+32(FP), R10
	MOVQ out+56(FP), DI
	// Y15: (x, y, z, -1) in float64, so that a point minus it is
	// (dx, dy, dz, 1).
	VMOVSS x+40(FP), X0
	VINSERTPS $0x10, y+44(FP), X0, X0
	VINSERTPS $0x20, z+48(FP), X0, X0
	MOVL $0xbf800000, AX
	VMOVD AX, X1
	VINSERTPS $0x30, X1, X0, X0
	VCVTPS2PD X0, Y15
	// Z13 and Z14 permute (dx, dy, dz, 1) into the factors of the 8 terms
	// added per neighbour: dx, dy, dz (times 1) and the products xx, xy,
	// xz, yy, yz; their lanes' indices are the bytes of a constant.
	MOVQ $0x0101000000020100, AX // 0, 1, 2, 0, 0, 0, 1, 1
	VMOVQ AX, X13
	VPMOVZXBQ X13, Z13
	MOVQ $0x0201020100030303, AX // 3, 3, 3, 0, 1, 2, 1, 2
	VMOVQ AX, X14
	VPMOVZXBQ X14, Z14
	VPXORQ Z0, Z0, Z0
	VXORPD X6, X6, X6
	VXORPD X8, X8, X8
	XORQ R11, R11

snext:
	CMPQ R11, CX
	JGE  sdone
	MOVQ (SI)(R11*8), AX
	MOVL AX, BX // the position
	SHRQ $32, AX // the squared distance's bits
	VMOVSS (R8)(BX*4), X1
	VINSERTPS $0x10, (R9)(BX*4), X1, X1
	VINSERTPS $0x20, (R10)(BX*4), X1, X1
	VCVTPS2PD X1, Y1
	VSUBPD Y15, Y1, Y1 // (dx, dy, dz, 1)
	VPERMPD Z1, Z13, Z2
	VPERMPD Z1, Z14, Z3
	VMULPD Z3, Z2, Z2
	VADDPD Z2, Z0, Z0
	VEXTRACTF128 $1, Y1, X4 // (dz, 1)
	VMULSD X4, X4, X4
	VADDSD X4, X6, X6
	VMOVD AX, X7
	VSQRTSS X7, X7, X7
	VCVTSS2SD X7, X7, X7
	VADDSD X7, X8, X8
	INCQ R11
	JMP  snext

sdone:
	VMOVUPD Z0, (DI)
	VMOVSD X6, 64(DI)
	VMOVSD X8, 72(DI)
	VZEROUPPER
	RET
