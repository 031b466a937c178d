#include "inference/runtime/denormals.h"
#include "rill/inference/session.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "inference/backend/backend.h"
#include "inference/ir/graph.h"
#include "inference/runtime/arena_planner.h"
#include "inference/runtime/thread_pool.h"

namespace rill::inference {

namespace {

constexpr size_t kArenaAlignment = 64;

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};

}  // namespace

class Session::Impl {
 public:
  Impl(std::shared_ptr<const Model> model, const SessionConfig& config)
      : model_(std::move(model)), graph_(model_->graph()), config_(config) {}

  Status Init() {
    if (config_.num_threads < 1) return InvalidArgumentError(graph_.source + ": num_threads must be >= 1");
    if (config_.backend != BackendKind::kCpu) return UnimplementedError(graph_.source + ": only the cpu backend exists");
    if (config_.precision != Precision::kFp32) {
      return UnimplementedError(graph_.source + ": only fp32 precision is implemented");
    }
    if (config_.num_threads > 256) return InvalidArgumentError(graph_.source + ": num_threads must be <= 256");
    pool_ = std::make_unique<ThreadPool>(config_.num_threads);
    backend_ = CreateCpuBackend(config_);
    if (config_.algorithm == AlgorithmPolicy::kTune && !config_.tuning_cache.empty()) LoadTuningCache();
    bindings_.resize(graph_.tensors.size());
    for (size_t i = 0; i < graph_.tensors.size(); ++i) {
      const ir::TensorInfo& t = graph_.tensors[i];
      TensorBinding& b = bindings_[i];
      b.dtype = t.dtype;
      b.shape = t.shape;
      if (t.is_constant()) {
        b.constant = true;
        b.data = const_cast<uint8_t*>(t.data);  // kernels only read constants
      }
    }
    for (int id : graph_.outputs) {
      if (graph_.tensors[id].is_constant()) {
        return UnimplementedError(graph_.source + ": output '" + graph_.tensors[id].name + "' is a constant");
      }
    }
    for (const ir::Node& node : graph_.nodes) {
      ExecutionArgs args;
      args.graph = &graph_;
      args.node = &node;
      args.algorithm = config_.algorithm;
      args.pool = pool_.get();
      if (config_.algorithm == AlgorithmPolicy::kTune) args.tuning = &tuning_;
      for (int id : node.inputs) args.inputs.push_back(id >= 0 ? &bindings_[id] : nullptr);
      for (int id : node.outputs) args.outputs.push_back(&bindings_[id]);
      RILL_INF_ASSIGN_OR_RETURN(std::unique_ptr<Execution> exec, backend_->CreateExecution(args));
      executions_.push_back(std::move(exec));
    }
    const Layout layout = graph_.layout;
    for (int id : graph_.inputs) {
      const ir::TensorInfo& t = graph_.tensors[id];
      inputs_.emplace_back(t.name, t.dtype, t.shape.size() == 4 ? layout : Layout::kAny, t.shape, nullptr);
    }
    for (int id : graph_.outputs) {
      const ir::TensorInfo& t = graph_.tensors[id];
      outputs_.emplace_back(t.name, t.dtype, t.shape.size() == 4 ? layout : Layout::kAny, t.shape, nullptr);
    }
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
          shapes[id] = shape;
          found = true;
        }
      }
      if (!found) return NotFoundError(graph_.source + ": no input named '" + name + "'");
    }
    return Plan(std::move(shapes));
  }

  // Infers shapes, prepares executions and lays out the arena. On failure the
  // session keeps no half-planned state that Run could use.
  Status Plan(std::vector<Shape> shapes) {
    planned_ = false;
    RILL_INF_RETURN_IF_ERROR(graph_.InferShapes(&shapes));
    for (size_t i = 0; i < bindings_.size(); ++i) bindings_[i].shape = shapes[i];
    for (auto& exec : executions_) RILL_INF_RETURN_IF_ERROR(exec->Prepare());

    // Lifetimes in steps: node n runs at step n.
    const int steps = static_cast<int>(graph_.nodes.size());
    const int nt = static_cast<int>(graph_.tensors.size());
    std::vector<int> first(nt, -1), last(nt, -1);
    for (int id : graph_.inputs) first[id] = last[id] = 0;
    for (int n = 0; n < steps; ++n) {
      for (int id : graph_.nodes[n].inputs) {
        if (id >= 0 && !graph_.tensors[id].is_constant()) last[id] = std::max(last[id], n);
      }
      for (int id : graph_.nodes[n].outputs) {
        if (first[id] < 0) first[id] = n;
        last[id] = std::max(last[id], n);
      }
    }
    // Inputs stay intact through a run (a caller may run twice on one input);
    // outputs stay until the next run.
    for (int id : graph_.inputs) last[id] = std::max(steps, 0);
    for (int id : graph_.outputs) last[id] = std::max(steps, 0);
    std::vector<BufferRequest> requests;
    std::vector<int> owner;  // tensor id, or -(node+1) for scratch
    for (int id = 0; id < nt; ++id) {
      if (graph_.tensors[id].is_constant() || first[id] < 0) continue;
      BufferRequest r;
      r.bytes = static_cast<size_t>(NumElements(shapes[id])) * DataTypeSize(bindings_[id].dtype);
      r.first_step = first[id];
      r.last_step = last[id];
      requests.push_back(r);
      owner.push_back(id);
    }
    for (int n = 0; n < steps; ++n) {
      const size_t scratch = executions_[n]->scratch_bytes();
      if (scratch == 0) continue;
      requests.push_back(BufferRequest{scratch, n, n});
      owner.push_back(-(n + 1));
    }
    const ArenaPlan plan = PlanArena(requests, kArenaAlignment);
    if (plan.total_bytes > arena_capacity_) {
      uint8_t* p = static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, plan.total_bytes));
      if (p == nullptr) return InternalError(graph_.source + ": cannot allocate a " + std::to_string(plan.total_bytes) + "-byte arena");
      arena_.reset(p);
      arena_capacity_ = plan.total_bytes;
    }
    arena_bytes_ = plan.total_bytes;
    for (size_t i = 0; i < requests.size(); ++i) {
      uint8_t* p = arena_.get() + plan.offsets[i];
      if (owner[i] >= 0) bindings_[owner[i]].data = p;
      else executions_[-owner[i] - 1]->set_scratch(p);
    }
    for (size_t i = 0; i < graph_.inputs.size(); ++i) {
      const TensorBinding& b = bindings_[graph_.inputs[i]];
      inputs_[i].Rebind(b.shape, b.data);
    }
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      const TensorBinding& b = bindings_[graph_.outputs[i]];
      outputs_[i].Rebind(b.shape, b.data);
    }
    planned_ = true;
    if (tuning_.dirty && !config_.tuning_cache.empty()) SaveTuningCache();
    return Status::Ok();
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
    ScopedFlushDenormals flush;
    for (auto& exec : executions_) exec->Run();
    return Status::Ok();
  }

  Status RunProfiled(std::vector<double>* node_ms) {
    if (!planned_) return FailedPreconditionError(graph_.source + ": session is not planned (a resize failed)");
    node_ms->assign(executions_.size(), 0.0);
    ScopedFlushDenormals flush;
    for (size_t i = 0; i < executions_.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      executions_[i]->Run();
      (*node_ms)[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return Status::Ok();
  }

  std::vector<LayerInfo> Layers() const {
    std::vector<LayerInfo> layers;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const ir::Node& n = graph_.nodes[i];
      LayerInfo info;
      info.name = n.name;
      info.op = ir::OpTypeName(n.type);
      info.kernel = executions_[i]->name();
      info.output_shape = bindings_[n.outputs[0]].shape;
      const int64_t out = NumElements(info.output_shape);
      if (n.inputs.size() >= 2 && n.inputs[1] >= 0) {
        const Shape& w = bindings_[n.inputs[1]].shape;
        if (n.type == ir::OpType::kConv2D && w.size() == 4) info.macs = out * w[1] * w[2] * w[3];
        if (n.type == ir::OpType::kDepthwiseConv2D && w.size() == 4) info.macs = out * w[1] * w[2];
        if (n.type == ir::OpType::kTransposeConv2D && w.size() == 4) {
          info.macs = NumElements(bindings_[n.inputs[0]].shape) * w[0] * w[1] * w[2];
        }
        if (n.type == ir::OpType::kFullyConnected && w.size() == 2) info.macs = out * w[1];
      }
      layers.push_back(std::move(info));
    }
    return layers;
  }

  std::shared_ptr<const Model> model_;
  const ir::Graph& graph_;
  SessionConfig config_;
  std::unique_ptr<ThreadPool> pool_;
  TuningCache tuning_;
  std::unique_ptr<Backend> backend_;
  std::vector<TensorBinding> bindings_;
  std::vector<std::unique_ptr<Execution>> executions_;
  std::vector<Tensor> inputs_, outputs_;
  std::unique_ptr<uint8_t, AlignedFree> arena_;
  size_t arena_capacity_ = 0;
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

std::vector<std::string> Session::KernelNames() const {
  std::vector<std::string> names;
  for (const auto& e : impl_->executions_) names.push_back(e->name());
  return names;
}

const SessionConfig& Session::config() const { return impl_->config_; }

}  // namespace rill::inference
