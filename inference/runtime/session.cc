// Session: the facade over the three stages of execution_plan.h. Create and
// Resize place the graph (once, and again only when a device execution
// refuses its node in Prepare), infer shapes, prepare the executions and plan
// memory; Run hands the prepared plan to the executor.
#include "rill/inference/session.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include "inference/ir/graph.h"
#include "inference/ir/macs.h"
#include "inference/runtime/execution_plan.h"
#include "inference/runtime/executor.h"
#include "inference/runtime/memory_planner.h"
#include "inference/runtime/placement.h"

namespace rill::inference {

class Session::Impl {
 public:
  Impl(std::shared_ptr<const Model> model, const SessionConfig& config)
      : model_(std::move(model)), current_(model_), graph_(&model_->graph()), config_(config) {}

  Status Init() {
    if (config_.num_threads < 1) return InvalidArgumentError(graph_->source + ": num_threads must be >= 1");
    if (config_.num_threads > 256) return InvalidArgumentError(graph_->source + ": num_threads must be <= 256");
    if (config_.tune_log.empty()) {
      if (const char* env = std::getenv("RILL_TUNE_LOG")) config_.tune_log = env;  // experiments only
    }
    tuning_.log_path = config_.tune_log;
    if (config_.algorithm == AlgorithmPolicy::kTune && !config_.tuning_cache.empty()) LoadTuningCache();
    const Layout layout = graph_->layout;
    for (size_t i = 0; i < graph_->num_user_inputs(); ++i) {
      const ir::TensorInfo& t = graph_->tensors[graph_->inputs[i]];
      inputs_.emplace_back(t.name, t.dtype, t.shape.size() == 4 ? layout : Layout::kAny, t.shape, nullptr);
    }
    for (size_t i = 0; i < graph_->num_user_outputs(); ++i) {
      const ir::TensorInfo& t = graph_->tensors[graph_->outputs[i]];
      outputs_.emplace_back(t.name, t.dtype, t.shape.size() == 4 ? layout : Layout::kAny, t.shape, nullptr);
    }
    return Plan(graph_->InitialShapes());
  }

  Status Resize(const std::map<std::string, Shape>& input_shapes) {
    // The inputs' shapes after this resize; inputs not named (and the
    // variables') keep theirs.
    std::vector<Shape> wanted;
    for (const Tensor& t : inputs_) wanted.push_back(t.shape());
    for (size_t i = graph_->num_user_inputs(); i < graph_->inputs.size(); ++i) {
      wanted.push_back(shapes_.empty() ? graph_->tensors[graph_->inputs[i]].shape : shapes_[graph_->inputs[i]]);
    }
    for (const auto& [name, shape] : input_shapes) {
      bool found = false;
      for (size_t i = 0; i < graph_->num_user_inputs(); ++i) {
        if (graph_->tensors[graph_->inputs[i]].name != name) continue;
        for (int d : shape) {
          if (d <= 0) return InvalidArgumentError(graph_->source + ": input '" + name + "' resized to " + ShapeToString(shape));
        }
        wanted[i] = shape;
        found = true;
      }
      if (!found) return NotFoundError(graph_->source + ": no input named '" + name + "'");
    }
    // A graph built for its input shapes (ONNX) computes the model at those
    // only: other shapes take the graph imported for them.
    if (graph_->specialized_to_input_shapes && wanted != InputShapes(*graph_)) {
      RILL_INF_RETURN_IF_ERROR(SwitchModel(wanted));
    }
    std::vector<Shape> shapes = graph_->InitialShapes();
    for (size_t i = 0; i < graph_->inputs.size(); ++i) shapes[graph_->inputs[i]] = wanted[i];
    return Plan(std::move(shapes));
  }

  static std::vector<Shape> InputShapes(const ir::Graph& g) {
    std::vector<Shape> shapes;
    for (int id : g.inputs) shapes.push_back(g.tensors[id].shape);
    return shapes;
  }

