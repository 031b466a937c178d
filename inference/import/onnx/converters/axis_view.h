// The axis of ONNX's Softmax-like ops (LogSoftmax, Hardmax): the attribute
// (default -1 from opset 13, 1 before), and before opset 13 the op's 2-D
// view [outer, inner] from that axis where the axes after it are not all 1.
#ifndef RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_AXIS_VIEW_H_
#define RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_AXIS_VIEW_H_

#include <string>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {

struct AxisView {
  int x = -1;     // the value to work on (the 2-D view when coerced)
  int axis = 0;   // its axis
  int rank = 0;   // its rank
  int length = 0;  // its size along the axis
  bool coerced = false;
  Shape shape;  // the input's (ONNX's) shape
};

// Node input 0 in ONNX's layout and its axis, RESHAPEd to the 2-D view
// where that applies.
StatusOr<AxisView> SoftmaxAxisView(ConverterContext& c);
// The op's result `y` on the view, back to the input's shape, as the node's
// output (`y` named c.out_name() + "/2d_out" when coerced, else
// c.out_name()); defines the node's output.
Status DefineFromAxisView(ConverterContext& c, const AxisView& v, int y);
// The name for the op's result on the view (see DefineFromAxisView).
std::string AxisViewOutName(ConverterContext& c, const AxisView& v);

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_AXIS_VIEW_H_
