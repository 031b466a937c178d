#include "inference/runtime/denormals.h"
#include "rill/inference/session.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>

#include "inference/backend/backend.h"
#include "inference/ir/conv_geometry.h"
#include "inference/ir/graph.h"
#include "inference/runtime/arena_planner.h"
#include "inference/runtime/thread_pool.h"

namespace rill::inference {

namespace {

constexpr size_t kArenaAlignment = 64;

// Moves a whole tensor between a backend's memory and host memory; runs on
// that backend's stream.
class TransferExecution : public Execution {
 public:
  TransferExecution(Backend* device, const TensorBinding* src, const TensorBinding* dst, bool to_host)
      : device_(device), src_(src), dst_(dst), to_host_(to_host) {}
  std::string name() const override {
    return std::string(to_host_ ? "copy_to_host(" : "copy_from_host(") + device_->name() + ")";
  }
  Status Prepare() override {
    bytes_ = dst_->byte_size();
    return Status::Ok();
  }
  void Run() override {
    if (to_host_) {
      device_->CopyToHost(*src_, dst_->data, bytes_);
    } else {
      device_->CopyFromHost(src_->data, *dst_, bytes_);
    }
  }

 private:
  Backend* device_;
  const TensorBinding* src_;
  const TensorBinding* dst_;
  bool to_host_;
  size_t bytes_ = 0;
};

}  // namespace

class Session::Impl {
 public:
  Impl(std::shared_ptr<const Model> model, const SessionConfig& config)
      : model_(std::move(model)), graph_(model_->graph()), config_(config) {}

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : stream_threads_) t.join();
  }

  Status Init() {
    if (config_.num_threads < 1) return InvalidArgumentError(graph_.source + ": num_threads must be >= 1");
    if (config_.num_threads > 256) return InvalidArgumentError(graph_.source + ": num_threads must be <= 256");
    if (config_.algorithm == AlgorithmPolicy::kTune && !config_.tuning_cache.empty()) LoadTuningCache();
    // Backend 0 is the host CPU: graph inputs and outputs live there, and
    // nodes other backends cannot run fall back to it.
    RILL_INF_RETURN_IF_ERROR(AddBackend(BackendKind::kCpu).status());
    for (size_t i = 0; i < graph_.tensors.size(); ++i) {
      const ir::TensorInfo& t = graph_.tensors[i];
      TensorBinding& b = bindings_.emplace_back();
      b.dtype = t.dtype;
      b.shape = t.shape;
      if (t.is_constant()) {
        b.constant = true;
        b.data = const_cast<uint8_t*>(t.data);  // kernels only read constants
      }
      memory_.push_back(t.is_constant() ? -1 : 0);
      source_.push_back(static_cast<int>(i));
      writer_.push_back(-1);
    }
    for (int id : graph_.outputs) {
      if (graph_.tensors[id].is_constant()) {
        return UnimplementedError(graph_.source + ": output '" + graph_.tensors[id].name + "' is a constant");
      }
    }
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      RILL_INF_ASSIGN_OR_RETURN(int backend, BackendOf(static_cast<int>(n)));
      Status status = AddNodeTask(static_cast<int>(n), backend);
      if (status.code() == StatusCode::kUnimplemented && backend != 0) status = AddNodeTask(static_cast<int>(n), 0);
      RILL_INF_RETURN_IF_ERROR(status);
    }
    const Layout layout = graph_.layout;
    for (int id : graph_.inputs) {
      const ir::TensorInfo& t = graph_.tensors[id];
      inputs_.emplace_back(t.name, t.dtype, t.shape.size() == 4 ? layout : Layout::kAny, t.shape, nullptr);
    }
    for (int id : graph_.outputs) {
      const ir::TensorInfo& t = graph_.tensors[id];
      outputs_.emplace_back(t.name, t.dtype, t.shape.size() == 4 ? layout : Layout::kAny, t.shape, nullptr);
      host_outputs_.push_back(OnSpace(id, 0));
    }
    SetUpStreams();
    std::vector<Shape> shapes = graph_.InitialShapes();
    return Plan(std::move(shapes));
  }

  Status Resize(const std::map<std::string, Shape>& input_shapes) {
    std::vector<Shape> shapes = graph_.InitialShapes();
    for (size_t i = 0; i < graph_.inputs.size(); ++i) shapes[graph_.inputs[i]] = inputs_[i].shape();
    for (const auto& [name, shape] : input_shapes) {
      bool found = false;
      for (int id : graph_.inputs) {
        if (graph_.tensors[id].name == name) {
          for (int d : shape) {
            if (d <= 0) return InvalidArgumentError(graph_.source + ": input '" + name + "' resized to " + ShapeToString(shape));
          }
          if (!graph_.shape_folds.empty() && shape != graph_.tensors[id].shape) {
            // The importer computed shapes from this one at load (ONNX
            // Shape): a new shape would run those folded constants as they
            // are, a silent wrong answer.
            return FailedPreconditionError(
                graph_.source + ": input '" + name + "' cannot be resized from " +
                ShapeToString(graph_.tensors[id].shape) + " to " + ShapeToString(shape) + ": the model computes shapes from its inputs (node '" +
                graph_.shape_folds.front() + "'), which the importer folded for the shapes it loaded with; load it again with LoadOptions::input_shapes {\"" +
                name + "\": " + ShapeToString(shape) + "}");
          }
          shapes[id] = shape;
          found = true;
        }
      }
      if (!found) return NotFoundError(graph_.source + ": no input named '" + name + "'");
    }
    return Plan(std::move(shapes));
  }

  // Infers shapes, prepares executions and lays out each backend's arena. On
  // failure the session keeps no half-planned state that Run could use.
  Status Plan(std::vector<Shape> shapes) {
    planned_ = false;
    RILL_INF_RETURN_IF_ERROR(graph_.InferShapes(&shapes));
    for (size_t i = 0; i < bindings_.size(); ++i) bindings_[i].shape = shapes[source_[i]];
    for (Task& task : tasks_) RILL_INF_RETURN_IF_ERROR(task.exec->Prepare());
    ElideConcatenations();
    ElideReshapes();

    // Lifetimes in steps: task t runs at step t. When streams run
    // concurrently, step order holds only within a stream, so a buffer that
    // one stream alone touches is planned in that stream's own window of
    // steps (it shares bytes only with buffers of the same stream), and a
    // buffer several streams touch lives for the whole run.
    const int steps = static_cast<int>(tasks_.size());
    const int nb = static_cast<int>(bindings_.size());
    std::vector<int> first(nb, -1), last(nb, -1), stream(nb, -1);
    std::vector<bool> shared(nb, false);
    auto touch = [&](int id, int step, int s) {
      if (alias_of_[id] >= 0) id = alias_of_[id];  // an elided concatenation's input lives in its output
      if (first[id] < 0) first[id] = step;
      last[id] = std::max(last[id], step);
      if (stream[id] >= 0 && stream[id] != s) shared[id] = true;
      stream[id] = s;
    };
    // Inputs stay intact through a run (a caller may run twice on one input);
    // outputs stay until the next run.
    for (int id : graph_.inputs) {
      touch(id, 0, 0);
      shared[id] = true;
    }
    for (int t = 0; t < steps; ++t) {
      for (int id : tasks_[t].writes) touch(id, t, tasks_[t].stream);
      for (int id : tasks_[t].reads) {
        if (!bindings_[id].constant) touch(id, t, tasks_[t].stream);
      }
    }
    for (int id : host_outputs_) shared[id] = true;
    const int window = steps + 1;
    const int span = window * static_cast<int>(stream_tasks_.size()) - 1;
    std::vector<std::vector<BufferRequest>> requests(backends_.size());
    std::vector<std::vector<int>> owner(backends_.size());  // binding id, or -(task+1) for scratch
    for (int id = 0; id < nb; ++id) {
      if (bindings_[id].constant || alias_of_[id] >= 0 || first[id] < 0) continue;
      BufferRequest r;
      r.bytes = bindings_[id].byte_size();
      if (shared[id]) {
        r.first_step = 0;
        r.last_step = span;
      } else {
        r.first_step = first[id] + stream[id] * window;
        r.last_step = last[id] + stream[id] * window;
      }
      requests[memory_[id]].push_back(r);
      owner[memory_[id]].push_back(id);
    }
    for (int t = 0; t < steps; ++t) {
      const size_t scratch = tasks_[t].exec->scratch_bytes();
      if (scratch == 0) continue;
      const int step = t + tasks_[t].stream * window;
      requests[tasks_[t].backend].push_back(BufferRequest{scratch, step, step});
      owner[tasks_[t].backend].push_back(-(t + 1));
    }
    std::vector<ArenaPlan> plans;
    size_t total = 0;
    for (size_t k = 0; k < backends_.size(); ++k) {
      plans.push_back(PlanArena(requests[k], kArenaAlignment));
      total += plans.back().total_bytes;
    }
    if (config_.max_memory_bytes != 0 && total > config_.max_memory_bytes) {
      return OutOfRangeError(graph_.source + ": needs " + std::to_string(total) +
                             " bytes of activations, over SessionConfig::max_memory_bytes (" +
                             std::to_string(config_.max_memory_bytes) + ")");
    }
    arena_bytes_ = 0;
    for (size_t k = 0; k < backends_.size(); ++k) {
      BackendSlot& slot = backends_[k];
      const ArenaPlan& plan = plans[k];
      if (!slot.buffer || plan.total_bytes > slot.buffer->size()) {
        slot.buffer.reset();
        slot.buffer = slot.backend->AllocateBuffer(plan.total_bytes);
        if (!slot.buffer) {
          return InternalError(graph_.source + ": cannot allocate a " + std::to_string(plan.total_bytes) + "-byte arena on " +
                               slot.backend->name());
        }
      }
      arena_bytes_ += plan.total_bytes;
      for (size_t i = 0; i < requests[k].size(); ++i) {
        void* p = slot.buffer->At(plan.offsets[i]);
        if (owner[k][i] >= 0) bindings_[owner[k][i]].data = p;
        else tasks_[-owner[k][i] - 1].exec->set_scratch(p);
      }
    }
    for (int id = 0; id < nb; ++id) {
      if (alias_of_[id] >= 0) bindings_[id].data = static_cast<char*>(bindings_[alias_of_[id]].data) + alias_offset_[id];
    }
    for (size_t i = 0; i < graph_.inputs.size(); ++i) {
      const TensorBinding& b = bindings_[graph_.inputs[i]];
      inputs_[i].Rebind(b.shape, b.data);
    }
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      const TensorBinding& b = bindings_[host_outputs_[i]];
      outputs_[i].Rebind(b.shape, b.data);
    }
    planned_ = true;
    if (tuning_.dirty && !config_.tuning_cache.empty()) SaveTuningCache();
    return Status::Ok();
  }

  // A CONCATENATION along the last (NHWC channel) axis costs nothing when
  // each input is written by one task, on the same backend and stream, that
  // can write its output with a pixel stride (x86 CONV_2D) and that no other
  // task reads: those tasks write straight into their channel slice of the
  // concatenation's output, which is planned to live from the first of them,
  // and the concatenation does not run. Decided at every plan, after Prepare
  // (which resets the strides).
  void ElideConcatenations() {
    const int nb = static_cast<int>(bindings_.size());
    alias_of_.assign(nb, -1);
    alias_offset_.assign(nb, 0);
    std::vector<int> readers(nb, 0);
    const std::vector<bool> boundary = BoundaryTensors();
    for (const Task& t : tasks_) {
      for (int id : t.reads) ++readers[id];
    }
    for (size_t ti = 0; ti < tasks_.size(); ++ti) {
      Task& task = tasks_[ti];
      task.elided = false;
      if (task.node < 0 || task.writes.size() != 1) continue;
      const ir::Node& node = graph_.nodes[task.node];
      const int out = task.writes[0];
      const int rank = static_cast<int>(bindings_[out].shape.size());
      if (node.type != ir::OpType::kConcatenation || node.attrs.activation != ir::Activation::kNone || rank < 2 ||
          (node.attrs.axis + rank) % rank != rank - 1 || bindings_[out].dtype != DataType::kFloat32 ||
          task.reads.size() != node.inputs.size() || task.reads.size() < 2) {
        continue;
      }
      std::vector<int> producers;
      for (int id : task.reads) {
        const int w = writer_[id];
        if (bindings_[id].constant || boundary[id] || readers[id] != 1 || w < 0 ||
            w >= static_cast<int>(ti) || tasks_[w].node < 0 || tasks_[w].writes.size() != 1 ||
            tasks_[w].backend != task.backend || tasks_[w].stream != task.stream || memory_[id] != memory_[out]) {
          break;
        }
        producers.push_back(w);
      }
      if (producers.size() != task.reads.size()) continue;
      const int stride = bindings_[out].shape[rank - 1];
      size_t asked = 0;
      while (asked < producers.size() && tasks_[producers[asked]].exec->SetOutputPixelStride(stride)) ++asked;
      if (asked < producers.size()) {
        for (size_t k = 0; k < asked; ++k) tasks_[producers[k]].exec->SetOutputPixelStride(0);
        continue;
      }
      size_t offset = 0;
      for (int id : task.reads) {
        alias_of_[id] = out;
        alias_offset_[id] = offset;
        offset += static_cast<size_t>(bindings_[id].shape[rank - 1]) * sizeof(float);
      }
      task.elided = true;
    }
  }

  // Graph inputs and outputs (as the caller sees them): they keep their own
  // bytes, never aliased into another tensor's.
  std::vector<bool> BoundaryTensors() const {
    std::vector<bool> boundary(bindings_.size(), false);
    for (int id : graph_.inputs) boundary[id] = true;
    for (int id : graph_.outputs) boundary[id] = true;
    for (int id : host_outputs_) boundary[id] = true;
    return boundary;
  }

  // A RESHAPE (or Flatten/Squeeze) only renames bytes: its output is planned
  // as a view of its input's bytes and the task does not run (ShuffleNet
  // copied 32 tensors a run). Not for graph inputs and outputs (they keep
  // their own bytes), across memories, or for an input that is a strided
  // channel slice of an elided concatenation; chains resolve to one buffer.
  void ElideReshapes() {
    const int nb = static_cast<int>(bindings_.size());
    const std::vector<bool> boundary = BoundaryTensors();
    std::vector<bool> view(nb, false);  // an elided reshape's output
    for (Task& task : tasks_) {
      if (task.node < 0 || task.elided || task.writes.size() != 1 || task.reads.empty()) continue;
      if (graph_.nodes[task.node].type != ir::OpType::kReshape) continue;
      const int in = task.reads[0], out = task.writes[0];
      if (bindings_[in].constant || boundary[in] || boundary[out] || memory_[in] != memory_[out] ||
          bindings_[in].byte_size() != bindings_[out].byte_size() || (alias_of_[in] >= 0 && !view[in])) {
        continue;
      }
      alias_of_[out] = alias_of_[in] >= 0 ? alias_of_[in] : in;
      alias_offset_[out] = alias_of_[in] >= 0 ? alias_offset_[in] : 0;
      view[out] = true;
      task.elided = true;
    }
  }

  // One "key choice" pair per line.
  void LoadTuningCache() {
    std::ifstream in(config_.tuning_cache);
    std::string key, choice;
    while (in >> key >> choice) tuning_.choices[key] = choice;
  }
  void SaveTuningCache() {
    std::ofstream out(config_.tuning_cache, std::ios::trunc);
    for (const auto& [key, choice] : tuning_.choices) out << key << " " << choice << "\n";
    tuning_.dirty = false;
  }

  Status Run() {
    if (!planned_) return FailedPreconditionError(graph_.source + ": session is not planned (a resize failed)");
    if (stream_threads_.empty()) {
      ScopedFlushDenormals flush;
      for (Task& task : tasks_) {
        if (!task.elided) task.exec->Run();
      }
      return Status::Ok();
    }
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mu_);
      generation = ++generation_;
    }
    cv_.notify_all();
    RunStream(0, generation);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      for (size_t s = 1; s < stream_done_.size(); ++s) {
        if (stream_done_[s] != generation) return false;
      }
      return true;
    });
    return Status::Ok();
  }

  // Runs every task in order on the calling thread; a transfer's time counts
  // to the node it feeds (the downloads of outputs to the last node).
  Status RunProfiled(std::vector<double>* node_ms) {
    if (!planned_) return FailedPreconditionError(graph_.source + ": session is not planned (a resize failed)");
    node_ms->assign(graph_.nodes.size(), 0.0);
    ScopedFlushDenormals flush;
    double pending = 0;
    for (Task& task : tasks_) {
      const auto start = std::chrono::steady_clock::now();
      if (!task.elided) task.exec->Run();
      pending += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (task.node >= 0) {
        (*node_ms)[task.node] += pending;
        pending = 0;
      }
    }
    if (!node_ms->empty()) node_ms->back() += pending;
    return Status::Ok();
  }

  std::vector<LayerInfo> Layers() const {
    std::vector<LayerInfo> layers;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const ir::Node& n = graph_.nodes[i];
      LayerInfo info;
      info.name = n.name;
      info.op = ir::OpTypeName(n.type);
      const Task& task = tasks_[node_task_[i]];
      info.kernel = !task.elided                      ? task.exec->name()
                    : n.type == ir::OpType::kReshape ? "reshape_in_place"
                                                     : "concatenation_in_place";
      info.backend = backends_[task.backend].backend->name();
      info.output_shape = bindings_[n.outputs[0]].shape;
      const int64_t out = NumElements(info.output_shape);
      if (n.inputs.size() >= 2 && n.inputs[1] >= 0) {
        const Shape& w = bindings_[n.inputs[1]].shape;
        if (n.type == ir::OpType::kConv2D && w.size() == 4) info.macs = out * w[1] * w[2] * w[3];
        if (n.type == ir::OpType::kDepthwiseConv2D && w.size() == 4) info.macs = out * w[1] * w[2];
        if (n.type == ir::OpType::kTransposeConv2D && w.size() == 4) {
          const Shape& x = bindings_[n.inputs[0]].shape;  // per group: its share of the outputs
          const int groups = x.size() == 4 ? std::max(1, ir::ConvGroups(x[3], w[3])) : 1;
          info.macs = NumElements(x) * w[0] * w[1] * w[2] / groups;
        }
        if (n.type == ir::OpType::kFullyConnected && w.size() == 2) info.macs = out * w[1];
      }
      if (n.type == ir::OpType::kDepthwiseBlock && n.inputs.size() > 5 && n.inputs[3] >= 0 && n.inputs[5] >= 0) {
        const Shape& x = bindings_[n.inputs[0]].shape;
        const Shape& wd = bindings_[n.inputs[3]].shape;
        const Shape& wp = bindings_[n.inputs[5]].shape;
        const int64_t pixels = out / std::max(1, wp[0]);
        info.macs = pixels * wd[1] * wd[2] * wd[3] + pixels * wp[0] * wp[3];
        if (n.inputs[1] >= 0) info.macs += NumElements(x) * bindings_[n.inputs[1]].shape[0];
      }
      layers.push_back(std::move(info));
    }
    return layers;
  }

  // A unit of a run: a node's execution or a transfer, on one backend's stream.
  struct Task {
    std::unique_ptr<Execution> exec;
    int backend = 0;  // index into backends_
    int stream = 0;   // index into stream_tasks_
    int node = -1;    // graph node; -1 for a transfer
    std::vector<int> reads, writes;  // binding ids
    std::vector<int> waits;          // tasks of other streams that must finish first
    bool signals = false;            // a task of another stream waits for it
    bool elided = false;             // a CONCATENATION whose inputs are written in place
  };

  struct BackendSlot {
    BackendKind kind = BackendKind::kCpu;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<ThreadPool> pool;  // each backend runs its kernels on threads of its own
    std::unique_ptr<Buffer> buffer;    // this session's arena on the backend
  };

  // The backend index of a kind, creating the backend on first use.
  StatusOr<int> AddBackend(BackendKind kind) {
    for (size_t k = 0; k < backends_.size(); ++k) {
      if (backends_[k].kind == kind) return static_cast<int>(k);
    }
    BackendSlot slot;
    slot.kind = kind;
    RILL_INF_ASSIGN_OR_RETURN(slot.backend, CreateBackend(kind, config_));
    if (backends_.empty() && !slot.backend->host_memory()) {
      return InternalError(graph_.source + ": the first backend must be the host's");
    }
    slot.pool = std::make_unique<ThreadPool>(config_.num_threads);
    backends_.push_back(std::move(slot));
    return static_cast<int>(backends_.size()) - 1;
  }

  StatusOr<int> BackendOf(int n) {
    const ir::Node& node = graph_.nodes[n];
    BackendKind kind = config_.backend;
    auto it = config_.node_backends.find(node.name);
    if (it != config_.node_backends.end()) {
      kind = it->second;
    } else if (config_.placement) {
      kind = config_.placement(NodeRef{n, node.name, ir::OpTypeName(node.type)});
    }
    return AddBackend(kind);
  }

  // Memory space of a backend: 0 for host memory, else its own.
  int SpaceOf(int backend) const { return backends_[backend].backend->host_memory() ? 0 : backend; }

  // The binding that holds graph tensor `id` in memory space `space`,
  // adding the transfers that bring it there (through host memory).
  int OnSpace(int id, int space) {
    if (bindings_[id].constant || SpaceOf(memory_[id]) == space) return id;
    const auto key = std::make_pair(id, space);
    auto it = copies_.find(key);
    if (it != copies_.end()) return it->second;
    int from;
    int device;
    if (space == 0) {
      from = id;
      device = memory_[id];
    } else {
      from = OnSpace(id, 0);
      device = space;
    }
    const int copy = static_cast<int>(bindings_.size());
    TensorBinding& b = bindings_.emplace_back();
    b.dtype = bindings_[id].dtype;
    b.shape = bindings_[id].shape;
    memory_.push_back(space);
    source_.push_back(id);
    writer_.push_back(-1);
    copies_[key] = copy;
    copy_log_.push_back(key);
    Task task;
    task.exec = std::make_unique<TransferExecution>(backends_[device].backend.get(), &bindings_[from], &bindings_[copy],
                                                    space == 0);
    task.backend = device;
    task.reads = {from};
    task.writes = {copy};
    AppendTask(std::move(task));
    return copy;
  }

  void AppendTask(Task task) {
    for (int id : task.writes) writer_[id] = static_cast<int>(tasks_.size());
    tasks_.push_back(std::move(task));
  }

  // Adds node n's execution on `backend` (after the transfers its inputs
  // need). On an error everything it added is taken back.
  Status AddNodeTask(int n, int backend) {
    const ir::Node& node = graph_.nodes[n];
    const size_t bindings_mark = bindings_.size(), tasks_mark = tasks_.size(), log_mark = copy_log_.size();
    const int space = SpaceOf(backend);
    ExecutionArgs args;
    args.graph = &graph_;
    args.node = &node;
    args.algorithm = config_.algorithm;
    args.precision = config_.precision;
    args.pool = backends_[backend].pool.get();
    if (config_.algorithm == AlgorithmPolicy::kTune) args.tuning = &tuning_;
    Task task;
    task.backend = backend;
    task.node = n;
    for (int id : node.inputs) {
      if (id < 0) {
        args.inputs.push_back(nullptr);
        continue;
      }
      const int b = OnSpace(id, space);
      args.inputs.push_back(&bindings_[b]);
      task.reads.push_back(b);
    }
    for (int id : node.outputs) {
      args.outputs.push_back(&bindings_[id]);
      task.writes.push_back(id);
    }
    StatusOr<std::unique_ptr<Execution>> exec = backends_[backend].backend->CreateExecution(args);
    if (!exec.ok()) {
      while (bindings_.size() > bindings_mark) {
        bindings_.pop_back();
        memory_.pop_back();
        source_.pop_back();
        writer_.pop_back();
      }
      tasks_.resize(tasks_mark);
      while (copy_log_.size() > log_mark) {
        copies_.erase(copy_log_.back());
        copy_log_.pop_back();
      }
      return exec.status();
    }
    task.exec = std::move(*exec);
    for (int id : node.outputs) memory_[id] = space;
    node_task_.push_back(static_cast<int>(tasks_.size()));
    AppendTask(std::move(task));
    return Status::Ok();
  }

  // Streams: the host's (the calling thread) and, with concurrent_backends,
  // one thread per other backend that has tasks. A task waits only for the
  // writers of what it reads that run on other streams.
  void SetUpStreams() {
    std::vector<int> stream_of(backends_.size(), 0);
    int streams = 1;
    for (size_t k = 1; k < backends_.size(); ++k) {
      bool used = false;
      for (const Task& t : tasks_) used |= t.backend == static_cast<int>(k);
      if (used && config_.concurrent_backends) stream_of[k] = streams++;
    }
    stream_tasks_.assign(streams, {});
    for (size_t i = 0; i < tasks_.size(); ++i) {
      Task& task = tasks_[i];
      task.stream = stream_of[task.backend];
      stream_tasks_[task.stream].push_back(static_cast<int>(i));
    }
    for (Task& task : tasks_) {
      for (int id : task.reads) {
        const int w = writer_[id];
        if (w < 0 || tasks_[w].stream == task.stream) continue;
        if (std::find(task.waits.begin(), task.waits.end(), w) == task.waits.end()) task.waits.push_back(w);
        tasks_[w].signals = true;
      }
    }
    task_done_.assign(tasks_.size(), 0);
    stream_done_.assign(streams, 0);
    for (int s = 1; s < streams; ++s) stream_threads_.emplace_back([this, s] { StreamLoop(s); });
  }

  void StreamLoop(int s) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      RunStream(s, seen);
      {
        std::lock_guard<std::mutex> lock(mu_);
        stream_done_[s] = seen;
      }
      cv_.notify_all();
    }
  }

  // Runs a stream's tasks in order for run `generation`. Allocation-free.
  void RunStream(int s, uint64_t generation) {
    ScopedFlushDenormals flush;
    for (int i : stream_tasks_[s]) {
      Task& task = tasks_[i];
      if (!task.waits.empty()) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] {
          for (int w : task.waits) {
            if (task_done_[w] != generation) return false;
          }
          return true;
        });
      }
      if (!task.elided) task.exec->Run();
      if (task.signals) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          task_done_[i] = generation;
        }
        cv_.notify_all();
      }
    }
  }

  std::shared_ptr<const Model> model_;
  const ir::Graph& graph_;
  SessionConfig config_;
  TuningCache tuning_;
  std::vector<BackendSlot> backends_;  // [0]: the host CPU
  // Bindings: the graph's tensors (same ids), then copies of tensors in other
  // memory spaces. A deque, so that executions may keep pointers to them.
  std::deque<TensorBinding> bindings_;
  std::vector<int> memory_;  // backend whose arena holds each binding (-1: constant)
  std::vector<int> source_;  // graph tensor each binding holds
  std::vector<int> writer_;  // task that writes each binding (-1: none)
  // Bindings that live inside another's bytes (an elided concatenation's
  // inputs): the binding holding them (-1: none) and the byte offset there.
  std::vector<int> alias_of_;
  std::vector<size_t> alias_offset_;
  std::map<std::pair<int, int>, int> copies_;  // (tensor, space) -> binding
  std::vector<std::pair<int, int>> copy_log_;
  std::vector<Task> tasks_;  // in a valid sequential order
  std::vector<int> node_task_;
  std::vector<int> host_outputs_;  // binding of each graph output in host memory
  std::vector<std::vector<int>> stream_tasks_;
  std::vector<std::thread> stream_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t generation_ = 0;
  std::vector<uint64_t> task_done_;
  std::vector<uint64_t> stream_done_;
  bool stop_ = false;
  std::vector<Tensor> inputs_, outputs_;
  size_t arena_bytes_ = 0;
  bool planned_ = false;
};

