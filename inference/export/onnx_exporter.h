// Writes an imported model (the graph IR as an importer made it, before the
// optimizer: NHWC, TFLite's ops and fused activations) as an ONNX model that
// ONNX Runtime or any other ONNX consumer runs with the same results:
//
//   auto model = Model::FromFile("hand_landmark_full.tflite", {.optimize = false});
//   auto onnx = onnx_export::ExportOnnx((*model)->graph());   // the file's bytes
//
// Tensors keep the IR's NHWC layout and names at the graph's inputs and
// outputs; convolutions, pools, resizes and depth-to-space run in ONNX's
// NCHW between a Transpose pair (ONNX Runtime folds adjacent pairs away).
// Weights are rewritten into ONNX's filter layouts; SAME padding becomes the
// explicit pads TFLite would use for the model's shapes. The engine's
// float32 stand-ins for booleans and indices (comparisons, ARG_MAX, GATHER's
// run-time indices, WHERE's condition, CAST) get Casts to and from ONNX's
// bool and int64. The recurrent op becomes ONNX's LSTM / GRU / RNN; a
// TFLite model's variable tensors (ir::Graph::variables) are plain graph
// inputs and outputs there: the state, which the caller feeds back. Opset 17.
//
// `rill model export MODEL --output=OUT.onnx` is the command-line form.
// What it cannot write (the MediaPipe custom ops, an optimizer-made op, a
// resize in an ONNX coordinate mode, a grouped transposed convolution) is
// one error naming every such node.
#ifndef RILL_INFERENCE_EXPORT_ONNX_EXPORTER_H_
#define RILL_INFERENCE_EXPORT_ONNX_EXPORTER_H_

#include <string>

#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference::onnx_export {

// The ONNX opset the exporter writes.
inline constexpr int kOpset = 17;

// The serialized ModelProto for `graph`.
StatusOr<std::string> ExportOnnx(const ir::Graph& graph);

}  // namespace rill::inference::onnx_export

#endif  // RILL_INFERENCE_EXPORT_ONNX_EXPORTER_H_
