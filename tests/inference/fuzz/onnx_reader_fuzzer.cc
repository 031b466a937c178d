// libFuzzer target for the ONNX reader and everything a loaded model
// reaches: import, optimizer, planning and a run (under a 32 MiB memory
// budget), on the CPU and split over two backends. Any input must give an
// error or a finished run, never a crash.
//
// Coverage-guided with clang's libFuzzer under ASan: scripts/fuzz.sh
// [SECONDS] (bazel --config=libfuzzer in its own output base; see
// inference/README.md, "Fuzzing").
// Under bazel (gcc) the same entry point is driven by fuzz_driver.cc over a
// corpus of real models, regression inputs and their mutations.
#include <cstddef>
#include <cstdint>

#include "rill/inference/inference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rill::inference;
  auto model = Model::FromBuffer(data, size, "fuzz.onnx");
  if (!model.ok()) return 0;
  // A model may ask for any amount of memory; untrusted ones get a budget.
  SessionConfig base;
  base.max_memory_bytes = 32u << 20;
  auto session = Session::Create(*model, base);
  if (!session.ok()) return 0;
  for (int i = 0; i < (*session)->num_inputs(); ++i) {
    Tensor* t = (*session)->input(i);
    if (t->dtype() != DataType::kFloat32) continue;
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = 0.5f;
  }
  (void)(*session)->Run();
  // The same model across two backends: convolutions on the cpu_device
  // backend, the rest falling back to the CPU, copies between them.
  SessionConfig config = base;
  config.backend = BackendKind::kCpuDevice;
  config.cpu_device_ops = {"CONV_2D", "DEPTHWISE_CONV_2D"};
  auto split = Session::Create(*model, config);
  if (!split.ok()) return 0;
  for (int i = 0; i < (*split)->num_inputs(); ++i) {
    Tensor* t = (*split)->input(i);
    if (t->dtype() != DataType::kFloat32) continue;
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = 0.5f;
  }
  (void)(*split)->Run();
  return 0;
}
