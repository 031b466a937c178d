#include "inference/backend/vulkan/shaders.h"

#include <cstdio>

namespace rill::inference::vulkan {

const ShaderInfo* FindShader(const std::string& name, int variant) {
  for (size_t i = 0; i < kNumShaders; ++i) {
    if (kShaders[i].variant == variant && name == kShaders[i].name) return &kShaders[i];
  }
  return nullptr;
}

std::string ShadersDigest() {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < kNumShaders; ++i) {
    for (size_t w = 0; w < kShaders[i].words; ++w) {
      h ^= kShaders[i].code[w];
      h *= 1099511628211ull;
    }
  }
  char s[32];
  std::snprintf(s, sizeof(s), "%016llx", static_cast<unsigned long long>(h));
  return s;
}

}  // namespace rill::inference::vulkan
