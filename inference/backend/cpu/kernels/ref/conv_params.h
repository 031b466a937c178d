// ConvParams (and the fused activation) of an IR node, derived the same way
// by every backend that runs convolutions, pools or their fused blocks.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONV_PARAMS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONV_PARAMS_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/ir/conv_geometry.h"
#include "inference/ir/graph.h"

namespace rill::inference::cpu {

inline FusedActivation ToFused(ir::Activation a) {
  switch (a) {
    case ir::Activation::kNone: return FusedActivation::kNone;
    case ir::Activation::kRelu: return FusedActivation::kRelu;
    case ir::Activation::kReluN1To1: return FusedActivation::kReluN1To1;
    case ir::Activation::kRelu6: return FusedActivation::kRelu6;
    case ir::Activation::kTanh: return FusedActivation::kTanh;
  }
  return FusedActivation::kNone;
}

// The geometry every conv reads the same way from its input (x, NHWC),
// filter (w: OHWI, or 1HWC for depthwise; a pool passes {1, kh, kw, 1}) and
// output (y) shapes and its attributes: sizes, kernel, strides, dilation,
// activation. Padding, groups and the depth multiplier are each op's own.
inline ConvParams ConvShapeParams(const Shape& x, const Shape& w, const Shape& y, const ir::OpAttrs& a) {
  ConvParams p;
  p.batch = x[0];
  p.in_h = x[1];
  p.in_w = x[2];
  p.in_c = x[3];
  p.out_h = y[1];
  p.out_w = y[2];
  p.out_c = y[3];
  p.kernel_h = w[1];
  p.kernel_w = w[2];
  p.stride_h = a.stride_h;
  p.stride_w = a.stride_w;
  p.dilation_h = a.dilation_h;
  p.dilation_w = a.dilation_w;
  p.activation = ToFused(a.activation);
  return p;
}

// The padding before the first row and column of a (forward) conv window:
// the explicit pads, or SAME/VALID's from p's sizes, kernel, stride, dilation.
inline void SetWindowPadding(const ir::OpAttrs& a, ConvParams* p) {
  if (a.padding == ir::Padding::kExplicit) {
    p->pad_top = a.pad_top;
    p->pad_left = a.pad_left;
  } else {
    p->pad_top = ir::WindowPadBefore(p->in_h, p->out_h, p->kernel_h, p->stride_h, p->dilation_h, a.padding);
    p->pad_left = ir::WindowPadBefore(p->in_w, p->out_w, p->kernel_w, p->stride_w, p->dilation_w, a.padding);
  }
}

// A transposed conv's padding: explicit, or that of the forward conv which
// maps its output back to its input.
inline void SetTransposeConvPadding(const ir::OpAttrs& a, ConvParams* p) {
  if (a.padding == ir::Padding::kExplicit) {
    SetWindowPadding(a, p);
    return;
  }
  p->pad_top = ir::WindowPadBefore(p->out_h, p->in_h, p->kernel_h, p->stride_h, 1, a.padding);
  p->pad_left = ir::WindowPadBefore(p->out_w, p->in_w, p->kernel_w, p->stride_w, 1, a.padding);
}

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONV_PARAMS_H_
