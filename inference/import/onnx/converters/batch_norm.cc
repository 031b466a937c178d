// BatchNormalization (inference) as a per-channel MUL and ADD, which the
// optimizer folds into a preceding conv.
#include <cmath>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// y = x * s + t per channel, with s = scale / sqrt(var + eps), t = B - mean * s.
Status BatchNorm(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  std::vector<float> p[4];
  for (int i = 0; i < 4; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(i + 1));
    p[i] = c.ConstFloats(id);
  }
  const size_t channels = p[0].size();
  for (int i = 1; i < 4; ++i) {
    if (p[i].size() != channels) return c.Unsupported("BatchNormalization parameters differ in size");
  }
  const float eps = c.AttrFloat("epsilon", 1e-5f);
  std::vector<float> s(channels), t(channels);
  for (size_t i = 0; i < channels; ++i) {
    s[i] = p[0][i] / std::sqrt(p[3][i] + eps);
    t[i] = p[1][i] - p[2][i] * s[i];
  }
  int xi = x.id;
  bool nhwc = x.nhwc;
  if (!nhwc && c.ShapeOf(xi).size() == 4) {
    RILL_INF_ASSIGN_OR_RETURN(xi, c.ToNhwc(x));
    nhwc = true;
  } else if (!nhwc && c.ShapeOf(xi).size() != 2) {
    return c.Unsupported("BatchNormalization on rank " + std::to_string(c.ShapeOf(xi).size()));
  }
  const int cs = static_cast<int>(channels);
  const std::string& name = c.out_name();
  const int scale = c.NewFloatConst(name + "/bn_scale", {cs}, s);
  RILL_INF_ASSIGN_OR_RETURN(int scaled, c.Emit(OpType::kMul, {xi, scale}, name + "/bn_scaled"));
  const int shift = c.NewFloatConst(name + "/bn_shift", {cs}, t);
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kAdd, {scaled, shift}, name));
  c.Define(out, nhwc);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"BatchNormalization"}, BatchNorm);

}  // namespace
}  // namespace rill::inference::onnx_import
