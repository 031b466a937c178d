// 3x3 stride-1 convolution by Winograd F(2x2, 3x3): each 2x2 output tile
// costs 16 multiplies per (input, output) channel pair instead of 36. The 16
// element-wise products over channels are 16 GEMMs on the packed GEMM
// microkernels; input and output transforms run over NHWC channel vectors.
// Weights are transformed (U = G g G^T) and packed once at resize.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV3X3S1_WINOGRAD_F23_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV3X3S1_WINOGRAD_F23_H_

#include <cstddef>
#include <vector>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"

namespace rill::inference::cpu::x86 {

bool WinogradF23Applies(const ConvParams& p);

// Transformed, packed weights: 16 matrices [out_c, in_c], each packed with
// `pack` (PackWeightsNK or PackWeightsNK512) into `packed_floats` floats.
struct WinogradF23Weights {
  std::vector<float> packed;
  std::vector<uint16_t> half;  // kFp16 on AVX-512: as WinogradWeights::half
  size_t stride = 0;  // floats between the 16 packed matrices
};
void TransformWeightsF23(const ConvParams& p, const float* filter_ohwi, bool avx512, WinogradF23Weights* out);

// Tiles are processed in blocks; each block needs its own scratch.
int WinogradF23Blocks(const ConvParams& p);
size_t WinogradF23ScratchFloats(const ConvParams& p);
void WinogradF23Block(const ConvParams& p, const float* input, const WinogradF23Weights& w, const float* bias,
                      GemmFn gemm, float* scratch, float* output, int block);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV3X3S1_WINOGRAD_F23_H_
