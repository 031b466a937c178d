// Depthwise 3x3 convolution over a run of interior output pixels of one
// output row (every tap inside the input), four channels per vector,
// AArch64 NEON, bias and the activation's clamp fused.
//
//   void rill_f32_dwconv3x3_row_neon(const struct DwRowArgs* args);
//
// struct DwRowArgs {            // offsets in bytes
//   const float* in;            //  0: the first output pixel's top-left tap, channel 0
//   float* out;                 //  8: the first output pixel, channel 0
//   const float* filter;        // 16: [3][3][channels]
//   const float* bias;          // 24: [channels]
//   int64_t row_bytes;          // 32: between input rows (dilation included)
//   int64_t tap_bytes;          // 40: between horizontal taps (dilation * channels * 4)
//   int64_t in_step_bytes;      // 48: between the inputs of neighbouring outputs (stride * channels * 4)
//   int64_t out_step_bytes;     // 56: between output pixels
//   int64_t pixels;             // 64: output pixels in the run (> 0)
//   int64_t blocks;             // 72: channel blocks of four (> 0)
//   float lo, hi;               // 80: the clamp
//   int64_t filter_tap_bytes;   // 88: between the filter's taps (channels * 4)
// };
//
// Per channel block the nine filter vectors, the bias and the clamp stay in
// registers (v16-v27) for the whole run; per output vector the loop does
// 9 loads, 9 fmla and 1 store. Uses only caller-saved v0-v7, v16-v31.
#include "inference/backend/cpu/kernels/arm64/asm_macros.h"

  .text
  .p2align 4
  RILL_FUNC(rill_f32_dwconv3x3_row_neon)
  ldp x1, x2, [x0]           // in, out
  ldp x3, x4, [x0, #16]      // filter, bias
  ldp x5, x6, [x0, #32]      // row_bytes, tap_bytes
  ldp x7, x8, [x0, #48]      // in_step, out_step
  ldp x9, x10, [x0, #64]     // pixels, blocks
  add x11, x0, #80
  ld1r {v26.4s}, [x11], #4   // lo
  ld1r {v27.4s}, [x11]       // hi
  ldr x12, [x0, #88]         // the filter's tap stride
1:  // channel block
  mov x13, x3
  ld1 {v16.4s}, [x13], x12
  ld1 {v17.4s}, [x13], x12
  ld1 {v18.4s}, [x13], x12
  ld1 {v19.4s}, [x13], x12
  ld1 {v20.4s}, [x13], x12
  ld1 {v21.4s}, [x13], x12
  ld1 {v22.4s}, [x13], x12
  ld1 {v23.4s}, [x13], x12
  ld1 {v24.4s}, [x13]
  ld1 {v25.4s}, [x4]
  mov x14, x1                // input of this pixel
  mov x15, x2                // output of this pixel
  mov x16, x9                // pixels left
2:  // pixel
  add x17, x14, x5
  add x11, x17, x5
  ld1 {v0.4s}, [x14]
  ldr q1, [x14, x6]
  add x13, x14, x6, lsl #1
  ld1 {v2.4s}, [x13]
  mov v28.16b, v25.16b
  ld1 {v3.4s}, [x17]
  ldr q4, [x17, x6]
  add x13, x17, x6, lsl #1
  ld1 {v5.4s}, [x13]
  fmla v28.4s, v0.4s, v16.4s
  fmul v29.4s, v1.4s, v17.4s
  fmul v30.4s, v2.4s, v18.4s
  ld1 {v6.4s}, [x11]
  ldr q7, [x11, x6]
  add x13, x11, x6, lsl #1
  ld1 {v0.4s}, [x13]
  fmla v28.4s, v3.4s, v19.4s
  fmla v29.4s, v4.4s, v20.4s
  fmla v30.4s, v5.4s, v21.4s
  fmla v28.4s, v6.4s, v22.4s
  fmla v29.4s, v7.4s, v23.4s
  fmla v30.4s, v0.4s, v24.4s
  fadd v28.4s, v28.4s, v29.4s
  fadd v28.4s, v28.4s, v30.4s
  fmax v28.4s, v28.4s, v26.4s
  fmin v28.4s, v28.4s, v27.4s
  st1 {v28.4s}, [x15]
  add x14, x14, x7
  add x15, x15, x8
  subs x16, x16, #1
  b.ne 2b
  // next channel block
  add x1, x1, #16
  add x2, x2, #16
  add x3, x3, #16
  add x4, x4, #16
  subs x10, x10, #1
  b.ne 1b
  ret
  RILL_FUNC_END(rill_f32_dwconv3x3_row_neon)

RILL_ASM_NOTE_GNU_STACK
