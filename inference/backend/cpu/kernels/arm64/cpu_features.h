// What the running ARM CPU can do, read once from the kernel's HWCAP
// (getauxval(AT_HWCAP)), so one binary picks its kernels at run time.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_CPU_FEATURES_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_CPU_FEATURES_H_

namespace rill::inference::cpu::arm64 {

struct CpuFeatures {
  bool asimd = false;    // NEON (HWCAP_ASIMD; every ARMv8-A Linux CPU)
  bool asimdhp = false;  // ARMv8.2 half-precision vector arithmetic (HWCAP_ASIMDHP)
};

// This process's CPU, read once.
const CpuFeatures& GetCpuFeatures();
// The features as HWCAP bits state them (testable without the CPU).
CpuFeatures FeaturesFromHwcap(unsigned long hwcap);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_CPU_FEATURES_H_
