#include "inference/runtime/loop_execution.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "inference/ir/ops/dynamic_ops.h"

namespace rill::inference {
namespace {

class LoopExecution : public Execution {
 public:
  LoopExecution(DynamicRegion* region, const ExecutionArgs& args, const ir::LoopAttrs& attrs,
                std::vector<RunGuard> guards)
      : region_(*region), node_(*args.node), attrs_(attrs), body_(*attrs.body), inputs_(args.inputs),
        outputs_(args.outputs), guards_(std::move(guards)), body_region_(body_, region),
        bindings_(body_.tensors.size()) {}

  std::string name() const override { return "loop"; }

  // The body's bindings and executions, created once.
  Status Init(Backend* cpu, const ExecutionArgs& args) {
    const int carried = attrs_.carried;
    const size_t scans = outputs_.size() - static_cast<size_t>(carried);
    if (body_.inputs.size() != inputs_.size() || body_.outputs.size() != 1 + outputs_.size() || carried < 0 ||
        outputs_.size() < static_cast<size_t>(carried) || attrs_.empty_scan_shapes.size() != scans) {
      return InternalError(Context() + "its body's inputs and outputs do not match the node's");
    }
    for (size_t i = 0; i < body_.tensors.size(); ++i) {
      const ir::TensorInfo& t = body_.tensors[i];
      TensorBinding& b = bindings_[i];
      b.dtype = t.dtype;
      b.shape = t.shape;
      if (t.is_constant()) {
        b.constant = true;
        b.constant_data = t.data;
      }
    }
    // The iteration number and the condition the body reads: two scalars.
    counter_ = AllocateHostBuffer(2 * sizeof(float));
    if (!counter_) return InternalError(Context() + "cannot allocate its counter");
    bindings_[body_.inputs[0]].memory = MemoryRef{counter_.get(), 0};
    bindings_[body_.inputs[1]].memory = MemoryRef{counter_.get(), sizeof(float)};
    // A carried value's next value that a body node computes (once) is
    // written straight into a buffer of the LOOP's (produced_), swapped into
    // the carried ones after each iteration; any other (a body input, a
    // constant) is copied.
    for (auto& set : carried_) set.resize(carried);
    produced_.resize(carried);
    direct_.assign(carried, false);
    std::vector<std::vector<std::unique_ptr<Buffer>*>> output_memory(body_.nodes.size());
    for (int k = 0; k < carried; ++k) {
      const int t = body_.outputs[1 + k];
      if (std::count(body_.outputs.begin() + 1, body_.outputs.begin() + 1 + carried, t) != 1) continue;
      for (size_t n = 0; n < body_.nodes.size(); ++n) {
        const std::vector<int>& outs = body_.nodes[n].outputs;
        for (size_t o = 0; o < outs.size(); ++o) {
          if (outs[o] != t) continue;
          output_memory[n].resize(outs.size(), nullptr);
          output_memory[n][o] = &produced_[k];
          direct_[k] = true;
        }
      }
    }
    for (const ir::Node& node : body_.nodes) {
      ExecutionArgs a;
      a.graph = &body_;
      a.node = &node;
      a.algorithm = args.algorithm;
      a.precision = args.precision;
      a.bf16_even_if_slower = args.bf16_even_if_slower;
      a.tuning = args.tuning;
      for (int id : node.inputs) a.inputs.push_back(id < 0 ? nullptr : &bindings_[id]);
      for (int id : node.outputs) a.outputs.push_back(&bindings_[id]);
      std::vector<RunGuard> guards;
      for (const ir::Guard& g : node.guards) guards.push_back(RunGuard{&bindings_[g.tensor], g.when});
      std::unique_ptr<Execution> exec;
      if (node.type == ir::LoopOp()) {
        RILL_INF_ASSIGN_OR_RETURN(exec, MakeLoopExecution(&body_region_, cpu, a, std::move(guards)));
      } else {
        StatusOr<std::unique_ptr<Execution>> inner = cpu->CreateExecution(a);
        if (!inner.ok()) {
          return Status(inner.status().code(), Context() + "in its body: " + inner.status().message());
        }
        exec = MakeDynamicExecution(&body_region_, node, std::move(*inner), a.inputs, a.outputs, std::move(guards),
                                    output_memory[&node - body_.nodes.data()]);
      }
      execs_.push_back(std::move(exec));
    }
    shapes_.resize(carried);
    scans_.resize(scans);
    scan_shapes_.resize(scans);
    return Status::Ok();
  }

