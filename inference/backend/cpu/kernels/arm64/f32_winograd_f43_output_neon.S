// Winograd F(4x4, 3x3) output transform, AArch64 NEON: Y = A^T M A + bias,
// clamped to the fused activation's bounds, for one 4x4 output tile, 4
// channels per register, over a run of channel vectors.
//
//   void rill_f32_winograd_f43_output_neon(const float* m, size_t pos_bytes,
//                                          const float* bias, float* out,
//                                          size_t row_bytes, size_t px_bytes,
//                                          size_t vectors, const float* clamp);
//
// m:     M[0][0] of the first channel (the GEMM products); M[i][j] at
//        m + (6 i + j) * pos_bytes.
// bias:  4 floats per vector, or null (none).
// out:   Y[0][0] of the first channel; Y[i][j] at out + i * row_bytes +
//        j * px_bytes. All 16 pixels are written (the caller passes a
//        scratch tile for tiles cut by the output's edge).
// vectors: 4-channel vectors, >= 1; m, bias and out advance 16 bytes each.
// clamp: {lo, hi} (-inf, +inf for none; tanh is the caller's).
//
// A^T (points 0, +-1, +-2, inf), with a = m1 + m2, b = m1 - m2,
// c = m3 + m4, d = m3 - m4:
//   y0 = m0 + a + c   y1 = b + 2 d   y2 = a + 4 c   y3 = b + 8 d + m5
// (fmul by element against v31 = {2, 4, 8}).
//
// As the input transform, each vector runs in two halves (s = A^T M's rows
// 0-1, then 2-3, in v16-v27), each loading the six columns of M: 72 loads,
// 16 stores, ~200 arithmetic instructions per vector. Only v0-v7 and
// v16-v31 are used (nothing callee-saved).
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

// s rows 0-1 of one column into y0, y1 (temporaries v6, v7).
.macro AT_LO m0, m1, m2, m3, m4, m5, y0, y1
  fadd v6.4s, v\m1\().4s, v\m2\().4s
  fadd v7.4s, v\m3\().4s, v\m4\().4s
  fadd v\y0\().4s, v\m0\().4s, v6.4s
  fadd v\y0\().4s, v\y0\().4s, v7.4s
  fsub v6.4s, v\m1\().4s, v\m2\().4s
  fsub v7.4s, v\m3\().4s, v\m4\().4s
  fmul v\y1\().4s, v7.4s, v31.s[0]
  fadd v\y1\().4s, v\y1\().4s, v6.4s
.endm

// s rows 2-3 of one column into y2, y3.
.macro AT_HI m0, m1, m2, m3, m4, m5, y2, y3
  fadd v6.4s, v\m1\().4s, v\m2\().4s
  fadd v7.4s, v\m3\().4s, v\m4\().4s
  fmul v\y2\().4s, v7.4s, v31.s[1]
  fadd v\y2\().4s, v\y2\().4s, v6.4s
  fsub v6.4s, v\m1\().4s, v\m2\().4s
  fsub v7.4s, v\m3\().4s, v\m4\().4s
  fmul v\y3\().4s, v7.4s, v31.s[2]
  fadd v\y3\().4s, v\y3\().4s, v6.4s
  fadd v\y3\().4s, v\y3\().4s, v\m5\().4s
.endm

// The next column of M (x9) into v0-v5; x9 moves one position right.
.macro LOAD_COLUMN
  mov x10, x9
  ld1 {v0.4s}, [x10], x13
  ld1 {v1.4s}, [x10], x13
  ld1 {v2.4s}, [x10], x13
  ld1 {v3.4s}, [x10], x13
  ld1 {v4.4s}, [x10], x13
  ld1 {v5.4s}, [x10]
  add x9, x9, x1
.endm

