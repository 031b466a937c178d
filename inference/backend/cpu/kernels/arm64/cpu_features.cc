#include "inference/backend/cpu/kernels/arm64/cpu_features.h"

#include <sys/auxv.h>

namespace rill::inference::cpu::arm64 {
namespace {
// linux/arch/arm64/include/uapi/asm/hwcap.h
constexpr unsigned long kHwcapAsimd = 1UL << 1;
constexpr unsigned long kHwcapAsimdhp = 1UL << 10;
}  // namespace

CpuFeatures FeaturesFromHwcap(unsigned long hwcap) {
  CpuFeatures f;
  f.asimd = (hwcap & kHwcapAsimd) != 0;
  f.asimdhp = f.asimd && (hwcap & kHwcapAsimdhp) != 0;
  return f;
}

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures kFeatures = FeaturesFromHwcap(getauxval(AT_HWCAP));
  return kFeatures;
}

}  // namespace rill::inference::cpu::arm64
