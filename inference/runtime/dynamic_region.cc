#include "inference/runtime/dynamic_region.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "inference/runtime/memory_planner.h"

namespace rill::inference {

Status DynamicRegion::Reserve(std::unique_ptr<Buffer>* buffer, size_t bytes, const std::string& node, bool scratch,
                              size_t keep) {
  const size_t have = *buffer ? (*buffer)->size() : 0;
  if (bytes <= have) return Status::Ok();
  // A LOOP body's memory counts with the plan's (the outermost region's).
  DynamicRegion& root = *[this] {
    DynamicRegion* r = this;
    while (r->parent_ != nullptr) r = r->parent_;
    return r;
  }();
  const std::string what = (scratch ? "scratch of node '" : "node '") + node + "'";
  // Room for a little more than asked, so that counts creeping up one run
  // after another do not reallocate every time.
  const size_t want = std::max<size_t>(bytes + bytes / 4, 256);
  const size_t total = root.arena_bytes_ + root.held_bytes_ - have + want;
  if (total > root.bound_) {
    return OutOfRangeError(graph_.source + ": " + what + " needs " + std::to_string(bytes) +
                           " bytes at run time; with the arena and the rest of the dynamic region that is " +
                           std::to_string(total) + " bytes (" + Megabytes(total) + "), over the memory bound of " +
                           std::to_string(root.bound_) + " bytes (" + Megabytes(root.bound_) +
                           "); raise SessionConfig::max_memory_bytes");
  }
  if (keep == 0) buffer->reset();
  std::unique_ptr<Buffer> grown = AllocateHostBuffer(want);
  if (!grown) {
    return InternalError(graph_.source + ": " + what + ": cannot allocate " + std::to_string(want) + " bytes");
  }
  if (keep > 0) std::memcpy(grown->host_address(0), (*buffer)->host_address(0), std::min(keep, have));
  *buffer = std::move(grown);
  root.held_bytes_ = root.held_bytes_ - have + want;
  return Status::Ok();
}

namespace {

class DynamicExecution : public Execution {
 public:
  DynamicExecution(DynamicRegion* region, const ir::Node& node, std::unique_ptr<Execution> inner,
                   std::vector<const TensorBinding*> inputs, std::vector<TensorBinding*> outputs,
                   std::vector<RunGuard> guards, std::vector<std::unique_ptr<Buffer>*> output_memory)
      : region_(*region), node_(node), inner_(std::move(inner)), inputs_(std::move(inputs)),
        outputs_(std::move(outputs)), guards_(std::move(guards)), last_shapes_(inputs_.size()),
        out_shapes_(outputs_.size()), last_values_(inputs_.size()), memory_(outputs_.size()),
        external_(std::move(output_memory)) {
    external_.resize(outputs_.size(), nullptr);
  }

  std::string name() const override { return inner_->name(); }

  // Shapes are not final before the run: the outputs whose shape is known
  // (an arena tensor) are checked at every run instead. A new plan (Resize)
  // drops what the last run cached.
  Status Prepare() override {
    planned_.clear();
    for (TensorBinding* out : outputs_) planned_.push_back(out->shape);
    cached_ = prepared_ = false;
    return Status::Ok();
  }

  Status Run() override {
    for (const RunGuard& guard : guards_) {
      const float* c = static_cast<const float*>(guard.condition->host());
      if (c == nullptr || NumElements(guard.condition->shape) < 1) {
        return InternalError(region_.graph().NodeContext(node_) + "its condition has no value");
      }
      if ((c[0] != 0.0f) != guard.when) return Status::Ok();  // a branch not taken
    }
    if (!SameAsLastRun()) {
      cached_ = prepared_ = false;
      RILL_INF_RETURN_IF_ERROR(InferAndBind());
      cached_ = true;
    }
    // Outputs in a buffer of the caller's, which may have been swapped since.
    for (size_t k = 0; k < outputs_.size(); ++k) {
      if (external_[k] == nullptr) continue;
      RILL_INF_RETURN_IF_ERROR(
          region_.Reserve(external_[k], std::max<size_t>(DenseBytes(outputs_[k]->dtype, out_shapes_[k]), 1), node_.name,
                          false));
      outputs_[k]->memory = MemoryRef{external_[k]->get(), 0};
    }
    bool empty = false;
    for (size_t k = 0; k < outputs_.size(); ++k) {
      // A data-dependent output was given its actual shape by the last run:
      // its bound again.
      if (region_.nested() || ir::HasDynamicDim(planned_[k])) outputs_[k]->shape = out_shapes_[k];
      empty = empty || NumElements(out_shapes_[k]) == 0;
    }
    if (empty) return Status::Ok();  // nothing to compute
    if (!prepared_) {
      RILL_INF_RETURN_IF_ERROR(inner_->Prepare());
      if (const size_t scratch = inner_->scratch_bytes()) {
        RILL_INF_RETURN_IF_ERROR(region_.Reserve(&scratch_memory_, scratch, node_.name, /*scratch=*/true));
        inner_->set_scratch(MemoryRef{scratch_memory_.get(), 0});
      }
      prepared_ = true;
    }
    RILL_INF_RETURN_IF_ERROR(inner_->Run());
    if (DataDependentOutput* d = AsDataDependentOutput(inner_.get())) outputs_[0]->shape = d->ActualOutputShape();
    return Status::Ok();
  }

