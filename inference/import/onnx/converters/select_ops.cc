// Compress and Unique: selections whose sizes follow the data.
// - Compress with a constant condition is a GATHER of the kept positions (a
//   constant), folded when the input is a constant too; with a condition
//   computed at run time it is NON_ZERO of the condition, its indices as a
//   1-D value, and a GATHER along the axis (docs/design.md, "Data-dependent
//   sizes"). Without `axis` the input is flattened first.
// - Unique: one UNIQUE node per output used (ir/ops/unique_ops.h), sorted or
//   in order of first occurrence, over an axis or flattened.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/dynamic_ops.h"
#include "inference/ir/ops/tensor_ops.h"
#include "inference/ir/ops/unique_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status Compress(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value cv, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  Shape s = c.ShapeOf(x);  // may hold run-time sizes (the input of a data-dependent op)
  int axis = 0;
  const std::string base = c.out_name();
  if (c.FindAttr("axis") == nullptr) {
    const int n = ir::HasDynamicDim(s) ? ir::kDynamicDim : static_cast<int>(NumElements(s));
    if (s.size() != 1) {
      if (c.IsConst(x)) {
        const bool is_int = c.tensor(x).dtype == DataType::kInt64;
        const Shape flat = {n};
        x = is_int ? c.NewIntConst(base + "/flat", c.ConstInts(x), &flat)
                   : c.NewFloatConst(base + "/flat", flat, c.ConstFloats(x));
      } else {
        ir::OpAttrs r;
        r.new_shape = {-1};
        RILL_INF_ASSIGN_OR_RETURN(x, c.Emit(OpType::kReshape, {x}, base + "/flat", r));
      }
    }
    s = {n};
  } else {
    const int rank = static_cast<int>(s.size());
    int64_t a = c.AttrInt("axis", 0);
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
    axis = static_cast<int>(a);
  }
  const Shape cs = c.ShapeOf(cv.id);
  if (cs.size() != 1) return c.Invalid("condition must be 1-D");
  auto ga = std::make_shared<ir::AxisAttrs>();
  ga->axis = axis;
  if (c.IsConst(cv.id)) {
    const std::vector<float> cond = c.ConstFloats(cv.id);
    std::vector<int64_t> keep;
    for (size_t i = 0; i < cond.size(); ++i) {
      if (cond[i] == 0.0f) continue;
      if (s[axis] != ir::kDynamicDim && static_cast<int64_t>(i) >= s[axis]) {
        return c.Invalid("condition selects past the end of the axis");
      }
      keep.push_back(static_cast<int64_t>(i));
    }
    if (keep.empty()) return c.Unsupported("Compress whose constant condition selects nothing (an empty output)");
    if (c.IsConst(x)) {  // fold, in the input's own type
      const bool is_int = c.tensor(x).dtype == DataType::kInt64;
      const std::vector<int64_t> xi = is_int ? c.ConstInts(x) : std::vector<int64_t>{};
      const std::vector<float> xf = is_int ? std::vector<float>{} : c.ConstFloats(x);
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < axis; ++d) outer *= s[d];
      for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
      std::vector<int64_t> oi;
      std::vector<float> of;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k : keep) {
          for (int64_t j = 0; j < inner; ++j) {
            const int64_t at = (o * s[axis] + k) * inner + j;
            if (is_int) {
              oi.push_back(xi[at]);
            } else {
              of.push_back(xf[at]);
            }
          }
        }
      }
      Shape out = s;
      out[axis] = static_cast<int>(keep.size());
      c.Define(is_int ? c.NewIntConst(base, oi, &out) : c.NewFloatConst(base, out, of), false);
      return Status::Ok();
    }
    const int idx = c.NewIntConst(base + "/kept", keep);
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherOp(), {x, idx}, base, {}, ga));
    c.Define(out, false);
    return Status::Ok();
  }
  if (c.IsConst(x) && c.tensor(x).dtype != DataType::kFloat32) {
    x = c.NewFloatConst(base + "/f32", s, c.ConstFloats(x));
  }
  RILL_INF_ASSIGN_OR_RETURN(int cond, c.ToNchw(cv));
  RILL_INF_ASSIGN_OR_RETURN(int nz, c.Emit(ir::NonZeroOp(), {cond}, base + "/nonzero"));
  ir::OpAttrs r;  // [1, count] -> [count]
  r.new_shape = {-1};
  r.new_shape_from = {1};
  RILL_INF_ASSIGN_OR_RETURN(int idx, c.Emit(OpType::kReshape, {nz}, base + "/kept", r));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherOp(), {x, idx}, base, {}, ga));
  c.Define(out, false);
  return Status::Ok();
}

Status Unique(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const Shape s = c.ShapeOf(x);
  if (c.IsConst(x) && c.tensor(x).dtype != DataType::kFloat32) {
    x = c.NewFloatConst(c.out_name() + "/f32", s, c.ConstFloats(x));
  }
  int axis = -1;
  if (c.FindAttr("axis") != nullptr) {
    const int rank = static_cast<int>(s.size());
    int64_t a = c.AttrInt("axis", 0);
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
    axis = static_cast<int>(a);
  }
  const bool sorted = c.AttrInt("sorted", 1) != 0;
  const ir::UniqueAttrs::Output kinds[4] = {ir::UniqueAttrs::Output::kValues, ir::UniqueAttrs::Output::kIndices,
                                            ir::UniqueAttrs::Output::kInverse, ir::UniqueAttrs::Output::kCounts};
  const onnx::NodeProto& node = c.node();
  for (int k = 0; k < node.output_size() && k < 4; ++k) {
    if (node.output(k).empty()) continue;
    auto a = std::make_shared<ir::UniqueAttrs>();
    a->output = kinds[k];
    a->axis = axis;
    a->sorted = sorted;
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::UniqueOp(), {x}, node.output(k), {}, a));
    c.Define(out, false, k);
  }
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"Compress"}, Compress) && RegisterOnnxConverter({"Unique"}, Unique);

}  // namespace
}  // namespace rill::inference::onnx_import
