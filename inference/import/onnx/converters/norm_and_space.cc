// LRN (LOCAL_RESPONSE_NORM), InstanceNormalization and GroupNormalization
// (GROUP_NORM), both on an NHWC value where the input is one (so no
// transpose is added), DepthToSpace (DCR on
// the NHWC DEPTH_TO_SPACE; CRD as Reshape -> Transpose -> Reshape) and
// SpaceToDepth (Reshape -> Transpose -> Reshape).
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/group_norm_ops.h"
#include "inference/ir/ops/lrn_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status GroupNorm(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int scale_id, c.ConstInput(1));
  RILL_INF_ASSIGN_OR_RETURN(int bias_id, c.ConstInput(2));
  const Shape xs = c.ShapeOf(x.id);
  if (xs.size() < 3) return c.Unsupported("input must be [N, C, spatial...], is " + ShapeToString(xs));
  const bool nhwc = x.nhwc && xs.size() == 4;
  const int channels = nhwc ? xs[3] : xs[1];
  auto a = std::make_shared<ir::GroupNormAttrs>();
  a->epsilon = c.AttrFloat("epsilon", 1e-5f);
  a->channels_last = nhwc;
  a->groups = c.op_type() == "InstanceNormalization" ? channels : static_cast<int>(c.AttrInt("num_groups", 0));
  if (a->groups < 1 || channels % a->groups != 0) {
    return c.UnsupportedAttribute("num_groups", std::to_string(a->groups) + " groups for " + std::to_string(channels) +
                                                    " channels");
  }
  // Opset 18 gives GroupNormalization's scale and bias per group, opset 21
  // per channel: the op takes them per channel.
  auto per_channel = [&](int id, const char* what) -> StatusOr<int> {
    std::vector<float> v = c.ConstFloats(id);
    if (static_cast<int>(v.size()) == channels) return c.NewFloatConst(c.tensor(id).name + "/c", {channels}, v);
    if (static_cast<int>(v.size()) != a->groups) {
      return c.Unsupported(std::string(what) + " must have one value per channel or per group");
    }
    std::vector<float> e(channels);
    for (int ch = 0; ch < channels; ++ch) e[ch] = v[ch / (channels / a->groups)];
    return c.NewFloatConst(c.tensor(id).name + "/c", {channels}, e);
  };
  RILL_INF_ASSIGN_OR_RETURN(int scale, per_channel(scale_id, "scale"));
  RILL_INF_ASSIGN_OR_RETURN(int bias, per_channel(bias_id, "bias"));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GroupNormOp(), {x.id, scale, bias}, c.out_name(), {}, a));
  c.Define(out, nhwc);
  return Status::Ok();
}

// LRN across channels (LOCAL_RESPONSE_NORM): on an NHWC value in place of
// its layout, else on ONNX's [N, C, ...].
Status Lrn(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const int size = static_cast<int>(c.AttrInt("size", 0));
  if (size < 1) return c.UnsupportedAttribute("size", "size " + std::to_string(size) + " (must be >= 1)");
  auto a = std::make_shared<ir::LrnAttrs>();
  a->before = (size - 1) / 2;
  a->after = size / 2;  // ceil((size - 1) / 2)
  a->alpha = c.AttrFloat("alpha", 1e-4f) / static_cast<float>(size);
  a->beta = c.AttrFloat("beta", 0.75f);
  a->bias = c.AttrFloat("bias", 1.0f);
  int xi = x.id;
  a->channels_last = x.nhwc && c.ShapeOf(x.id).size() == 4;
  if (!a->channels_last) {
    RILL_INF_ASSIGN_OR_RETURN(xi, c.ToNchw(x));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::LrnOp(), {xi}, c.out_name(), {}, a));
  c.Define(out, a->channels_last);
  return Status::Ok();
}

// [N, C, H, W] -> Reshape `split` -> Transpose `perm` -> Reshape `merged`.
Status ReshapeTransposeReshape(ConverterContext& c, int x_nchw, const std::vector<int>& split,
                               const std::vector<int>& perm, const std::vector<int>& merged) {
  ir::OpAttrs r1, t, r2;
  r1.new_shape = split;
  t.perm = perm;
  r2.new_shape = merged;
  RILL_INF_ASSIGN_OR_RETURN(int a, c.Emit(OpType::kReshape, {x_nchw}, c.out_name() + "/split", r1));
  RILL_INF_ASSIGN_OR_RETURN(int b, c.Emit(OpType::kTranspose, {a}, c.out_name() + "/move", t));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kReshape, {b}, c.out_name(), r2));
  c.Define(out, false);
  return Status::Ok();
}

Status DepthToSpace(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const int bs = static_cast<int>(c.AttrInt("blocksize", 0));
  const std::string mode = c.AttrString("mode", "DCR");
  if (c.ShapeOf(x.id).size() != 4) return c.Unsupported("DepthToSpace needs a 4-D input");
  if (bs < 1) return c.UnsupportedAttribute("blocksize", "blocksize must be >= 1");
  if (mode == "DCR") {
    RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
    if (c.ShapeOf(xi)[3] % (bs * bs) != 0) return c.Unsupported("channels not divisible by blocksize^2");
    ir::OpAttrs a;
    a.block_size = bs;
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kDepthToSpace, {xi}, c.out_name(), a));
    c.Define(out, true);
    return Status::Ok();
  }
  if (mode != "CRD") return c.UnsupportedAttribute("mode", "mode '" + mode + "'");
  RILL_INF_ASSIGN_OR_RETURN(int xn, c.ToNchw(x));
  const Shape s = c.ShapeOf(xn);
  if (s[1] % (bs * bs) != 0) return c.Unsupported("channels not divisible by blocksize^2");
  const int co = s[1] / (bs * bs);
  return ReshapeTransposeReshape(c, xn, {s[0], co, bs, bs, s[2], s[3]}, {0, 1, 4, 2, 5, 3},
                                 {s[0], co, s[2] * bs, s[3] * bs});
}

Status SpaceToDepth(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const int bs = static_cast<int>(c.AttrInt("blocksize", 0));
  if (c.ShapeOf(x.id).size() != 4) return c.Unsupported("SpaceToDepth needs a 4-D input");
  if (bs < 1) return c.UnsupportedAttribute("blocksize", "blocksize must be >= 1");
  RILL_INF_ASSIGN_OR_RETURN(int xn, c.ToNchw(x));
  const Shape s = c.ShapeOf(xn);
  if (s[2] % bs != 0 || s[3] % bs != 0) return c.Unsupported("height and width must be multiples of blocksize");
  return ReshapeTransposeReshape(c, xn, {s[0], s[1], s[2] / bs, bs, s[3] / bs, bs}, {0, 3, 5, 1, 2, 4},
                                 {s[0], s[1] * bs * bs, s[2] / bs, s[3] / bs});
}

const bool kRegistered = RegisterOnnxConverter({"InstanceNormalization", "GroupNormalization"}, GroupNorm) &&
                         RegisterOnnxConverter({"DepthToSpace"}, DepthToSpace) &&
                         RegisterOnnxConverter({"SpaceToDepth"}, SpaceToDepth) &&
                         RegisterOnnxConverter({"LRN"}, Lrn);

}  // namespace
}  // namespace rill::inference::onnx_import
