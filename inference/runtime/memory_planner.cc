#include "inference/runtime/memory_planner.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "inference/runtime/arena_planner.h"

namespace rill::inference {
namespace {

constexpr size_t kArenaAlignment = 64;

// Half of the machine's physical memory (1 GiB where it cannot be read).
size_t DefaultMemoryBound() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return size_t{1} << 30;
  return static_cast<size_t>(pages) / 2 * static_cast<size_t>(page);
}


class MemoryPlanner {
 public:
  MemoryPlanner(const ir::Graph& graph, const SessionConfig& config, ExecutionPlan* plan)
      : graph_(graph), config_(config), plan_(*plan) {}

  Status Plan() {
    LayOut();
    const int nb = static_cast<int>(plan_.bindings.size());
    plan_.alias_of.assign(nb, -1);
    plan_.alias_offset.assign(nb, 0);
    ElideConcatenations();
    ElideReshapes();
    return Allocate();
  }

 private:
  // Each activation's storage, as the backend that holds it lays it out.
  void LayOut() {
    for (size_t id = 0; id < plan_.bindings.size(); ++id) {
      TensorBinding& b = plan_.bindings[id];
      if (b.constant || ir::HasDynamicDim(b.shape)) continue;  // the dynamic region's own
      b.layout = plan_.backends[plan_.memory[id]].backend->StorageFor(b.desc());
    }
  }

  // Graph inputs and outputs (as the caller sees them): they keep their own
  // bytes, never aliased into another tensor's.
  std::vector<bool> BoundaryTensors() const {
    std::vector<bool> boundary(plan_.bindings.size(), false);
    for (int id : graph_.inputs) boundary[id] = true;
    for (int id : graph_.outputs) boundary[id] = true;
    for (int id : plan_.host_outputs) boundary[id] = true;
    return boundary;
  }

  // A CONCATENATION along the last (NHWC channel) axis costs nothing when
  // each input is written by one task, on the same backend and stream, that
  // can write its output with a pixel stride (StridedOutput: the x86 and
  // OpenCL CONV_2D) and that no other task reads: those tasks write straight into
  // their channel slice of the concatenation's output, which is planned to
  // live from the first of them, and the concatenation does not run.
  // Decided at every plan, after Prepare (which resets the strides).
  void ElideConcatenations() {
    const int nb = static_cast<int>(plan_.bindings.size());
    std::vector<int> readers(nb, 0);
    const std::vector<bool> boundary = BoundaryTensors();
    for (const Task& t : plan_.tasks) {
      for (int id : t.reads) ++readers[id];
    }
    for (size_t ti = 0; ti < plan_.tasks.size(); ++ti) {
      Task& task = plan_.tasks[ti];
      task.elided = false;
      if (task.node < 0 || task.writes.size() != 1 || task.dynamic) continue;
      const ir::Node& node = graph_.nodes[task.node];
      const int out = task.writes[0];
      const TensorBinding& y = plan_.bindings[out];
      const int rank = static_cast<int>(y.shape.size());
      if (node.type != ir::OpType::kConcatenation || node.attrs.activation != ir::Activation::kNone || rank < 2 ||
          (node.attrs.axis + rank) % rank != rank - 1 || y.dtype != DataType::kFloat32 || !y.layout.dense() ||
          task.reads.size() != node.inputs.size() || task.reads.size() < 2) {
        continue;
      }
      std::vector<StridedOutput*> producers;
      for (int id : task.reads) {
        const int w = plan_.writer[id];
        if (plan_.bindings[id].constant || boundary[id] || readers[id] != 1 || w < 0 || w >= static_cast<int>(ti) ||
            plan_.tasks[w].node < 0 || plan_.tasks[w].dynamic || plan_.tasks[w].writes.size() != 1 ||
            plan_.tasks[w].backend != task.backend ||
            plan_.tasks[w].stream != task.stream || plan_.memory[id] != plan_.memory[out] ||
            !plan_.bindings[id].layout.dense()) {
          break;
        }
        StridedOutput* producer = AsStridedOutput(plan_.tasks[w].exec.get());
        if (producer == nullptr) break;
        producers.push_back(producer);
      }
      if (producers.size() != task.reads.size()) continue;
      const int stride = y.shape[rank - 1];
      size_t asked = 0;
      while (asked < producers.size() && producers[asked]->SetOutputPixelStride(stride)) ++asked;
      if (asked < producers.size()) {
        for (size_t k = 0; k < asked; ++k) producers[k]->SetOutputPixelStride(0);
        continue;
      }
      // Bytes per element as the backend stores them (halves on a device in fp16).
      const size_t element = y.layout.bytes / std::max<int64_t>(1, NumElements(y.shape));
      size_t offset = 0;
      for (int id : task.reads) {
        plan_.alias_of[id] = out;
        plan_.alias_offset[id] = offset;
        offset += static_cast<size_t>(plan_.bindings[id].shape[rank - 1]) * element;
      }
      task.elided = true;
    }
  }

