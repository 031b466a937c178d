// 3x3 stride-1 convolution by Winograd F(m x m, 3x3) for m = 2, 4 and 6. An
// m x m output tile costs (m+2)^2 multiplies per (input, output) channel pair
// instead of 9 m^2: 16 vs 36 for F(2,3), 36 vs 144 for F(4,3), 64 vs 324 for
// F(6,3). The (m+2)^2 element-wise products over
// channels are GEMMs on the packed GEMM microkernels, batched over a block of
// tiles; the input and output transforms run over NHWC channel vectors
// (AVX-512 or AVX2, one body). Weights are transformed (G g G^T, in double)
// and packed once at resize.
//
// Interpolation points 0, +-1, inf (F(2,3)), 0, +-1, +-2, inf (F(4,3)) and 0,
// +-1, +-2, +-1/2, inf (F(6,3)): the best-conditioned choice for these sizes. F(6,3)'s
// transforms still grow the rounding error; the tests state the measured
// bound (x86_kernels_test, WinogradF63MatchesReference).
//
// Work of one block splits into three phases, each over independent pieces
// (tiles, GEMM positions, tiles), so the caller can spread every phase over
// threads; each output value is computed by the same operations whichever
// thread runs it, so results are identical for any thread count.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV3X3S1_WINOGRAD_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV3X3S1_WINOGRAD_H_

#include <cstddef>
#include <vector>

#include "inference/backend/cpu/kernels/f32_conv3x3s1_winograd_common.h"
#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"

namespace rill::inference::cpu::x86 {

// Where it applies, the plan, the blocks (shared with the ARM kernels:
// f32_conv3x3s1_winograd_common.h).
using ::rill::inference::cpu::PlanWinograd;
using ::rill::inference::cpu::WinogradApplies;
using ::rill::inference::cpu::WinogradBlocksPerThread;
using ::rill::inference::cpu::WinogradBlockTiles;
using ::rill::inference::cpu::WinogradPlan;

// alpha^2 transformed filter matrices [out_c, in_c], each packed for the GEMM
// (PackWeightsNK512 when `wide`, PackWeightsNK otherwise); kFp16 in `half`
// (ToHalfPanels, multiplied by GemmF16wAvx512), kBf16 in `bf16` (AVX512-BF16;
// the engine uses it for F(2,3) only: the larger tiles' transforms amplify
// bf16's rounding 30-40x; ToBf16Panels, multiplied by GemmBf16Avx512 with
// the transformed inputs rounded to bf16 as it reads them).
using ::rill::inference::cpu::WinogradWeights;
// The AVX-512 panels of `w` (alpha^2 [out_c, in_c] matrices) to bf16.
void ToBf16Panels(const ConvParams& p, WinogradWeights* w);
void TransformWeightsWinograd(int m, const ConvParams& p,
                              const float* filter_ohwi, bool avx512,
                              WinogradWeights* out);

// Phase 1: tiles [t_begin, t_end) of `block` into v (AVX-512 transforms when
// `avx512`, AVX2 otherwise). `patch` holds plan.patch_floats.
void WinogradInputTransform(const WinogradPlan& plan, const ConvParams& p,
                            const float* input, bool avx512, int block,
                            int t_begin, int t_end, float* v, float* patch);
// Phase 2: the GEMMs of positions [pos_begin, pos_end): mbuf[pos] = v[pos] x
// U[pos]^T.
void WinogradMultiply(const WinogradPlan& plan, const ConvParams& p,
                      const WinogradWeights& w, GemmFn gemm, int block,
                      int pos_begin, int pos_end, const float* v, float* mbuf);
// Phase 3: tiles [t_begin, t_end) of `block` from mbuf to the output, with
// bias and the fused activation.
void WinogradOutputTransform(const WinogradPlan& plan, const ConvParams& p,
                             const float* bias, bool avx512, int block,
                             int t_begin, int t_end, const float* mbuf,
                             float* output);
// All three phases of every block on the calling thread; scratch holds
// v_floats + m_floats + patch_floats.
void WinogradConv(const WinogradPlan& plan, const ConvParams& p,
                  const float* input, const WinogradWeights& w,
                  const float* bias, GemmFn gemm, float* scratch,
                  float* output);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV3X3S1_WINOGRAD_H_