  Status Prepare() override {
    planned_.clear();
    for (TensorBinding* out : outputs_) planned_.push_back(out->shape);
    for (std::unique_ptr<Execution>& exec : execs_) RILL_INF_RETURN_IF_ERROR(exec->Prepare());
    return Status::Ok();
  }

  Status Run() override {
    for (const RunGuard& guard : guards_) {
      const float* c = static_cast<const float*>(guard.condition->host());
      if (c == nullptr || NumElements(guard.condition->shape) < 1) {
        return InternalError(Context() + "its guard has no value");
      }
      if ((c[0] != 0.0f) != guard.when) return Status::Ok();  // a branch not taken
    }
    // The trip count (none: until the condition fails) and the condition.
    int64_t trip = INT64_MAX;
    if (const TensorBinding* m = inputs_[0]) {
      RILL_INF_ASSIGN_OR_RETURN(const float value, Scalar(*m, "trip count"));
      trip = value <= 0.0f ? 0 : value >= 9.2e18f ? INT64_MAX : static_cast<int64_t>(value);
    }
    bool cond = true;
    if (const TensorBinding* c = inputs_[1]) {
      RILL_INF_ASSIGN_OR_RETURN(const float value, Scalar(*c, "condition"));
      cond = value != 0.0f;
    }
    const int carried = attrs_.carried;
    for (size_t i = 2 + static_cast<size_t>(carried); i < inputs_.size(); ++i) {
      TensorBinding& b = bindings_[body_.inputs[i]];
      const TensorBinding& outer = *inputs_[i];
      b.shape = outer.shape;
      b.memory = outer.memory;
      b.constant = outer.constant;
      b.constant_data = outer.constant_data;
    }
    int cur = 0;
    for (int k = 0; k < carried; ++k) {
      RILL_INF_RETURN_IF_ERROR(SetCarried(cur, k, *inputs_[2 + k]));
    }
    float* counter = static_cast<float*>(counter_->host_address(0));
    int64_t iterations = 0;
    for (; iterations < trip && cond; ++iterations) {
      counter[0] = static_cast<float>(iterations);
      counter[1] = 1.0f;
      for (int k = 0; k < carried; ++k) {
        TensorBinding& b = bindings_[body_.inputs[2 + k]];
        b.shape = shapes_[k];
        b.memory = MemoryRef{carried_[cur][k].get(), 0};
      }
      for (std::unique_ptr<Execution>& exec : execs_) RILL_INF_RETURN_IF_ERROR(exec->Run());
      RILL_INF_ASSIGN_OR_RETURN(const float c, Scalar(bindings_[body_.outputs[0]], "body's condition"));
      cond = c != 0.0f;
      // The body's results into the buffers it did not read.
      for (int k = 0; k < carried; ++k) {
        const TensorBinding& next = bindings_[body_.outputs[1 + k]];
        if (direct_[k] && next.memory.buffer == produced_[k].get()) {
          std::swap(produced_[k], carried_[1 - cur][k]);
          shapes_[k] = next.shape;
        } else {
          RILL_INF_RETURN_IF_ERROR(SetCarried(1 - cur, k, next));
        }
      }
      cur = 1 - cur;
      for (size_t j = 0; j < scans_.size(); ++j) RILL_INF_RETURN_IF_ERROR(AppendScan(j, iterations));
    }
    for (int k = 0; k < carried; ++k) {
      RILL_INF_RETURN_IF_ERROR(SetOutput(k, shapes_[k], carried_[cur][k]));
    }
    for (size_t j = 0; j < scans_.size(); ++j) {
      const size_t k = static_cast<size_t>(carried) + j;
      Shape shape = attrs_.empty_scan_shapes.at(j);  // no iteration: as ONNX Runtime
      if (iterations > 0) {
        shape = scan_shapes_[j];
        shape.insert(shape.begin(), static_cast<int>(iterations));
      }
      RILL_INF_RETURN_IF_ERROR(region_.Reserve(&scans_[j], 1, node_.name, false));
      RILL_INF_RETURN_IF_ERROR(SetOutput(k, shape, scans_[j]));
    }
    return Status::Ok();
  }

 private:
  std::string Context() const { return region_.graph().NodeContext(node_); }

  StatusOr<float> Scalar(const TensorBinding& b, const char* what) const {
    const float* v = static_cast<const float*>(b.host());
    if (v == nullptr || NumElements(b.shape) != 1) {
      return InvalidArgumentError(Context() + "its " + what + " must hold one value, has shape " +
                                  ShapeToString(b.shape));
    }
    return v[0];
  }

