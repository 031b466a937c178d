#include "inference/runtime/placement.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inference/ir/ops/dynamic_ops.h"
#include "inference/runtime/loop_execution.h"
#include "inference/runtime/memory_planner.h"

namespace rill::inference {
namespace {

// Moves a whole tensor between a backend's storage and dense host memory;
// runs on that backend's stream.
class TransferExecution : public Execution {
 public:
  TransferExecution(Backend* device, const TensorBinding* src, const TensorBinding* dst, bool to_host)
      : device_(device), src_(src), dst_(dst), to_host_(to_host) {}
  std::string name() const override {
    return std::string(to_host_ ? "copy_to_host(" : "copy_from_host(") + device_->name() + ")";
  }
  Status Prepare() override { return Status::Ok(); }
  Status Run() override {
    return to_host_ ? device_->CopyToHost(*src_, dst_->host()) : device_->CopyFromHost(src_->host(), *dst_);
  }

 private:
  Backend* device_;
  const TensorBinding* src_;
  const TensorBinding* dst_;
  bool to_host_;
};

class Placer {
 public:
  Placer(const ir::Graph& graph, const SessionConfig& config, TuningCache* tuning, ExecutionPlan* plan)
      : graph_(graph), config_(config), tuning_(tuning), plan_(*plan) {}

  Status Place(const std::set<int>& host_nodes, const std::vector<bool>& dynamic_nodes) {
    dynamic_ = dynamic_nodes;
    dynamic_.resize(graph_.nodes.size(), false);
    if (std::find(dynamic_.begin(), dynamic_.end(), true) != dynamic_.end()) {
      plan_.dynamic_region = std::make_unique<DynamicRegion>(graph_, MemoryBound(config_));
    }
    // Backend 0 is the host CPU: graph inputs and outputs live there, and
    // nodes other backends cannot run fall back to it.
    RILL_INF_RETURN_IF_ERROR(AddBackend(kCpuBackend).status());
    for (size_t i = 0; i < graph_.tensors.size(); ++i) {
      const ir::TensorInfo& t = graph_.tensors[i];
      TensorBinding& b = plan_.bindings.emplace_back();
      b.dtype = t.dtype;
      b.shape = t.shape;
      if (t.is_constant()) {
        b.constant = true;
        b.constant_data = t.data;
      }
      plan_.memory.push_back(t.is_constant() ? -1 : 0);
      plan_.source.push_back(static_cast<int>(i));
      plan_.writer.push_back(-1);
    }
    for (int id : graph_.outputs) {
      if (graph_.tensors[id].is_constant()) {
        return UnimplementedError(graph_.source + ": output '" + graph_.tensors[id].name + "' is a constant");
      }
    }
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      int backend = 0;
      // The dynamic region runs on the CPU (runtime/dynamic_region.h).
      if (!host_nodes.count(static_cast<int>(n)) && !dynamic_[n]) {
        RILL_INF_ASSIGN_OR_RETURN(backend, BackendOf(static_cast<int>(n)));
      }
      Status status = AddNodeTask(static_cast<int>(n), backend);
      if (status.code() == StatusCode::kUnimplemented && backend != 0) status = AddNodeTask(static_cast<int>(n), 0);
      RILL_INF_RETURN_IF_ERROR(status);
    }
    for (int id : graph_.outputs) plan_.host_outputs.push_back(OnSpace(id, 0));
    SetUpStreams();
    ShareThreads();
    return Status::Ok();
  }

