#include "textflag.h"

// DOT puts (a·x + b·y) + c·z in dst, as dot; Z8 is scratch.
#define DOT(a, b, c, x, y, z, dst) \
	VMULPD x, a, dst; \
	VMULPD y, b, Z8; \
	VADDPD Z8, dst, dst; \
	VMULPD z, c, Z8; \
	VADDPD Z8, dst, dst

// MULSYM puts m·(x, y, z) in Z19-Z21, m in Z0-Z5, as mulSym: each row
// (m_i0·x + m_i1·y) + m_i2·z.
#define MULSYM(x, y, z) \
	DOT(Z0, Z1, Z2, x, y, z, Z19); \
	DOT(Z1, Z3, Z4, x, y, z, Z20); \
	DOT(Z2, Z4, Z5, x, y, z, Z21)

// DOT3 puts (x·Z19 + y·Z20) + z·Z21 in dst, as dot.
#define DOT3(x, y, z, dst) DOT(x, y, z, Z19, Z20, Z21, dst)

// ROT sets, where K4, the rotated x = cs·u - sn·v and y = sn·u + cs·v of
// one component (cs in Z10, sn in Z11), and x = u, y = v elsewhere.
#define ROT(u, v, x, y) \
	VMOVAPD u, x; \
	VMOVAPD v, y; \
	VMULPD Z10, u, Z6; \
	VMULPD Z11, v, Z8; \
	VSUBPD Z8, Z6, K4, x; \
	VMULPD Z11, u, Z6; \
	VMULPD Z10, v, Z8; \
	VADDPD Z8, Z6, K4, y

// CSWAP swaps value a with b and vector (a0, a1, a2) with (b0, b1, b2)
// where b < a, as sortEigen; K5 and Z8 are scratch.
#define CSWAP(a, b, a0, a1, a2, b0, b1, b2) \
	VCMPPD $0x11, a, b, K5; \
	VMOVAPD a, Z8; \
	VMOVAPD b, K5, a; \
	VMOVAPD Z8, K5, b; \
	VMOVAPD a0, Z8; \
	VMOVAPD b0, K5, a0; \
	VMOVAPD Z8, K5, b0; \
	VMOVAPD a1, Z8; \
	VMOVAPD b1, K5, a1; \
	VMOVAPD Z8, K5, b1; \
	VMOVAPD a2, Z8; \
	VMOVAPD b2, K5, a2; \
	VMOVAPD Z8, K5, b2

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

// CROSS puts a × b in (o0, o1, o2), as cross: (a1·b2 - a2·b1,
// a2·b0 - a0·b2, a0·b1 - a1·b0); t is scratch.
#define CROSS(a0, a1, a2, b0, b1, b2, o0, o1, o2, t) \
	VMULPD b2, a1, o0; \
	VMULPD b1, a2, t; \
	VSUBPD t, o0, o0; \
	VMULPD b0, a2, o1; \
	VMULPD b2, a0, t; \
	VSUBPD t, o1, o1; \
	VMULPD b1, a0, o2; \
	VMULPD b0, a1, t; \
	VSUBPD t, o2, o2

// NORM2 puts (x·x + y·y) + z·z in dst; t is scratch.
#define NORM2(x, y, z, dst, t) \
	VMULPD x, x, dst; \
	VMULPD y, y, t; \
	VADDPD t, dst, dst; \
	VMULPD z, z, t; \
	VADDPD t, dst, dst

// PICK takes the cross product in Z8-Z10 as the best (Z25-Z27, its squared
// length in Z28) where its squared length, put in Z11, is greater.
#define PICK \
	NORM2(Z8, Z9, Z10, Z11, Z12); \
	VCMPPD $0x1e, Z28, Z11, K2; \
	VMOVAPD Z8, K2, Z25; \
	VMOVAPD Z9, K2, Z26; \
	VMOVAPD Z10, K2, Z27; \
	VMOVAPD Z11, K2, Z28

