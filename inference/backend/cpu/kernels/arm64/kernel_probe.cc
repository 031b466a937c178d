// Runs one AArch64 kernel once on a fixed shape, for counting the
// instructions it executes under qemu (scripts/arm64_insn_count.sh, which
// reads qemu's -d in_asm,exec log; docs/arm.md has the figures). Not a
// benchmark: it times nothing.
//   kernel_probe gemm     : GemmF32Neon, m = 96, n = 96, k = 256
//   kernel_probe gemm_f16 : GemmF16Neon, the same shape
//   kernel_probe dw3x3    : DepthwiseConv2DNeonRows, 3x3 stride 1, 58x58x64 -> 56x56x64
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/arm64/f32_dwconv2d_neon.h"
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
  return 2;
}
