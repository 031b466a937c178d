// One-input activations and the broadcasting binaries. Both keep their
// input's layout; a binary with an NHWC operand brings the other one to NHWC.
// Binaries of two constants (shape arithmetic, masks) fold.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status Unary(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const std::string& op = c.op_type();
  ir::OpAttrs a;
  OpType type;
  if (op == "Relu") {
    type = OpType::kRelu;
  } else if (op == "Sigmoid") {
    type = OpType::kLogistic;
  } else if (op == "HardSwish") {
    type = OpType::kHardSwish;
  } else if (op == "HardSigmoid") {
    type = OpType::kHardSigmoid;
    a.alpha = c.AttrFloat("alpha", 0.2f);
    a.beta = c.AttrFloat("beta", 0.5f);
  } else if (op == "LeakyRelu") {
    type = OpType::kLeakyRelu;
    a.alpha = c.AttrFloat("alpha", 0.01f);
  } else {  // Clip
    float lo = c.AttrFloat("min", -3.402823466e38f), hi = c.AttrFloat("max", 3.402823466e38f);
    if (c.HasInput(1)) {
      RILL_INF_ASSIGN_OR_RETURN(lo, c.ScalarInput(1));
    }
    if (c.HasInput(2)) {
      RILL_INF_ASSIGN_OR_RETURN(hi, c.ScalarInput(2));
    }
    type = (lo == 0.0f && hi == 6.0f) ? OpType::kRelu6 : OpType::kClamp;
    a.clamp_min = lo;
    a.clamp_max = hi;
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(type, {x.id}, c.out_name(), a));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

Status Binary(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value a, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value b, c.Input(1));
  // Float ones up to 2^20 elements (larger ones, weights, run as nodes).
  const bool int_operand =
      c.tensor(a.id).dtype == DataType::kInt64 || c.tensor(b.id).dtype == DataType::kInt64;
  if (c.IsConst(a.id) && c.IsConst(b.id) && c.op_type() != "PRelu" &&
      (int_operand || NumElements(c.ShapeOf(a.id)) + NumElements(c.ShapeOf(b.id)) <= (1 << 20))) {
    return ConvertBinaryConst(c);  // tensor.cc: numpy broadcasting
  }
  const std::string& op = c.op_type();
  const OpType type = op == "Add"   ? OpType::kAdd
                      : op == "Sub" ? OpType::kSub
                      : op == "Mul" ? OpType::kMul
                      : op == "Div" ? OpType::kDiv
                                    : OpType::kPRelu;
  int ai = a.id, bi = b.id;
  // Shape arithmetic on run-time values (float32, as every run-time
  // tensor): an int64 constant joins as float32.
  for (int* id : {&ai, &bi}) {
    if (c.IsConst(*id) && c.tensor(*id).dtype != DataType::kFloat32) {
      *id = c.NewFloatConst(c.tensor(*id).name + "/f32", c.ShapeOf(*id), c.ConstFloats(*id));
    }
  }
  a.id = ai;
  b.id = bi;
  const bool nhwc = a.nhwc || b.nhwc;
  if (nhwc) {
    RILL_INF_ASSIGN_OR_RETURN(ai, OperandToNhwc(c, a));
    RILL_INF_ASSIGN_OR_RETURN(bi, OperandToNhwc(c, b));
  }
  // ONNX's integer Div truncates toward zero: the float32 quotient, then
  // truncated (exact while the operands are, |x| < 2^24: the rounded
  // quotient of such integers never crosses an integer).
  const bool integer_div = type == OpType::kDiv && (c.IsIntegerValue(c.node().input(0)) ||
                                                    c.IsIntegerValue(c.node().input(1)));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(type, {ai, bi}, integer_div ? c.out_name() + "/quotient" : c.out_name()));
  if (integer_div) {
    auto cast = std::make_shared<ir::CastAttrs>();
    cast->kind = ir::CastKind::kToInteger;
    RILL_INF_ASSIGN_OR_RETURN(out, c.Emit(ir::CastOp(), {out}, c.out_name(), {}, cast));
  }
  c.Define(out, nhwc);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"Relu", "Sigmoid", "HardSwish", "HardSigmoid", "LeakyRelu", "Clip"}, Unary) &&
    RegisterOnnxConverter({"Add", "Sub", "Mul", "Div", "PRelu"}, Binary);

}  // namespace
}  // namespace rill::inference::onnx_import
