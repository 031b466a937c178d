// Separable resampling (RESIZE_BICUBIC, antialiased ONNX resize) for x86
// over NHWC channel vectors: AVX-512 (16 lanes) or AVX2 (8 lanes), one body
// (f32_simd.h), up to 4 vectors of channels in registers per output pixel.
// The reference kernel's taps (computed once at resize) and summation order,
// with fused multiply-adds: within a few float roundings of it.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_SEPARABLE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_SEPARABLE_H_

#include "inference/backend/cpu/kernels/ref/resize_separable.h"

namespace rill::inference::cpu::x86 {

// Output rows [row_begin, row_end) of batch * out_h, on AVX-512 when the
// CPU has it. Needs AVX2 and FMA.
void ResizeSeparableRows(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                         const float* in, float* out, int row_begin, int row_end);
// The two bodies (tests).
void ResizeSeparableRowsAvx2(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                             const float* in, float* out, int row_begin, int row_end);
void ResizeSeparableRowsAvx512(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                               const float* in, float* out, int row_begin, int row_end);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_SEPARABLE_H_
