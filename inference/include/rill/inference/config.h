// How a session runs a model: on which backend, with how many threads, at
// what precision, and how it picks an algorithm for each layer.
#ifndef RILL_INFERENCE_CONFIG_H_
#define RILL_INFERENCE_CONFIG_H_

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rill::inference {

// Backends are named: "cpu" (always built in) and the others linked into
// the binary ("opencl", "vulkan" where built; rill::inference's
// RegisteredBackends() lists them). Naming one that is not built in is an
// error that lists those that are.
inline constexpr const char kCpuBackend[] = "cpu";
// "gpu" is no backend of its own but the GPU one that works here: OpenCL
// where it loads, else Vulkan (a message on stderr says so), else an
// Unavailable error naming what each lacks. Anywhere a backend is named
// (backend, node_backends, placement).
inline constexpr const char kGpuBackend[] = "gpu";

// A node as placement sees it.
struct NodeRef {
  int index = 0;     // in execution order (Session::Layers() order)
  std::string name;  // Session::Layers()[index].name
  std::string op;    // "CONV_2D"
};

// How much precision a backend may trade for speed. Each backend documents
// what it does with each mode (the CPU backend: cpu_backend.h and
// inference/README.md "Precision"); a backend without a faster path for a
// mode runs fp32. `rill model compare --precision=...` measures a model.
enum class Precision {
  kFp32 = 0,  // bit-for-bit the reference semantics (up to summation order)
  // Weights stored in IEEE half precision (relative error <= 2^-11 each)
  // where the backend's kernels read them so; activations and arithmetic
  // stay fp32 unless the backend says otherwise (a GPU's half arithmetic).
  // Weights that are halves already (TFLite fp16 models) give the fp32
  // results bit for bit. Session::packed_weight_bytes() tells what it saved.
  kFp16,
  // bfloat16 operands (8 significant bits, relative error <= 2^-9 each) with
  // fp32 sums on the backend's matrix products, where that is faster than
  // fp32; fp32 elsewhere. Outputs move by about 1e-2 of their range for
  // classifiers and detectors; models that amplify small changes (pose
  // heatmaps, segmentation masks) move far more: keep those in kFp32.
  kBf16,
};

enum class AlgorithmPolicy {
  kReference = 0,  // the plain reference kernels only (the oracle)
  kAuto,           // kernels this CPU supports (CPUID), algorithm by a cost model
  kTune,           // like kAuto, but measures the candidate algorithms of each
                   // layer at resize and keeps the fastest (cached on disk in
                   // SessionConfig::tuning_cache when set)
};

struct SessionConfig {
  // The backend of every node that `placement` does not place elsewhere.
  // Nodes a backend cannot run fall back to the CPU backend, with copies
  // inserted where tensors cross backends (inference/README.md "Backends").
  std::string backend = kCpuBackend;
  int num_threads = 1;
  Precision precision = Precision::kFp32;
  AlgorithmPolicy algorithm = AlgorithmPolicy::kAuto;
  // File of measured choices for kTune ("" keeps them in the session only).
  std::string tuning_cache;
  // Upper bound on the activation memory a session plans (all backends'
  // arenas together). Create/Resize fail with OutOfRange before allocating
  // when a model needs more: a few hundred bytes of ONNX can ask for
  // gigabytes. 0: the default, half of this machine's physical memory;
  // kUnboundedMemory: no bound.
  size_t max_memory_bytes = 0;
  static constexpr size_t kUnboundedMemory = ~size_t{0};

  // Heterogeneous runs. The backend of a node: `node_backends[name]` if the
  // node is named there, else `placement(node)` if set, else `backend`.
  std::map<std::string, std::string> node_backends;
  std::function<std::string(const NodeRef&)> placement;
  // Options of the backends, "BACKEND.KEY" -> value (each backend documents
  // its keys; a backend gets its own with the prefix removed).
  std::map<std::string, std::string> backend_options;
  // Each backend other than the host CPU runs its nodes and transfers on a
  // stream (thread) of its own, so parts of the graph that do not depend on
  // each other run concurrently on different backends. Off: one thread runs
  // everything in order.
  // SessionConfig::num_threads is shared among the backends that compute on
  // the host (with concurrent_backends); a GPU backend's stream thread only
  // submits and waits and is not counted.
  bool concurrent_backends = true;
  // With concurrent_backends: on a backend with several queues (OpenCL's
  // command queues; Backend::MaxLanes), the branches of a multi-output model
  // (the nodes only one output needs, Graph::HeadOf) each get a queue and a
  // stream thread of their own, so that two heads on one GPU overlap. Off:
  // one queue per backend.
  bool branch_streams = true;

  // Where kTune appends each layer's measured candidates ("" off; the
  // environment variable RILL_TUNE_LOG, for experiments, sets it when empty):
  // inference/tools/tune_regret reads these files.
  std::string tune_log;
  // Precision::kBf16 on CPUs whose bfloat16 GEMM measured slower than fp32
  // (a half-rate unit, as on Sapphire Rapids) too. Off: those CPUs run fp32
  // (the environment variable RILL_BF16=0/1, for experiments, overrides the
  // measurement itself).
  bool bf16_even_if_slower = false;
  // How long, in microseconds, an idle CPU worker thread polls for the next
  // layer's work before it sleeps (< 0: the default, 20; the environment
  // variable RILL_POOL_SPIN_US overrides the default for experiments). Small
  // models at several threads pay a wake-up per layer when it is too short;
  // a longer spin burns a core between runs.
  int pool_spin_us = -1;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_CONFIG_H_