  // Makes the session plan the model as imported for input shapes `wanted`:
  // the model it was created with when those are its shapes, else that
  // model imported again at them (Model::WithInputShapes; only the latest
  // such import is kept). The plan starts afresh: placement, kernels,
  // packed weights. On error the session keeps its graph and plan.
  Status SwitchModel(const std::vector<Shape>& wanted) {
    std::shared_ptr<const Model> next;
    if (InputShapes(model_->graph()) == wanted) {
      next = model_;
    } else if (InputShapes(current_->graph()) == wanted) {
      next = current_;
    } else {
      std::string changes;  // "input 'x' dimension 2 (height) 8 -> 16"
      for (size_t i = 0; i < wanted.size(); ++i) {
        const ir::TensorInfo& t = graph_->tensors[graph_->inputs[i]];
        if (wanted[i].size() != t.shape.size()) {
          return InvalidArgumentError(graph_->source + ": input '" + t.name + "' has rank " +
                                      std::to_string(t.shape.size()) + ", resized to " + ShapeToString(wanted[i]));
        }
        for (size_t d = 0; d < wanted[i].size(); ++d) {
          if (wanted[i][d] == t.shape[d]) continue;
          std::string what = "fixed in the model file";
          for (const ir::Graph::SymbolicDim& sd : graph_->symbolic_dims) {
            if (sd.input == static_cast<int>(i) && sd.axis == static_cast<int>(d)) what = "symbolic '" + sd.name + "'";
          }
          changes += std::string(changes.empty() ? "" : ", ") + "input '" + t.name + "' dimension " + std::to_string(d) +
                     " (" + what + ") " + std::to_string(t.shape[d]) + " -> " + std::to_string(wanted[i][d]);
        }
      }
      if (!model_->can_reimport()) {
        const std::string why =
            graph_->shape_folds.empty() ? "" : " (shape arithmetic folded at node '" + graph_->shape_folds.front() + "')";
        return FailedPreconditionError(graph_->source + ": cannot resize " + changes +
                                       ": the importer built the graph for the input shapes it loaded with" + why +
                                       ", and the model kept no bytes to import it again at others; load it with "
                                       "LoadOptions::input_shapes (or LoadOptions::keep_source_for_resize)");
      }
      std::map<std::string, std::vector<int>> shapes;
      for (size_t i = 0; i < wanted.size(); ++i) shapes[graph_->tensors[graph_->inputs[i]].name] = wanted[i];
      StatusOr<std::shared_ptr<const Model>> imported = model_->WithInputShapes(shapes);
      if (!imported.ok()) {
        return Status(imported.status().code(), "resizing " + changes + " (the model imported again at the new shapes): " +
                                                    imported.status().message());
      }
      next = *imported;
    }
    executor_.reset();
    plan_.reset();
    host_nodes_.clear();
    dynamic_.clear();
    shapes_.clear();
    planned_ = false;
    current_ = std::move(next);
    graph_ = &current_->graph();
    return Status::Ok();
  }

  // Places the graph if it is not placed, infers shapes, prepares the
  // executions and plans memory. A device execution that refuses its node in
  // Prepare (Unimplemented) sends the node to the CPU: the graph is placed
  // again without it. On failure the session keeps no half-planned state
  // that Run could use.
  Status Plan(std::vector<Shape> shapes) {
    planned_ = false;
    std::vector<bool> dynamic;
    RILL_INF_RETURN_IF_ERROR(graph_->InferShapes(&shapes, &dynamic));
    if (plan_ && dynamic != dynamic_) plan_.reset();  // placed for another dynamic region
    for (;;) {
      if (!plan_) {
        executor_.reset();
        auto plan = std::make_unique<ExecutionPlan>();
        RILL_INF_RETURN_IF_ERROR(PlaceGraph(*graph_, config_, host_nodes_, dynamic, &tuning_, plan.get()));
        plan_ = std::move(plan);
        dynamic_ = dynamic;
      }
      for (size_t i = 0; i < plan_->bindings.size(); ++i) plan_->bindings[i].shape = shapes[plan_->source[i]];
      for (BackendSlot& slot : plan_->backends) RILL_INF_RETURN_IF_ERROR(slot.backend->BeginResize());
      int refused = -1;
      RILL_INF_RETURN_IF_ERROR(PrepareTasks(&refused));
      if (refused < 0) break;
      host_nodes_.insert(refused);
      plan_.reset();
    }
    RILL_INF_RETURN_IF_ERROR(PlanMemory(*graph_, config_, plan_.get()));
    if (plan_->dynamic_region) plan_->dynamic_region->set_arena_bytes(plan_->arena_bytes);
    RILL_INF_RETURN_IF_ERROR(PlanRuns());
    for (BackendSlot& slot : plan_->backends) RILL_INF_RETURN_IF_ERROR(slot.backend->EndResize());
    if (!executor_) {
      executor_ = std::make_unique<Executor>(plan_.get());
      executor_->set_tracing(tracing_);
    }
    shapes_ = std::move(shapes);
    for (size_t i = 0; i < graph_->num_user_inputs(); ++i) {
      const TensorBinding& b = plan_->bindings[graph_->inputs[i]];
      inputs_[i].Rebind(b.shape, b.host());
    }
    for (size_t i = 0; i < graph_->num_user_outputs(); ++i) {
      const TensorBinding& b = plan_->bindings[plan_->host_outputs[i]];
      outputs_[i].Rebind(b.shape, b.host());
    }
    planned_ = true;
    ResetVariables();  // the arena is new: the state starts again from zeros
    if (tuning_.dirty && !config_.tuning_cache.empty()) SaveTuningCache();
    return Status::Ok();
  }

