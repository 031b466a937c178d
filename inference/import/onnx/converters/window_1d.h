// 1-D window ops (Conv, ConvTranspose, MaxPool, AveragePool over [N, C, L])
// run as their 2-D forms over [N, C, 1, L]: the shared reading of their
// attributes and the reshapes on either side.
#ifndef RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_WINDOW_1D_H_
#define RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_WINDOW_1D_H_

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {

// strides (one value), pads (two) and auto_pad (NOTSET, VALID, SAME_UPPER)
// of the node as a 2-D op's width axis: a->stride_w, a->pad_left /
// pad_right or a->padding. Dilations are the caller's.
Status Read1dWindow(ConverterContext& c, ir::OpAttrs* a);

// x [N, C, L] as the NHWC value [N, 1, L, C]; the 2-D op's result y (NHWC
// [N, 1, L', C']) back as [N, C', L'], bound to the node's output.
StatusOr<int> As2d(ConverterContext& c, const Value& x);
Status From2d(ConverterContext& c, int y);

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_WINDOW_1D_H_
