// Resize and Upsample: RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR or
// RESIZE_BICUBIC of an NHWC value.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/resize_geometry.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// Resize to sizes computed at run time (Mask R-CNN pastes each mask at its
// box's size, Keypoint R-CNN its heatmaps): the op's size input is the
// four NCHW sizes, read by its shape function at run time (the dynamic
// region), which checks that N and C are the input's. Only the plain case:
// four sizes, stretched, no crop, no antialias.
Status ResizeToRunTimeSizes(ConverterContext& c, const Value& x, const Value& sizes, const std::string& mode,
                            ir::ResizeCoordinate coordinate, ir::NearestRounding rounding, float cubic_coeff_a) {
  if (!c.AttrInts("axes").empty() || c.AttrString("keep_aspect_ratio_policy", "stretch") != "stretch" ||
      c.AttrInt("antialias", 0) != 0 || c.AttrInt("exclude_outside", 0) != 0 ||
      coordinate == ir::ResizeCoordinate::kTfCropAndResize) {
    return c.Unsupported("Resize to sizes known only at run time with axes, an aspect-ratio policy, antialias, "
                         "exclude_outside or a crop");
  }
  RILL_INF_ASSIGN_OR_RETURN(int si, c.ToNchw(sizes));
  if (c.ShapeOf(si) != Shape{4}) return c.Unsupported("sizes known only at run time must hold 4 values");
  const Shape xs = c.OnnxShape(x);
  if (xs.size() != 4) return c.Unsupported("Resize of a " + std::to_string(xs.size()) + "-D input");
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  ir::OpAttrs a;
  a.resize_coordinate = coordinate;  // scales: out / in, as ONNX Runtime from sizes
  OpType type = OpType::kResizeBilinear;
  if (mode == "nearest") {
    type = OpType::kResizeNearest;
    a.nearest_rounding = rounding;
  } else if (mode == "cubic") {
    type = OpType::kResizeBicubic;
    a.cubic_coeff_a = cubic_coeff_a;
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(type, {xi, si}, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

// Resize (opsets 10 to 19) and Upsample (7, 9) of a 4-D NCHW input over H
// and W, in ONNX Runtime 1.30's conventions: output sizes from scales in
// float, keep_aspect_ratio_policy, an output as large as the input copied
// as is, an axis whose scale is 1 not transformed. Every attribute is read;
// an attribute or value not handled is an error, never ignored.
Status Resize(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const bool upsample = c.op_type() == "Upsample";
  // Upsample and Resize before opset 11 take (X, scales) (Upsample-7 the
  // scales as an attribute); later Resize (X, roi, scales, sizes).
  const bool old_resize = upsample || c.opset() < 11;
  const bool opset18 = !old_resize && c.opset() >= 18;
  for (const onnx::AttributeProto& attr : c.node().attribute()) {
    const std::string& n = attr.name();
    const bool known =
        n == "mode" || (upsample && c.opset() < 9 && n == "scales") ||
        (!old_resize && (n == "coordinate_transformation_mode" || n == "nearest_mode" || n == "cubic_coeff_a" ||
                         n == "exclude_outside" || n == "extrapolation_value")) ||
        (opset18 && (n == "antialias" || n == "axes" || n == "keep_aspect_ratio_policy"));
    if (!known) {
      return c.UnsupportedAttribute(n, "not an attribute of " + c.op_type() + "-" + std::to_string(c.opset()));
    }
  }
  std::string mode = c.AttrString("mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // older converters' spelling
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    return c.UnsupportedAttribute("mode", "Resize mode '" + mode + "'");
  }
  if (mode == "cubic" && old_resize) return c.UnsupportedAttribute("mode", "mode cubic before Resize-11");

  const int64_t antialias = c.AttrInt("antialias", 0);
  const int64_t exclude_outside = c.AttrInt("exclude_outside", 0);
  if (antialias != 0 && antialias != 1) {
    return c.UnsupportedAttribute("antialias", "antialias " + std::to_string(antialias));
  }
  if (exclude_outside != 0 && exclude_outside != 1) {
    return c.UnsupportedAttribute("exclude_outside", "exclude_outside " + std::to_string(exclude_outside));
  }
  if (antialias && mode == "nearest") return c.UnsupportedAttribute("antialias", "antialias=1 with mode nearest");
  if (exclude_outside && !(mode == "cubic" || (mode == "linear" && antialias))) {
    return c.UnsupportedAttribute("exclude_outside",
                                  "exclude_outside=1 with mode " + mode + (antialias ? "" : " without antialias"));
  }
  const float cubic_coeff_a = c.AttrFloat("cubic_coeff_a", -0.75f);
  const float extrapolation_value = c.AttrFloat("extrapolation_value", 0.0f);
  if (!std::isfinite(cubic_coeff_a)) return c.UnsupportedAttribute("cubic_coeff_a", "cubic_coeff_a must be finite");

  ir::ResizeCoordinate coordinate = ir::ResizeCoordinate::kAsymmetric;  // the only one before opset 11
  if (!old_resize) {
    static const std::map<std::string, ir::ResizeCoordinate> kModes = {
        {"half_pixel", ir::ResizeCoordinate::kHalfPixel},
        {"pytorch_half_pixel", ir::ResizeCoordinate::kPytorchHalfPixel},
        {"align_corners", ir::ResizeCoordinate::kAlignCorners},
        {"asymmetric", ir::ResizeCoordinate::kAsymmetric},
        {"tf_half_pixel_for_nn", ir::ResizeCoordinate::kTfHalfPixelForNn},
        {"tf_crop_and_resize", ir::ResizeCoordinate::kTfCropAndResize},
        {"half_pixel_symmetric", ir::ResizeCoordinate::kHalfPixelSymmetric},
    };
    const std::string ctm = c.AttrString("coordinate_transformation_mode", "half_pixel");
    auto it = kModes.find(ctm);
    if (it == kModes.end()) {
      return c.UnsupportedAttribute("coordinate_transformation_mode", "coordinate_transformation_mode '" + ctm + "'");
    }
    coordinate = it->second;
  }
  const bool crop = coordinate == ir::ResizeCoordinate::kTfCropAndResize;
  ir::NearestRounding rounding = ir::NearestRounding::kSimple;  // ONNX Runtime's rounding before opset 11
  if (!old_resize) {
    const std::string nm = c.AttrString("nearest_mode", "round_prefer_floor");
    static const std::map<std::string, ir::NearestRounding> kRoundings = {
        {"round_prefer_floor", ir::NearestRounding::kRoundPreferFloor},
        {"round_prefer_ceil", ir::NearestRounding::kRoundPreferCeil},
        {"floor", ir::NearestRounding::kFloor},
        {"ceil", ir::NearestRounding::kCeil},
    };
    auto it = kRoundings.find(nm);
    if (it == kRoundings.end()) return c.UnsupportedAttribute("nearest_mode", "nearest_mode '" + nm + "'");
    rounding = it->second;
  }
  // keep_aspect_ratio_policy changes sizes only (below), but a value
  // outside the three is an error whatever is given.
  const std::string policy = c.AttrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    return c.UnsupportedAttribute("keep_aspect_ratio_policy", "keep_aspect_ratio_policy '" + policy + "'");
  }

  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  const Shape s = c.ShapeOf(xi);  // N H W C
  const std::vector<int64_t> in_dims = {s[0], s[3], s[1], s[2]};  // NCHW

  // The NCHW axes that scales, sizes and roi give values for.
  std::vector<int> axes = {0, 1, 2, 3};
  const std::vector<int64_t> axes_attr = c.AttrInts("axes");
  if (!axes_attr.empty()) {
    axes.clear();
    for (int64_t v : axes_attr) {
      const int64_t a = v < 0 ? v + 4 : v;
      if ((a != 2 && a != 3) || std::count(axes.begin(), axes.end(), static_cast<int>(a)) > 0) {
        return c.UnsupportedAttribute("axes", "axes must name H and W only ({2, 3} or {-2, -1})");
      }
      axes.push_back(static_cast<int>(a));
    }
  }
  const size_t n_axes = axes.size();

  std::vector<float> scales(4, 1.0f);  // NCHW
  std::vector<int64_t> out_dims = in_dims;
  bool from_sizes = false;
  ir::ResizeAspectPolicy aspect = ir::ResizeAspectPolicy::kStretch;
  int64_t aspect_sizes[4] = {0, 0, 0, 0};
  if (old_resize) {
    std::vector<float> v;
    if (upsample && c.opset() < 9) {
      if (const auto* attr = c.FindAttr("scales")) v.assign(attr->floats().begin(), attr->floats().end());
    } else if (c.HasInput(1)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
      v = c.ConstFloats(id);
    }
    if (v.size() != 4) return c.Unsupported("scales must have 4 values");
    scales = v;
  } else {
    std::vector<float> scale_values;
    std::vector<int64_t> size_values;
    if (c.HasInput(2)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(2));
      scale_values = c.ConstFloats(id);
    }
    if (c.HasInput(3)) {
      RILL_INF_ASSIGN_OR_RETURN(Value sizes, c.Input(3));
      if (!c.IsConst(sizes.id)) return ResizeToRunTimeSizes(c, x, sizes, mode, coordinate, rounding, cubic_coeff_a);
      size_values = c.ConstInts(sizes.id);
    }
    if (!scale_values.empty() && !size_values.empty()) return c.Unsupported("both scales and sizes given");
    if (scale_values.empty() && size_values.empty()) return c.Unsupported("neither scales nor sizes given");
    if (!scale_values.empty()) {
      if (scale_values.size() != n_axes) {
        return c.Unsupported("scales must have " + std::to_string(n_axes) + " values");
      }
      for (size_t i = 0; i < n_axes; ++i) scales[axes[i]] = scale_values[i];
    } else {
      if (size_values.size() != n_axes) {
        return c.Unsupported("sizes must have " + std::to_string(n_axes) + " values");
      }
      for (size_t i = 0; i < n_axes; ++i) out_dims[axes[i]] = size_values[i];
      for (int d = 0; d < 4; ++d) {
        if (out_dims[d] < 1 || out_dims[d] > (1 << 24)) return c.Unsupported("invalid sizes");
        scales[d] = static_cast<float>(out_dims[d]) / static_cast<float>(in_dims[d]);
      }
      from_sizes = true;
      // keep_aspect_ratio_policy (sizes only): one scale for the named axes
      // (all when axes is absent), the smallest or the largest, and their
      // sizes round(scale * in).
      if (policy != "stretch") {
        if (std::any_of(axes_attr.begin(), axes_attr.end(), [](int64_t v) { return v < 0; })) {
          // ONNX Runtime 1.30 matches the policy's axes without normalizing
          // them: with negative axes it returns the input's size.
          return c.UnsupportedAttribute("keep_aspect_ratio_policy",
                                        "keep_aspect_ratio_policy with negative axes (ONNX Runtime ignores the "
                                        "sizes there)");
        }
        aspect = policy == "not_smaller" ? ir::ResizeAspectPolicy::kNotSmaller : ir::ResizeAspectPolicy::kNotLarger;
        for (int d = 0; d < 4; ++d) aspect_sizes[d] = std::count(axes.begin(), axes.end(), d) > 0 ? out_dims[d] : 0;
        float scale = 1.0f;
        int64_t dims[4];
        ir::AspectResize(aspect, aspect_sizes, in_dims.data(), dims, &scale);
        for (int d = 0; d < 4; ++d) {
          scales[d] = aspect_sizes[d] > 0 ? scale : 1.0f;
          out_dims[d] = dims[d];
        }
      }
    }
  }
  if (scales[0] != 1.0f || scales[1] != 1.0f || out_dims[0] != in_dims[0] || out_dims[1] != in_dims[1]) {
    return c.Unsupported("Resize must keep N and C (scales 1, 1, h, w)");
  }
  if (!from_sizes) {
    for (int d = 2; d < 4; ++d) {
      if (!(scales[d] > 0.0f && scales[d] < 65536.0f)) return c.Unsupported("invalid scales");
      if (upsample && scales[d] < 1.0f) return c.Unsupported("Upsample scales below 1");
      // As ONNX Runtime: the product in float, truncated.
      out_dims[d] = static_cast<int64_t>(scales[d] * static_cast<float>(in_dims[d]));
    }
  }
  for (int d = 2; d < 4; ++d) {
    if (out_dims[d] < 1 || out_dims[d] > (1 << 24)) return c.Unsupported("invalid output size");
  }
  const int out_h = static_cast<int>(out_dims[2]), out_w = static_cast<int>(out_dims[3]);

  ir::OpAttrs a;
  a.resize_coordinate = coordinate;
  // Coordinates divide by the model's scales (0: out / in), as in ONNX Runtime.
  const bool given_scales = !from_sizes || policy != "stretch";
  a.scale_h = given_scales ? scales[2] : 0.0f;
  a.scale_w = given_scales ? scales[3] : 0.0f;
  a.resize_from_scales = !from_sizes;  // sizes are absolute; scales follow the input
  a.resize_aspect = aspect;            // ... and so does an aspect-ratio policy
  std::copy(aspect_sizes, aspect_sizes + 4, a.resize_sizes);
  if (crop) {
    // roi: starts then ends, for every axis (or those of `axes`); N and C
    // must be whole. Absent: the whole input.
    std::vector<float> roi = {0, 0, 0, 0, 1, 1, 1, 1};
    if (c.HasInput(1)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
      const std::vector<float> v = c.ConstFloats(id);
      if (v.size() != 2 * n_axes) return c.Unsupported("roi must have " + std::to_string(2 * n_axes) + " values");
      for (size_t i = 0; i < n_axes; ++i) {
        roi[axes[i]] = v[i];
        roi[4 + axes[i]] = v[n_axes + i];
      }
    }
    for (float r : roi) {
      if (!(std::fabs(r) <= 1e6f)) return c.Unsupported("roi values must be finite, at most 1e6");
    }
    if (roi[0] != 0 || roi[1] != 0 || roi[4] != 1 || roi[5] != 1) {
      return c.Unsupported("roi must keep N and C whole (0 to 1)");
    }
    a.roi_start_h = roi[2];
    a.roi_start_w = roi[3];
    a.roi_end_h = roi[6];
    a.roi_end_w = roi[7];
    a.extrapolation_value = extrapolation_value;
  }
  const int size = c.NewInt32Const(c.out_name() + "/size", {2}, {out_h, out_w});
  if (out_h == s[1] && out_w == s[2]) {
    // As large as the input: ONNX Runtime copies it, whatever the mode.
    ir::OpAttrs copy;
    copy.resize_coordinate = ir::ResizeCoordinate::kAsymmetric;
    copy.nearest_rounding = ir::NearestRounding::kFloor;
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kResizeNearest, {xi, size}, c.out_name(), copy));
    c.Define(out, true);
    return Status::Ok();
  }
  OpType type = OpType::kResizeBilinear;
  if (mode == "nearest") {
    type = OpType::kResizeNearest;
    a.nearest_rounding = rounding;
  } else if (mode == "cubic") {
    type = OpType::kResizeBicubic;
    a.cubic_coeff_a = cubic_coeff_a;
  }
  a.exclude_outside = exclude_outside != 0;
  a.antialias = antialias != 0;
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(type, {xi, size}, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Resize", "Upsample"}, Resize);

}  // namespace
}  // namespace rill::inference::onnx_import
