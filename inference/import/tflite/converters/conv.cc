// CONV_2D, DEPTHWISE_CONV_2D and MediaPipe's transposed conv (the custom op
// Convolution2DTransposeBias).
#include <cstring>
#include <string>

#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// Conv2DOptions: padding, stride_w, stride_h, fused_activation_function,
// dilation_w_factor, dilation_h_factor.
Status Conv2D(ConverterContext& c) {
  ir::Node& node = c.node();
  ir::OpAttrs& a = node.attrs;
  node.type = ir::OpType::kConv2D;
  a.padding = c.ReadPadding(0);
  a.stride_w = c.Option<int32_t>(1, 0);
  a.stride_h = c.Option<int32_t>(2, 0);
  RILL_INF_RETURN_IF_ERROR(c.ReadActivation(3, &a.activation));
  a.dilation_w = c.Option<int32_t>(4, 1);
  a.dilation_h = c.Option<int32_t>(5, 1);
  return Status::Ok();
}

// DepthwiseConv2DOptions: padding, stride_w, stride_h, depth_multiplier,
// fused_activation_function, dilation_w_factor, dilation_h_factor.
Status DepthwiseConv2D(ConverterContext& c) {
  ir::Node& node = c.node();
  ir::OpAttrs& a = node.attrs;
  node.type = ir::OpType::kDepthwiseConv2D;
  a.padding = c.ReadPadding(0);
  a.stride_w = c.Option<int32_t>(1, 0);
  a.stride_h = c.Option<int32_t>(2, 0);
  a.depth_multiplier = c.Option<int32_t>(3, 1);
  RILL_INF_RETURN_IF_ERROR(c.ReadActivation(4, &a.activation));
  a.dilation_w = c.Option<int32_t>(5, 1);
  a.dilation_h = c.Option<int32_t>(6, 1);
  return Status::Ok();
}

// MediaPipe's custom transposed conv keeps its parameters as a raw struct in
// custom_options: int32 padding (1 SAME, 2 VALID), int32 stride_w, stride_h.
Status TransposeConvBias(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::OpType::kTransposeConv2D;
  const ConverterContext::Vector v = c.CustomOptions();
  if (!c.reader().ok()) return c.Corrupt("reading custom options");
  if (!v.valid || v.size < 12) return c.Corrupt("custom options too short");
  int32_t fields[3];
  std::memcpy(fields, c.reader().BytesOf(v), 12);
  if (fields[0] != 1 && fields[0] != 2) return c.Invalid("unknown padding " + std::to_string(fields[0]));
  node.attrs.padding = fields[0] == 1 ? ir::Padding::kSame : ir::Padding::kValid;
  node.attrs.stride_w = fields[1];
  node.attrs.stride_h = fields[2];
  if (fields[1] <= 0 || fields[2] <= 0 || fields[1] > 1024 || fields[2] > 1024) return c.Invalid("invalid strides");
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kConv2D}, Conv2D) &&
                         RegisterTfLiteConverter({kDepthwiseConv2D}, DepthwiseConv2D) &&
                         RegisterTfLiteCustomConverter({"Convolution2DTransposeBias"}, TransposeConvBias);

}  // namespace
}  // namespace rill::inference::tflite