  // Tells each backend its tasks of a run in its stream's order
  // (Backend::PlanRun): a backend that records command buffers records them.
  Status PlanRuns() {
    for (size_t b = 0; b < plan_->backends.size(); ++b) {
      std::vector<RunStep> steps;
      for (Task& task : plan_->tasks) {
        if (task.backend != static_cast<int>(b) || task.elided) continue;
        RunStep step;
        step.waits = !task.waits.empty();
        if (task.node >= 0) {
          step.execution = task.exec.get();
        } else {
          const bool to_host = plan_->memory[task.writes[0]] == 0;
          step.kind = to_host ? RunStep::Kind::kCopyToHost : RunStep::Kind::kCopyFromHost;
          step.device = &plan_->bindings[to_host ? task.reads[0] : task.writes[0]];
        }
        steps.push_back(step);
      }
      RILL_INF_RETURN_IF_ERROR(plan_->backends[b].backend->PlanRun(steps));
    }
    return Status::Ok();
  }

  // Prepares every task; `refused` is the node of the first device
  // execution that answered Unimplemented (-1: none).
  Status PrepareTasks(int* refused) {
    for (Task& task : plan_->tasks) {
      Status status = task.exec->Prepare();
      if (status.code() == StatusCode::kUnimplemented && task.node >= 0 && task.backend != 0) {
        *refused = task.node;
        return Status::Ok();
      }
      RILL_INF_RETURN_IF_ERROR(status);
    }
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
    if (!planned_) return FailedPreconditionError(graph_->source + ": session is not planned (a resize failed)");
    RILL_INF_RETURN_IF_ERROR(executor_->Run());
    RebindDynamicOutputs();
    CarryVariables();
    return Status::Ok();
  }

  Status RunProfiled(std::vector<double>* node_ms) {
    if (!planned_) return FailedPreconditionError(graph_->source + ": session is not planned (a resize failed)");
    node_ms->assign(graph_->nodes.size(), 0.0);
    RILL_INF_RETURN_IF_ERROR(executor_->RunProfiled(node_ms));
    RebindDynamicOutputs();
    CarryVariables();
    return Status::Ok();
  }

  // The variables' bytes (ir::Graph::variables): a graph input and a
  // graph output on the host, each bound apart from every other tensor
  // (the memory planner never aliases graph inputs and outputs).
  size_t VariableBytes(int id) const {
    const TensorBinding& b = plan_->bindings[id];
    return static_cast<size_t>(NumElements(b.shape)) * DataTypeSize(b.dtype);
  }
  void* VariableInput(size_t k) const {
    return plan_->bindings[graph_->inputs[graph_->num_user_inputs() + k]].host();
  }

  // Each variable's value at the end of the run becomes its value at the
  // start of the next one (a copy of the state: allocation-free).
  void CarryVariables() {
    for (size_t k = 0; k < graph_->variables.size(); ++k) {
      const int out = plan_->host_outputs[graph_->num_user_outputs() + k];
      std::memmove(VariableInput(k), plan_->bindings[out].host(), VariableBytes(out));
    }
  }

  void ResetVariables() {
    if (!planned_) return;
    for (size_t k = 0; k < graph_->variables.size(); ++k) {
      std::memset(VariableInput(k), 0, VariableBytes(graph_->inputs[graph_->num_user_inputs() + k]));
    }
  }

  // Outputs of the dynamic region take this run's shape and memory (a
  // graph without one keeps its allocation-free runs).
  void RebindDynamicOutputs() {
    if (!plan_->dynamic_region) return;
    for (size_t i = 0; i < graph_->num_user_outputs(); ++i) {
      const TensorBinding& b = plan_->bindings[plan_->host_outputs[i]];
      if (outputs_[i].shape() != b.shape || outputs_[i].data() != b.host()) outputs_[i].Rebind(b.shape, b.host());
    }
  }

