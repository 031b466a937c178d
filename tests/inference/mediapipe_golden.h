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
// detectors, the light hand landmark model, the face mesh model (PRELU,
// fused into its convs and standalone) and the light pose landmark model
// (its segmentation head's 3x3 stride-1 conv, 256x256x8 -> 1, is the only
// ungrouped 3x3 stride-1 conv of these models: the Winograd case).
inline std::vector<std::string> GoldenModels() {
  return {"face_detection_short_range", "face_detection_full_range", "hand_landmark_lite",
          "face_landmark", "pose_landmark_lite"};
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

// The outputs' tolerance, as a share of each output's largest magnitude:
// the kernels sum in different orders (8x12 vs 6x16/6x32 tiles, Winograd or
// not), nothing more. The pose landmark model amplifies those differences
// (its segmentation logits, output 2, up to 561: 2.5e-4 with the NEON
// kernels, 1.3e-4 with the reference ones, measured under qemu); the others
// stay within 1e-5 (measured at most 7e-7).
inline float GoldenTolerance(const std::string& model) { return model == "pose_landmark_lite" ? 1e-3f : 1e-5f; }

inline std::string GoldenFile(const std::string& model, int output) {
  return "tests/inference/testdata/golden/" + model + ".out" + std::to_string(output) + ".f32";
}

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_MEDIAPIPE_GOLDEN_H_
