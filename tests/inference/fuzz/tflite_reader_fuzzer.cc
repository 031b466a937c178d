// libFuzzer target for the TFLite reader and everything a loaded model
// reaches: import, optimizer, planning and a run, on the CPU and split over
// two backends (fuzz_model.h).
//
// Coverage-guided with clang's libFuzzer under ASan: scripts/fuzz.sh
// [SECONDS] (bazel --config=libfuzzer in its own output base; see
// inference/README.md, "Fuzzing").
// Under bazel (gcc) the same entry point is driven by fuzz_driver.cc over a
// corpus of real models, regression inputs and their mutations.
#include <cstddef>
#include <cstdint>

#include "tests/inference/fuzz/fuzz_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rill::inference::fuzz::FuzzModelBytes(data, size, "fuzz.tflite");
}
