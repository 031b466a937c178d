#include "inference/backend/cpu/kernels/cpu_kernels.h"

namespace rill::inference::cpu {

const CpuKernels& CpuKernelsFor(AlgorithmPolicy policy) {
  // Both tables are filled on first use and never change (C++11 statics are
  // thread-safe); CpuKernels holds only pointers and numbers, so neither
  // needs destroying at exit.
  static const CpuKernels kReferenceOnly;
  if (policy == AlgorithmPolicy::kReference) return kReferenceOnly;
  static const CpuKernels kHost = MakeHostKernels();
  return kHost;
}

}  // namespace rill::inference::cpu
