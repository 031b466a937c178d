// The 3-D forms of ONNX's Conv and pools (CONV_3D and POOL_3D,
// inference/ir/ops/volume_ops.h), called by the Conv and pool converters
// when the filter or kernel_shape has three spatial axes.
#ifndef RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_VOLUME_H_
#define RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_VOLUME_H_

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {

// Conv with a 5-D filter (input 0 is `x`, the filter the constant `w_id`).
Status Conv3d(ConverterContext& c, const Value& x, int w_id);
// ConvTranspose with a 5-D filter.
Status ConvTranspose3d(ConverterContext& c, const Value& x, int w_id);
// MaxPool / AveragePool with a 3-value kernel_shape.
Status Pool3d(ConverterContext& c, const Value& x);

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_VOLUME_H_
