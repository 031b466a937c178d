// The seam between the runtime and the hardware. As in MNN, a backend is a
// factory of executions (one per node) plus the memory they run on; resize
// (Prepare: read shapes, choose an algorithm, pack weights, ask for scratch)
// is split from execute (Run: just compute). GPU backends implement the same
// interface; a node a backend cannot run is reported by CreateExecution so
// the session can place it elsewhere.
#ifndef RILL_INFERENCE_BACKEND_BACKEND_H_
#define RILL_INFERENCE_BACKEND_BACKEND_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "inference/runtime/thread_pool.h"
#include "rill/inference/config.h"
#include "rill/inference/status.h"
#include "rill/inference/tensor.h"

namespace rill::inference {

// A tensor as an execution sees it. The session owns these; their shapes are
// final when Prepare runs and their data pointers when Run runs.
struct TensorBinding {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  void* data = nullptr;
  bool constant = false;
};

class Execution {
 public:
  virtual ~Execution() = default;
  // Names the kernel and its ISA, e.g. "conv2d_ref" or "conv2d_gemm_avx2".
  virtual std::string name() const = 0;
  // Reads shapes (data pointers of activations are not yet valid; those of
  // constants are), computes kernel parameters, packs weights.
  virtual Status Prepare() = 0;
  // Bytes of scratch memory Run needs; placed in the arena by the session.
  virtual size_t scratch_bytes() const { return 0; }
  void set_scratch(void* scratch) { scratch_ = scratch; }
  // Computes the outputs. Must not allocate.
  virtual void Run() = 0;

 protected:
  void* scratch_ = nullptr;
};

// Measured algorithm choices (AlgorithmPolicy::kTune), keyed by a layer's
// shape signature and ISA; the session loads and saves them.
struct TuningCache {
  std::map<std::string, std::string> choices;
  bool dirty = false;
};

struct ExecutionArgs {
  const ir::Graph* graph = nullptr;
  const ir::Node* node = nullptr;
  std::vector<const TensorBinding*> inputs;  // nullptr for absent optional inputs
  std::vector<TensorBinding*> outputs;
  AlgorithmPolicy algorithm = AlgorithmPolicy::kAuto;
  ThreadPool* pool = nullptr;  // the session's; executions may split Run over it
  TuningCache* tuning = nullptr;  // set with AlgorithmPolicy::kTune
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // An Unimplemented error when this backend cannot run the node.
  virtual StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) = 0;
};

std::unique_ptr<Backend> CreateCpuBackend(const SessionConfig& config);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_BACKEND_BACKEND_H_
