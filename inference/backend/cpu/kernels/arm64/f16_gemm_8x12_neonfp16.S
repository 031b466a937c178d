// Packed GEMM microkernel on ARMv8.2-A half-precision arithmetic (FEAT_FP16,
// HWCAP_ASIMDHP), 8 rows x 12 columns: the multiply-adds run on halves,
// eight lanes per fmla, twice fp32's rate per instruction.
//
//   void rill_f16_gemm_8x12_neonfp16(size_t k, const uint16_t* a,
//                                    const uint16_t* w, float* c,
//                                    size_t ldc_bytes, const float* bias,
//                                    const float* clamp, size_t accumulate);
//
// a: an A panel of halves, 8 per k step; w: a W panel of halves, 12 per k
// step (the fp32 panels' layout). The k sums run in half precision from
// zero; they are widened to fp32 and added to `bias` (12 floats) or, with
// `accumulate` nonzero, to the fp32 values already in c (the caller splits
// a long k into chunks so that no half-precision sum runs long), then
// clamped to [clamp[0], clamp[1]] and stored as fp32.
//
// Registers: v8-v23 the accumulators (row r: v(8+2r).8h columns 0-7,
// v(9+2r).4h columns 8-11), v0 the 8 A halves (by-element fp16 operands
// must be v0-v15), v1-v2 the 12 W halves; per k step 16 fmla (12 of 8 lanes'
// work: 96 multiply-adds) against 3 loads. v24-v31 serve the epilogue.
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

  .arch armv8.2-a+fp16
  .text
  .p2align 4
  RILL_FUNC(rill_f16_gemm_8x12_neonfp16)
  stp d8, d9, [sp, #-64]!
  stp d10, d11, [sp, #16]
  stp d12, d13, [sp, #32]
  stp d14, d15, [sp, #48]
  movi v8.16b, #0
  movi v9.16b, #0
  movi v10.16b, #0
  movi v11.16b, #0
  movi v12.16b, #0
  movi v13.16b, #0
  movi v14.16b, #0
  movi v15.16b, #0
  movi v16.16b, #0
  movi v17.16b, #0
  movi v18.16b, #0
  movi v19.16b, #0
  movi v20.16b, #0
  movi v21.16b, #0
  movi v22.16b, #0
  movi v23.16b, #0
  cbz x0, 2f
  .p2align 4
1:
  ld1 {v0.8h}, [x1], #16
  ld1 {v1.8h}, [x2], #16
  ld1 {v2.4h}, [x2], #8
  subs x0, x0, #1
  fmla v8.8h, v1.8h, v0.h[0]
  fmla v9.4h, v2.4h, v0.h[0]
  fmla v10.8h, v1.8h, v0.h[1]
  fmla v11.4h, v2.4h, v0.h[1]
  fmla v12.8h, v1.8h, v0.h[2]
  fmla v13.4h, v2.4h, v0.h[2]
  fmla v14.8h, v1.8h, v0.h[3]
  fmla v15.4h, v2.4h, v0.h[3]
  fmla v16.8h, v1.8h, v0.h[4]
  fmla v17.4h, v2.4h, v0.h[4]
  fmla v18.8h, v1.8h, v0.h[5]
  fmla v19.4h, v2.4h, v0.h[5]
  fmla v20.8h, v1.8h, v0.h[6]
  fmla v21.4h, v2.4h, v0.h[6]
  fmla v22.8h, v1.8h, v0.h[7]
  fmla v23.4h, v2.4h, v0.h[7]
  b.ne 1b
2:
  ld1r {v30.4s}, [x6], #4
  ld1r {v31.4s}, [x6]
  ld1 {v27.4s, v28.4s, v29.4s}, [x5]
  // row 0
  fcvtl v24.4s, v8.4h
  fcvtl2 v25.4s, v8.8h
  fcvtl v26.4s, v9.4h
  cbz x7, 40f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
40:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 1
  fcvtl v24.4s, v10.4h
  fcvtl2 v25.4s, v10.8h
  fcvtl v26.4s, v11.4h
  cbz x7, 41f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
41:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 2
  fcvtl v24.4s, v12.4h
  fcvtl2 v25.4s, v12.8h
  fcvtl v26.4s, v13.4h
  cbz x7, 42f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
42:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 3
  fcvtl v24.4s, v14.4h
  fcvtl2 v25.4s, v14.8h
  fcvtl v26.4s, v15.4h
  cbz x7, 43f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
43:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 4
  fcvtl v24.4s, v16.4h
  fcvtl2 v25.4s, v16.8h
  fcvtl v26.4s, v17.4h
  cbz x7, 44f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
44:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 5
  fcvtl v24.4s, v18.4h
  fcvtl2 v25.4s, v18.8h
  fcvtl v26.4s, v19.4h
  cbz x7, 45f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
45:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 6
  fcvtl v24.4s, v20.4h
  fcvtl2 v25.4s, v20.8h
  fcvtl v26.4s, v21.4h
  cbz x7, 46f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
46:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  // row 7
  fcvtl v24.4s, v22.4h
  fcvtl2 v25.4s, v22.8h
  fcvtl v26.4s, v23.4h
  cbz x7, 47f
  ld1 {v27.4s, v28.4s, v29.4s}, [x3]
47:
  fadd v24.4s, v24.4s, v27.4s
  fadd v25.4s, v25.4s, v28.4s
  fadd v26.4s, v26.4s, v29.4s
  fmax v24.4s, v24.4s, v30.4s
  fmin v24.4s, v24.4s, v31.4s
  fmax v25.4s, v25.4s, v30.4s
  fmin v25.4s, v25.4s, v31.4s
  fmax v26.4s, v26.4s, v30.4s
  fmin v26.4s, v26.4s, v31.4s
  st1 {v24.4s, v25.4s, v26.4s}, [x3], x4
  ldp d14, d15, [sp, #48]
  ldp d12, d13, [sp, #32]
  ldp d10, d11, [sp, #16]
  ldp d8, d9, [sp], #64
  ret
  RILL_FUNC_END(rill_f16_gemm_8x12_neonfp16)

RILL_ASM_NOTE_GNU_STACK
