#include "inference/backend/cpu/kernels/x86/cpu_features.h"

namespace rill::inference::cpu::x86 {

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    // GCC's checks also require the OS to save the wide registers (XGETBV).
    f.avx2 = __builtin_cpu_supports("avx2");
    f.fma = __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f");
    f.avx512bf16 = f.avx512f && __builtin_cpu_supports("avx512bf16");
#endif
    return f;
  }();
  return features;
}

}  // namespace rill::inference::cpu::x86
