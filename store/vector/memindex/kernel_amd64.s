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

// PREFETCH_AHEAD is how far ahead of the block it scores an int4 kernel
// asks for the codes (one cache line per block): 32 KiB, 84 rows of 768
// dimensions. The hardware's own prefetchers run too close behind a
// stream this fast; with the hint, one pass over 100k rows read from
// memory takes 0.63–0.72 ms instead of 1.05–1.1 (BenchmarkInt4Pass),
// for 7% more when the codes are already in the cache. A hint past the
// end of the codes is harmless: prefetches never fault.
#define PREFETCH_AHEAD 32768

// INT4_ARGS loads the arguments of the int4 kernels: q in SI, c in DI,
// blocks in R8, stride in R9, rows in R10, out in R11.
#define INT4_ARGS \
	MOVQ q+0(FP), SI \
	MOVQ c+8(FP), DI \
	MOVQ blocks+16(FP), R8 \
	MOVQ stride+24(FP), R9 \
	MOVQ rows+32(FP), R10 \
	MOVQ out+40(FP), R11

// INT4_NEXT_ROW stores the row's sum (AX) in out and moves to the next row
// and output, looping to label while rows remain.
#define INT4_NEXT_ROW(label) \
	MOVL AX, (R11) \
	ADDQ $4, R11 \
	ADDQ R9, DI \
	DECQ R10 \
	JNZ  label

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

// func dotInt4AVX2(q *int8, c *uint8, blocks, stride, rows int, out *int32)
//
// Per row, per block of 128 dimensions (64 bytes of codes, two halves of
// 32): split each half into its low nibbles (dimensions j) and high ones
// (j+64), multiply each with its 32 signed query bytes, adding adjacent
// products into int16 lanes (VPMADDUBSW: at most 2·15·127, no
// saturation), add the four results (at most 15,240), widen the pairs
// into int32 lanes (VPMADDWD by ones) and accumulate. The constants live
// in Y12 (0x0f bytes) and Y13 (int16 ones); X15, which Go code expects
// zero, is not touched.
TEXT ·dotInt4AVX2(SB), NOSPLIT, $0-48
	INT4_ARGS
	MOVL $0x0f0f0f0f, AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x00010001, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13

row2:
	MOVQ  SI, BX
	MOVQ  DI, DX
	MOVQ  R8, CX
	VPXOR Y0, Y0, Y0

block2:
	PREFETCHT0 PREFETCH_AHEAD(DX)
	VMOVDQU    (DX), Y2
	VPSRLW     $4, Y2, Y3
	VPAND      Y12, Y2, Y2
	VPAND      Y12, Y3, Y3
	VPMADDUBSW (BX), Y2, Y2
	VPMADDUBSW 64(BX), Y3, Y3
	VPADDW     Y3, Y2, Y2
	VMOVDQU    32(DX), Y4
	VPSRLW     $4, Y4, Y5
	VPAND      Y12, Y4, Y4
	VPAND      Y12, Y5, Y5
	VPMADDUBSW 32(BX), Y4, Y4
	VPMADDUBSW 96(BX), Y5, Y5
	VPADDW     Y5, Y4, Y4
	VPADDW     Y4, Y2, Y2
	VPMADDWD   Y13, Y2, Y2
	VPADDD     Y2, Y0, Y0
	ADDQ       $64, DX
	ADDQ       $128, BX
	DECQ       CX
	JNZ        block2

	SUM_Y0_INTO_AX
	INT4_NEXT_ROW(row2)

	VZEROUPPER
	RET

// func dotInt4VNNI(q *int8, c *uint8, blocks, stride, rows int, out *int32)
//
// As dotInt4AVX2, a block of 128 dimensions at a time in 512-bit
// registers: its 64 bytes split into low nibbles (dimensions 0–63) and
// high ones (64–127), each multiplied with its 64 signed query bytes and
// added four at a time into int32 lanes by one VPDPBUSD. Z12 holds the
// 0x0f bytes.
//
// Codes read from memory take about as long as with dotInt4AVX2 (the
// bytes bound both); codes in the cache, as the searches that share a scan
// re-read them, half as long (BenchmarkInt4Pass).
TEXT ·dotInt4VNNI(SB), NOSPLIT, $0-48
	INT4_ARGS
	MOVL $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z12

row5:
	MOVQ   SI, BX
	MOVQ   DI, DX
	MOVQ   R8, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

block5:
	PREFETCHT0 PREFETCH_AHEAD(DX)
	VMOVDQU64 (DX), Z2
	VPSRLW    $4, Z2, Z3
	VPANDD    Z12, Z2, Z2
	VPANDD    Z12, Z3, Z3
	VPDPBUSD  (BX), Z2, Z0
	VPDPBUSD  64(BX), Z3, Z1
	ADDQ      $64, DX
	ADDQ      $128, BX
	DECQ      CX
	JNZ       block5

	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	SUM_Y0_INTO_AX
	INT4_NEXT_ROW(row5)

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
