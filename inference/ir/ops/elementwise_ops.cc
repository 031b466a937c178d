// Elementwise ops: the broadcasting binaries (ADD, SUB, MUL, DIV, PRELU) and
// the one-input activations and conversions: descriptors and shape functions.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status Broadcast(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  const Shape& a = c.In(0);
  const Shape& b = c.In(1);
  const size_t rank = std::max(a.size(), b.size());
  if (rank > 6) return c.Error("broadcasting supports rank <= 6");
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return c.Error("shapes " + ShapeToString(a) + " and " + ShapeToString(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return c.SetOut(out);
}

Status Elementwise(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  return c.SetOut(c.In(0));
}

const bool kRegistered = RegisterOps({
    {OpType::kAdd, "ADD", Broadcast},
    {OpType::kSub, "SUB", Broadcast},
    {OpType::kMul, "MUL", Broadcast},
    {OpType::kDiv, "DIV", Broadcast},
    {OpType::kPRelu, "PRELU", Broadcast},
    {OpType::kClamp, "CLAMP", Elementwise},
    {OpType::kLeakyRelu, "LEAKY_RELU", Elementwise},
    {OpType::kHardSigmoid, "HARD_SIGMOID", Elementwise},
    {OpType::kSilu, "SILU", Elementwise},
    {OpType::kRelu, "RELU", Elementwise},
    {OpType::kRelu6, "RELU6", Elementwise},
    {OpType::kHardSwish, "HARD_SWISH", Elementwise},
    {OpType::kLogistic, "LOGISTIC", Elementwise},
    {OpType::kDequantize, "DEQUANTIZE", Elementwise},
    {OpType::kDensify, "DENSIFY", Elementwise},
});

}  // namespace
}  // namespace rill::inference::ir
