// The seam between the runtime and the hardware. As in MNN, a backend is a
// factory of executions (one per node) plus the memory they run on; resize
// (Prepare: read shapes, choose an algorithm, pack weights, ask for scratch)
// is split from execute (Run: just compute). GPU backends implement the same
// interface:
// - memory: the session plans the lifetimes of the tensors that live on a
//   backend (and its executions' scratch) into one arena per backend and asks
//   the backend for it (AllocateBuffer, at resize only); a binding's `data` is
//   whatever that backend's buffer hands out (a host pointer on the CPU, a
//   device address elsewhere);
// - transfers: CopyToHost / CopyFromHost move a tensor across the boundary
//   between the backend and host memory; the session inserts them as copy
//   executions wherever a tensor crosses backends;
// - a node a backend cannot run is reported by CreateExecution (Unimplemented)
//   and the session runs it on the CPU backend instead.
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
// Constants are host memory (the model's weights); a device backend uploads
// what it needs of them in Prepare.
struct TensorBinding {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  void* data = nullptr;
  bool constant = false;
  size_t byte_size() const { return static_cast<size_t>(NumElements(shape)) * DataTypeSize(dtype); }
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
  // Bytes of the weights Prepare packed or transformed for this node (held
  // by the execution, outside the arena): what SessionConfig::precision
  // kFp16 halves on the GEMM kernels.
  virtual size_t packed_weight_bytes() const { return 0; }
  void set_scratch(void* scratch) { scratch_ = scratch; }
  // Asks the execution to write its (NHWC) output with `floats` between
  // consecutive pixels instead of the channel count (0: dense again), so
  // that the output can be a channel slice of a wider tensor: the session
  // elides a channel CONCATENATION by pointing its inputs into its output.
  // Called after Prepare (which resets it); false when not supported.
  virtual bool SetOutputPixelStride(int floats) { return floats == 0; }
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
  // kFp16: store weights in half precision where a kernel reads them so (the
  // CPU's AVX-512 GEMMs); arithmetic stays fp32.
  Precision precision = Precision::kFp32;
  ThreadPool* pool = nullptr;  // the session's; executions may split Run over it
  TuningCache* tuning = nullptr;  // set with AlgorithmPolicy::kTune
};

// One block of a backend's memory: a session's arena on that backend.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t size() const = 0;
  // What a TensorBinding's `data` holds for the bytes at `offset`: a host
  // pointer for host-memory backends, an opaque device address otherwise.
  virtual void* At(size_t offset) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // An Unimplemented error when this backend cannot run the node (the session
  // then runs it on the CPU backend); any other error fails the session.
  virtual StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) = 0;

  // Memory. Called at resize only (never during a run); nullptr when out of
  // memory. The default is aligned host memory.
  virtual std::unique_ptr<Buffer> AllocateBuffer(size_t bytes);
  // True when the host may read and write this backend's buffers in place
  // (the host CPU backend). Tensors that cross between a backend whose memory
  // is not the host's and any other backend are copied through host memory.
  virtual bool host_memory() const { return false; }
  // Transfers of a whole tensor between this backend's memory (`device`) and
  // host memory. Called during runs, from the backend's own stream: they must
  // not allocate. `bytes` is device.byte_size().
  virtual void CopyToHost(const TensorBinding& device, void* host, size_t bytes);
  virtual void CopyFromHost(const void* host, const TensorBinding& device, size_t bytes);
};

// Host-memory buffer (aligned to 64 bytes), what AllocateBuffer returns by default.
std::unique_ptr<Buffer> AllocateHostBuffer(size_t bytes);

// The CPU backend: host memory, every op of the IR.
std::unique_ptr<Backend> CreateCpuBackend(const SessionConfig& config);
// The CPU kernels behind a device boundary (BackendKind::kCpuDevice): memory
// of its own that the session reaches only through CopyToHost/CopyFromHost,
// and only the ops named in config.cpu_device_ops (all when empty), so that
// the heterogeneous paths (placement, fallback, copies, concurrent backends)
// run for real without a GPU. A GPU backend plugs in the same way.
std::unique_ptr<Backend> CreateCpuDeviceBackend(const SessionConfig& config);
// The backend of a kind; an Unimplemented error for kinds not built in.
StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendKind kind, const SessionConfig& config);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_BACKEND_BACKEND_H_
