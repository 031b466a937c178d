// libFuzzer target for the TFLite reader and everything a loaded model
// reaches: import, optimizer, planning and (for small arenas) a run. Any
// input must give an error or a finished run, never a crash.
//
// With clang and libFuzzer (outside bazel; see inference/README.md):
//   clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address -I. -Iinference/include
//     $(find inference -name '*.cc' -not -path '*/onnx/*' -not -path '*/tools/*')
//     tests/inference/fuzz/tflite_reader_fuzzer.cc -o /tmp/tflite_fuzzer
//   /tmp/tflite_fuzzer -max_total_time=60 third_party/models/face_detection_short_range.tflite
// Under bazel (gcc) the same entry point is driven by fuzz_driver.cc over a
// corpus of real models and their truncations.
#include <cstddef>
#include <cstdint>

#include "rill/inference/inference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rill::inference;
  auto model = Model::FromBuffer(data, size, "fuzz.tflite");
  if (!model.ok()) return 0;
  auto session = Session::Create(*model);
  if (!session.ok() || (*session)->arena_bytes() > (32u << 20)) return 0;
  for (int i = 0; i < (*session)->num_inputs(); ++i) {
    Tensor* t = (*session)->input(i);
    if (t->dtype() != DataType::kFloat32) continue;
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = 0.5f;
  }
  (void)(*session)->Run();
  return 0;
}
