// Helpers shared by the engine's tests: locating fetched models and media,
// random operands.
#ifndef RILL_TESTS_INFERENCE_TEST_UTIL_H_
#define RILL_TESTS_INFERENCE_TEST_UTIL_H_

#include <cstddef>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "rill/inference/config.h"
#include "tests/require.h"

namespace rill::inference::testing {

// Runfiles-relative path of a fetched model (bazel runs tests in the
// workspace's runfiles root).
inline std::string ModelPath(const std::string& name) { return "third_party/models/" + name; }
inline std::string MediaPath(const std::string& name) { return "third_party/media/" + name; }

inline bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

inline std::vector<std::string> MediaPipeModels() {
  return {"face_detection_short_range.tflite", "face_detection_full_range.tflite",
          "face_detection_full_range_sparse.tflite", "selfie_segmentation.tflite",
          "selfie_segmentation_landscape.tflite", "hand_landmark_lite.tflite",
          "hand_landmark_full.tflite", "pose_landmark_lite.tflite",
          "pose_landmark_full.tflite", "pose_landmark_heavy.tflite",
          // The tracking solutions' detectors and landmark models.
          "palm_detection_full.tflite", "palm_detection_lite.tflite", "pose_detection.tflite",
          "face_landmark.tflite", "face_landmark_with_attention.tflite", "hand_recrop.tflite"};
}

// n floats uniform in [lo, hi) from `rng` (kernel tests' random operands).
inline std::vector<float> RandomFloats(size_t n, std::mt19937* rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*rng);
  return v;
}

// The session configs a kernel test runs a model under: the reference
// kernels and the optimized ones (kAuto), each at every thread count given.
inline std::vector<SessionConfig> PolicyThreadConfigs(std::initializer_list<int> threads) {
  std::vector<SessionConfig> configs;
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
    for (int n : threads) {
      SessionConfig config;
      config.algorithm = policy;
      config.num_threads = n;
      configs.push_back(config);
    }
  }
  return configs;
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace rill::inference::testing

#define RILL_SKIP_IF_MISSING(path) \
  RILL_REQUIRE(::rill::inference::testing::FileExists(path), path << " is missing: run scripts/fetch_models.sh")

#endif  // RILL_TESTS_INFERENCE_TEST_UTIL_H_
