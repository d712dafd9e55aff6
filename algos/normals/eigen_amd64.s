#include "textflag.h"

// NEWTON is one step b -= (b³ - 3b - 2a) / (3b² - 3), b in Z20, 2a in
// Z17, 3 in Z27; as isolatedRoot: ((b·b)·b - 3·b) - 2a over (3·b)·b - 3.
#define NEWTON \
	VMULPD Z20, Z20, Z21; \
	VMULPD Z20, Z21, Z21; \
	VMULPD Z20, Z27, Z22; \
	VSUBPD Z22, Z21, Z21; \
	VSUBPD Z17, Z21, Z21; \
	VMULPD Z20, Z22, Z23; \
	VSUBPD Z27, Z23, Z23; \
	VDIVPD Z23, Z21, Z21; \
	VSUBPD Z21, Z20, Z20

// PICK takes the cross product in Z8-Z10 as the best (Z25-Z27, its squared
// length in Z28) where its squared length, put in Z11, is greater.
#define PICK \
	VMULPD Z8, Z8, Z11; \
	VMULPD Z9, Z9, Z12; \
	VADDPD Z12, Z11, Z11; \
	VMULPD Z10, Z10, Z12; \
	VADDPD Z12, Z11, Z11; \
	VCMPPD $0x1e, Z28, Z11, K2; \
	VMOVAPD Z8, K2, Z25; \
	VMOVAPD Z9, K2, Z26; \
	VMOVAPD Z10, K2, Z27; \
	VMOVAPD Z11, K2, Z28