  // A RESHAPE (or Flatten/Squeeze) only renames bytes: its output is planned
  // as a view of its input's bytes and the task does not run (ShuffleNet
  // copied 32 tensors a run). Not for graph inputs and outputs (they keep
  // their own bytes), across memories, for storage that is not dense, or for
  // an input that is a strided channel slice of an elided concatenation;
  // chains resolve to one buffer.
  void ElideReshapes() {
    const int nb = static_cast<int>(plan_.bindings.size());
    const std::vector<bool> boundary = BoundaryTensors();
    std::vector<bool> view(nb, false);  // an elided reshape's output
    for (Task& task : plan_.tasks) {
      if (task.node < 0 || task.elided || task.dynamic || task.writes.size() != 1 || task.reads.empty()) continue;
      if (graph_.nodes[task.node].type != ir::OpType::kReshape) continue;
      const int in = task.reads[0], out = task.writes[0];
      const TensorBinding& x = plan_.bindings[in];
      const TensorBinding& y = plan_.bindings[out];
      if (x.constant || boundary[in] || boundary[out] || plan_.memory[in] != plan_.memory[out] ||
          !x.layout.dense() || !y.layout.dense() || x.dense_bytes() != y.dense_bytes() ||
          (plan_.alias_of[in] >= 0 && !view[in])) {
        continue;
      }
      plan_.alias_of[out] = plan_.alias_of[in] >= 0 ? plan_.alias_of[in] : in;
      plan_.alias_offset[out] = plan_.alias_of[in] >= 0 ? plan_.alias_offset[in] : 0;
      view[out] = true;
      task.elided = true;
    }
  }

