// Winograd F(4x4, 3x3) input transform, AArch64 NEON: V = B^T d B for one
// 6x6 input tile, 4 channels per register, over a run of channel vectors.
//
//   void rill_f32_winograd_f43_input_neon(const float* src, size_t row_bytes,
//                                         size_t px_bytes, float* v,
//                                         size_t pos_bytes, size_t vectors);
//
// src: the tile's top-left pixel at the first channel; d[i][j] (4 channels)
//      at src + i * row_bytes + j * px_bytes (NHWC rows, or a border patch).
// v:   V[0][0] of the first channel; V[i][j] at v + (6 i + j) * pos_bytes
//      (the 36 GEMM positions' A matrices, one row per tile).
// vectors: 4-channel vectors, >= 1; src and v advance 16 bytes per vector.
//
// B^T (points 0, +-1, +-2, inf), factored to share sums:
//   r0 = 4 d0 - 5 d2 + d4        r3 = (d4 - d2) + 2 (d3 - d1)
//   r1 = (d3 + d4) - 4 (d1 + d2) r4 = (d4 - d2) - 2 (d3 - d1)
//   r2 = (d4 - d3) + 4 (d1 - d2) r5 = 4 d1 - 5 d3 + d5
// 17 instructions per six outputs (fmul/fmla/fmls by element against
// v7 = {4, 5}).
//
// The 36 intermediate rows t = B^T d do not fit the 32 registers beside the
// loads, so each vector runs in two halves: the six columns are loaded and
// transformed into t's rows 0-2 (18 registers: v16-v31, v8, v9), which are
// then transformed along x and stored (positions 0-17); then the columns
// again into rows 3-5 (positions 18-35). 72 loads, 36 stores, ~204
// arithmetic instructions per vector. d8 and d9 are callee-saved (AAPCS64)
// and are saved around the kernel.
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

// t rows 0-2 (or 3-5) of one column into the registers r0, r1, r2.
.macro BT_LO d0, d1, d2, d3, d4, d5, r0, r1, r2
  fmul v\r0\().4s, v\d0\().4s, v7.s[0]
  fmls v\r0\().4s, v\d2\().4s, v7.s[1]
  fadd v\r0\().4s, v\r0\().4s, v\d4\().4s
  fadd v\r1\().4s, v\d3\().4s, v\d4\().4s
  fadd v6.4s, v\d1\().4s, v\d2\().4s
  fmls v\r1\().4s, v6.4s, v7.s[0]
  fsub v\r2\().4s, v\d4\().4s, v\d3\().4s
  fsub v6.4s, v\d1\().4s, v\d2\().4s
  fmla v\r2\().4s, v6.4s, v7.s[0]
.endm

.macro BT_HI d0, d1, d2, d3, d4, d5, r3, r4, r5
  fsub v\r3\().4s, v\d4\().4s, v\d2\().4s
  fsub v6.4s, v\d3\().4s, v\d1\().4s
  fadd v6.4s, v6.4s, v6.4s
  fsub v\r4\().4s, v\r3\().4s, v6.4s
  fadd v\r3\().4s, v\r3\().4s, v6.4s
  fmul v\r5\().4s, v\d1\().4s, v7.s[0]
  fmls v\r5\().4s, v\d3\().4s, v7.s[1]
  fadd v\r5\().4s, v\r5\().4s, v\d5\().4s
.endm

// The next column (x9) into v0-v5; x9 moves one pixel right.
.macro LOAD_COLUMN
  mov x10, x9
  ld1 {v0.4s}, [x10], x1
  ld1 {v1.4s}, [x10], x1
  ld1 {v2.4s}, [x10], x1
  ld1 {v3.4s}, [x10], x1
  ld1 {v4.4s}, [x10], x1
  ld1 {v5.4s}, [x10]
  add x9, x9, x2
.endm

// One row of t (six registers) along x, stored to the next six positions.
.macro ROW k0, k1, k2, k3, k4, k5
  BT_LO \k0, \k1, \k2, \k3, \k4, \k5, 0, 1, 2
  BT_HI \k0, \k1, \k2, \k3, \k4, \k5, 3, 4, 5
  st1 {v0.4s}, [x11], x4
  st1 {v1.4s}, [x11], x4
  st1 {v2.4s}, [x11], x4
  st1 {v3.4s}, [x11], x4
  st1 {v4.4s}, [x11], x4
  st1 {v5.4s}, [x11], x4
.endm

  .section .rodata
  .p2align 4
.Lf43_input_consts:
  .float 4.0, 5.0, 0.0, 0.0

  .text
  .p2align 4
  RILL_FUNC(rill_f32_winograd_f43_input_neon)
  stp d8, d9, [sp, #-16]!
  adrp x12, .Lf43_input_consts
  add x12, x12, :lo12:.Lf43_input_consts
  ld1 {v7.4s}, [x12]
1:
  mov x11, x3
  // Rows 0-2 of t, then of V.
  mov x9, x0
  LOAD_COLUMN
  BT_LO 0, 1, 2, 3, 4, 5, 16, 22, 28
  LOAD_COLUMN
  BT_LO 0, 1, 2, 3, 4, 5, 17, 23, 29
  LOAD_COLUMN
  BT_LO 0, 1, 2, 3, 4, 5, 18, 24, 30
  LOAD_COLUMN
  BT_LO 0, 1, 2, 3, 4, 5, 19, 25, 31
  LOAD_COLUMN
  BT_LO 0, 1, 2, 3, 4, 5, 20, 26, 8
  LOAD_COLUMN
  BT_LO 0, 1, 2, 3, 4, 5, 21, 27, 9
  ROW 16, 17, 18, 19, 20, 21
  ROW 22, 23, 24, 25, 26, 27
  ROW 28, 29, 30, 31, 8, 9
  // Rows 3-5.
  mov x9, x0
  LOAD_COLUMN
  BT_HI 0, 1, 2, 3, 4, 5, 16, 22, 28
  LOAD_COLUMN
  BT_HI 0, 1, 2, 3, 4, 5, 17, 23, 29
  LOAD_COLUMN
  BT_HI 0, 1, 2, 3, 4, 5, 18, 24, 30
  LOAD_COLUMN
  BT_HI 0, 1, 2, 3, 4, 5, 19, 25, 31
  LOAD_COLUMN
  BT_HI 0, 1, 2, 3, 4, 5, 20, 26, 8
  LOAD_COLUMN
  BT_HI 0, 1, 2, 3, 4, 5, 21, 27, 9
  ROW 16, 17, 18, 19, 20, 21
  ROW 22, 23, 24, 25, 26, 27
  ROW 28, 29, 30, 31, 8, 9
  add x0, x0, #16
  add x3, x3, #16
  subs x5, x5, #1
  b.ne 1b
  ldp d8, d9, [sp], #16
  ret
  RILL_FUNC_END(rill_f32_winograd_f43_input_neon)

  RILL_ASM_NOTE_GNU_STACK
