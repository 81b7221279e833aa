#include "textflag.h"

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
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotInt4AVX2(q *int8, c *uint8, blocks, stride, rows int, out *int32)
//
// Per row, per block of 64 dimensions (32 bytes of codes): split the bytes
// into their low nibbles (dimensions 0–31) and high ones (32–63), multiply
// each with its 32 signed query bytes, adding adjacent products into int16
// lanes (VPMADDUBSW: at most 2·15·127, no saturation), add the two halves
// (at most 7,620), widen the pairs into int32 lanes (VPMADDWD by ones) and
// accumulate. The constants live in Y12 (0x0f bytes) and Y13 (int16 ones);
// X15, which Go code expects zero, is not touched.
TEXT ·dotInt4AVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ c+8(FP), DI
	MOVQ blocks+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ out+40(FP), R11
	MOVL $0x0f0f0f0f, AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x00010001, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13

row:
	MOVQ  SI, BX
	MOVQ  DI, DX
	MOVQ  R8, CX
	VPXOR Y0, Y0, Y0

block:
	VMOVDQU    (DX), Y2
	VPSRLW     $4, Y2, Y3
	VPAND      Y12, Y2, Y2
	VPAND      Y12, Y3, Y3
	VPMADDUBSW (BX), Y2, Y2
	VPMADDUBSW 32(BX), Y3, Y3
	VPADDW     Y3, Y2, Y2
	VPMADDWD   Y13, Y2, Y2
	VPADDD     Y2, Y0, Y0
	ADDQ       $32, DX
	ADDQ       $64, BX
	DECQ       CX
	JNZ        block

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, (R11)
	ADDQ         $4, R11
	ADDQ         R9, DI
	DECQ         R10
	JNZ          row

	VZEROUPPER
	RET