  // Lifetimes in steps: task t runs at step t. When streams run
  // concurrently, step order holds only within a stream: the buffers one
  // stream alone touches are planned among themselves (they share bytes only
  // with buffers of the same stream) in a region of the backend's arena of
  // their own, and a buffer several streams touch lives for the whole run in
  // a region of the shared ones.
  Status Allocate() {
    const int steps = static_cast<int>(plan_.tasks.size());
    const int nb = static_cast<int>(plan_.bindings.size());
    std::vector<int> first(nb, -1), last(nb, -1), stream(nb, -1);
    std::vector<bool> shared(nb, false);
    auto touch = [&](int id, int step, int s) {
      if (plan_.alias_of[id] >= 0) id = plan_.alias_of[id];
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
      for (int id : plan_.tasks[t].writes) touch(id, t, plan_.tasks[t].stream);
      for (int id : plan_.tasks[t].reads) {
        if (!plan_.bindings[id].constant) touch(id, t, plan_.tasks[t].stream);
      }
    }
    for (int id : plan_.host_outputs) shared[id] = true;
    const int span = steps;
    const size_t nbk = plan_.backends.size();
    std::vector<std::vector<BufferRequest>> requests(nbk);
    std::vector<std::vector<int>> owner(nbk);  // binding id, or -(task+1) for scratch
    std::vector<std::vector<int>> group(nbk);  // stream of each request, -1: shared
    std::vector<size_t> alignment(nbk, kArenaAlignment);
    std::vector<int> own_storage;  // bindings stored outside the arena
    size_t total = 0;
    for (int id = 0; id < nb; ++id) {
      const TensorBinding& b = plan_.bindings[id];
      if (b.constant || plan_.alias_of[id] >= 0 || first[id] < 0 || ir::HasDynamicDim(b.shape)) continue;
      if (b.layout.kind != StorageKind::kBuffer) {
        own_storage.push_back(id);
        total += b.layout.bytes;
        continue;
      }
      BufferRequest r;
      r.bytes = b.layout.bytes;
      if (shared[id]) {
        r.first_step = 0;
        r.last_step = span;
      } else {
        r.first_step = first[id];
        r.last_step = last[id];
      }
      const int k = plan_.memory[id];
      requests[k].push_back(r);
      owner[k].push_back(id);
      group[k].push_back(shared[id] ? -1 : stream[id]);
      alignment[k] = std::max(alignment[k], b.layout.alignment);
    }
    for (int t = 0; t < steps; ++t) {
      const size_t scratch = plan_.tasks[t].exec->scratch_bytes();
      if (scratch == 0) continue;
      requests[plan_.tasks[t].backend].push_back(BufferRequest{scratch, t, t});
      owner[plan_.tasks[t].backend].push_back(-(t + 1));
      group[plan_.tasks[t].backend].push_back(plan_.tasks[t].stream);
    }
    std::vector<ArenaPlan> arenas;
    for (size_t k = 0; k < nbk; ++k) {
      arenas.push_back(PlanGroups(requests[k], group[k], alignment[k]));
      total += arenas.back().total_bytes;
    }
    const size_t bound = MemoryBound(config_);
    if (total > bound) {
      return OutOfRangeError(graph_.source + ": plans " + std::to_string(total) + " bytes (" + Megabytes(total) +
                             ") of activations, over the memory bound of " + std::to_string(bound) + " bytes (" +
                             Megabytes(bound) +
                             (config_.max_memory_bytes != 0 ? "" : ", half this machine's memory") +
                             "); raise it with SessionConfig::max_memory_bytes, rill model --max_memory_mb=N or "
                             "InferenceCalculatorOptions.max_memory_mb");
    }
    plan_.arena_bytes = total;
    for (size_t k = 0; k < nbk; ++k) {
      BackendSlot& slot = plan_.backends[k];
      const ArenaPlan& arena = arenas[k];
      if (!slot.arena || arena.total_bytes > slot.arena->size()) {
        slot.arena.reset();
        slot.arena = slot.backend->AllocateBuffer(arena.total_bytes);
        if (!slot.arena) return AllocationError(arena.total_bytes, slot.name);
      }
      for (size_t i = 0; i < requests[k].size(); ++i) {
        const MemoryRef ref{slot.arena.get(), arena.offsets[i]};
        if (owner[k][i] >= 0) {
          plan_.bindings[owner[k][i]].memory = ref;
        } else {
          plan_.tasks[-owner[k][i] - 1].exec->set_scratch(ref);
        }
      }
    }
    for (int id : own_storage) {
      TensorBinding& b = plan_.bindings[id];
      BackendSlot& slot = plan_.backends[plan_.memory[id]];
      std::unique_ptr<Buffer>& buffer = slot.own_buffers[id];
      if (!buffer || buffer->size() != b.layout.bytes) {
        buffer.reset();
        buffer = slot.backend->AllocateBuffer(b.layout.bytes, &b.layout);
        if (!buffer) return AllocationError(b.layout.bytes, slot.name);
      }
      b.memory = MemoryRef{buffer.get(), 0};
    }
    for (int id = 0; id < nb; ++id) {
      const int holder = plan_.alias_of[id];
      if (holder >= 0) {
        plan_.bindings[id].memory = plan_.bindings[holder].memory;
        plan_.bindings[id].memory.offset += plan_.alias_offset[id];
      }
    }
    return Status::Ok();
  }

  // One arena of regions: the requests of each group (a stream's own
  // buffers, or the shared ones: -1) planned among themselves, the regions
  // one after another.
  static ArenaPlan PlanGroups(const std::vector<BufferRequest>& requests, const std::vector<int>& group,
                              size_t alignment) {
    std::map<int, std::vector<int>> members;
    for (size_t i = 0; i < requests.size(); ++i) members[group[i]].push_back(static_cast<int>(i));
    if (members.size() <= 1) return PlanArena(requests, alignment);
    ArenaPlan plan;
    plan.offsets.assign(requests.size(), 0);
    for (const auto& [g, indices] : members) {
      std::vector<BufferRequest> subset;
      for (int i : indices) subset.push_back(requests[i]);
      const ArenaPlan region = PlanArena(subset, alignment);
      const size_t base = (plan.total_bytes + alignment - 1) / alignment * alignment;
      for (size_t j = 0; j < indices.size(); ++j) plan.offsets[indices[j]] = base + region.offsets[j];
      plan.total_bytes = base + region.total_bytes;
    }
    return plan;
  }

  Status AllocationError(size_t bytes, const std::string& backend) const {
    return InternalError(graph_.source + ": cannot allocate " + std::to_string(bytes) + " bytes on " + backend);
  }

  const ir::Graph& graph_;
  const SessionConfig& config_;
  ExecutionPlan& plan_;
};

}  // namespace

Status PlanMemory(const ir::Graph& graph, const SessionConfig& config, ExecutionPlan* plan) {
  return MemoryPlanner(graph, config, plan).Plan();
}

size_t MemoryBound(const SessionConfig& config) {
  return config.max_memory_bytes != 0 ? config.max_memory_bytes : DefaultMemoryBound();
}

std::string Megabytes(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace rill::inference
