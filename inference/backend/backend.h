// The seam between the runtime and the hardware (docs/design.md, "The
// backend seam"). As in MNN, a backend is an allocator plus a factory of
// executions (one per node) plus hooks around resize and run; resize
// (Prepare: read shapes, choose an algorithm, pack weights, ask for scratch)
// is split from execute (Run: just compute).
// - Storage: the backend decides how a tensor placed on it is stored
//   (StorageFor: buffer or image, channel blocking, padding, bytes). The
//   session plans the lifetimes of buffer-stored tensors and of executions'
//   scratch into one arena per backend (AllocateBuffer, at resize only);
//   image-stored tensors get a Buffer each. A tensor's memory is a backend
//   Buffer (which wraps a `cl_mem`, a `VkBuffer`, or host memory) plus a byte
//   offset in it, never a raw pointer the session computes.
// - Transfers: CopyToHost / CopyFromHost move a tensor between the
//   backend's storage and dense host memory (converting layouts on the way);
//   the session inserts them as transfer tasks wherever a tensor crosses
//   backends, on the device backend's stream.
// - A node a backend cannot run is reported by CreateExecution or Prepare
//   (Unimplemented), and the session runs it on the CPU backend instead.
// - Backends register themselves by name (RegisterBackend, beside their
//   code); SessionConfig names them ("cpu", and "opencl", "vulkan" where
//   built in).
#ifndef RILL_INFERENCE_BACKEND_BACKEND_H_
#define RILL_INFERENCE_BACKEND_BACKEND_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "rill/inference/config.h"
#include "rill/inference/status.h"
#include "rill/inference/tensor.h"

namespace rill::inference {

// One block of a backend's memory: a session's arena on that backend, or the
// storage of one image-stored tensor. Device backends subclass it to hold
// their handle (cl_mem, VkBuffer + VkDeviceMemory) and reach it with a
// static_cast in their own executions; the session only passes it around.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t size() const = 0;
  // The host address of the byte at `offset`, for memory the host may read
  // and write in place (Backend::host_memory()); nullptr otherwise.
  virtual void* host_address(size_t offset) { (void)offset; return nullptr; }
};

// Where a tensor's bytes are: a backend buffer and a byte offset in it.
struct MemoryRef {
  Buffer* buffer = nullptr;
  size_t offset = 0;
  void* host() const { return buffer ? buffer->host_address(offset) : nullptr; }
};

// How a backend stores one tensor (Backend::StorageFor).
enum class StorageKind {
  kBuffer,   // linear bytes; planned into the backend's arena
  kImage2D,  // an image object (OpenCL image2d_t, VkImage): a Buffer of its own
};

struct TensorLayout {
  StorageKind kind = StorageKind::kBuffer;
  // Channels grouped in blocks of this many (NC4HW4 is 4), padded with
  // zeros to a whole block; 0: dense in the graph's layout (NHWC).
  int channel_block = 0;
  // Bytes the tensor occupies (padding included) and the alignment of its
  // first byte within the arena.
  size_t bytes = 0;
  size_t alignment = 64;
  // kImage2D: the image's extent in pixels (each pixel holds channel_block
  // values).
  int image_width = 0, image_height = 0;

  // Dense, as the host and the CPU kernels read it.
  bool dense() const { return kind == StorageKind::kBuffer && channel_block == 0; }
};

// What a backend is asked to store: a tensor of the graph as planned.
inline size_t DenseBytes(DataType dtype, const Shape& shape) {
  return static_cast<size_t>(NumElements(shape)) * DataTypeSize(dtype);
}

struct TensorBinding;
struct TensorDesc {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  // The plan's binding of this tensor (TensorBinding::desc(), what the
  // memory planner asks StorageFor with; null for a tensor described apart
  // from a plan): a backend that stores a tensor by what its executions do
  // with it (OpenCL: NC4HW4 where its producer and every reader are
  // channel-blocked kernels) finds the executions whose ExecutionArgs
  // point to it.
  const TensorBinding* binding = nullptr;
  size_t dense_bytes() const { return DenseBytes(dtype, shape); }
};

// A tensor as an execution sees it. The session owns these; their shapes are
// final when Prepare runs, their layout and memory when Run runs.
// Constants are host memory (the model's weights); a device backend uploads
// what it needs of them in Prepare.
struct TensorBinding {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  TensorLayout layout;  // set by the owning backend at every plan
  MemoryRef memory;     // activations: set at every plan
  const void* constant_data = nullptr;  // constants: the model's bytes
  bool constant = false;

