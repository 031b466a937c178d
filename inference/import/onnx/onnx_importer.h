// Reads an ONNX model (Debian's libonnx protobuf classes) into the graph IR.
// ONNX is NCHW; the engine's kernels are NHWC. The importer tracks a layout
// per value: spatial ops (Conv, pools, BatchNormalization, Resize, Pad)
// produce NHWC values, elementwise ops and Concat follow their inputs, and a
// Transpose is inserted only where an NHWC value meets a layout-sensitive op
// (Reshape, Flatten, Gemm, ...) or a graph output, so users see ONNX shapes.
// Shape/Gather/Slice/Cast/Unsqueeze/Concat on constants are folded. Each op
// type is converted by its converter (onnx_converter.h, converters/). Nodes
// the engine cannot convert make one error naming the file and each of them
// (node, op type, attribute where one is at fault).
// Linking this library registers the format with Model::FromFile.
#ifndef RILL_INFERENCE_IMPORT_ONNX_ONNX_IMPORTER_H_
#define RILL_INFERENCE_IMPORT_ONNX_ONNX_IMPORTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference::onnx_import {

bool LooksLikeOnnx(const uint8_t* data, size_t size, const std::string& name);

// `input_shapes` (LoadOptions::input_shapes): NCHW shapes of graph inputs by
// name, replacing their symbolic (or fixed) dimensions.
StatusOr<std::shared_ptr<ir::Graph>> ImportOnnx(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                const std::string& source,
                                                const std::map<std::string, std::vector<int>>& input_shapes = {});

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_ONNX_IMPORTER_H_
