// Comparisons, logic, SELECT and CAST (ir/ops/tensor_ops.h; values at run
// time are float32, booleans 0 / 1): EQUAL, LESS, LESS_EQUAL, GREATER,
// GREATER_EQUAL, LOGICAL_AND and LOGICAL_OR (broadcast) as the comparison
// ops, NOT_EQUAL as EQUAL then LOGICAL_NOT; SELECT and SELECT_V2 as WHERE
// (SELECT's rank-1 condition over a higher-rank x picks whole rows: it is
// reshaped to [n, 1, ...]); CAST (CastOptions out_data_type, or the output
// tensor's type) to a float type is a copy, to an integer type truncates
// toward zero, to bool is x != 0.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kCast = 53;
constexpr int32_t kLess = 58;
constexpr int32_t kGreater = 61;
constexpr int32_t kGreaterEqual = 62;
constexpr int32_t kLessEqual = 63;
constexpr int32_t kSelect = 64;
constexpr int32_t kEqual = 71;
constexpr int32_t kNotEqual = 72;
constexpr int32_t kLogicalOr = 84;
constexpr int32_t kLogicalAnd = 86;
constexpr int32_t kLogicalNot = 87;
constexpr int32_t kSelectV2 = 123;

Status Compare(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects two inputs");
  ir::CompareKind kind = ir::CompareKind::kEqual;
  switch (c.opcode().builtin) {
    case kLess: kind = ir::CompareKind::kLess; break;
    case kGreater: kind = ir::CompareKind::kGreater; break;
    case kGreaterEqual: kind = ir::CompareKind::kGreaterEqual; break;
    case kLessEqual: kind = ir::CompareKind::kLessEqual; break;
    case kLogicalOr: kind = ir::CompareKind::kOr; break;
    case kLogicalAnd: kind = ir::CompareKind::kAnd; break;
    default: break;
  }
  RILL_INF_ASSIGN_OR_RETURN(int a, c.FloatInput(0));
  RILL_INF_ASSIGN_OR_RETURN(int b, c.FloatInput(1));
  if (c.opcode().builtin == kNotEqual) {
    RILL_INF_ASSIGN_OR_RETURN(int eq, c.Emit(ir::CompareOp(ir::CompareKind::kEqual), {a, b}, "equal"));
    c.node().type = ir::NotOp();
    c.node().inputs = {eq};
    return Status::Ok();
  }
  c.node().type = ir::CompareOp(kind);
  c.node().inputs = {a, b};
  return Status::Ok();
}

Status LogicalNot(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  RILL_INF_ASSIGN_OR_RETURN(int x, c.FloatInput(0));
  c.node().type = ir::NotOp();
  c.node().inputs = {x};
  return Status::Ok();
}

Status Select(ConverterContext& c) {
  if (c.num_inputs() != 3) return c.Invalid("expects the condition, x and y");
  std::vector<int> ids;
  for (int i = 0; i < 3; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.FloatInput(i));
    ids.push_back(id);
  }
  const Shape cond = c.InShape(0), x = c.InShape(1);
  if (c.opcode().builtin == kSelect && cond.size() == 1 && x.size() > 1) {
    if (cond[0] != x[0]) return c.Invalid("a rank-1 condition must have one value per row of x");
    Shape rows(x.size(), 1);
    rows[0] = cond[0];
    RILL_INF_ASSIGN_OR_RETURN(ids[0], c.EmitReshape(ids[0], rows, "condition_rows"));
  }
  c.node().type = ir::WhereOp();
  c.node().inputs = ids;
  return Status::Ok();
}

Status Cast(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  // TensorType: FLOAT32 0, FLOAT16 1, INT32 2, UINT8 3, INT64 4, BOOL 6,
  // INT16 7, INT8 9, FLOAT64 10.
  int type = -1;
  if (c.HasOptions()) type = c.Option<int8_t>(1, -1);
  if (type < 0) {
    switch (c.graph().tensors[c.node().outputs[0]].dtype) {
      case DataType::kFloat32: type = 0; break;
      case DataType::kFloat16: type = 1; break;
      case DataType::kInt32: type = 2; break;
      case DataType::kUInt8: type = 3; break;
      case DataType::kInt64: type = 4; break;
      case DataType::kBool: type = 6; break;
      case DataType::kInt8: type = 9; break;
      default: break;
    }
  }
  if (type == 0 || type == 1 || type == 10) {  // float: the values as they are
    c.node().type = ir::OpType::kReshape;
    c.node().attrs.new_shape = c.InShape(0);
    return Status::Ok();
  }
  auto a = std::make_shared<ir::CastAttrs>();
  if (type == 6) {
    a->kind = ir::CastKind::kToBool;
  } else if (type == 2 || type == 3 || type == 4 || type == 7 || type == 9) {
    a->kind = ir::CastKind::kToInteger;
  } else {
    return c.UnsupportedAttribute("out_data_type", "CAST to TensorType " + std::to_string(type));
  }
  c.node().type = ir::CastOp();
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteConverter(
        {kLess, kGreater, kGreaterEqual, kLessEqual, kEqual, kNotEqual, kLogicalOr, kLogicalAnd}, Compare) &&
    RegisterTfLiteConverter({kLogicalNot}, LogicalNot) && RegisterTfLiteConverter({kSelect, kSelectV2}, Select) &&
    RegisterTfLiteConverter({kCast}, Cast);

}  // namespace
}  // namespace rill::inference::tflite