  TensorDesc desc() const { return TensorDesc{dtype, shape, this}; }
  size_t dense_bytes() const { return DenseBytes(dtype, shape); }  // allocation-free (Run uses it)
  // Host address of the tensor's first byte: the constant's bytes, or the
  // memory of a host-memory backend; nullptr for device memory.
  void* host() const { return constant ? const_cast<void*>(constant_data) : memory.host(); }
};

class Execution {
 public:
  virtual ~Execution() = default;
  // Names the kernel and its ISA, e.g. "conv2d_ref" or "conv2d_gemm_avx2".
  virtual std::string name() const = 0;
  // Reads shapes (memory of activations is not yet valid; constants are),
  // computes kernel parameters, packs or uploads weights, compiles. An
  // Unimplemented error (a shape or attribute this backend cannot run) moves
  // the node to the CPU backend; any other error fails the session.
  virtual Status Prepare() = 0;
  // Bytes of scratch memory Run needs; placed in the backend's arena.
  virtual size_t scratch_bytes() const { return 0; }
  // Bytes of the weights Prepare packed or transformed for this node (held
  // by the execution, outside the arena): what SessionConfig::precision
  // kFp16 halves on the GEMM kernels.
  virtual size_t packed_weight_bytes() const { return 0; }
  void set_scratch(MemoryRef scratch) { scratch_ = scratch; }
  // Computes the outputs, or enqueues the work that does on the backend's
  // stream. Must not allocate or compile.
  virtual Status Run() = 0;

 protected:
  MemoryRef scratch_;
};

// An optional capability of an execution: writing its NHWC output as a
// channel slice of a wider tensor, `elements` apart from pixel to pixel (0:
// dense again). The memory planner elides a channel CONCATENATION whose
// producers all take it, pointing them into its output. Called after
// Prepare (which resets it); false when the execution cannot.
class StridedOutput {
 public:
  virtual ~StridedOutput() = default;
  virtual bool SetOutputPixelStride(int elements) = 0;
};
inline StridedOutput* AsStridedOutput(Execution* e) { return dynamic_cast<StridedOutput*>(e); }

// An optional capability of an execution whose output size is known only
// once it has computed (NON_ZERO, NON_MAX_SUPPRESSION; docs/design.md,
// "Data-dependent sizes"). Prepare sees the output at its bound (what the
// op's shape function gives at run time); Run writes the actual output
// densely from the start of that memory, and this says its shape (no more
// elements than the bound).
class DataDependentOutput {
 public:
  virtual ~DataDependentOutput() = default;
  virtual const Shape& ActualOutputShape() const = 0;
};
inline DataDependentOutput* AsDataDependentOutput(Execution* e) { return dynamic_cast<DataDependentOutput*>(e); }

// Measured algorithm choices (AlgorithmPolicy::kTune), keyed by a layer's
// shape signature and ISA; the session loads and saves them.
struct TuningCache {
  std::map<std::string, std::string> choices;
  bool dirty = false;
  // Where each measurement is appended ("" off): SessionConfig::tune_log.
  std::string log_path;
};

struct ExecutionArgs {
  const ir::Graph* graph = nullptr;
  const ir::Node* node = nullptr;
  std::vector<const TensorBinding*> inputs;  // nullptr for absent optional inputs
  std::vector<TensorBinding*> outputs;
  AlgorithmPolicy algorithm = AlgorithmPolicy::kAuto;
  Precision precision = Precision::kFp32;
  bool bf16_even_if_slower = false;  // SessionConfig::bf16_even_if_slower
  TuningCache* tuning = nullptr;     // set with AlgorithmPolicy::kTune
};

// What a backend is created with.
struct BackendContext {
  const SessionConfig* config = nullptr;
  // This backend's entries of SessionConfig::backend_options, with the
  // "NAME." prefix removed.
  std::map<std::string, std::string> options;
};

