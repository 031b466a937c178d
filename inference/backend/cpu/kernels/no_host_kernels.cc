// The filler where no optimized kernels are built for the target CPU: every
// op runs its reference kernel.
#include "inference/backend/cpu/kernels/cpu_kernels.h"

namespace rill::inference::cpu {

CpuKernels MakeHostKernels() { return CpuKernels(); }

}  // namespace rill::inference::cpu
