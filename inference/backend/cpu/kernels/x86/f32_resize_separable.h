// Separable resampling (RESIZE_BICUBIC, antialiased ONNX resize) for x86 over
// NHWC rows: AVX-512 (16 lanes) or AVX2 (8 lanes), one body (f32_simd.h).
// Two passes through a per-thread cache of resampled rows: each input row an
// output row needs is resampled along W once (its taps over channel vectors)
// and kept while later output rows need it; each output row is then the
// weighted sum of its H taps' cached rows, vectorized along the whole row
// (out_w * channels floats), whatever the channel count. The reference
// kernel's taps (computed once at resize) and summation order (W first, then
// H), with fused multiply-adds: within a few float roundings of it.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_SEPARABLE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_SEPARABLE_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/ref/resize_separable.h"

namespace rill::inference::cpu::x86 {

// Floats of scratch one thread's call needs (the cached rows and their tags).
size_t ResizeSeparableScratchFloats(const ResizeSeparableParams& p, const ResizeTaps& rows);

// Output rows [row_begin, row_end) of batch * out_h, on AVX-512 when the CPU
// has it. Needs AVX2 and FMA; `scratch` ResizeSeparableScratchFloats floats,
// 64-byte aligned, for this call alone.
void ResizeSeparableRows(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                         const float* in, float* out, int row_begin, int row_end, float* scratch);
// The two bodies (tests).
void ResizeSeparableRowsAvx2(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                             const float* in, float* out, int row_begin, int row_end, float* scratch);
void ResizeSeparableRowsAvx512(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                               const float* in, float* out, int row_begin, int row_end, float* scratch);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_SEPARABLE_H_