// func smallestEigen8(c *[6][8]float64, k *[eigenConsts]float64, out *[5][8]float64) uint8
//
// smallestEigen for 8 symmetric matrices at once, one per float64 lane
// (c[j][lane] is entry j of matrix lane, in sym3's order), both of its
// paths: the isolated root is the smallest eigenvalue (h < 0, K3), or the
// largest, and planeEigen finishes. The same operations in the same order
// (no fused multiply-add, blends for the branches), so each lane gets
// smallestEigen's bits. It stores the smallest eigenvalue in out[0] and
// its unit eigenvector in out[1..3] (out[4] is scratch) and returns the
// mask of the lanes done; the others (zero, diagonal or extreme matrices,
// a zero cross product) are left to the scalar code. k holds the
// constants, see smallestEigen8Consts.
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
	VCMPPD $0x11, Z31, Z16, K3 // h < 0: the smallest root is the isolated one

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
	VSUBPD Z20, Z31, K3, Z20 // β = -b (β0) where h < 0, else b (β2)
	VMULPD Z20, Z14, Z21
	VADDPD Z21, Z10, Z21 // l = q + pβ

	// Rows of m - lI and their cross products; the longest wins.
	VSUBPD Z21, Z0, Z22 // r0x
	VSUBPD Z21, Z3, Z23 // r1y
	VSUBPD Z21, Z5, Z24 // r2z
	// r0 = (r0x, xy, xz), r1 = (xy, r1y, yz), r2 = (xz, yz, r2z).
	CROSS(Z22, Z1, Z2, Z1, Z23, Z4, Z25, Z26, Z27, Z29) // r0 × r1
	NORM2(Z25, Z26, Z27, Z28, Z29)                      // d = d01
	CROSS(Z22, Z1, Z2, Z2, Z4, Z24, Z8, Z9, Z10, Z11)   // r0 × r2
	PICK
	CROSS(Z1, Z23, Z4, Z2, Z4, Z24, Z8, Z9, Z10, Z11)   // r1 × r2
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
	// Where h < 0: λ0 = ρ·scale, v0 = w.
	VMOVUPD Z11, 256(DI) // ρ, kept
	VMULPD Z7, Z11, Z11
	VMOVUPD Z11, 0(DI)
	VMOVUPD Z25, 64(DI)
	VMOVUPD Z26, 128(DI)
	VMOVUPD Z27, 192(DI)

	// Where h ≥ 0, w belongs to λ2: planeEigen. orthoBasis: u ⊥ w from
	// the larger of |w0|, |w1|.
	VBROADCASTSD 0(DX), Z30 // abs mask
	VPANDQ Z30, Z25, Z8
	VPANDQ Z30, Z26, Z9
	VCMPPD $0x1e, Z9, Z8, K2 // |w0| > |w1|
	VBROADCASTSD 16(DX), Z29 // 1
	VMULPD Z25, Z25, Z10
	VMULPD Z27, Z27, Z11
	VADDPD Z11, Z10, Z10
	VSQRTPD Z10, Z10
	VDIVPD Z10, Z29, Z10 // s where |w0| > |w1|
	VMULPD Z26, Z26, Z11
	VMULPD Z27, Z27, Z12
	VADDPD Z12, Z11, Z11
	VSQRTPD Z11, Z11
	VDIVPD Z11, Z29, Z11 // s elsewhere
	VPTERNLOGQ $0xff, Z8, Z8, Z8 // all ones
	VPXORQ Z30, Z8, Z30          // the sign bit alone
	VPXORQ Z30, Z27, Z8   // -w2
	VPXORQ Z30, Z26, Z9   // -w1
	VMULPD Z10, Z8, Z12   // u0 = -w2·s
	VMOVAPD Z31, Z8
	VMOVAPD Z12, K2, Z8   // u0: -w2·s, or 0
	VMULPD Z27, Z11, Z13  // u1 = w2·s
	VMOVAPD Z31, K2, Z13  // u1: 0, or w2·s
	VMULPD Z10, Z25, Z14  // u2 = w0·s
	VMULPD Z11, Z9, Z12   // -w1·s
	KNOTB K2, K4
	VMOVAPD Z12, K4, Z14  // u2: w0·s, or -w1·s
	VMOVAPD Z8, Z12       // u in Z12-Z14
	CROSS(Z25, Z26, Z27, Z12, Z13, Z14, Z16, Z17, Z18, Z8) // v = w × u
	// a = u·mu, b = u·mv, c = v·mv.
	MULSYM(Z12, Z13, Z14)
	DOT3(Z12, Z13, Z14, Z22)
	MULSYM(Z16, Z17, Z18)
	DOT3(Z12, Z13, Z14, Z23)
	DOT3(Z16, Z17, Z18, Z24)
	// One Jacobi rotation where b ≠ 0 (K4).
	VCMPPD $0x0c, Z31, Z23, K4
	VSUBPD Z22, Z24, Z8
	VADDPD Z23, Z23, Z9
	VDIVPD Z9, Z8, Z8     // tau
	VMULPD Z8, Z8, Z9
	VADDPD Z9, Z29, Z9
	VSQRTPD Z9, Z9
	VPANDQ Z30, Z8, Z10   // sign of tau
	VBROADCASTSD 0(DX), Z11
	VPANDQ Z11, Z8, Z11   // |tau|
	VADDPD Z9, Z11, Z9
	VPORQ Z29, Z10, Z10   // copysign(1, tau)
	VDIVPD Z9, Z10, Z9    // t
	VMULPD Z9, Z9, Z10
	VADDPD Z10, Z29, Z10
	VSQRTPD Z10, Z10
	VDIVPD Z10, Z29, Z10  // cs
	VMULPD Z10, Z9, Z11   // sn
	VMULPD Z23, Z9, Z6    // t·b
	VSUBPD Z6, Z22, K4, Z22 // la
	VADDPD Z6, Z24, K4, Z24 // lc
	ROT(Z12, Z16, Z19, Z28)
	ROT(Z13, Z17, Z20, Z29)
	ROT(Z14, Z18, Z21, Z30)
	// Values (ρ, la, lc) with vectors (w, x, y), sorted by three
	// compare-and-swaps; the smallest with its vector is the result.
	VMOVUPD 256(DI), Z6
	CSWAP(Z6, Z22, Z25, Z26, Z27, Z19, Z20, Z21)
	CSWAP(Z22, Z24, Z19, Z20, Z21, Z28, Z29, Z30)
	CSWAP(Z6, Z22, Z25, Z26, Z27, Z19, Z20, Z21)
	KNOTB K3, K4
	KANDB K1, K4, K4 // lanes done on this path
	VMULPD Z7, Z6, Z6
	VMOVUPD Z6, K4, 0(DI)
	VMOVUPD Z25, K4, 64(DI)
	VMOVUPD Z26, K4, 128(DI)
	VMOVUPD Z27, K4, 192(DI)
	KMOVW K1, AX
	VZEROUPPER
	MOVB AL, ret+24(FP)
	RET
