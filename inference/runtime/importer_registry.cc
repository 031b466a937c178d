#include "inference/runtime/importer_registry.h"

#include <mutex>

namespace rill::inference {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

std::vector<ModelImporter>& Registry() {
  static std::vector<ModelImporter>* registry = new std::vector<ModelImporter>();
  return *registry;
}

}  // namespace

bool RegisterModelImporter(const ModelImporter& importer) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().push_back(importer);
  return true;
}

std::vector<ModelImporter> RegisteredModelImporters() {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  return Registry();
}

}  // namespace rill::inference