 private:
  // "gpu" (kGpuBackend): OpenCL where it loads, else Vulkan, decided once
  // per session; an Unavailable error naming both where neither does.
  StatusOr<int> AddGpuBackend() {
    if (!gpu_.empty()) return AddBackend(gpu_);
    StatusOr<int> opencl = AddBackend("opencl");
    if (opencl.ok() || (opencl.status().code() != StatusCode::kUnavailable &&
                        opencl.status().code() != StatusCode::kNotFound)) {
      if (opencl.ok()) gpu_ = "opencl";
      return opencl;
    }
    StatusOr<int> vulkan = AddBackend("vulkan");
    if (vulkan.ok()) {
      gpu_ = "vulkan";
      std::fprintf(stderr, "rill: %s: \"gpu\" runs on vulkan: no OpenCL (%s)\n", graph_.source.c_str(),
                   opencl.status().message().c_str());
      return vulkan;
    }
    if (vulkan.status().code() != StatusCode::kUnavailable && vulkan.status().code() != StatusCode::kNotFound) {
      return vulkan;
    }
    // The errors without the model's name that each starts with.
    auto why = [&](const Status& s) {
      const std::string prefix = graph_.source + ": ";
      return s.message().compare(0, prefix.size(), prefix) == 0 ? s.message().substr(prefix.size()) : s.message();
    };
    return UnavailableError(graph_.source + ": no GPU backend for \"gpu\": " + why(opencl.status()) + "; " +
                            why(vulkan.status()));
  }

  // The backend index of a name, creating the backend on first use.
  StatusOr<int> AddBackend(const std::string& name) {
    if (name == kGpuBackend) return AddGpuBackend();
    for (size_t k = 0; k < plan_.backends.size(); ++k) {
      if (plan_.backends[k].name == name) return static_cast<int>(k);
    }
    BackendSlot slot;
    slot.name = name;
    StatusOr<std::unique_ptr<Backend>> backend = CreateBackend(name, config_);
    if (!backend.ok()) return Status(backend.status().code(), graph_.source + ": " + backend.status().message());
    slot.backend = std::move(*backend);
    if (plan_.backends.empty() && !slot.backend->host_memory()) {
      return InternalError(graph_.source + ": the first backend must be the host's");
    }
    plan_.backends.push_back(std::move(slot));
    return static_cast<int>(plan_.backends.size()) - 1;
  }

  StatusOr<int> BackendOf(int n) {
    const ir::Node& node = graph_.nodes[n];
    std::string name = config_.backend;
    auto it = config_.node_backends.find(node.name);
    if (it != config_.node_backends.end()) {
      name = it->second;
    } else if (config_.placement) {
      name = config_.placement(NodeRef{n, node.name, ir::OpTypeName(node.type)});
    }
    return AddBackend(name);
  }

  // The binding that holds graph tensor `id` in memory space `space`,
  // adding the transfers that bring it there (through host memory).
  int OnSpace(int id, int space) {
    if (plan_.bindings[id].constant || plan_.SpaceOf(plan_.memory[id]) == space) return id;
    const auto key = std::make_pair(id, space);
    auto it = plan_.copies.find(key);
    if (it != plan_.copies.end()) return it->second;
    const int from = space == 0 ? id : OnSpace(id, 0);
    const int device = space == 0 ? plan_.memory[id] : space;
    const int copy = static_cast<int>(plan_.bindings.size());
    TensorBinding& b = plan_.bindings.emplace_back();
    b.dtype = plan_.bindings[id].dtype;
    b.shape = plan_.bindings[id].shape;
    plan_.memory.push_back(space);
    plan_.source.push_back(id);
    plan_.writer.push_back(-1);
    plan_.copies[key] = copy;
    copy_log_.push_back(key);
    Task task;
    task.exec = std::make_unique<TransferExecution>(plan_.backends[device].backend.get(), &plan_.bindings[from],
                                                    &plan_.bindings[copy], space == 0);
    task.backend = device;
    task.reads = {from};
    task.writes = {copy};
    AppendTask(std::move(task));
    return copy;
  }

  void AppendTask(Task task) {
    for (int id : task.writes) plan_.writer[id] = static_cast<int>(plan_.tasks.size());
    plan_.tasks.push_back(std::move(task));
  }

