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
// func(tile *uint8, offs *int32, lo, hi *uint32, n int, ahead *int32, out *[256]int32)
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

// func dotInt4TileAVX2(tile *uint8, offs *int32, lo, hi *uint32, n int, ahead *int32, out *[256]int32)
//
// As dotInt4TileVNNI in four passes of 64 rows, summed in Y0–Y7 (8 rows
// each): per quad of the query, its weights broadcast to Y8 (low nibbles)
// and Y9 (high), each 32 bytes of the pass's part of the quad split into
// nibbles and multiplied with them, adjacent products added into int16
// lanes (VPMADDUBSW: at most 2·15·127), the low and high sums added (at
// most 7,620), each row's two int16 sums into its int32 lane (VPMADDWD by
// ones) and accumulated, while the pass's part of the quad ahead (BX) is
// asked for. AX counts the quads, R12 is the pass's byte
// offset in a quad (and in out: 4 bytes a row in both). Y12 holds the
// 0x0f bytes, Y13 int16 ones; X15, which Go code expects zero, is not
// touched.
#define AVX2_ROWS(off, acc) \
	VMOVDQU    off(DX), Y10 \
	VPSRLW     $4, Y10, Y11 \
	VPAND      Y12, Y10, Y10 \
	VPAND      Y12, Y11, Y11 \
	VPMADDUBSW Y8, Y10, Y10 \
	VPMADDUBSW Y9, Y11, Y11 \
	VPADDW     Y11, Y10, Y10 \
	VPMADDWD   Y13, Y10, Y10 \
	VPADDD     Y10, acc, acc

TEXT ·dotInt4TileAVX2(SB), NOSPLIT, $0-56
	INT4_TILE_ARGS
	MOVL         $0x0f0f0f0f, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12
	MOVL         $0x00010001, AX
	VMOVD        AX, X13
	VPBROADCASTD X13, Y13
	XORQ         R12, R12

pass2:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ AX, AX

quad2:
	MOVLQSX      (SI)(AX*4), DX
	ADDQ         DI, DX
	ADDQ         R12, DX
	MOVLQSX      (R10)(AX*4), BX
	ADDQ         DI, BX
	VPBROADCASTD (R8)(AX*4), Y8
	VPBROADCASTD (R9)(AX*4), Y9
	PREFETCHT0   0(BX)(R12*1)
	PREFETCHT0   64(BX)(R12*1)
	PREFETCHT0   128(BX)(R12*1)
	PREFETCHT0   192(BX)(R12*1)
	AVX2_ROWS(0, Y0)
	AVX2_ROWS(32, Y1)
	AVX2_ROWS(64, Y2)
	AVX2_ROWS(96, Y3)
	AVX2_ROWS(128, Y4)
	AVX2_ROWS(160, Y5)
	AVX2_ROWS(192, Y6)
	AVX2_ROWS(224, Y7)
	INCQ AX
	CMPQ AX, CX
	JNE  quad2

	VMOVDQU Y0, 0(R11)(R12*1)
	VMOVDQU Y1, 32(R11)(R12*1)
	VMOVDQU Y2, 64(R11)(R12*1)
	VMOVDQU Y3, 96(R11)(R12*1)
	VMOVDQU Y4, 128(R11)(R12*1)
	VMOVDQU Y5, 160(R11)(R12*1)
	VMOVDQU Y6, 192(R11)(R12*1)
	VMOVDQU Y7, 224(R11)(R12*1)
	ADDQ $256, R12
	CMPQ R12, $1024
	JNE  pass2

	VZEROUPPER
	RET

// func dotInt4TileVNNI(tile *uint8, offs *int32, lo, hi *uint32, n int, ahead *int32, out *[256]int32)
//
// The tile's 256 rows are summed in Z16–Z31, 16 rows (a 64-byte load of
// their quads) each. Per quad of the query: its weights broadcast to Z0
// (low nibbles) and Z1 (high), then each 64 bytes split into low nibbles
// (Z2) and high ones (Z3), multiplied with them and added four at a time
// into the rows' int32 lanes by VPDPBUSD, while the quad ahead (BX) is
// asked for. AX counts the quads; Z6 holds the 0x0f bytes;
// X15, which Go code expects zero, is not touched.
//
// Codes read from memory cost about as much as with dotInt4TileAVX2 (the
// bytes bound both); codes in the cache, as the searches that share a
// scan re-read them, half as much (BenchmarkInt4Pass).
#define VNNI_ROWS(off, acc) \
	VMOVDQU64  off(DX), Z2 \
	PREFETCHT0 off(BX) \
	VPSRLW     $4, Z2, Z3 \
	VPANDD     Z6, Z2, Z2 \
	VPANDD     Z6, Z3, Z3 \
	VPDPBUSD   Z0, Z2, acc \
	VPDPBUSD   Z1, Z3, acc

TEXT ·dotInt4TileVNNI(SB), NOSPLIT, $0-56
	INT4_TILE_ARGS
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z6
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

quad5:
	MOVLQSX      (SI)(AX*4), DX
	ADDQ         DI, DX
	MOVLQSX      (R10)(AX*4), BX
	ADDQ         DI, BX
	VPBROADCASTD (R8)(AX*4), Z0
	VPBROADCASTD (R9)(AX*4), Z1
	VNNI_ROWS(0, Z16)
	VNNI_ROWS(64, Z17)
	VNNI_ROWS(128, Z18)
	VNNI_ROWS(192, Z19)
	VNNI_ROWS(256, Z20)
	VNNI_ROWS(320, Z21)
	VNNI_ROWS(384, Z22)
	VNNI_ROWS(448, Z23)
	VNNI_ROWS(512, Z24)
	VNNI_ROWS(576, Z25)
	VNNI_ROWS(640, Z26)
	VNNI_ROWS(704, Z27)
	VNNI_ROWS(768, Z28)
	VNNI_ROWS(832, Z29)
	VNNI_ROWS(896, Z30)
	VNNI_ROWS(960, Z31)
	INCQ AX
	CMPQ AX, CX
	JNE  quad5

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
