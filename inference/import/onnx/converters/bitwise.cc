// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (opset 18) and BitShift:
// the bitwise ops (ir/ops/bitwise_ops.h) in the integer type of their first
// input, as the model declares it (a graph input's or value_info's type, an
// initializer's, a Cast's `to`, through the ops that keep their input's
// type); a value whose type the model does not say is taken as int64.
// Elementwise: they keep their inputs' layout (an NHWC operand brings the
// other to NHWC). Constant inputs fold, as int64 constants.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/bitwise_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::BitwiseFn;

// ONNX's integer types: {bits, signed}; false for any other type.
bool IntegerType(int64_t t, ir::BitwiseAttrs* a) {
  switch (t) {
    case 2: a->bits = 8, a->is_signed = false; return true;    // uint8
    case 3: a->bits = 8, a->is_signed = true; return true;     // int8
    case 4: a->bits = 16, a->is_signed = false; return true;   // uint16
    case 5: a->bits = 16, a->is_signed = true; return true;    // int16
    case 6: a->bits = 32, a->is_signed = true; return true;    // int32
    case 7: a->bits = 64, a->is_signed = true; return true;    // int64
    case 12: a->bits = 32, a->is_signed = false; return true;  // uint32
    case 13: a->bits = 64, a->is_signed = false; return true;  // uint64
    default: return false;
  }
}

// The type of value `name`: its producer's data input's where the producer
// keeps its input's type, else what the model declares (0: unknown). Each
// value is looked at once (`seen`), so a malformed graph cannot make the
// walk exponential.
int64_t TypeOf(ConverterContext& c, const std::string& name, std::set<std::string>* seen) {
  static const std::set<std::string> kKeepType = {
      "Identity",   "Reshape",   "Squeeze",    "Unsqueeze",  "Flatten",  "Transpose", "Slice", "Gather",
      "Expand",     "Tile",      "Concat",     "Add",        "Sub",      "Mul",       "Neg",   "Abs",
      "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "BitShift", "Max",       "Min",   "Mod"};
  if (!seen->insert(name).second) return 0;
  for (const onnx::NodeProto& n : c.graph_proto().node()) {
    if (n.output_size() < 1 || n.output(0) != name || kKeepType.count(n.op_type()) == 0) continue;
    for (const std::string& in : n.input()) {  // operands share the type: the first one known
      if (in.empty()) continue;
      const int64_t t = TypeOf(c, in, seen);
      if (t != 0 && t != kInt64) return t;
    }
  }
  return DeclaredElementType(c, name);
}


Status Bitwise(ConverterContext& c) {
  const std::string& op = c.op_type();
  BitwiseFn fn = op == "BitwiseAnd"   ? BitwiseFn::kAnd
                 : op == "BitwiseOr"  ? BitwiseFn::kOr
                 : op == "BitwiseXor" ? BitwiseFn::kXor
                                      : BitwiseFn::kNot;
  if (op == "BitShift") {
    const std::string direction = c.AttrString("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") {
      return c.Invalid("direction must be LEFT or RIGHT, is '" + direction + "'");
    }
    fn = direction == "LEFT" ? BitwiseFn::kShiftLeft : BitwiseFn::kShiftRight;
  }
  const int count = fn == BitwiseFn::kNot ? 1 : 2;
  if (c.node().input_size() != count) return c.Invalid("needs " + std::to_string(count) + " inputs");
  auto attrs = std::make_shared<ir::BitwiseAttrs>();
  int64_t type = 0;
  for (int i = 0; i < count && (type == 0 || type == kInt64); ++i) {
    std::set<std::string> seen;
    const int64_t t = TypeOf(c, c.node().input(i), &seen);
    if (t != 0) type = t;
  }
  if (type == 0) type = kInt64;  // integers of a type the model does not say
  if (!IntegerType(type, attrs.get())) {
    return c.Invalid("input of type " + std::to_string(type) + " (bitwise ops take integer types)");
  }
  if ((fn == BitwiseFn::kShiftLeft || fn == BitwiseFn::kShiftRight) && attrs->is_signed && type != kInt64) {
    return c.Invalid("BitShift takes unsigned integer types, input is of type " + std::to_string(type));
  }
  if (fn == BitwiseFn::kShiftLeft || fn == BitwiseFn::kShiftRight) attrs->is_signed = false;
  std::vector<Value> in;
  bool all_const = true, nhwc = false;
  for (int i = 0; i < count; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    all_const = all_const && c.IsConst(v.id) && !v.nhwc;
    nhwc = nhwc || v.nhwc;
    in.push_back(v);
  }
  if (all_const) {  // fold, in int64
    const Shape sa = c.ShapeOf(in[0].id), sb = count == 2 ? c.ShapeOf(in[1].id) : sa;
    Shape out;
    if (!ir::BroadcastShapes({sa, sb}, &out)) return c.Invalid("constant inputs do not broadcast");
    const std::vector<int64_t> a = c.ConstInts(in[0].id), b = count == 2 ? c.ConstInts(in[1].id) : a;
    std::vector<int64_t> r(static_cast<size_t>(NumElements(out)));
    for (size_t o = 0; o < r.size(); ++o) {
      r[o] = ir::ApplyBitwise(fn, *attrs, a[SourceIndex(sa, out, static_cast<int64_t>(o))],
                              b[SourceIndex(sb, out, static_cast<int64_t>(o))]);
    }
    c.Define(c.NewIntConst(c.out_name(), r, &out), false);
    return Status::Ok();
  }
  std::vector<int> ids;
  for (const Value& v : in) {
    int id = v.id;
    if (c.IsConst(id) && c.tensor(id).dtype != DataType::kFloat32) {  // run-time values are float32
      std::vector<float> f;
      for (int64_t e : c.ConstInts(id)) f.push_back(ir::BitwiseToFloat(e, *attrs));
      const Shape shape = c.ShapeOf(id);  // a copy: NewFloatConst grows the shapes
      id = c.NewFloatConst(c.tensor(id).name + "/f32", shape, f);
    }
    if (nhwc) {
      RILL_INF_ASSIGN_OR_RETURN(id, OperandToNhwc(c, Value{id, v.nhwc}));
    }
    ids.push_back(id);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::BitwiseOp(fn), ids, c.out_name(), {}, attrs));
  c.Define(out, nhwc);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "BitShift"}, Bitwise);

}  // namespace
}  // namespace rill::inference::onnx_import
