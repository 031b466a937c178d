// The x86-64 filler of the CPU kernel table (cpu_kernels.h): the only code
// that names x86 kernels for the ops. AVX2 vs AVX-512 variants are chosen
// here, once, from CPUID (cpu_features.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_X86_KERNELS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_X86_KERNELS_H_

#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"

namespace rill::inference::cpu::x86 {

// The table for a CPU with `features`: the portable copies (pad,
// concatenation, transposes) on any x86-64; everything else with AVX2 and
// FMA; the wide microkernels and the AVX-512 variants with AVX-512F; the
// bf16 GEMM with AVX512-BF16. Tests build the tables of CPUs they do not run
// on to read names and features from (never to call their kernels).
CpuKernels KernelTable(const CpuFeatures& features);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_X86_KERNELS_H_
