// Winograd F(2x2, 3x3) output transform, AArch64 NEON: Y = A^T M A + bias,
// clamped, for one 2x2 output tile, 4 channels per register, over a run of
// channel vectors.
//
//   void rill_f32_winograd_f23_output_neon(const float* m, size_t pos_bytes,
//                                          const float* bias, float* out,
//                                          size_t row_bytes, size_t px_bytes,
//                                          size_t vectors, const float* clamp);
//
// As rill_f32_winograd_f43_output_neon (f32_winograd_f43_output_neon.S), for
// 16 positions (M[i][j] at m + (4 i + j) * pos_bytes) and a 2x2 tile.
//
// A^T (points 0, +-1, inf): y0 = m0 + m1 + m2, y1 = m1 - m2 - m3. Per
// vector: 16 loads, 24 fadd/fsub, 4 bias adds, 8 clamps, 4 stores.
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

.macro AT4 m0, m1, m2, m3, y0, y1
  fadd v\y0\().4s, v\m0\().4s, v\m1\().4s
  fsub v\y1\().4s, v\m1\().4s, v\m2\().4s
  fadd v\y0\().4s, v\y0\().4s, v\m2\().4s
  fsub v\y1\().4s, v\y1\().4s, v\m3\().4s
.endm

.macro LOAD_COLUMN
  mov x10, x9
  ld1 {v0.4s}, [x10], x13
  ld1 {v1.4s}, [x10], x13
  ld1 {v2.4s}, [x10], x13
  ld1 {v3.4s}, [x10]
  add x9, x9, x1
.endm

.macro ROW k0, k1, k2, k3
  AT4 \k0, \k1, \k2, \k3, 0, 1
  fadd v0.4s, v0.4s, v28.4s
  fadd v1.4s, v1.4s, v28.4s
  fmax v0.4s, v0.4s, v29.4s
  fmax v1.4s, v1.4s, v29.4s
  fmin v0.4s, v0.4s, v30.4s
  fmin v1.4s, v1.4s, v30.4s
  st1 {v0.4s}, [x15], x5
  st1 {v1.4s}, [x15]
  add x15, x11, x4
  mov x11, x15
.endm

  .section .rodata
  .p2align 4
.Lf23_output_zeros:
  .float 0.0, 0.0, 0.0, 0.0

  .text
  .p2align 4
  RILL_FUNC(rill_f32_winograd_f23_output_neon)
  ld1r {v29.4s}, [x7], #4
  ld1r {v30.4s}, [x7]
  mov x14, #16
  cbnz x2, 0f
  adrp x2, .Lf23_output_zeros
  add x2, x2, :lo12:.Lf23_output_zeros
  mov x14, #0
0:
  lsl x13, x1, #2         // 4 positions: one row of M down
1:
  ld1 {v28.4s}, [x2], x14
  mov x11, x3
  mov x15, x3
  mov x9, x0
  LOAD_COLUMN
  AT4 0, 1, 2, 3, 16, 20
  LOAD_COLUMN
  AT4 0, 1, 2, 3, 17, 21
  LOAD_COLUMN
  AT4 0, 1, 2, 3, 18, 22
  LOAD_COLUMN
  AT4 0, 1, 2, 3, 19, 23
  ROW 16, 17, 18, 19
  ROW 20, 21, 22, 23
  add x0, x0, #16
  add x3, x3, #16
  subs x6, x6, #1
  b.ne 1b
  ret
  RILL_FUNC_END(rill_f32_winograd_f23_output_neon)

  RILL_ASM_NOTE_GNU_STACK
