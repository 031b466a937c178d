// Bilinear resize for x86 AVX2 over NHWC channel vectors; same conventions
// (align_corners, half_pixel_centers) as the reference kernel.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_BILINEAR_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_BILINEAR_AVX2_H_

#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"

namespace rill::inference::cpu::x86 {

void ResizeBilinearAvx2(const ResizeParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_BILINEAR_AVX2_H_
