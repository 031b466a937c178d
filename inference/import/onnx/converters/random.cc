// RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike,
// Bernoulli and Multinomial as RANDOM (ir/ops/random_ops.h), only with a
// seed: an unseeded one draws differently at every load, in ONNX Runtime
// too, and is UNIMPLEMENTED. The values follow the C++ library's generator and
// distributions (as ONNX Runtime's CPU kernels; see random_ops.h for
// Bernoulli, which ONNX Runtime inverts); the output types are float
// (double runs as float; Bernoulli's 0 / 1 in any type; Multinomial's
// int32 / int64 indices as whole float32 values).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/random_ops.h"

namespace rill::inference::onnx_import {
namespace {

Status Random(ConverterContext& c) {
  const std::string& op = c.op_type();
  const onnx::AttributeProto* seed = c.FindAttr("seed");
  if (seed == nullptr) {
    return c.Unsupported(op + " without a seed (its values differ at every load; a seeded one is supported)");
  }
  auto a = std::make_shared<ir::RandomAttrs>();
  const float s = c.AttrFloat("seed", 0.0f);
  if (!std::isfinite(s) || s < 0.0f || s >= 4294967296.0f) return c.UnsupportedAttribute("seed", "seed out of range");
  a->seed = static_cast<uint32_t>(s);
  const bool bernoulli = op == "Bernoulli", multinomial = op == "Multinomial";
  if (multinomial) {
    const int64_t dtype = c.AttrInt("dtype", kInt32);
    if (dtype != kInt32 && dtype != kInt64) return c.UnsupportedAttribute("dtype", "dtype other than int32 / int64");
    const int64_t samples = c.AttrInt("sample_size", 1);
    if (samples < 1 || samples > (1 << 24)) return c.UnsupportedAttribute("sample_size", "sample_size out of 1..2^24");
    a->samples = static_cast<int>(samples);
  } else if (!bernoulli) {
    const int64_t dtype = c.AttrInt("dtype", kFloat);
    if (dtype != kFloat && dtype != kDouble) return c.UnsupportedAttribute("dtype", "dtype other than float / double");
  }
  if (op == "RandomUniform" || op == "RandomUniformLike") {
    a->kind = ir::RandomAttrs::Kind::kUniform;
    a->a = c.AttrFloat("low", 0.0f);
    a->b = c.AttrFloat("high", 1.0f);
    if (!(a->a < a->b)) return c.Invalid("low must be below high");
  } else if (op == "RandomNormal" || op == "RandomNormalLike") {
    a->kind = ir::RandomAttrs::Kind::kNormal;
    a->a = c.AttrFloat("mean", 0.0f);
    a->b = c.AttrFloat("scale", 1.0f);
    if (!(a->b > 0.0f)) return c.Invalid("scale must be positive");
  } else if (multinomial) {
    a->kind = ir::RandomAttrs::Kind::kMultinomial;
  } else {
    a->kind = ir::RandomAttrs::Kind::kBernoulli;
  }
  std::vector<int> inputs;
  if (op == "RandomUniform" || op == "RandomNormal") {
    for (int64_t d : c.AttrInts("shape")) {
      if (d < 1 || d > (1 << 30)) return c.UnsupportedAttribute("shape", "dims must be in 1..2^30");
      a->shape.push_back(static_cast<int>(d));
    }
  } else {
    RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
    RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
    if (c.IsConst(xi) && c.tensor(xi).dtype != DataType::kFloat32) {
      xi = c.NewFloatConst(c.out_name() + "/f32", c.ShapeOf(xi), c.ConstFloats(xi));
    }
    inputs.push_back(xi);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::RandomOp(), inputs, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"RandomUniform", "RandomNormal", "RandomUniformLike",
                                                "RandomNormalLike", "Bernoulli", "Multinomial"},
                                               Random);

}  // namespace
}  // namespace rill::inference::onnx_import
