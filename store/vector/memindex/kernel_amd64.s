#include "textflag.h"

// SUM_Y0_INTO_AX adds the eight int32 lanes of Y0 into AX (clobbering X0
// and X1).
#define SUM_Y0_INTO_AX \
	VEXTRACTI128 $1, Y0, X1 \
	VPADDD       X1, X0, X0 \
	VPSHUFD      $0x4e, X0, X1 \
	VPADDD       X1, X0, X0 \
	VPSHUFD      $0xb1, X0, X1 \
	VPADDD       X1, X0, X0 \
	VMOVD        X0, AX

// The int4 tile kernels (codes_int4.go has the tiles' layout) take
// func(tile *uint8, offs *int32, lo, hi *uint16, n int, ahead *int32, out *[256]int32)
// and load them as INT4_TILE_ARGS: tile in DI, offs in SI, lo in R8, hi
// in R9, n in CX, ahead in R10, out in R11. While they score quad i they
// ask for the quad at ahead[i] (int4Query.ahead).
#define INT4_TILE_ARGS \
	MOVQ tile+0(FP), DI \
	MOVQ offs+8(FP), SI \
	MOVQ lo+16(FP), R8 \
	MOVQ hi+24(FP), R9 \
	MOVQ n+32(FP), CX \
	MOVQ ahead+40(FP), R10 \
	MOVQ out+48(FP), R11

