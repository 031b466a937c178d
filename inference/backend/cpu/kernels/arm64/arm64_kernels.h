// The aarch64 filler of the CPU kernel table (cpu_kernels.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_ARM64_KERNELS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_ARM64_KERNELS_H_

#include "inference/backend/cpu/kernels/arm64/cpu_features.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"

namespace rill::inference::cpu::arm64 {

// The table for a CPU with features `f`: "neon" (the 8x12 fp32 GEMM, im2col,
// the sliding window, the depthwise rows) on every ARMv8-A CPU; "neon_fp16"
// adds, in the wide slot, the same GEMM with an ARMv8.2 fp16-arithmetic
// variant that Precision::kFp16 runs on.
CpuKernels KernelTable(const CpuFeatures& f);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_ARM64_KERNELS_H_
