// ONNX Resize's coordinate transforms (coordinate_transformation_mode), in
// ONNX Runtime 1.30's float arithmetic and order, shared by the three resize
// kernels: an output index's source coordinate along one axis.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_COORDINATE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_COORDINATE_H_

#include "inference/ir/graph.h"
#include "inference/ir/resize_geometry.h"

namespace rill::inference::cpu {

// One axis of an ONNX resize.
struct ResizeAxis {
  int in_size = 1, out_size = 1;
  float scale = 0.0f;                      // the model's scale; 0: out_size / in_size (sizes given)
  float roi_start = 0.0f, roi_end = 1.0f;  // kTfCropAndResize: the normalized crop
};

// The batch, input and output sizes of a one-input NHWC op (pooling, a
// resize), x -> y, into its parameters (fields batch, in_h, in_w, channels,
// out_h, out_w), for any backend.
template <class P>
void SetNhwcSizes(const Shape& x, const Shape& y, P* p) {
  p->batch = x[0];
  p->in_h = x[1];
  p->in_w = x[2];
  p->channels = x[3];
  p->out_h = y[1];
  p->out_w = y[2];
}

// The rows or columns axis of any resize's parameters (they share the
// fields in_h/out_h/scale_h/roi_start_h/roi_end_h and their _w twins).
template <class P>
ResizeAxis ResizeAxisH(const P& p) {
  return ResizeAxis{p.in_h, p.out_h, p.scale_h, p.roi_start_h, p.roi_end_h};
}
template <class P>
ResizeAxis ResizeAxisW(const P& p) {
  return ResizeAxis{p.in_w, p.out_w, p.scale_w, p.roi_start_w, p.roi_end_w};
}

// The scale coordinates divide by: the model's, or out / in.
inline float EffectiveScale(const ResizeAxis& a) {
  return a.scale > 0.0f ? a.scale : static_cast<float>(a.out_size) / static_cast<float>(a.in_size);
}

// The source coordinate of output index `out_index`, not clamped to the
// input. An axis whose scale is exactly 1 maps every index to itself,
// whatever the mode (ONNX Runtime skips the transform there, the crop of
// tf_crop_and_resize included). `mode` is an ONNX mode (not kTflite).
float OnnxSourceCoordinate(ir::ResizeCoordinate mode, const ResizeAxis& axis, int out_index);

// Whether a source coordinate lies outside the input: tf_crop_and_resize
// writes extrapolation_value there.
inline bool OutsideInput(float coord, int in_size) {
  return coord < 0.0f || coord > static_cast<float>(in_size - 1);
}

// Sets the coordinate transform fields every resize's parameters share
// (ResizeParams, ResizeNearestParams, ResizeSeparableParams) from the op's
// attributes, for any backend; `x` is the input (NHWC): an aspect-ratio
// policy's scale follows it.
template <class P>
void SetResizeCoordinates(const ir::OpAttrs& a, const Shape& x, P* p) {
  p->coordinate = a.resize_coordinate;
  p->scale_h = a.scale_h;
  p->scale_w = a.scale_w;
  if (a.resize_aspect != ir::ResizeAspectPolicy::kStretch) {
    const int64_t in[4] = {x[0], x[3], x[1], x[2]};
    int64_t out[4];
    float scale = 1.0f;
    ir::AspectResize(a.resize_aspect, a.resize_sizes, in, out, &scale);
    p->scale_h = a.resize_sizes[2] > 0 ? scale : 1.0f;
    p->scale_w = a.resize_sizes[3] > 0 ? scale : 1.0f;
  }
  p->roi_start_h = a.roi_start_h;
  p->roi_start_w = a.roi_start_w;
  p->roi_end_h = a.roi_end_h;
  p->roi_end_w = a.roi_end_w;
  p->extrapolation_value = a.extrapolation_value;
}

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_COORDINATE_H_
