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

// w [n, k] = alpha * b^T for b [k, n] (both row-major), in 32 x 32 blocks:
// the column walk over b stays within 32 rows' lines (b has megabytes of
// them in a transformer's FC: a plain column walk reads each line 16 times
// from memory).
void TransposeScaled(const float* b, int k, int n, float alpha, float* w) {
  constexpr int kBlock = 32;
  for (int j0 = 0; j0 < k; j0 += kBlock) {
    const int j1 = j0 + kBlock < k ? j0 + kBlock : k;
    for (int i0 = 0; i0 < n; i0 += kBlock) {
      const int i1 = i0 + kBlock < n ? i0 + kBlock : n;
      for (int i = i0; i < i1; ++i) {
        float* dst = w + static_cast<size_t>(i) * k;
        for (int j = j0; j < j1; ++j) dst[j] = alpha * b[static_cast<size_t>(j) * n + i];
      }
    }
  }
}

// The weights [n, k] of a constant B stored [k, n] (or [n, k] when
// `trans_b`), times alpha, read where B is stored when it is float32.
int NkWeights(ConverterContext& c, int b_id, bool trans_b, int n, int k, float alpha) {
  std::vector<float> converted;
  const float* b = c.ConstFloatData(b_id);
  if (b == nullptr) {
    converted = c.ConstFloats(b_id);
    b = converted.data();
  }
  return c.NewFloatConstFilled(c.tensor(b_id).name + "/nk", {n, k}, [&](float* w) {
    if (trans_b) {
      for (size_t i = 0; i < static_cast<size_t>(n) * k; ++i) w[i] = alpha * b[i];
    } else {
      TransposeScaled(b, k, n, alpha, w);
    }
  });
}

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
  std::vector<int> inputs = {a_id, NkWeights(c, b_id, trans_b, n, k, alpha)};
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
  ir::OpAttrs a;
  a.keep_num_dims = true;
  const int weights = NkWeights(c, b_value.id, false, n, k, 1.0f);
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kFullyConnected, {a_id, weights}, c.out_name(), a));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Gemm"}, Gemm) && RegisterOnnxConverter({"MatMul"}, MatMul);

}  // namespace
}  // namespace rill::inference::onnx_import
