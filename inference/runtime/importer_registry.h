// Model formats beyond the built-in TFLite reader register here, so the
// runtime core does not depend on their libraries (the ONNX importer needs
// protobuf; link //inference/import/onnx to add it). The registry is the
// engine's only global mutable state.
#ifndef RILL_INFERENCE_RUNTIME_IMPORTER_REGISTRY_H_
#define RILL_INFERENCE_RUNTIME_IMPORTER_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference {

struct ModelImporter {
  std::string format;  // "onnx"
  // True if the bytes (or the file name) look like this format.
  bool (*sniff)(const uint8_t* data, size_t size, const std::string& name) = nullptr;
  // `input_shapes`: LoadOptions::input_shapes.
  StatusOr<std::shared_ptr<ir::Graph>> (*import)(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                 const std::string& name,
                                                 const std::map<std::string, std::vector<int>>& input_shapes) = nullptr;
};

// Returns true so it can initialise a static in the registering library.
bool RegisterModelImporter(const ModelImporter& importer);
std::vector<ModelImporter> RegisteredModelImporters();

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_IMPORTER_REGISTRY_H_