// One row of s along x into four outputs, bias, clamp, stored at the next
// output row (x15).
.macro ROW k0, k1, k2, k3, k4, k5
  fadd v4.4s, v\k1\().4s, v\k2\().4s
  fsub v5.4s, v\k1\().4s, v\k2\().4s
  fadd v6.4s, v\k3\().4s, v\k4\().4s
  fsub v7.4s, v\k3\().4s, v\k4\().4s
  fadd v0.4s, v\k0\().4s, v4.4s
  fadd v0.4s, v0.4s, v6.4s
  fmul v1.4s, v7.4s, v31.s[0]
  fadd v1.4s, v1.4s, v5.4s
  fmul v2.4s, v6.4s, v31.s[1]
  fadd v2.4s, v2.4s, v4.4s
  fmul v3.4s, v7.4s, v31.s[2]
  fadd v3.4s, v3.4s, v5.4s
  fadd v3.4s, v3.4s, v\k5\().4s
  fadd v0.4s, v0.4s, v28.4s
  fadd v1.4s, v1.4s, v28.4s
  fadd v2.4s, v2.4s, v28.4s
  fadd v3.4s, v3.4s, v28.4s
  fmax v0.4s, v0.4s, v29.4s
  fmax v1.4s, v1.4s, v29.4s
  fmax v2.4s, v2.4s, v29.4s
  fmax v3.4s, v3.4s, v29.4s
  fmin v0.4s, v0.4s, v30.4s
  fmin v1.4s, v1.4s, v30.4s
  fmin v2.4s, v2.4s, v30.4s
  fmin v3.4s, v3.4s, v30.4s
  mov x11, x15
  st1 {v0.4s}, [x11], x5
  st1 {v1.4s}, [x11], x5
  st1 {v2.4s}, [x11], x5
  st1 {v3.4s}, [x11]
  add x15, x15, x4
.endm

  .section .rodata
  .p2align 4
.Lf43_output_consts:
  .float 2.0, 4.0, 8.0, 0.0
.Lf43_output_zeros:
  .float 0.0, 0.0, 0.0, 0.0

  .text
  .p2align 4
  RILL_FUNC(rill_f32_winograd_f43_output_neon)
  adrp x12, .Lf43_output_consts
  add x12, x12, :lo12:.Lf43_output_consts
  ld1 {v31.4s}, [x12]
  ld1r {v29.4s}, [x7], #4
  ld1r {v30.4s}, [x7]
  // No bias: read zeros and stay on them.
  mov x14, #16
  cbnz x2, 0f
  add x2, x12, #16
  mov x14, #0
0:
  add x13, x1, x1, lsl #1
  lsl x13, x13, #1        // 6 positions: one row of M down
1:
  ld1 {v28.4s}, [x2], x14
  mov x15, x3
  // Output rows 0-1.
  mov x9, x0
  LOAD_COLUMN
  AT_LO 0, 1, 2, 3, 4, 5, 16, 22
  LOAD_COLUMN
  AT_LO 0, 1, 2, 3, 4, 5, 17, 23
  LOAD_COLUMN
  AT_LO 0, 1, 2, 3, 4, 5, 18, 24
  LOAD_COLUMN
  AT_LO 0, 1, 2, 3, 4, 5, 19, 25
  LOAD_COLUMN
  AT_LO 0, 1, 2, 3, 4, 5, 20, 26
  LOAD_COLUMN
  AT_LO 0, 1, 2, 3, 4, 5, 21, 27
  ROW 16, 17, 18, 19, 20, 21
  ROW 22, 23, 24, 25, 26, 27
  // Output rows 2-3.
  mov x9, x0
  LOAD_COLUMN
  AT_HI 0, 1, 2, 3, 4, 5, 16, 22
  LOAD_COLUMN
  AT_HI 0, 1, 2, 3, 4, 5, 17, 23
  LOAD_COLUMN
  AT_HI 0, 1, 2, 3, 4, 5, 18, 24
  LOAD_COLUMN
  AT_HI 0, 1, 2, 3, 4, 5, 19, 25
  LOAD_COLUMN
  AT_HI 0, 1, 2, 3, 4, 5, 20, 26
  LOAD_COLUMN
  AT_HI 0, 1, 2, 3, 4, 5, 21, 27
  ROW 16, 17, 18, 19, 20, 21
  ROW 22, 23, 24, 25, 26, 27
  add x0, x0, #16
  add x3, x3, #16
  subs x6, x6, #1
  b.ne 1b
  ret
  RILL_FUNC_END(rill_f32_winograd_f43_output_neon)

  RILL_ASM_NOTE_GNU_STACK
