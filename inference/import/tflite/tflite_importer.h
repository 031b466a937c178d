// Reads a TFLite model (a FlatBuffers file with identifier "TFL3") into the
// graph IR. Written by hand over the bytes against the TFLite schema's table
// and field ids; every read is bounds-checked, so a corrupt or truncated file
// is an error naming the file, never a crash. Supports the ops of MediaPipe's
// models (see inference/README.md), each through its converter
// (tflite_converter.h, converters/); the operators it cannot convert make one
// error naming the file and each of them (node, op, option where one is at
// fault). DENSIFY and DEQUANTIZE of constants are folded at import, so fp16
// and sparse weights arrive as dense fp32 constants.
#ifndef RILL_INFERENCE_IMPORT_TFLITE_TFLITE_IMPORTER_H_
#define RILL_INFERENCE_IMPORT_TFLITE_TFLITE_IMPORTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference::tflite {

// True if the buffer carries the TFLite file identifier.
bool LooksLikeTfLite(const uint8_t* data, size_t size);

// `bytes` is kept alive by the returned graph; fp32 constants point into it.
StatusOr<std::shared_ptr<ir::Graph>> ImportTfLite(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                  const std::string& source);

}  // namespace rill::inference::tflite

#endif  // RILL_INFERENCE_IMPORT_TFLITE_TFLITE_IMPORTER_H_