  // Adds node n's execution on `backend` (after the transfers its inputs
  // need). On an error everything it added is taken back.
  Status AddNodeTask(int n, int backend) {
    const ir::Node& node = graph_.nodes[n];
    const size_t bindings_mark = plan_.bindings.size(), tasks_mark = plan_.tasks.size(), log_mark = copy_log_.size();
    const int space = plan_.SpaceOf(backend);
    ExecutionArgs args;
    args.graph = &graph_;
    args.node = &node;
    args.algorithm = config_.algorithm;
    args.precision = config_.precision;
    args.bf16_even_if_slower = config_.bf16_even_if_slower;
    if (config_.algorithm == AlgorithmPolicy::kTune) args.tuning = tuning_;
    Task task;
    task.backend = backend;
    task.node = n;
    for (int id : node.inputs) {
      if (id < 0) {
        args.inputs.push_back(nullptr);
        continue;
      }
      const int b = OnSpace(id, space);
      args.inputs.push_back(&plan_.bindings[b]);
      task.reads.push_back(b);
    }
    for (int id : node.outputs) {
      args.outputs.push_back(&plan_.bindings[id]);
      task.writes.push_back(id);
    }
    // A guarded node (a branch of an If) reads its conditions before it runs.
    std::vector<RunGuard> guards;
    for (const ir::Guard& g : node.guards) {
      const int b = OnSpace(g.tensor, space);
      guards.push_back(RunGuard{&plan_.bindings[b], g.when});
      task.reads.push_back(b);
    }
    // A LOOP runs its body on the CPU, in the dynamic region (loop_execution.h).
    const bool loop = node.type == ir::LoopOp();
    if (loop && (backend != 0 || !plan_.dynamic_region)) {
      return InternalError(graph_.NodeContext(node) + "a LOOP runs in the dynamic region, on the CPU");
    }
    StatusOr<std::unique_ptr<Execution>> exec =
        loop ? MakeLoopExecution(plan_.dynamic_region.get(), plan_.backends[0].backend.get(), args, guards)
             : plan_.backends[backend].backend->CreateExecution(args);
    if (!exec.ok()) {
      while (plan_.bindings.size() > bindings_mark) {
        plan_.bindings.pop_back();
        plan_.memory.pop_back();
        plan_.source.pop_back();
        plan_.writer.pop_back();
      }
      plan_.tasks.resize(tasks_mark);
      while (copy_log_.size() > log_mark) {
        plan_.copies.erase(copy_log_.back());
        copy_log_.pop_back();
      }
      return exec.status();
    }
    task.exec = std::move(*exec);
    if (loop) {
      task.dynamic = true;
    } else if (dynamic_[n]) {
      task.dynamic = true;
      task.exec = MakeDynamicExecution(plan_.dynamic_region.get(), node, std::move(task.exec), args.inputs,
                                       args.outputs, std::move(guards));
    }
    for (int id : node.outputs) plan_.memory[id] = space;
    plan_.node_task.push_back(static_cast<int>(plan_.tasks.size()));
    AppendTask(std::move(task));
    return Status::Ok();
  }

  // Lanes: with branch_streams, on a backend with several queues, each
  // branch of a multi-output model (the nodes only one output needs) gets a
  // lane of its own, lane 0 the shared trunk; branches beyond the backend's
  // lanes share them round-robin. A transfer goes to the lane of the task on
  // its backend that writes what it copies out, or that reads what it copies
  // in.
  void AssignLanes() {
    if (!config_.concurrent_backends || !config_.branch_streams || graph_.outputs.size() < 2) return;
    std::vector<int> branch(graph_.nodes.size(), -1);
    for (size_t k = 0; k < graph_.outputs.size(); ++k) {
      const std::vector<bool> head = graph_.HeadOf(static_cast<int>(k));
      for (size_t n = 0; n < head.size() && n < branch.size(); ++n) {
        if (head[n]) branch[n] = static_cast<int>(k);
      }
    }
    std::vector<std::map<int, int>> lane_of_branch(plan_.backends.size());
    for (Task& task : plan_.tasks) {
      if (task.node < 0 || branch[task.node] < 0) continue;
      const int lanes = plan_.backends[task.backend].backend->MaxLanes();
      if (lanes < 2) continue;
      auto& map = lane_of_branch[task.backend];
      auto it = map.find(branch[task.node]);
      if (it == map.end()) {
        it = map.emplace(branch[task.node], 1 + static_cast<int>(map.size()) % (lanes - 1)).first;
      }
      task.lane = it->second;
    }
    for (size_t i = 0; i < plan_.tasks.size(); ++i) {
      Task& task = plan_.tasks[i];
      if (task.node >= 0) continue;
      for (int id : task.reads) {
        const int w = plan_.writer[id];
        if (w >= 0 && plan_.tasks[w].backend == task.backend) task.lane = plan_.tasks[w].lane;
      }
      for (int id : task.writes) {
        for (size_t r = i + 1; r < plan_.tasks.size(); ++r) {
          const Task& reader = plan_.tasks[r];
          if (reader.backend == task.backend && reader.node >= 0 &&
              std::find(reader.reads.begin(), reader.reads.end(), id) != reader.reads.end()) {
            task.lane = reader.lane;
            break;
          }
        }
      }
    }
  }

