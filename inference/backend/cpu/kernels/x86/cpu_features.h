// What the running CPU can do, read once by CPUID (through the compiler's
// cpu-model support), so one binary picks its kernels at run time.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_CPU_FEATURES_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_CPU_FEATURES_H_

namespace rill::inference::cpu::x86 {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bf16 = false;  // vdpbf16ps (Zen 4, Cooper Lake, Sapphire Rapids)
};

const CpuFeatures& GetCpuFeatures();
inline bool HasAvx2Fma() { return GetCpuFeatures().avx2 && GetCpuFeatures().fma; }

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_CPU_FEATURES_H_
