// CumSum (CUMSUM): the axis a constant input; exclusive and reverse. A
// constant input (shape arithmetic) is folded, int64 exactly.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/cumsum_ops.h"

namespace rill::inference::onnx_import {
namespace {

Status CumSum(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int axis_id, c.ConstInput(1));
  const std::vector<int64_t> axis_v = c.ConstInts(axis_id);
  if (axis_v.size() != 1) return c.Invalid("axis must hold one value");
  auto a = std::make_shared<ir::CumSumAttrs>();
  a->exclusive = c.AttrInt("exclusive", 0) != 0;
  a->reverse = c.AttrInt("reverse", 0) != 0;
  const Shape s = c.OnnxShape(x);
  const int rank = static_cast<int>(s.size());
  int64_t axis = axis_v[0] < 0 ? axis_v[0] + rank : axis_v[0];
  if (axis < 0 || axis >= rank) return c.Invalid("axis " + std::to_string(axis_v[0]) + " out of range");
  a->axis = static_cast<int>(axis);
  if (c.IsConst(x.id)) {  // fold, in the constant's own type
    const bool is_int = c.tensor(x.id).dtype == DataType::kInt64;
    std::vector<int64_t> vi = is_int ? c.ConstInts(x.id) : std::vector<int64_t>{};
    std::vector<float> vf = is_int ? std::vector<float>{} : c.ConstFloats(x.id);
    long long inner = 1, outer = 1;
    for (int d = a->axis + 1; d < rank; ++d) inner *= s[d];
    for (int d = 0; d < a->axis; ++d) outer *= s[d];
    const long long n = s[a->axis];
    for (long long o = 0; o < outer; ++o) {
      for (long long i = 0; i < inner; ++i) {
        int64_t si = 0;
        float sf = 0.0f;
        for (long long t = 0; t < n; ++t) {
          const long long k = (o * n + (a->reverse ? n - 1 - t : t)) * inner + i;
          if (is_int) {
            const int64_t v = vi[k];
            if (!a->exclusive) si += v;
            vi[k] = si;
            if (a->exclusive) si += v;
          } else {
            const float v = vf[k];
            if (!a->exclusive) sf += v;
            vf[k] = sf;
            if (a->exclusive) sf += v;
          }
        }
      }
    }
    c.Define(is_int ? c.NewIntConst(c.out_name(), vi, &s) : c.NewFloatConst(c.out_name(), s, vf), false);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::CumSumOp(), {xi}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"CumSum"}, CumSum);

}  // namespace
}  // namespace rill::inference::onnx_import
