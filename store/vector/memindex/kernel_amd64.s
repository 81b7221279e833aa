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
