// Golden outputs of MediaPipe models, written once by the x86-64 build
// (write_mediapipe_golden, kAuto kernels) into testdata/golden/ and compared
// against by mediapipe_golden_test on every build, the aarch64 one under
// qemu included: the ARM kernels' outputs against the x86 kernels' outputs.
#ifndef RILL_TESTS_INFERENCE_MEDIAPIPE_GOLDEN_H_
#define RILL_TESTS_INFERENCE_MEDIAPIPE_GOLDEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "rill/inference/inference.h"

namespace rill::inference::testing {

// Small models only (the golden files are committed): the two face
// detectors, the light hand landmark model and the face mesh model (PRELU,
// fused into its convs and standalone).
inline std::vector<std::string> GoldenModels() {
  return {"face_detection_short_range", "face_detection_full_range", "hand_landmark_lite",
          "face_landmark"};
}

// The input every run feeds: an integer hash mapped to [-1, 1), the same
// floats on every machine (no libm).
inline void FillGoldenInput(Tensor* t) {
  float* x = t->data_as<float>();
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    const uint32_t h = static_cast<uint32_t>(i) * 2654435761u;
    x[i] = static_cast<float>(h >> 20) / 2048.0f - 1.0f;
  }
}

inline std::string GoldenFile(const std::string& model, int output) {
  return "tests/inference/testdata/golden/" + model + ".out" + std::to_string(output) + ".f32";
}

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_MEDIAPIPE_GOLDEN_H_
