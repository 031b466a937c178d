// 3x3 stride-1 convolution by Winograd F(2x2, 3x3) and F(4x4, 3x3) on
// AArch64: the input transform (V = B^T d B) and the output transform
// (Y = A^T M A + bias, activation clamp) are NEON assembly over NHWC channel
// vectors, 4 channels per register (f32_winograd_f{23,43}_{input,output}_neon.S);
// the alpha^2 products over channels are GEMMs on the 8x12 NEON microkernel
// (f32_gemm_8x12_neon.S), batched over a block of tiles. Channel tails (not
// a multiple of 4) run the same transforms in scalar C++, tiles cut by the
// output's edge go through a scratch tile, border tiles through a
// zero-padded patch. Planning and the weight transform (G g G^T in double,
// then packed into 12-column panels) are the ISA-neutral ones
// (f32_conv3x3s1_winograd_common.h). F(6,3) is not here (its transforms
// would need three passes per vector in 32 registers; the x86 tables have
// it).
//
// The phases split as the x86 ones (cpu_kernels.h WinogradKernels): each
// output value is computed by the same operations whichever thread runs
// it, so results are identical for any thread count.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV3X3S1_WINOGRAD_NEON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV3X3S1_WINOGRAD_NEON_H_

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::arm64 {

// The largest output tile side there are transforms for (F(2,3), F(4,3)).
constexpr int kWinogradNeonMaxM = 4;

// alpha^2 transformed filter matrices [out_c, in_c], each packed by
// PackWeightsNK12 (m = 2 or 4).
void TransformWeightsWinogradNeon(int m, const ConvParams& p, const float* filter_ohwi, WinogradWeights* out);
// Phase 1: tiles [t_begin, t_end) of `block` into v. `patch` holds
// plan.patch_floats.
void WinogradInputTransformNeon(const WinogradPlan& plan, const ConvParams& p, const float* input, int block,
                                int t_begin, int t_end, float* v, float* patch);
// Phase 2: m[pos] = v[pos] x U[pos]^T for positions [pos_begin, pos_end).
void WinogradMultiplyNeon(const WinogradPlan& plan, const ConvParams& p, const WinogradWeights& w, int block,
                          int pos_begin, int pos_end, const float* v, float* m);
// Phase 3: tiles [t_begin, t_end) of `block` from m to the output, with bias
// and the fused activation.
void WinogradOutputTransformNeon(const WinogradPlan& plan, const ConvParams& p, const float* bias, int block,
                                 int t_begin, int t_end, const float* m, float* output);

// All three phases of every block on the calling thread; scratch holds
// plan.v_floats + plan.m_floats + plan.patch_floats.
void WinogradConvNeon(const WinogradPlan& plan, const ConvParams& p, const float* input, const WinogradWeights& w,
                      const float* bias, float* scratch, float* output);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV3X3S1_WINOGRAD_NEON_H_
