#include "inference/ir/shape_context.h"

#include "inference/ir/conv_geometry.h"

namespace rill::inference::ir {
namespace {

constexpr int kMaxWindowParam = 1 << 16;

bool InRange(int v) { return v >= 1 && v <= kMaxWindowParam; }

}  // namespace

Status CheckWindow(ShapeContext& c, const OpAttrs& a, int kernel_h, int kernel_w) {
  if (!InRange(a.stride_h) || !InRange(a.stride_w) || !InRange(a.dilation_h) || !InRange(a.dilation_w) ||
      !InRange(kernel_h) || !InRange(kernel_w)) {
    return c.Error("invalid window: kernel " + std::to_string(kernel_h) + "x" + std::to_string(kernel_w) +
                   ", stride " + std::to_string(a.stride_h) + "x" + std::to_string(a.stride_w) + ", dilation " +
                   std::to_string(a.dilation_h) + "x" + std::to_string(a.dilation_w));
  }
  return Status::Ok();
}

Status CheckExplicitPads(ShapeContext& c, const OpAttrs& a) {
  if (a.padding != Padding::kExplicit) return Status::Ok();
  for (int p : {a.pad_top, a.pad_left, a.pad_bottom, a.pad_right}) {
    if (p < 0 || p > (1 << 20)) return c.Error("invalid padding " + std::to_string(p));
  }
  return Status::Ok();
}

// Output height and width of a conv window (kernel kh x kw) over x, or an
// error naming the window when it does not fit.
Status ConvWindowOutput(ShapeContext& c, const OpAttrs& a, const Shape& x, const Shape& w, int kh, int kw, int* oh,
                        int* ow) {
  RILL_INF_RETURN_IF_ERROR(CheckExplicitPads(c, a));
  *oh = a.padding == Padding::kExplicit
            ? ExplicitWindowOutputSize(x[1], kh, a.stride_h, a.dilation_h, a.pad_top, a.pad_bottom, false)
            : WindowOutputSize(x[1], kh, a.stride_h, a.dilation_h, a.padding);
  *ow = a.padding == Padding::kExplicit
            ? ExplicitWindowOutputSize(x[2], kw, a.stride_w, a.dilation_w, a.pad_left, a.pad_right, false)
            : WindowOutputSize(x[2], kw, a.stride_w, a.dilation_w, a.padding);
  if (*oh <= 0 || *ow <= 0) return c.Error("window " + ShapeToString(w) + " does not fit input " + ShapeToString(x));
  return Status::Ok();
}

}  // namespace rill::inference::ir