StatusOr<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Model> model, const SessionConfig& config) {
  if (!model) return InvalidArgumentError("Session::Create: null model");
  auto impl = std::make_unique<Impl>(std::move(model), config);
  RILL_INF_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Status Session::Resize(const std::map<std::string, Shape>& input_shapes) { return impl_->Resize(input_shapes); }
Status Session::Run() { return impl_->Run(); }
Status Session::RunProfiled(std::vector<double>* node_ms) { return impl_->RunProfiled(node_ms); }
std::vector<LayerInfo> Session::Layers() const { return impl_->Layers(); }
int Session::num_inputs() const { return static_cast<int>(impl_->inputs_.size()); }
int Session::num_outputs() const { return static_cast<int>(impl_->outputs_.size()); }

Tensor* Session::input(int index) {
  return index >= 0 && index < num_inputs() ? &impl_->inputs_[index] : nullptr;
}
const Tensor* Session::output(int index) const {
  return index >= 0 && index < num_outputs() ? &impl_->outputs_[index] : nullptr;
}
Tensor* Session::input(const std::string& name) {
  for (Tensor& t : impl_->inputs_) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}
const Tensor* Session::output(const std::string& name) const {
  for (const Tensor& t : impl_->outputs_) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

size_t Session::arena_bytes() const { return impl_->arena_bytes_; }
size_t Session::packed_weight_bytes() const {
  size_t bytes = 0;
  for (const auto& t : impl_->tasks_) bytes += t.exec->packed_weight_bytes();
  return bytes;
}

std::vector<std::string> Session::KernelNames() const {
  std::vector<std::string> names;
  for (int t : impl_->node_task_) names.push_back(impl_->tasks_[t].exec->name());
  return names;
}

const SessionConfig& Session::config() const { return impl_->config_; }

}  // namespace rill::inference
