// How a session runs a model: on which backend, with how many threads, at
// what precision, and how it picks an algorithm for each layer.
#ifndef RILL_INFERENCE_CONFIG_H_
#define RILL_INFERENCE_CONFIG_H_

#include <string>

namespace rill::inference {

enum class BackendKind { kCpu = 0 };

enum class Precision {
  kFp32 = 0,  // bit-for-bit the reference semantics (up to summation order)
  kFp16,      // reserved: fp16 storage where the backend supports it
};

enum class AlgorithmPolicy {
  kReference = 0,  // the plain reference kernels only (the oracle)
  kAuto,           // kernels this CPU supports (CPUID), algorithm by a cost model
  kTune,           // like kAuto, but measures the candidate algorithms of each
                   // layer at resize and keeps the fastest (cached on disk in
                   // SessionConfig::tuning_cache when set)
};

struct SessionConfig {
  BackendKind backend = BackendKind::kCpu;
  int num_threads = 1;
  Precision precision = Precision::kFp32;
  AlgorithmPolicy algorithm = AlgorithmPolicy::kAuto;
  // File of measured choices for kTune ("" keeps them in the session only).
  std::string tuning_cache;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_CONFIG_H_