// One task of a run on a backend's stream, in the order the stream runs
// them (Backend::PlanRun): a node's execution or a transfer.
struct RunStep {
  enum class Kind { kExecution, kCopyFromHost, kCopyToHost };
  Kind kind = Kind::kExecution;
  Execution* execution = nullptr;         // kExecution
  const TensorBinding* device = nullptr;  // a transfer's tensor in this backend's storage
  bool waits = false;                     // waits for a task of another stream first
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // True when the host may read and write this backend's buffers in place
  // (the host CPU backend). Tensors that cross between a backend whose memory
  // is not the host's and any other backend are copied through host memory.
  virtual bool host_memory() const { return false; }
  // Host threads this backend's executions compute on. The session shares
  // SessionConfig::num_threads among the backends that compute on the host
  // (a GPU backend uses none: its stream thread only submits and waits) and
  // calls SetThreadBudget before the first plan.
  virtual bool computes_on_host() const { return false; }
  virtual void SetThreadBudget(int threads) { (void)threads; }

  // Lanes: independent queues of work on this backend (GPU command queues).
  // With SessionConfig::branch_streams the session gives each branch of a
  // multi-output model on this backend a lane (lane 0: the rest), each run
  // on a stream thread of its own: UseLane(lane) is called on that thread
  // before its tasks of each run, BeginRun/EndRun bracket each lane's tasks,
  // and the executions and transfers a thread runs go to its lane. Before
  // another lane may use what a task wrote, SyncLane() is called on the
  // task's thread: the lane's queued work must have finished (or be ordered
  // before anything queued later on any lane) when it returns.
  virtual int MaxLanes() const { return 1; }
  virtual void UseLane(int lane) { (void)lane; }
  virtual Status SyncLane() { return Status::Ok(); }

  // An Unimplemented error when this backend cannot run the node (the session
  // then runs it on the CPU backend); any other error fails the session.
  virtual StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) = 0;

  // How a tensor placed on this backend is stored. The default: dense in the
  // graph's layout, in the arena.
  virtual TensorLayout StorageFor(const TensorDesc& desc) const;
  // Memory. Called at resize only (never during a run); nullptr when out of
  // memory. `layout` is set for an image-stored tensor's own buffer and null
  // for an arena. The default is aligned host memory.
  virtual std::unique_ptr<Buffer> AllocateBuffer(size_t bytes, const TensorLayout* layout = nullptr);

  // Transfers of a whole tensor between this backend's storage (`device`)
  // and dense host memory, converting the layout. Called during runs from the
  // backend's own stream: they must not allocate. Both are done with the
  // host bytes when they return (CopyFromHost has read them: the host arena
  // may hand them to the next task; CopyToHost has written them); the
  // device side may still be queued.
  virtual Status CopyToHost(const TensorBinding& device, void* host);
  virtual Status CopyFromHost(const void* host, const TensorBinding& device);

  // Hooks around a plan (after the executions' Prepare and the memory
  // binding: a backend that records command buffers does it in EndResize)
  // and around each run on the backend's stream (BeginRun before its first
  // task of a run, EndRun after its last: submit and wait for the fence).
  virtual Status BeginResize() { return Status::Ok(); }
  // At every plan, after the memory binding and before EndResize: this
  // backend's tasks of a run (elided ones left out) in the order its stream
  // runs them, which a backend that records command buffers records.
  virtual Status PlanRun(const std::vector<RunStep>& steps) {
    (void)steps;
    return Status::Ok();
  }
  virtual Status EndResize() { return Status::Ok(); }
  virtual Status BeginRun() { return Status::Ok(); }
  virtual Status EndRun() { return Status::Ok(); }
};

// Host-memory buffer (aligned to 64 bytes), what AllocateBuffer returns by default.
std::unique_ptr<Buffer> AllocateHostBuffer(size_t bytes);
// A Buffer over host memory someone else owns (which must outlive it): for
// executions run outside a session (kernel tests, tools).
std::unique_ptr<Buffer> WrapHostMemory(void* data, size_t bytes);

// --- Registry ------------------------------------------------------------

using BackendFactory = StatusOr<std::unique_ptr<Backend>> (*)(const BackendContext& context);

// Registers a backend under `name` (lower case: "cpu", "opencl"). Returns
// true so it can initialise a static in the registering library (which then
// needs alwayslink). A second registration of a name replaces the first.
bool RegisterBackend(const std::string& name, BackendFactory factory);
// Names of the registered backends, sorted.
std::vector<std::string> RegisteredBackends();
// The backend of a name; NotFound (listing the registered names) for others.
StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name, const SessionConfig& config);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_BACKEND_BACKEND_H_
