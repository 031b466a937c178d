// The body both reader fuzz targets share: load the bytes as a model, plan
// it under a 32 MiB memory budget and run it, on the CPU and split over two
// backends (convolutions on cpu_device, the rest falling back to the CPU,
// copies between them). Any input must give an error or a finished run,
// never a crash.
#ifndef RILL_TESTS_INFERENCE_FUZZ_FUZZ_MODEL_H_
#define RILL_TESTS_INFERENCE_FUZZ_FUZZ_MODEL_H_

#include <cstddef>
#include <cstdint>

#include "rill/inference/inference.h"
#include "tests/inference/cpu_device_backend.h"

namespace rill::inference::fuzz {

// Fills the float inputs with 0.5 and runs; errors are fine, crashes are not.
inline void FillAndRun(Session* session) {
  for (int i = 0; i < session->num_inputs(); ++i) {
    Tensor* t = session->input(i);
    if (t->dtype() != DataType::kFloat32) continue;
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = 0.5f;
  }
  (void)session->Run();
}

// `name` carries the extension that picks the importer ("fuzz.onnx").
inline int FuzzModelBytes(const uint8_t* data, size_t size, const char* name) {
  auto model = Model::FromBuffer(data, size, name);
  if (!model.ok()) return 0;
  // A model may ask for any amount of memory; untrusted ones get a budget.
  SessionConfig base;
  base.max_memory_bytes = 32u << 20;
  auto session = Session::Create(*model, base);
  if (!session.ok()) return 0;
  FillAndRun(session->get());
  SessionConfig config = base;
  testing::UseCpuDevice(&config, {"CONV_2D", "DEPTHWISE_CONV_2D"});
  auto split = Session::Create(*model, config);
  if (split.ok()) FillAndRun(split->get());
  return 0;
}

}  // namespace rill::inference::fuzz

#endif  // RILL_TESTS_INFERENCE_FUZZ_FUZZ_MODEL_H_