  // Streams: the host's (the calling thread) and, with concurrent_backends,
  // one thread per other backend and lane that has tasks. A task waits only
  // for the writers of what it reads that run on other streams.
  void SetUpStreams() {
    AssignLanes();
    std::map<std::pair<int, int>, int> stream_of;  // (backend, lane) -> stream
    plan_.stream_lane.assign(1, {0, 0});
    for (const Task& task : plan_.tasks) {
      const std::pair<int, int> key(task.backend, task.lane);
      if (stream_of.count(key)) continue;
      if (task.backend == 0 || !config_.concurrent_backends) {
        stream_of[key] = 0;
      } else {
        stream_of[key] = static_cast<int>(plan_.stream_lane.size());
        plan_.stream_lane.push_back(key);
      }
    }
    plan_.stream_tasks.assign(plan_.stream_lane.size(), {});
    std::map<std::pair<int, int>, int> first, last;
    for (size_t i = 0; i < plan_.tasks.size(); ++i) {
      Task& task = plan_.tasks[i];
      const std::pair<int, int> key(task.backend, task.lane);
      task.stream = stream_of[key];
      plan_.stream_tasks[task.stream].push_back(static_cast<int>(i));
      if (!first.count(key)) first[key] = static_cast<int>(i);
      last[key] = static_cast<int>(i);
    }
    for (const auto& [key, t] : first) plan_.tasks[t].begins_backend = true;
    for (const auto& [key, t] : last) plan_.tasks[t].ends_backend = true;
    for (Task& task : plan_.tasks) {
      for (int id : task.reads) {
        const int w = plan_.writer[id];
        if (w < 0 || plan_.tasks[w].stream == task.stream) continue;
        if (std::find(task.waits.begin(), task.waits.end(), w) == task.waits.end()) task.waits.push_back(w);
        Task& writer = plan_.tasks[w];
        writer.signals = true;
        if (writer.backend == task.backend && writer.lane != task.lane) writer.sync_lane = true;
      }
    }
  }

  bool Used(int backend) const {
    for (const Task& t : plan_.tasks) {
      if (t.backend == backend) return true;
    }
    return false;
  }

  // SessionConfig::num_threads among the backends that compute on the host:
  // run one after another they each get all of them; run concurrently they
  // share them (the host's backend gets the remainder), at least one each.
  void ShareThreads() {
    std::vector<int> hosts;
    for (size_t k = 0; k < plan_.backends.size(); ++k) {
      if (plan_.backends[k].backend->computes_on_host() && (k == 0 || Used(static_cast<int>(k)))) {
        hosts.push_back(static_cast<int>(k));
      }
    }
    const int share = config_.concurrent_backends ? static_cast<int>(hosts.size()) : 1;
    for (size_t i = 0; i < hosts.size(); ++i) {
      int threads = config_.num_threads / share;
      if (i == 0) threads += config_.num_threads % share;
      plan_.backends[hosts[i]].backend->SetThreadBudget(std::max(1, threads));
    }
  }

  const ir::Graph& graph_;
  const SessionConfig& config_;
  TuningCache* tuning_;
  ExecutionPlan& plan_;
  std::vector<std::pair<int, int>> copy_log_;  // copies in the order added, to take back
  std::string gpu_;  // what "gpu" resolved to ("" until asked)
  std::vector<bool> dynamic_;  // nodes of the dynamic region
};

}  // namespace

Status PlaceGraph(const ir::Graph& graph, const SessionConfig& config, const std::set<int>& host_nodes,
                  const std::vector<bool>& dynamic_nodes, TuningCache* tuning, ExecutionPlan* plan) {
  return Placer(graph, config, tuning, plan).Place(host_nodes, dynamic_nodes);
}

}  // namespace rill::inference
