// Elementwise math: the unary functions of ir/ops/math_ops.h (TANH, EXP,
// LOG, SQRT, ABS, NEG, SIN, COS, FLOOR, CEIL, ELU with alpha 1, GELU with
// GeluOptions approximate for the tanh form); RSQRT (SQRT then RECIPROCAL),
// SQUARE (MUL of x by itself) and SQUARED_DIFFERENCE (SUB then MUL) lowered
// into several nodes; POW, MINIMUM and MAXIMUM (broadcast) as the n-ary
// ops; ADD_N as the n-ary sum; FLOOR_DIV as DIV then FLOOR; ROUND (half to
// even); RELU_0_TO_1 as CLAMP to [0, 1]; CUMSUM (the axis a constant
// input; CumsumOptions exclusive and reverse).
#include <memory>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/cumsum_ops.h"
#include "inference/ir/ops/math_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kFloor = 8;
constexpr int32_t kTanh = 28;
constexpr int32_t kExp = 47;
constexpr int32_t kMaximum = 55;
constexpr int32_t kMinimum = 57;
constexpr int32_t kNeg = 59;
constexpr int32_t kSin = 66;
constexpr int32_t kLog = 73;
constexpr int32_t kSqrt = 75;
constexpr int32_t kRsqrt = 76;
constexpr int32_t kCumsum = 128;
constexpr int32_t kPow = 78;
constexpr int32_t kSquare = 92;
constexpr int32_t kSquaredDifference = 99;
constexpr int32_t kAbs = 101;
constexpr int32_t kCeil = 104;
constexpr int32_t kCos = 108;
constexpr int32_t kElu = 111;
constexpr int32_t kGelu = 150;
constexpr int32_t kFloorDiv = 90;
constexpr int32_t kAddN = 106;
constexpr int32_t kRound = 116;
constexpr int32_t kRelu0To1 = 152;

Status Unary(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  ir::UnaryFn fn = ir::UnaryFn::kTanh;
  switch (c.opcode().builtin) {
    case kFloor: fn = ir::UnaryFn::kFloor; break;
    case kExp: fn = ir::UnaryFn::kExp; break;
    case kNeg: fn = ir::UnaryFn::kNeg; break;
    case kSin: fn = ir::UnaryFn::kSin; break;
    case kLog: fn = ir::UnaryFn::kLog; break;
    case kSqrt: fn = ir::UnaryFn::kSqrt; break;
    case kAbs: fn = ir::UnaryFn::kAbs; break;
    case kCeil: fn = ir::UnaryFn::kCeil; break;
    case kCos: fn = ir::UnaryFn::kCos; break;
    case kElu: fn = ir::UnaryFn::kElu; break;
    case kGelu: fn = ir::UnaryFn::kGelu; break;
    case kRound: fn = ir::UnaryFn::kRound; break;
    default: break;
  }
  auto attrs = std::make_shared<ir::UnaryMathAttrs>();
  if (fn == ir::UnaryFn::kGelu) attrs->tanh_approximation = c.Option<uint8_t>(0, 0) != 0;
  c.node().type = ir::UnaryMathOp(fn);
  c.node().typed_attrs = std::move(attrs);
  return Status::Ok();
}

Status Rsqrt(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  RILL_INF_ASSIGN_OR_RETURN(int root, c.Emit(ir::UnaryMathOp(ir::UnaryFn::kSqrt), {c.node().inputs[0]}, "sqrt", -1, {},
                                             std::make_shared<ir::UnaryMathAttrs>()));
  c.node().type = ir::UnaryMathOp(ir::UnaryFn::kReciprocal);
  c.node().typed_attrs = std::make_shared<ir::UnaryMathAttrs>();
  c.node().inputs = {root};
  return Status::Ok();
}

Status Square(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  c.node().type = ir::OpType::kMul;
  c.node().inputs = {c.node().inputs[0], c.node().inputs[0]};
  return Status::Ok();
}

Status SquaredDifference(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects two inputs");
  RILL_INF_ASSIGN_OR_RETURN(int a, c.FloatInput(0));
  RILL_INF_ASSIGN_OR_RETURN(int b, c.FloatInput(1));
  RILL_INF_ASSIGN_OR_RETURN(int d, c.Emit(ir::OpType::kSub, {a, b}, "difference"));
  c.node().type = ir::OpType::kMul;
  c.node().inputs = {d, d};
  return Status::Ok();
}

Status Nary(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects two inputs");
  const int32_t op = c.opcode().builtin;
  const ir::NaryFn fn = op == kPow ? ir::NaryFn::kPow : op == kMinimum ? ir::NaryFn::kMin : ir::NaryFn::kMax;
  std::vector<int> inputs;
  for (int i = 0; i < 2; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.FloatInput(i));
    inputs.push_back(id);
  }
  c.node().type = ir::NaryMathOp(fn);
  c.node().inputs = inputs;
  return Status::Ok();
}

Status AddN(ConverterContext& c) {
  if (c.num_inputs() < 1) return c.Invalid("expects at least one input");
  std::vector<int> inputs;
  for (int i = 0; i < c.num_inputs(); ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.FloatInput(i));
    inputs.push_back(id);
  }
  c.node().type = ir::NaryMathOp(ir::NaryFn::kSum);
  c.node().inputs = inputs;
  return Status::Ok();
}

Status FloorDiv(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects two inputs");
  RILL_INF_ASSIGN_OR_RETURN(int a, c.FloatInput(0));
  RILL_INF_ASSIGN_OR_RETURN(int b, c.FloatInput(1));
  RILL_INF_ASSIGN_OR_RETURN(int q, c.Emit(ir::OpType::kDiv, {a, b}, "quotient"));
  c.node().type = ir::UnaryMathOp(ir::UnaryFn::kFloor);
  c.node().typed_attrs = std::make_shared<ir::UnaryMathAttrs>();
  c.node().inputs = {q};
  return Status::Ok();
}

Status Relu0To1(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  c.node().type = ir::OpType::kClamp;
  c.node().attrs.clamp_min = 0.0f;
  c.node().attrs.clamp_max = 1.0f;
  return Status::Ok();
}

Status Cumsum(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the input and the axis");
  std::vector<int> axis;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "axis", &axis));
  const int rank = static_cast<int>(c.InShape(0).size());
  if (axis.size() != 1 || axis[0] < -rank || axis[0] >= rank) return c.Unsupported("an axis out of range");
  auto a = std::make_shared<ir::CumSumAttrs>();
  a->axis = axis[0] < 0 ? axis[0] + rank : axis[0];
  a->exclusive = c.Option<int8_t>(0, 0) != 0;
  a->reverse = c.Option<int8_t>(1, 0) != 0;
  c.node().type = ir::CumSumOp();
  c.node().inputs.resize(1);
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteConverter({kCumsum}, Cumsum) &&
    RegisterTfLiteConverter({kFloor, kTanh, kExp, kNeg, kSin, kLog, kSqrt, kAbs, kCeil, kCos, kElu, kGelu, kRound},
                            Unary) &&
    RegisterTfLiteConverter({kAddN}, AddN) && RegisterTfLiteConverter({kFloorDiv}, FloorDiv) &&
    RegisterTfLiteConverter({kRelu0To1}, Relu0To1) &&
    RegisterTfLiteConverter({kRsqrt}, Rsqrt) && RegisterTfLiteConverter({kSquare}, Square) &&
    RegisterTfLiteConverter({kSquaredDifference}, SquaredDifference) &&
    RegisterTfLiteConverter({kPow, kMinimum, kMaximum}, Nary);

}  // namespace
}  // namespace rill::inference::tflite