 private:
  bool ReadsValues(size_t i) const { return (inputs_read_ >> std::min<size_t>(i, 63)) & 1; }

  // Every input's shape, and the run-time values the shape function read,
  // as at the last run that inferred: its output shapes and the prepared
  // execution hold (an execution's Prepare reads no run-time value its
  // op's shape function does not).
  bool SameAsLastRun() const {
    if (!cached_) return false;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (node_.inputs[i] < 0 || inputs_[i] == nullptr) continue;
      if (inputs_[i]->shape != last_shapes_[i]) return false;
      const std::vector<float>& v = last_values_[i];
      if (ReadsValues(i) && !v.empty() && std::memcmp(inputs_[i]->host(), v.data(), v.size() * sizeof(float)) != 0) {
        return false;
      }
    }
    return true;
  }

  // Infers the output shapes from this run's inputs, binds the outputs
  // whose shape was not known at plan to the region's memory, and keeps
  // what SameAsLastRun compares.
  Status InferAndBind() {
    const ir::Graph& g = region_.graph();
    std::vector<Shape>& shapes = region_.shapes();
    std::vector<const void*>& values = region_.values();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const int id = node_.inputs[i];
      if (id < 0 || inputs_[i] == nullptr) continue;
      shapes[id] = inputs_[i]->shape;
      values[id] = inputs_[i]->host();
    }
    RILL_INF_RETURN_IF_ERROR(g.InferNodeShapesAtRun(node_, &shapes, values, &inputs_read_));
    for (size_t k = 0; k < outputs_.size(); ++k) {
      TensorBinding& out = *outputs_[k];
      const Shape& shape = shapes[node_.outputs[k]];
      if (!region_.nested() && !ir::HasDynamicDim(planned_[k])) {
        if (shape != planned_[k]) {
          return InternalError(g.NodeContext(node_) + "inferred " + ShapeToString(shape) + " at run time, planned " +
                               ShapeToString(planned_[k]));
        }
      } else if (external_[k] == nullptr) {  // else bound in Run
        RILL_INF_RETURN_IF_ERROR(
            region_.Reserve(&memory_[k], DenseBytes(out.dtype, shape), node_.name, /*scratch=*/false));
        out.memory = MemoryRef{memory_[k].get(), 0};
      }
      out_shapes_[k] = shape;
    }
    for (size_t i = 0; i < inputs_.size(); ++i) {
      last_values_[i].clear();
      if (node_.inputs[i] < 0 || inputs_[i] == nullptr) continue;
      last_shapes_[i] = inputs_[i]->shape;
      if (ReadsValues(i)) {
        const float* v = static_cast<const float*>(inputs_[i]->host());
        if (v != nullptr) last_values_[i].assign(v, v + NumElements(inputs_[i]->shape));
      }
    }
    return Status::Ok();
  }

  DynamicRegion& region_;
  const ir::Node& node_;
  std::unique_ptr<Execution> inner_;
  std::vector<const TensorBinding*> inputs_;
  std::vector<TensorBinding*> outputs_;
  std::vector<RunGuard> guards_;
  std::vector<Shape> planned_;
  // What the last inferring run saw and inferred (SameAsLastRun), and
  // whether `inner_` is prepared for it.
  bool cached_ = false, prepared_ = false;
  uint64_t inputs_read_ = 0;
  std::vector<Shape> last_shapes_, out_shapes_;
  std::vector<std::vector<float>> last_values_;
  std::vector<std::unique_ptr<Buffer>> memory_;
  std::vector<std::unique_ptr<Buffer>*> external_;  // MakeDynamicExecution's output_memory
  std::unique_ptr<Buffer> scratch_memory_;
};

}  // namespace

std::unique_ptr<Execution> MakeDynamicExecution(DynamicRegion* region, const ir::Node& node,
                                                std::unique_ptr<Execution> inner,
                                                std::vector<const TensorBinding*> inputs,
                                                std::vector<TensorBinding*> outputs, std::vector<RunGuard> guards,
                                                std::vector<std::unique_ptr<Buffer>*> output_memory) {
  return std::make_unique<DynamicExecution>(region, node, std::move(inner), std::move(inputs), std::move(outputs),
                                            std::move(guards), std::move(output_memory));
}

}  // namespace rill::inference