  std::vector<LayerInfo> Layers() const {
    std::vector<LayerInfo> layers;
    if (!plan_) return layers;
    for (size_t i = 0; i < graph_->nodes.size(); ++i) {
      const ir::Node& n = graph_->nodes[i];
      const Task& task = plan_->tasks[plan_->node_task[i]];
      LayerInfo info;
      info.name = n.name;
      info.op = ir::OpTypeName(n.type);
      info.kernel = !task.elided                      ? task.exec->name()
                    : n.type == ir::OpType::kReshape ? "reshape_in_place"
                                                     : "concatenation_in_place";
      info.backend = plan_->backends[task.backend].name;
      info.output_shape = plan_->bindings[n.outputs[0]].shape;
      // A node of the dynamic region has no planned size to count.
      const bool dynamic = i < dynamic_.size() && dynamic_[i];
      if (!shapes_.empty() && !dynamic) info.macs = ir::NodeMacs(n, shapes_);
      layers.push_back(std::move(info));
    }
    return layers;
  }

  std::shared_ptr<const Model> model_;    // as created
  std::shared_ptr<const Model> current_;  // whose graph is planned: model_, or model_ imported again (SwitchModel)
  const ir::Graph* graph_;                // current_'s
  SessionConfig config_;
  TuningCache tuning_;
  std::set<int> host_nodes_;  // nodes whose device execution refused them in Prepare
  std::vector<bool> dynamic_;   // nodes of the dynamic region, as placed
  std::unique_ptr<ExecutionPlan> plan_;
  std::unique_ptr<Executor> executor_;  // destroyed before plan_ (declared after it)
  std::vector<Shape> shapes_;           // of the graph's tensors, as last planned
  std::vector<Tensor> inputs_, outputs_;
  bool planned_ = false;
  bool tracing_ = false;
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
void Session::ResetVariables() { impl_->ResetVariables(); }
int Session::num_variables() const { return static_cast<int>(impl_->graph_->variables.size()); }
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

size_t Session::arena_bytes() const { return impl_->plan_ ? impl_->plan_->arena_bytes : 0; }
size_t Session::packed_weight_bytes() const {
  size_t bytes = 0;
  if (impl_->plan_) {
    for (const Task& t : impl_->plan_->tasks) bytes += t.exec->packed_weight_bytes();
  }
  return bytes;
}

std::vector<std::string> Session::KernelNames() const {
  std::vector<std::string> names;
  if (impl_->plan_) {
    for (int t : impl_->plan_->node_task) names.push_back(impl_->plan_->tasks[t].exec->name());
  }
  return names;
}

const SessionConfig& Session::config() const { return impl_->config_; }

void Session::set_tracing(bool on) {
  impl_->tracing_ = on;
  if (impl_->executor_) impl_->executor_->set_tracing(on);
}

std::vector<TaskSpan> Session::LastRunTrace() const {
  std::vector<TaskSpan> spans;
  if (!impl_->executor_ || !impl_->executor_->tracing()) return spans;
  const ExecutionPlan& plan = *impl_->plan_;
  const auto& times = impl_->executor_->task_times();
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    if (t.elided) continue;
    TaskSpan s;
    s.name = t.node >= 0 ? impl_->graph_->nodes[t.node].name : t.exec->name();
    s.kernel = t.exec->name();
    s.backend = plan.backends[t.backend].name;
    s.stream = t.stream;
    s.start_us = times[i].start * 1e-3;
    s.end_us = times[i].end * 1e-3;
    s.finish_us = times[i].finish * 1e-3;
    spans.push_back(std::move(s));
  }
  return spans;
}

std::string Session::LastRunTraceJson() const {
  std::string json = "{\"traceEvents\":[";
  bool first = true;
  auto event = [&](const std::string& name, const std::string& cat, int tid, double ts, double dur) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", tid, ts, dur);
    std::string escaped;
    for (char c : name) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    json += std::string(first ? "" : ",") + "{\"name\":\"" + escaped + "\",\"cat\":\"" + cat + "\"," + buf;
    first = false;
  };
  for (const TaskSpan& s : LastRunTrace()) {
    event(s.name + " [" + s.kernel + "]", s.backend, s.stream, s.start_us, s.end_us - s.start_us);
    if (s.finish_us > s.end_us) event(s.backend + ": wait for the device", s.backend, s.stream, s.end_us, s.finish_us - s.end_us);
  }
  return json + "]}";
}

}  // namespace rill::inference
