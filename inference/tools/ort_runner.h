// Runs an ONNX model on ONNX Runtime (the reference the engine is compared
// and benchmarked against), without ONNX Runtime's headers: the library
// (libonnxruntime.so.1 from npm's onnxruntime-node, fetched by
// scripts/fetch_models.sh) is dlopen()ed at run time and its C API is reached
// through OrtGetApiBase() and a table of function pointers indexed by slot.
//
//   auto ort = OrtRunner::Create("third_party/models/resnet18.onnx", {.intra_op_threads = 2});
//   if (!ort.ok()) { /* ort.status().message() names the model and the ORT error */ }
//   std::vector<OrtTensor> outputs;
//   Status s = (*ort)->Run({{"input", {1, 3, 224, 224}, pixels}}, &outputs);
//
// Only float32 tensors are supported at the inputs and outputs. Depends on
// the C++ standard library and libdl only (not on the engine or framework;
// Status is the engine's header-only type).
#ifndef RILL_INFERENCE_TOOLS_ORT_RUNNER_H_
#define RILL_INFERENCE_TOOLS_ORT_RUNNER_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rill/inference/status.h"

namespace rill::inference::ort {

// The ONNX Runtime release this runner is written and checked against.
inline constexpr const char* kExpectedVersion = "1.30";

struct OrtTensor {
  std::string name;
  std::vector<int64_t> shape;  // -1 for a dimension the model leaves open
  std::vector<float> data;
};

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;  // -1 (or another negative) for dynamic dims
  int element_type = 0;        // ONNX TensorProto data type (1 = float32)
};

struct OrtOptions {
  int intra_op_threads = 1;
  // libonnxruntime.so.1 to load; empty: DefaultLibraryPath().
  std::string library;
  // Non-empty: ONNX Runtime's own profiler on, its JSON trace (one event per
  // node run) written to PREFIX_<date>.json when the runner is destroyed.
  std::string profile_prefix;
};

// Where libonnxruntime.so.1 is looked for when no path is given: $RILL_ONNXRUNTIME_LIB,
// else third_party/onnxruntime/libonnxruntime.so.1 relative to the working
// directory, else the same path in this program's Bazel runfiles. Returns the
// first that exists (the working-directory path if none does).
std::string DefaultLibraryPath();

// How far an output `got` is from the reference `want` (n values each).
// The tolerance is relative to `scale`: want's range (max - min), or for a
// constant reference its largest magnitude, or 1 if it is all zeros. A
// non-finite difference (NaN, inf) is an infinite error.
struct OutputDiff {
  double max_abs = 0, range = 0, scale = 1;
  double max_rel() const { return max_abs / scale; }
  bool Within(double tolerance) const { return std::isfinite(max_abs) && max_abs <= tolerance * scale; }
};
OutputDiff DiffOutputs(const float* got, const float* want, size_t n);

// What `rill model compare` and onnx_vs_ort_test hold the engine to.
inline constexpr double kCompareTolerance = 1e-4;

class OrtRunner {
 public:
  // Loads the library (once per process and path), checks its version is
  // kExpectedVersion, and creates a session: intra-op threads as given,
  // inter-op 1, sequential execution, all graph optimizations.
  static StatusOr<std::unique_ptr<OrtRunner>> Create(const std::string& model_path, const OrtOptions& options = {});
  ~OrtRunner();
  OrtRunner(const OrtRunner&) = delete;
  OrtRunner& operator=(const OrtRunner&) = delete;

  const std::string& version() const { return version_; }
  const std::string& model_path() const { return model_path_; }
  const std::vector<TensorSpec>& inputs() const { return inputs_; }
  const std::vector<TensorSpec>& outputs() const { return outputs_; }

  // Runs on `inputs` (by name; each shape fully known) and returns every
  // model output in the model's order.
  Status Run(const std::vector<OrtTensor>& inputs, std::vector<OrtTensor>* outputs);

 private:
  struct Handles;
  OrtRunner() = default;
  std::string model_path_, version_;
  std::vector<TensorSpec> inputs_, outputs_;
  std::unique_ptr<Handles> h_;
};

}  // namespace rill::inference::ort

#endif  // RILL_INFERENCE_TOOLS_ORT_RUNNER_H_
