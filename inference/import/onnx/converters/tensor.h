// Converters of converters/tensor.cc that other converter files hand nodes
// to: MatMul of two activations (gemm.cc), Gather of an activation or of
// constants of any rank (constant_ops.cc), Cast of an activation
// (constant_ops.cc).
#ifndef RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_TENSOR_H_
#define RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_TENSOR_H_

#include <cstdint>
#include <string>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/dynamic_ops.h"

namespace rill::inference::onnx_import {

// The flat index into an input of shape `s` (numpy-broadcast to `out`) of
// output element `o` of `out`: what the constant folds of broadcasting ops
// read.
inline size_t SourceIndex(const Shape& s, const Shape& out, int64_t o) {
  size_t index = 0, stride = 1;
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    const int64_t coord = o % out[d];
    o /= out[d];
    const int sd = d - (static_cast<int>(out.size()) - static_cast<int>(s.size()));
    if (sd < 0) continue;
    if (s[sd] != 1) index += static_cast<size_t>(coord) * stride;
    stride *= static_cast<size_t>(s[sd]);
  }
  return index;
}

Status ConvertBatchMatMul(ConverterContext& c);
Status ConvertGather(ConverterContext& c);
Status ConvertCastTensor(ConverterContext& c, const Value& x, int64_t to);
// Slice of a constant of any rank, any steps (shape_ops.cc folds 1-D ones).
Status ConvertSliceConst(ConverterContext& c);
// Transpose of a constant (shape_ops.cc).
Status ConvertTransposeConst(ConverterContext& c);
// Concat of constants of any rank along an axis (shape_ops.cc folds 1-D
// int64 ones).
Status ConvertConcatConst(ConverterContext& c);
// Add, Sub, Mul, Div of two constants, broadcast (elementwise.cc): int64
// as integers, float as float.
Status ConvertBinaryConst(ConverterContext& c);
// Shape of a value whose sizes are known only at run time (dynamic.cc).
Status ConvertShapeAtRun(ConverterContext& c, const Value& x);
// A RESHAPE of tensor x to `shape` named `name` (image_ops.cc, deform_conv.cc).
StatusOr<int> EmitReshape(ConverterContext& c, int x, const Shape& shape, const std::string& name);
// ScatterElements' and ScatterND's `reduction` attribute (dynamic.cc).
StatusOr<ir::ScatterAttrs::Reduction> ReadScatterReduction(ConverterContext& c);
// The ONNX element type of value `name` as far as the model says it
// (constant_ops.cc): declared (graph input, output, value_info), an
// initializer's, a Constant's, a Cast's `to`, bool from a comparison or logic
// op, int64 for a value the importer knows holds integers; 0 when unknown.
int64_t DeclaredElementType(ConverterContext& c, const std::string& name);
// The same, float where unknown (run-time values are float32).
int64_t ElementType(ConverterContext& c, const std::string& name);
// ConstantOfShape of a shape computed at run time (dynamic.cc).
Status ConvertConstantOfShapeAtRun(ConverterContext& c, const Value& shape);

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_TENSOR_H_
