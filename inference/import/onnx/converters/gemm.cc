// Gemm and MatMul with a constant right operand: FULLY_CONNECTED, its
// weights stored [N, K] with alpha (Gemm) folded in. Other MatMuls (two
// activations, a constant of rank != 2) are BATCH_MATMUL (tensor.cc).
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status Gemm(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value a_value, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int b_id, c.ConstInput(1));
  if (c.AttrInt("transA", 0) != 0) return c.UnsupportedAttribute("transA", "transA=1");
  RILL_INF_ASSIGN_OR_RETURN(int a_id, c.ToNchw(a_value));
  if (c.ShapeOf(a_id).size() != 2) return c.Unsupported("input A must be 2-D, is " + ShapeToString(c.ShapeOf(a_id)));
  const Shape bs = c.ShapeOf(b_id);
  if (bs.size() != 2) return c.Unsupported("B must be 2-D");
  const bool trans_b = c.AttrInt("transB", 0) != 0;
  const float alpha = c.AttrFloat("alpha", 1.0f), beta = c.AttrFloat("beta", 1.0f);
  const int n = trans_b ? bs[0] : bs[1], k = trans_b ? bs[1] : bs[0];
  const std::vector<float> b = c.ConstFloats(b_id);
  std::vector<float> w(static_cast<size_t>(n) * k);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j)
      w[static_cast<size_t>(i) * k + j] =
          alpha * (trans_b ? b[static_cast<size_t>(i) * k + j] : b[static_cast<size_t>(j) * n + i]);
  std::vector<int> inputs = {a_id, c.NewFloatConst(c.tensor(b_id).name + "/nk", {n, k}, w)};
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(int c_id, c.ConstInput(2));
    std::vector<float> bias = c.ConstFloats(c_id);
    if (bias.size() == 1) bias.assign(n, bias[0]);
    if (static_cast<int>(bias.size()) != n) return c.Unsupported("C must broadcast along N only");
    for (float& v : bias) v *= beta;
    inputs.push_back(c.NewFloatConst(c.tensor(c_id).name + "/bias", {n}, bias));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kFullyConnected, inputs, c.out_name()));
  c.Define(out, false);
  return Status::Ok();
}

Status MatMul(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value a_value, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value b_value, c.Input(1));
  if (!c.IsConst(b_value.id) || c.ShapeOf(b_value.id).size() != 2 || c.ShapeOf(a_value.id).size() < 2) {
    return ConvertBatchMatMul(c);
  }
  RILL_INF_ASSIGN_OR_RETURN(int a_id, c.ToNchw(a_value));
  const Shape bs = c.ShapeOf(b_value.id);
  if (bs.size() != 2 || c.ShapeOf(a_id).size() < 2) return c.Unsupported("MatMul needs A of rank >= 2 and a 2-D B");
  const int k = bs[0], n = bs[1];
  const std::vector<float> b = c.ConstFloats(b_value.id);
  std::vector<float> w(static_cast<size_t>(n) * k);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) w[static_cast<size_t>(i) * k + j] = b[static_cast<size_t>(j) * n + i];
  ir::OpAttrs a;
  a.keep_num_dims = true;
  const int weights = c.NewFloatConst(c.tensor(b_value.id).name + "/nk", {n, k}, w);
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kFullyConnected, {a_id, weights}, c.out_name(), a));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Gemm"}, Gemm) && RegisterOnnxConverter({"MatMul"}, MatMul);

}  // namespace
}  // namespace rill::inference::onnx_import