// func dotInt8AVX2(q *int16, c *int8, n int) int32
//
// Each step widens 32 int8 codes to int16 (VPMOVSXBW) and multiplies them
// with 32 int16 query elements, adding adjacent products into int32 lanes
// (VPMADDWD); two accumulators hide the latency. The caller bounds the
// query so that no int32 sum overflows (maxQueryInt16).
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ c+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop:
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  (SI), Y2, Y2
	VPMADDWD  32(SI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $32, CX
	JNZ       loop

	VPADDD       Y1, Y0, Y0
	SUM_Y0_INTO_AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotInt4TileAVX2(tile *uint8, offs *int32, lo, hi *uint16, n int, ahead *int32, out *[256]int32)
//
// As dotInt4TileAVX512 in two passes of 128 rows (256 bytes of each
// piece): the rows' int16 sums in Y0–Y7 (16 rows each), added every four
// pieces into their int32 sums, which wait in out (zeroed first: the
// sixteen registers hold no more). AX counts the pieces, R12 the pieces
// until the next widening, R13 is the pass's byte offset in a piece (out's
// is twice it). Y10 holds the 0x0f bytes; X15, which Go code expects
// zero, is not touched.
#define PIECE256(off, acc) \
	VMOVDQU    off(DX), Y11 \
	VPSRLW     $4, Y11, Y12 \
	VPAND      Y10, Y11, Y11 \
	VPAND      Y10, Y12, Y12 \
	VPMADDUBSW Y8, Y11, Y11 \
	VPMADDUBSW Y9, Y12, Y12 \
	VPADDW     Y11, acc, acc \
	VPADDW     Y12, acc, acc

// WIDEN256 adds the 16 int16 sums of acc (whose lower half is xacc) into
// the int32 sums at out+off0 and out+off1 of the pass, and zeroes acc.
#define WIDEN256(acc, xacc, off0, off1) \
	VPMOVSXWD    xacc, Y11 \
	VEXTRACTI128 $1, acc, X12 \
	VPMOVSXWD    X12, Y12 \
	VPADDD       off0(R11)(R13*2), Y11, Y11 \
	VPADDD       off1(R11)(R13*2), Y12, Y12 \
	VMOVDQU      Y11, off0(R11)(R13*2) \
	VMOVDQU      Y12, off1(R11)(R13*2) \
	VPXOR        acc, acc, acc

// WIDEN256_ALL widens all eight sums of the pass.
#define WIDEN256_ALL \
	WIDEN256(Y0, X0, 0, 32) \
	WIDEN256(Y1, X1, 64, 96) \
	WIDEN256(Y2, X2, 128, 160) \
	WIDEN256(Y3, X3, 192, 224) \
	WIDEN256(Y4, X4, 256, 288) \
	WIDEN256(Y5, X5, 320, 352) \
	WIDEN256(Y6, X6, 384, 416) \
	WIDEN256(Y7, X7, 448, 480)

TEXT ·dotInt4TileAVX2(SB), NOSPLIT, $0-56
	INT4_TILE_ARGS
	MOVL         $0x0f0f0f0f, AX
	VMOVD        AX, X10
	VPBROADCASTD X10, Y10
	VPXOR        Y11, Y11, Y11
	VMOVDQU Y11, 0(R11)
	VMOVDQU Y11, 32(R11)
	VMOVDQU Y11, 64(R11)
	VMOVDQU Y11, 96(R11)
	VMOVDQU Y11, 128(R11)
	VMOVDQU Y11, 160(R11)
	VMOVDQU Y11, 192(R11)
	VMOVDQU Y11, 224(R11)
	VMOVDQU Y11, 256(R11)
	VMOVDQU Y11, 288(R11)
	VMOVDQU Y11, 320(R11)
	VMOVDQU Y11, 352(R11)
	VMOVDQU Y11, 384(R11)
	VMOVDQU Y11, 416(R11)
	VMOVDQU Y11, 448(R11)
	VMOVDQU Y11, 480(R11)
	VMOVDQU Y11, 512(R11)
	VMOVDQU Y11, 544(R11)
	VMOVDQU Y11, 576(R11)
	VMOVDQU Y11, 608(R11)
	VMOVDQU Y11, 640(R11)
	VMOVDQU Y11, 672(R11)
	VMOVDQU Y11, 704(R11)
	VMOVDQU Y11, 736(R11)
	VMOVDQU Y11, 768(R11)
	VMOVDQU Y11, 800(R11)
	VMOVDQU Y11, 832(R11)
	VMOVDQU Y11, 864(R11)
	VMOVDQU Y11, 896(R11)
	VMOVDQU Y11, 928(R11)
	VMOVDQU Y11, 960(R11)
	VMOVDQU Y11, 992(R11)
	XORQ         R13, R13

pass2:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ  AX, AX
	MOVQ  $4, R12

piece2:
	MOVLQSX      (SI)(AX*4), DX
	ADDQ         DI, DX
	ADDQ         R13, DX
	MOVLQSX      (R10)(AX*4), BX
	ADDQ         DI, BX
	VPBROADCASTW (R8)(AX*2), Y8
	VPBROADCASTW (R9)(AX*2), Y9
	PREFETCHT0   0(BX)(R13*1)
	PREFETCHT0   64(BX)(R13*1)
	PREFETCHT0   128(BX)(R13*1)
	PREFETCHT0   192(BX)(R13*1)
	PIECE256(0, Y0)
	PIECE256(32, Y1)
	PIECE256(64, Y2)
	PIECE256(96, Y3)
	PIECE256(128, Y4)
	PIECE256(160, Y5)
	PIECE256(192, Y6)
	PIECE256(224, Y7)
	INCQ         AX
	DECQ         R12
	JNZ          next2
	WIDEN256_ALL
	MOVQ         $4, R12

next2:
	CMPQ AX, CX
	JNE  piece2

	WIDEN256_ALL
	ADDQ $256, R13
	CMPQ R13, $512
	JNE  pass2

	VZEROUPPER
	RET

// func dotInt4TileAVX512(tile *uint8, offs *int32, lo, hi *uint16, n int, ahead *int32, out *[256]int32)
//
// Per piece of the query: its two weights of the low nibbles broadcast to
// every 16-bit lane of Z8, those of the high ones to Z9; then each 64
// bytes of the piece's run (32 rows) split into low nibbles and high ones,
// each multiplied with its weights and the row's two products added into
// its int16 lane (VPMADDUBSW: at most 2·15·127), and both into the rows'
// int16 sums in Z0–Z7 (32 rows each), while the piece ahead (BX) is asked
// for. Four pieces add at most 4·7,620 to a sum, so every four the int16
// sums are widened into the rows' int32 sums in Z16–Z31 (16 rows each,
// in order). AX counts the pieces, R12 the pieces until the next
// widening; Z10 holds the 0x0f bytes; X15, which Go code expects zero, is
// not touched.
#define PIECE512(off, acc) \
	VMOVDQU64  off(DX), Z11 \
	PREFETCHT0 off(BX) \
	VPSRLW     $4, Z11, Z12 \
	VPANDD     Z10, Z11, Z11 \
	VPANDD     Z10, Z12, Z12 \
	VPMADDUBSW Z8, Z11, Z11 \
	VPMADDUBSW Z9, Z12, Z12 \
	VPADDW     Z11, acc, acc \
	VPADDW     Z12, acc, acc

// WIDEN512 adds the 32 int16 sums of acc (whose lower half is yacc) into
// the int32 sums lo and hi, and zeroes acc.
#define WIDEN512(acc, yacc, lo, hi) \
	VPMOVSXWD     yacc, Z11 \
	VEXTRACTI64X4 $1, acc, Y12 \
	VPMOVSXWD     Y12, Z12 \
	VPADDD        Z11, lo, lo \
	VPADDD        Z12, hi, hi \
	VPXORD        acc, acc, acc

// WIDEN512_ALL widens all eight sums.
#define WIDEN512_ALL \
	WIDEN512(Z0, Y0, Z16, Z17) \
	WIDEN512(Z1, Y1, Z18, Z19) \
	WIDEN512(Z2, Y2, Z20, Z21) \
	WIDEN512(Z3, Y3, Z22, Z23) \
	WIDEN512(Z4, Y4, Z24, Z25) \
	WIDEN512(Z5, Y5, Z26, Z27) \
	WIDEN512(Z6, Y6, Z28, Z29) \
	WIDEN512(Z7, Y7, Z30, Z31)

TEXT ·dotInt4TileAVX512(SB), NOSPLIT, $0-56
	INT4_TILE_ARGS
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z10
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	VPXORD       Z2, Z2, Z2
	VPXORD       Z3, Z3, Z3
	VPXORD       Z4, Z4, Z4
	VPXORD       Z5, Z5, Z5
	VPXORD       Z6, Z6, Z6
	VPXORD       Z7, Z7, Z7
	VPXORD       Z16, Z16, Z16
	VPXORD       Z17, Z17, Z17
	VPXORD       Z18, Z18, Z18
	VPXORD       Z19, Z19, Z19
	VPXORD       Z20, Z20, Z20
	VPXORD       Z21, Z21, Z21
	VPXORD       Z22, Z22, Z22
	VPXORD       Z23, Z23, Z23
	VPXORD       Z24, Z24, Z24
	VPXORD       Z25, Z25, Z25
	VPXORD       Z26, Z26, Z26
	VPXORD       Z27, Z27, Z27
	VPXORD       Z28, Z28, Z28
	VPXORD       Z29, Z29, Z29
	VPXORD       Z30, Z30, Z30
	VPXORD       Z31, Z31, Z31
	XORQ         AX, AX
	MOVQ         $4, R12

piece5:
	MOVLQSX      (SI)(AX*4), DX
	ADDQ         DI, DX
	MOVLQSX      (R10)(AX*4), BX
	ADDQ         DI, BX
	VPBROADCASTW (R8)(AX*2), Z8
	VPBROADCASTW (R9)(AX*2), Z9
	PIECE512(0, Z0)
	PIECE512(64, Z1)
	PIECE512(128, Z2)
	PIECE512(192, Z3)
	PIECE512(256, Z4)
	PIECE512(320, Z5)
	PIECE512(384, Z6)
	PIECE512(448, Z7)
	INCQ         AX
	DECQ         R12
	JNZ          next5
	WIDEN512_ALL
	MOVQ         $4, R12

next5:
	CMPQ AX, CX
	JNE  piece5

	WIDEN512_ALL
	VMOVDQU32 Z16, 0(R11)
	VMOVDQU32 Z17, 64(R11)
	VMOVDQU32 Z18, 128(R11)
	VMOVDQU32 Z19, 192(R11)
	VMOVDQU32 Z20, 256(R11)
	VMOVDQU32 Z21, 320(R11)
	VMOVDQU32 Z22, 384(R11)
	VMOVDQU32 Z23, 448(R11)
	VMOVDQU32 Z24, 512(R11)
	VMOVDQU32 Z25, 576(R11)
	VMOVDQU32 Z26, 640(R11)
	VMOVDQU32 Z27, 704(R11)
	VMOVDQU32 Z28, 768(R11)
	VMOVDQU32 Z29, 832(R11)
	VMOVDQU32 Z30, 896(R11)
	VMOVDQU32 Z31, 960(R11)
	VZEROUPPER
	RET

// func atLeastAVX2(raw *int32, scales *float32, groups int, corr int32, bar float32, mask *uint64)
//
// For groups groups of 64 rows: the score of row i, float32(raw[i] −
// corr)·scales[i] (rounded as Go rounds it: VCVTDQ2PS and VMULPS round to
// nearest), is compared with bar, and bit i%64 of the group's mask word
// set when it is not below it (a NaN score is not below: VCMPPS predicate
// 5, not-less-than, unordered true). Eight rows a step; X15, which Go
// code expects zero, is not touched.
TEXT ·atLeastAVX2(SB), NOSPLIT, $0-40
	MOVQ         raw+0(FP), SI
	MOVQ         scales+8(FP), DI
	MOVQ         groups+16(FP), R8
	MOVQ         mask+32(FP), R11
	MOVL         corr+24(FP), AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	MOVL         bar+28(FP), AX
	VMOVD        AX, X13
	VBROADCASTSS X13, Y13

group:
	XORQ DX, DX // the group's mask
	XORQ CX, CX // the step's shift

step:
	VMOVDQU   (SI), Y0
	VPSUBD    Y14, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMULPS    (DI), Y0, Y0
	VCMPPS    $5, Y13, Y0, Y0
	VMOVMSKPS Y0, AX
	SHLQ      CX, AX
	ORQ       AX, DX
	ADDQ      $32, SI
	ADDQ      $32, DI
	ADDQ      $8, CX
	CMPQ      CX, $64
	JNE       step

	MOVQ DX, (R11)
	ADDQ $8, R11
	DECQ R8
	JNZ  group

	VZEROUPPER
	RET
