// Winograd F(2x2, 3x3) input transform, AArch64 NEON: V = B^T d B for one
// 4x4 input tile, 4 channels per register, over a run of channel vectors.
//
//   void rill_f32_winograd_f23_input_neon(const float* src, size_t row_bytes,
//                                         size_t px_bytes, float* v,
//                                         size_t pos_bytes, size_t vectors);
//
// As rill_f32_winograd_f43_input_neon (f32_winograd_f43_input_neon.S), for
// a 4x4 tile and 16 positions: V[i][j] at v + (4 i + j) * pos_bytes.
//
// B^T (points 0, +-1, inf): r0 = d0 - d2, r1 = d1 + d2, r2 = d2 - d1,
// r3 = d1 - d3. The 16 intermediate values t = B^T d fit in v16-v31: per
// vector 16 loads, 32 fadd/fsub, 16 stores.
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

.macro BT4 d0, d1, d2, d3, r0, r1, r2, r3
  fsub v\r0\().4s, v\d0\().4s, v\d2\().4s
  fadd v\r1\().4s, v\d1\().4s, v\d2\().4s
  fsub v\r2\().4s, v\d2\().4s, v\d1\().4s
  fsub v\r3\().4s, v\d1\().4s, v\d3\().4s
.endm

// The next column (x9) into v0-v3; x9 moves one pixel right.
.macro LOAD_COLUMN
  mov x10, x9
  ld1 {v0.4s}, [x10], x1
  ld1 {v1.4s}, [x10], x1
  ld1 {v2.4s}, [x10], x1
  ld1 {v3.4s}, [x10]
  add x9, x9, x2
.endm

.macro ROW k0, k1, k2, k3
  BT4 \k0, \k1, \k2, \k3, 0, 1, 2, 3
  st1 {v0.4s}, [x11], x4
  st1 {v1.4s}, [x11], x4
  st1 {v2.4s}, [x11], x4
  st1 {v3.4s}, [x11], x4
.endm

  .text
  .p2align 4
  RILL_FUNC(rill_f32_winograd_f23_input_neon)
1:
  mov x11, x3
  mov x9, x0
  LOAD_COLUMN
  BT4 0, 1, 2, 3, 16, 20, 24, 28
  LOAD_COLUMN
  BT4 0, 1, 2, 3, 17, 21, 25, 29
  LOAD_COLUMN
  BT4 0, 1, 2, 3, 18, 22, 26, 30
  LOAD_COLUMN
  BT4 0, 1, 2, 3, 19, 23, 27, 31
  ROW 16, 17, 18, 19
  ROW 20, 21, 22, 23
  ROW 24, 25, 26, 27
  ROW 28, 29, 30, 31
  add x0, x0, #16
  add x3, x3, #16
  subs x5, x5, #1
  b.ne 1b
  ret
  RILL_FUNC_END(rill_f32_winograd_f23_input_neon)

  RILL_ASM_NOTE_GNU_STACK
