// What an op's shape function sees (OpDescriptor::infer_shapes): its node,
// its inputs' shapes, and checks that error naming the node rather than
// letting a kernel read out of bounds later. Shared window helpers for the
// conv and pool families.
#ifndef RILL_INFERENCE_IR_SHAPE_CONTEXT_H_
#define RILL_INFERENCE_IR_SHAPE_CONTEXT_H_

#include <string>
#include <utility>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

// Kernels index elements with int: a tensor has at most INT32_MAX of them.
inline constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

class ShapeContext {
 public:
  // `values`: at run time (Graph::InferNodeShapesAtRun), the host address
  // of each run-time tensor's float32 values by tensor id; null at plan.
  ShapeContext(const Graph& g, const Node& node, std::vector<Shape>* shapes,
               const std::vector<const void*>* values = nullptr)
      : g_(g), node_(node), shapes_(shapes), values_(values) {}

  Status Error(const std::string& what) const { return InvalidArgumentError(g_.NodeContext(node_) + what); }
  const Graph& graph() const { return g_; }
  const Node& node() const { return node_; }
  const OpAttrs& attrs() const { return node_.attrs; }

  Status NeedInputs(size_t min, size_t max) const {
    if (node_.inputs.size() < min || node_.inputs.size() > max) {
      return Error("expects " + std::to_string(min) + (min == max ? "" : ".." + std::to_string(max)) +
                   " inputs, has " + std::to_string(node_.inputs.size()));
    }
    for (size_t i = 0; i < min; ++i) {
      if (node_.inputs[i] < 0) return Error("input " + std::to_string(i) + " is missing");
    }
    return Status::Ok();
  }
  bool Has(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] >= 0; }
  const Shape& In(size_t i) const { return (*shapes_)[node_.inputs[i]]; }
  const TensorInfo& InTensor(size_t i) const { return g_.tensors[node_.inputs[i]]; }
  Status NeedRank(size_t i, size_t rank) const {
    if (In(i).size() != rank) {
      return Error("input " + std::to_string(i) + " '" + InTensor(i).name + "' must have rank " +
                   std::to_string(rank) + ", has shape " + ShapeToString(In(i)));
    }
    return Status::Ok();
  }
  // True while the session runs the dynamic region: every input's shape is
  // actual, run-time tensors' values are readable and sizes may be 0.
  bool at_run() const { return values_ != nullptr; }
  Status SetOut(Shape s) { return SetOut(0, std::move(s)); }
  // Output k's shape (an op of several outputs: LOOP).
  Status SetOut(size_t k, Shape s) {
    if (k >= node_.outputs.size()) return Error("has no output " + std::to_string(k));
    int64_t n = 1;
    for (int d : s) {
      if (d == kDynamicDim && !at_run()) continue;  // known at run time
      if (d == 0 && (at_run() || probing_)) continue;  // a data-dependent empty result
      if (d <= 0) return Error("inferred output shape " + ShapeToString(s) + " has a non-positive dimension");
      n *= d;
      if (n > kMaxElements) return Error("inferred output shape " + ShapeToString(s) + " is too large");
    }
    (*shapes_)[node_.outputs[k]] = std::move(s);
    return Status::Ok();
  }
  // The op's sizes are known only at run time whatever its inputs' (a
  // LOOP's trip count and carried values): the node is in the dynamic
  // region.
  void MarkRunTime() { read_run_time_values_ = true; }
  // The values of constant int32 input i (shape operands).
  Status ConstInts(int i, std::vector<int>* values) const { return ReadConstInts(g_, node_, i, values); }
  // The values of input i as integers (a shape operand, K, a size): a
  // constant's (int32, int64 or float), or at run time the run-time
  // tensor's (float32, whole numbers). Sets *known = false at plan time for
  // a run-time tensor: the op then marks the sizes it cannot know with
  // kDynamicDim, and the node is in the dynamic region.
  Status Ints(size_t i, std::vector<int64_t>* values, bool* known);
  // The same as floats (RANGE's start, limit and delta, which may be
  // fractional): a constant's values, or at run time the run-time tensor's.
  Status Floats(size_t i, std::vector<double>* values, bool* known);
  bool read_run_time_values() const { return read_run_time_values_; }
  // At run time: bit i set when Ints read run-time input i's values (inputs
  // past 63 share bit 63). The dynamic region keys its cached shapes on them.
  uint64_t run_time_inputs_read() const { return run_time_inputs_read_; }
  // Inference at sample sizes for run-time dims (Graph::InferNodeShapes):
  // sizes may come out 0 there.
  void set_probing(bool on) { probing_ = on; }
  // Before the run, when input i is a run-time shape operand whose values
  // are partly known (TensorInfo::plan_values): those values, kDynamicDim
  // where unknown. False otherwise.
  bool ShapeOperandDims(size_t i, Shape* dims) const;


 private:
  const Graph& g_;
  const Node& node_;
  std::vector<Shape>* shapes_;
  const std::vector<const void*>* values_;
  bool read_run_time_values_ = false;
  uint64_t run_time_inputs_read_ = 0;
  bool probing_ = false;
};

// An error unless the window's kernel, strides and dilations are in range.
Status CheckWindow(ShapeContext& c, const OpAttrs& a, int kernel_h, int kernel_w);
// An error unless explicit pads (Padding::kExplicit) are in range.
Status CheckExplicitPads(ShapeContext& c, const OpAttrs& a);
// Output height and width of a conv window (kernel kh x kw) over x, or an
// error naming the window when it does not fit.
Status ConvWindowOutput(ShapeContext& c, const OpAttrs& a, const Shape& x, const Shape& w, int kh, int kw, int* oh,
                        int* ow);

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_SHAPE_CONTEXT_H_