// func smallestEigen8(c *[6][8]float64, k *[eigenConsts]float64, out *[4][8]float64) uint8
//
// smallestEigen's common path for 8 symmetric matrices at once, one per
// float64 lane (c[j][lane] is entry j of matrix lane, in sym3's order):
// the same operations in the same order (no fused multiply-add), so each
// lane gets smallestEigen's bits. It stores the smallest eigenvalue in
// out[0] and its unit eigenvector in out[1..3] and returns the mask of the
// lanes done; the others (zero, diagonal or extreme matrices, and those
// whose smallest eigenvalue is not the isolated root) are left to the
// scalar code. k holds the constants, see eigenConsts in eigen_amd64.go.
TEXT ·smallestEigen8(SB), NOSPLIT, $0-25
	MOVQ c+0(FP), SI
	MOVQ k+8(FP), DX
	MOVQ out+16(FP), DI
	VMOVUPD 0(SI), Z0   // xx
	VMOVUPD 64(SI), Z1  // xy
	VMOVUPD 128(SI), Z2 // xz
	VMOVUPD 192(SI), Z3 // yy
	VMOVUPD 256(SI), Z4 // yz
	VMOVUPD 320(SI), Z5 // zz
	VPXORQ Z31, Z31, Z31 // 0

	// scale = max |entry|, rounded up to a power of two (times 2).
	VBROADCASTSD 0(DX), Z30 // abs mask
	VPANDQ Z30, Z0, Z6
	VPANDQ Z30, Z1, Z7
	VMAXPD Z7, Z6, Z6
	VPANDQ Z30, Z2, Z7
	VMAXPD Z7, Z6, Z6
	VPANDQ Z30, Z3, Z7
	VMAXPD Z7, Z6, Z6
	VPANDQ Z30, Z4, Z7
	VMAXPD Z7, Z6, Z6
	VPANDQ Z30, Z5, Z7
	VMAXPD Z7, Z6, Z6
	VBROADCASTSD 96(DX), Z29 // 2^-1022
	VCMPPD $0x1d, Z29, Z6, K1 // scale ≥ 2^-1022 (so not 0)
	VBROADCASTSD 104(DX), Z29 // 2^1022
	VCMPPD $0x11, Z29, Z6, K1, K1 // and < 2^1022
	VBROADCASTSD 8(DX), Z30 // sign and exponent mask
	VPANDQ Z30, Z6, Z7
	VADDPD Z7, Z7, Z7 // scale
	VBROADCASTSD 16(DX), Z28 // 1
	VDIVPD Z7, Z28, Z8 // inv
	VMULPD Z8, Z0, Z0
	VMULPD Z8, Z1, Z1
	VMULPD Z8, Z2, Z2
	VMULPD Z8, Z3, Z3
	VMULPD Z8, Z4, Z4
	VMULPD Z8, Z5, Z5

	// off = xy² + xz² + yz², not 0.
	VMULPD Z1, Z1, Z9
	VMULPD Z2, Z2, Z10
	VADDPD Z10, Z9, Z9
	VMULPD Z4, Z4, Z10
	VADDPD Z10, Z9, Z9
	VCMPPD $0x1e, Z31, Z9, K1, K1

	// q, B = m - qI, p.
	VADDPD Z3, Z0, Z10
	VADDPD Z5, Z10, Z10
	VBROADCASTSD 48(DX), Z29 // 1/3
	VMULPD Z29, Z10, Z10 // q
	VSUBPD Z10, Z0, Z11 // bxx
	VSUBPD Z10, Z3, Z12 // byy
	VSUBPD Z10, Z5, Z13 // bzz
	VMULPD Z11, Z11, Z14
	VMULPD Z12, Z12, Z16
	VADDPD Z16, Z14, Z14
	VMULPD Z13, Z13, Z16
	VADDPD Z16, Z14, Z14
	VADDPD Z9, Z9, Z16
	VADDPD Z16, Z14, Z14
	VBROADCASTSD 56(DX), Z29 // 1/6
	VMULPD Z29, Z14, Z14
	VSQRTPD Z14, Z14 // p

	// det(B) and h = det/2 clamped to [-1, 1]; the smallest root is the
	// isolated one where h < 0.
	VMULPD Z13, Z12, Z16
	VMULPD Z4, Z4, Z17
	VSUBPD Z17, Z16, Z16 // byy*bzz - yz*yz
	VMULPD Z13, Z1, Z17
	VMULPD Z2, Z4, Z18
	VSUBPD Z18, Z17, Z17 // xy*bzz - yz*xz
	VMULPD Z4, Z1, Z18
	VMULPD Z2, Z12, Z19
	VSUBPD Z19, Z18, Z18 // xy*yz - byy*xz
	VMULPD Z16, Z11, Z16
	VMULPD Z17, Z1, Z17
	VSUBPD Z17, Z16, Z16
	VMULPD Z18, Z2, Z18
	VADDPD Z18, Z16, Z16
	VMULPD Z14, Z14, Z17
	VMULPD Z14, Z17, Z17
	VDIVPD Z17, Z16, Z16 // det
	VBROADCASTSD 40(DX), Z29 // 0.5
	VMULPD Z29, Z16, Z16
	VBROADCASTSD 64(DX), Z29 // -1
	VMAXPD Z29, Z16, Z16
	VMINPD Z28, Z16, Z16 // h
	VCMPPD $0x11, Z31, Z16, K1, K1 // h < 0

	// isolatedRoot: b of |h|, three Newton steps, then -b.
	VBROADCASTSD 0(DX), Z30
	VPANDQ Z30, Z16, Z17 // a
	VSUBPD Z17, Z28, Z18 // t = 1 - a
	VBROADCASTSD 80(DX), Z29 // c1
	VMULPD Z18, Z29, Z19
	VBROADCASTSD 24(DX), Z26 // 2
	VSUBPD Z19, Z26, Z20
	VBROADCASTSD 88(DX), Z29 // c2
	VMULPD Z18, Z29, Z19
	VMULPD Z18, Z19, Z19
	VSUBPD Z19, Z20, Z20 // b
	VADDPD Z17, Z17, Z17 // 2a
	VBROADCASTSD 32(DX), Z27 // 3
	NEWTON
	NEWTON
	NEWTON
	VSUBPD Z20, Z31, Z20 // β0 = -b
	VMULPD Z20, Z14, Z21
	VADDPD Z21, Z10, Z21 // l = q + pβ0

	// Rows of m - lI and their cross products; the longest wins.
	VSUBPD Z21, Z0, Z22 // r0x
	VSUBPD Z21, Z3, Z23 // r1y
	VSUBPD Z21, Z5, Z24 // r2z
	VMULPD Z4, Z1, Z25
	VMULPD Z23, Z2, Z26
	VSUBPD Z26, Z25, Z25 // c01x
	VMULPD Z1, Z2, Z26
	VMULPD Z4, Z22, Z27
	VSUBPD Z27, Z26, Z26 // c01y
	VMULPD Z23, Z22, Z27
	VMULPD Z1, Z1, Z29
	VSUBPD Z29, Z27, Z27 // c01z
	VMULPD Z25, Z25, Z28
	VMULPD Z26, Z26, Z29
	VADDPD Z29, Z28, Z28
	VMULPD Z27, Z27, Z29
	VADDPD Z29, Z28, Z28 // d = d01

	VMULPD Z24, Z1, Z8
	VMULPD Z4, Z2, Z9
	VSUBPD Z9, Z8, Z8 // c02x
	VMULPD Z2, Z2, Z9
	VMULPD Z24, Z22, Z10
	VSUBPD Z10, Z9, Z9 // c02y
	VMULPD Z4, Z22, Z10
	VMULPD Z2, Z1, Z11
	VSUBPD Z11, Z10, Z10 // c02z
	PICK

	VMULPD Z24, Z23, Z8
	VMULPD Z4, Z4, Z9
	VSUBPD Z9, Z8, Z8 // c12x
	VMULPD Z2, Z4, Z9
	VMULPD Z24, Z1, Z10
	VSUBPD Z10, Z9, Z9 // c12y
	VMULPD Z4, Z1, Z10
	VMULPD Z2, Z23, Z11
	VSUBPD Z11, Z10, Z10 // c12z
	PICK

	VCMPPD $0x1e, Z31, Z28, K1, K1 // d > 0
	VSQRTPD Z28, Z12
	VBROADCASTSD 16(DX), Z13
	VDIVPD Z12, Z13, Z12 // s = 1/√d
	VMULPD Z12, Z25, Z25 // v
	VMULPD Z12, Z26, Z26
	VMULPD Z12, Z27, Z27

	// λ0 = vᵀmv · scale.
	VMULPD Z25, Z0, Z8
	VMULPD Z26, Z1, Z9
	VADDPD Z9, Z8, Z8
	VMULPD Z27, Z2, Z9
	VADDPD Z9, Z8, Z8 // (mv)x
	VMULPD Z25, Z1, Z9
	VMULPD Z26, Z3, Z10
	VADDPD Z10, Z9, Z9
	VMULPD Z27, Z4, Z10
	VADDPD Z10, Z9, Z9 // (mv)y
	VMULPD Z25, Z2, Z10
	VMULPD Z26, Z4, Z11
	VADDPD Z11, Z10, Z10
	VMULPD Z27, Z5, Z11
	VADDPD Z11, Z10, Z10 // (mv)z
	VMULPD Z8, Z25, Z11
	VMULPD Z9, Z26, Z12
	VADDPD Z12, Z11, Z11
	VMULPD Z10, Z27, Z12
	VADDPD Z12, Z11, Z11
	VMULPD Z7, Z11, Z11

	VMOVUPD Z11, 0(DI)
	VMOVUPD Z25, 64(DI)
	VMOVUPD Z26, 128(DI)
	VMOVUPD Z27, 192(DI)
	KMOVW K1, AX
	VZEROUPPER
	MOVB AL, ret+24(FP)
	RET
