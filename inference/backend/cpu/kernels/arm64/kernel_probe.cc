// Runs one AArch64 kernel once on a fixed shape, for counting the
// instructions it executes under qemu (scripts/arm64_insn_count.sh, which
// reads qemu's -d in_asm,exec log; docs/arm.md has the figures). Not a
// benchmark: it times nothing.
//   kernel_probe gemm     : GemmF32Neon, m = 96, n = 96, k = 256
//   kernel_probe gemm_f16 : GemmF16Neon, the same shape
//   kernel_probe dw3x3    : DepthwiseConv2DNeonRows, 3x3 stride 1, 58x58x64 -> 56x56x64
//   kernel_probe wino_f23 | wino_f43 | conv3x3_gemm | conv3x3_sliding : a
//     typical 3x3 layer, 56x56x64 -> 64, stride 1, pad 1, relu, by Winograd
//     F(2,3) / F(4,3) (WinogradConvNeon), im2col + GEMM (ConvGemmTile over
//     every tile) or the sliding window (Conv2DSlidingNeonRows);
//     with the suffix _setup only the weight transform / packing and the
//     buffers (the count of the run is the difference).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/arm64/arm64_kernels.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv2d_gemm_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv2d_sliding_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv3x3s1_winograd_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_dwconv2d_neon.h"
#include "inference/backend/cpu/kernels/f32_conv3x3s1_winograd_common.h"
#include "inference/backend/cpu/kernels/arm64/f32_gemm_8x12_neon.h"

using namespace rill::inference::cpu;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string what = argv[1];
  if (what == "gemm" || what == "gemm_f16") {
    const int m = 96, n = 96, k = 256;
    std::vector<float> a(m * k, 0.5f), w(n * k, 0.25f), bias(n, 1.0f), c(m * n);
    if (what == "gemm") {
      std::vector<float> packed(arm64::PackedWeightsFloats12(n, k));
      arm64::PackWeightsNK12(w.data(), n, k, packed.data());
      arm64::GemmF32Neon(m, n, k, a.data(), k, packed.data(), bias.data(), FusedActivation::kRelu, c.data(), n);
    } else {
      std::vector<uint16_t> packed(arm64::PackedWeightsFloats12(n, k));
      arm64::PackWeightsNK12Half(w.data(), n, k, packed.data());
      arm64::GemmF16Neon(m, n, k, a.data(), k, packed.data(), bias.data(), FusedActivation::kRelu, c.data(), n);
    }
    std::printf("%s outputs %d c[0] %g\n", what.c_str(), m * n, c[0]);
    return 0;
  }
  if (what == "dw3x3") {
    ConvParams p;
    p.in_h = p.in_w = 58;
    p.in_c = p.out_c = 64;
    p.out_h = p.out_w = 56;
    p.kernel_h = p.kernel_w = 3;
    std::vector<float> x(58 * 58 * 64, 0.5f), f(9 * 64, 0.25f), b(64, 1.0f), y(56 * 56 * 64);
    arm64::DepthwiseConv2DNeonRows(p, x.data(), f.data(), b.data(), y.data(), 0, 56);
    std::printf("dw3x3 outputs %d y[0] %g\n", 56 * 56 * 64, y[0]);
    return 0;
  }
  const std::string base = what.substr(0, what.rfind("_setup") == std::string::npos ? what.size() : what.rfind("_setup"));
  if (base == "wino_f23" || base == "wino_f43" || base == "conv3x3_gemm" || base == "conv3x3_sliding") {
    const bool run = base == what;
    ConvParams p;
    p.in_h = p.in_w = p.out_h = p.out_w = 56;
    p.in_c = p.out_c = 64;
    p.kernel_h = p.kernel_w = 3;
    p.pad_top = p.pad_left = 1;
    p.activation = FusedActivation::kRelu;
    std::vector<float> x(56 * 56 * 64, 0.5f), f(64 * 9 * 64, 0.25f), b(64, 1.0f), y(56 * 56 * 64);
    if (base == "conv3x3_sliding") {
      std::vector<float> packed(arm64::SlidingPackedFloats(p));
      arm64::PackSlidingWeights(p, f.data(), packed.data());
      if (run) arm64::Conv2DSlidingNeonRows(p, x.data(), packed.data(), b.data(), y.data(), 0, p.out_h);
    } else if (base == "conv3x3_gemm") {
      const CpuKernels k = arm64::KernelTable(arm64::CpuFeatures{true, false});
      std::vector<float> packed;
      arm64::PackConvGemm(p, f.data(), 12, &packed);
      std::vector<float> scratch(arm64::ConvGemmScratchFloats(p) + 1);
      for (int t = 0; run && t < arm64::ConvGemmTiles(p); ++t) {
        arm64::ConvGemmTile(p, k.gemm[0], x.data(), packed.data(), b.data(), scratch.data(), y.data(), t, nullptr, 0);
      }
    } else {
      const int m = base == "wino_f23" ? 2 : 4;
      const WinogradPlan plan = PlanWinograd(m, p);
      WinogradWeights w;
      arm64::TransformWeightsWinogradNeon(m, p, f.data(), &w);
      std::vector<float> scratch(plan.v_floats + plan.m_floats + plan.patch_floats);
      if (run) arm64::WinogradConvNeon(plan, p, x.data(), w, b.data(), scratch.data(), y.data());
    }
    std::printf("%s outputs %d y[0] %g\n", what.c_str(), 56 * 56 * 64, y[0]);
    return 0;
  }
  return 2;
}
