// The aarch64 filler of the CPU kernel table (cpu_kernels.h). No NEON kernels
// exist yet, so the table is the reference one; they will be chosen here
// from HWCAP (asimd, fphp/asimdhp for "neon_fp16", bf16), as the x86 filler
// chooses from CPUID.
#include "inference/backend/cpu/kernels/cpu_kernels.h"

namespace rill::inference::cpu {

CpuKernels MakeHostKernels() { return CpuKernels(); }

}  // namespace rill::inference::cpu