  // Carried value k of buffer set `set` becomes a copy of `value`.
  Status SetCarried(int set, int k, const TensorBinding& value) {
    const size_t bytes = value.dense_bytes();
    std::unique_ptr<Buffer>& buffer = carried_[set][k];
    RILL_INF_RETURN_IF_ERROR(region_.Reserve(&buffer, std::max<size_t>(bytes, 1), node_.name, false));
    if (bytes > 0) std::memcpy(buffer->host_address(0), value.host(), bytes);
    shapes_[k] = value.shape;
    return Status::Ok();
  }

  // Scan output j of iteration `i` appended to the ones before.
  Status AppendScan(size_t j, int64_t i) {
    const TensorBinding& v = bindings_[body_.outputs[1 + static_cast<size_t>(attrs_.carried) + j]];
    if (i == 0) {
      scan_shapes_[j] = v.shape;
    } else if (v.shape != scan_shapes_[j]) {
      return InvalidArgumentError(Context() + "scan output " + std::to_string(j) + " is " + ShapeToString(v.shape) +
                                  " at iteration " + std::to_string(i) + ", " + ShapeToString(scan_shapes_[j]) +
                                  " before");
    }
    const size_t bytes = v.dense_bytes(), at = static_cast<size_t>(i) * bytes;
    RILL_INF_RETURN_IF_ERROR(region_.Reserve(&scans_[j], std::max<size_t>(at + bytes, 1), node_.name, false, at));
    if (bytes > 0) std::memcpy(static_cast<uint8_t*>(scans_[j]->host_address(0)) + at, v.host(), bytes);
    return Status::Ok();
  }

  // Output k: a shape known at plan is the arena's (copied into), else (or
  // in a LOOP's body) it is `buffer` itself.
  Status SetOutput(size_t k, const Shape& shape, const std::unique_ptr<Buffer>& buffer) {
    TensorBinding& out = *outputs_[k];
    if (region_.nested() || ir::HasDynamicDim(planned_[k])) {  // a LOOP's body has no arena
      out.shape = shape;
      out.memory = MemoryRef{buffer.get(), 0};
      return Status::Ok();
    }
    if (shape != planned_[k]) {
      return InvalidArgumentError(Context() + "output " + std::to_string(k) + " is " + ShapeToString(shape) +
                                  " at run time, planned " + ShapeToString(planned_[k]));
    }
    const size_t bytes = DenseBytes(out.dtype, shape);
    if (bytes > 0) std::memcpy(out.host(), buffer->host_address(0), bytes);
    return Status::Ok();
  }

  DynamicRegion& region_;
  const ir::Node& node_;
  const ir::LoopAttrs& attrs_;
  const ir::Graph& body_;
  std::vector<const TensorBinding*> inputs_;
  std::vector<TensorBinding*> outputs_;
  std::vector<RunGuard> guards_;
  DynamicRegion body_region_;
  std::vector<TensorBinding> bindings_;  // the body's tensors, by id (never resized: executions point into it)
  std::vector<std::unique_ptr<Execution>> execs_;
  std::unique_ptr<Buffer> counter_;
  // Two buffers per carried value (the body reads one, its result goes into
  // the other), their current shapes, the scan outputs so far.
  std::vector<std::unique_ptr<Buffer>> carried_[2];
  std::vector<std::unique_ptr<Buffer>> produced_;  // where a body node writes carried value k's next value
  std::vector<bool> direct_;                       // carried value k has one (else it is copied)
  std::vector<Shape> shapes_;
  std::vector<std::unique_ptr<Buffer>> scans_;
  std::vector<Shape> scan_shapes_;
  std::vector<Shape> planned_;
};

}  // namespace

StatusOr<std::unique_ptr<Execution>> MakeLoopExecution(DynamicRegion* region, Backend* cpu, const ExecutionArgs& args,
                                                       std::vector<RunGuard> guards) {
  const auto* attrs = args.node->attrs_as<ir::LoopAttrs>();
  if (attrs == nullptr || attrs->body == nullptr) {
    return InternalError(region->graph().NodeContext(*args.node) + "missing LoopAttrs");
  }
  auto exec = std::make_unique<LoopExecution>(region, args, *attrs, std::move(guards));
  RILL_INF_RETURN_IF_ERROR(exec->Init(cpu, args));
  return std::unique_ptr<Execution>(std::move(exec));
}

}  // namespace rill::inference
