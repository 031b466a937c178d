// Packed fp32 GEMM microkernel, 8 rows x 12 columns, AArch64 NEON.
//
//   void rill_f32_gemm_8x12_neon(size_t k, const float* a, const float* w,
//                                float* c, size_t ldc_bytes,
//                                const float* bias, const float* clamp);
//
// a: an A panel packed k-major, 8 floats per k step (rows 0..7 of one k).
// w: a W panel packed k-major, 12 floats per k step (columns 0..11).
// c: the 8x12 output tile, rows ldc_bytes apart; every element is written:
//    c[r][j] = min(max(bias[j] + sum_k a[k][r] * w[k][j], clamp[0]), clamp[1])
// bias: 12 floats (the caller passes zeros for none); clamp: {lo, hi}, the
// fused activation's bounds (-inf, +inf for none).
//
// Registers: v8-v31 the 24 accumulators (row r in v(8+3r)..v(10+3r)),
// v0-v1 the 8 A values of one k step, v2-v4 the 12 W values; per k step
// 24 fmla (by element) against 2 loads (5 q registers). d8-d15 are
// callee-saved under AAPCS64 and are saved around the kernel.
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

  .text
  .p2align 4
  RILL_FUNC(rill_f32_gemm_8x12_neon)
  stp d8, d9, [sp, #-64]!
  stp d10, d11, [sp, #16]
  stp d12, d13, [sp, #32]
  stp d14, d15, [sp, #48]
  // Accumulators start at the bias.
  ld1 {v2.4s, v3.4s, v4.4s}, [x5]
  mov v8.16b, v2.16b
  mov v9.16b, v3.16b
  mov v10.16b, v4.16b
  mov v11.16b, v2.16b
  mov v12.16b, v3.16b
  mov v13.16b, v4.16b
  mov v14.16b, v2.16b
  mov v15.16b, v3.16b
  mov v16.16b, v4.16b
  mov v17.16b, v2.16b
  mov v18.16b, v3.16b
  mov v19.16b, v4.16b
  mov v20.16b, v2.16b
  mov v21.16b, v3.16b
  mov v22.16b, v4.16b
  mov v23.16b, v2.16b
  mov v24.16b, v3.16b
  mov v25.16b, v4.16b
  mov v26.16b, v2.16b
  mov v27.16b, v3.16b
  mov v28.16b, v4.16b
  mov v29.16b, v2.16b
  mov v30.16b, v3.16b
  mov v31.16b, v4.16b
  cbz x0, 2f
  .p2align 4
1:
  ld1 {v0.4s, v1.4s}, [x1], #32
  ld1 {v2.4s, v3.4s, v4.4s}, [x2], #48
  subs x0, x0, #1
  fmla v8.4s, v2.4s, v0.s[0]
  fmla v9.4s, v3.4s, v0.s[0]
  fmla v10.4s, v4.4s, v0.s[0]
  fmla v11.4s, v2.4s, v0.s[1]
  fmla v12.4s, v3.4s, v0.s[1]
  fmla v13.4s, v4.4s, v0.s[1]
  fmla v14.4s, v2.4s, v0.s[2]
  fmla v15.4s, v3.4s, v0.s[2]
  fmla v16.4s, v4.4s, v0.s[2]
  fmla v17.4s, v2.4s, v0.s[3]
  fmla v18.4s, v3.4s, v0.s[3]
  fmla v19.4s, v4.4s, v0.s[3]
  fmla v20.4s, v2.4s, v1.s[0]
  fmla v21.4s, v3.4s, v1.s[0]
  fmla v22.4s, v4.4s, v1.s[0]
  fmla v23.4s, v2.4s, v1.s[1]
  fmla v24.4s, v3.4s, v1.s[1]
  fmla v25.4s, v4.4s, v1.s[1]
  fmla v26.4s, v2.4s, v1.s[2]
  fmla v27.4s, v3.4s, v1.s[2]
  fmla v28.4s, v4.4s, v1.s[2]
  fmla v29.4s, v2.4s, v1.s[3]
  fmla v30.4s, v3.4s, v1.s[3]
  fmla v31.4s, v4.4s, v1.s[3]
  b.ne 1b
2:
  // Epilogue: the fused activation as a clamp, then the stores.
  ld1r {v0.4s}, [x6], #4
  ld1r {v1.4s}, [x6]
  fmax v8.4s, v8.4s, v0.4s
  fmin v8.4s, v8.4s, v1.4s
  fmax v9.4s, v9.4s, v0.4s
  fmin v9.4s, v9.4s, v1.4s
  fmax v10.4s, v10.4s, v0.4s
  fmin v10.4s, v10.4s, v1.4s
  fmax v11.4s, v11.4s, v0.4s
  fmin v11.4s, v11.4s, v1.4s
  fmax v12.4s, v12.4s, v0.4s
  fmin v12.4s, v12.4s, v1.4s
  fmax v13.4s, v13.4s, v0.4s
  fmin v13.4s, v13.4s, v1.4s
  fmax v14.4s, v14.4s, v0.4s
  fmin v14.4s, v14.4s, v1.4s
  fmax v15.4s, v15.4s, v0.4s
  fmin v15.4s, v15.4s, v1.4s
  fmax v16.4s, v16.4s, v0.4s
  fmin v16.4s, v16.4s, v1.4s
  fmax v17.4s, v17.4s, v0.4s
  fmin v17.4s, v17.4s, v1.4s
  fmax v18.4s, v18.4s, v0.4s
  fmin v18.4s, v18.4s, v1.4s
  fmax v19.4s, v19.4s, v0.4s
  fmin v19.4s, v19.4s, v1.4s
  fmax v20.4s, v20.4s, v0.4s
  fmin v20.4s, v20.4s, v1.4s
  fmax v21.4s, v21.4s, v0.4s
  fmin v21.4s, v21.4s, v1.4s
  fmax v22.4s, v22.4s, v0.4s
  fmin v22.4s, v22.4s, v1.4s
  fmax v23.4s, v23.4s, v0.4s
  fmin v23.4s, v23.4s, v1.4s
  fmax v24.4s, v24.4s, v0.4s
  fmin v24.4s, v24.4s, v1.4s
  fmax v25.4s, v25.4s, v0.4s
  fmin v25.4s, v25.4s, v1.4s
  fmax v26.4s, v26.4s, v0.4s
  fmin v26.4s, v26.4s, v1.4s
  fmax v27.4s, v27.4s, v0.4s
  fmin v27.4s, v27.4s, v1.4s
  fmax v28.4s, v28.4s, v0.4s
  fmin v28.4s, v28.4s, v1.4s
  fmax v29.4s, v29.4s, v0.4s
  fmin v29.4s, v29.4s, v1.4s
  fmax v30.4s, v30.4s, v0.4s
  fmin v30.4s, v30.4s, v1.4s
  fmax v31.4s, v31.4s, v0.4s
  fmin v31.4s, v31.4s, v1.4s
  st1 {v8.4s, v9.4s, v10.4s}, [x3], x4
  st1 {v11.4s, v12.4s, v13.4s}, [x3], x4
  st1 {v14.4s, v15.4s, v16.4s}, [x3], x4
  st1 {v17.4s, v18.4s, v19.4s}, [x3], x4
  st1 {v20.4s, v21.4s, v22.4s}, [x3], x4
  st1 {v23.4s, v24.4s, v25.4s}, [x3], x4
  st1 {v26.4s, v27.4s, v28.4s}, [x3], x4
  st1 {v29.4s, v30.4s, v31.4s}, [x3], x4
  ldp d14, d15, [sp, #48]
  ldp d12, d13, [sp, #32]
  ldp d10, d11, [sp, #16]
  ldp d8, d9, [sp], #64
  ret
  RILL_FUNC_END(rill_f32_gemm_8x12_neon)

RILL_ASM_NOTE_GNU_STACK
