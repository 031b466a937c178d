// Writes the golden outputs mediapipe_golden_test compares against (see
// mediapipe_golden.h). Run on x86-64 from the repository root after a change
// that is meant to move the outputs:
//   bazel run //tests/inference:write_mediapipe_golden -- $PWD
#include <cstdio>
#include <fstream>

#include "rill/inference/inference.h"
#include "tests/inference/mediapipe_golden.h"

int main(int argc, char** argv) {
  using namespace rill::inference;
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_mediapipe_golden <repository root>\n");
    return 2;
  }
  const std::string root = argv[1];
  for (const std::string& name : testing::GoldenModels()) {
    auto model = Model::FromFile(root + "/third_party/models/" + name + ".tflite");
    if (!model.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), model.status().ToString().c_str());
      return 1;
    }
    SessionConfig config;
    config.num_threads = 1;
    auto session = Session::Create(*model, config);
    if (!session.ok()) return 1;
    for (int i = 0; i < (*session)->num_inputs(); ++i) testing::FillGoldenInput((*session)->input(i));
    if (!(*session)->Run().ok()) return 1;
    for (int o = 0; o < (*session)->num_outputs(); ++o) {
      const Tensor* t = (*session)->output(o);
      const std::string path = root + "/" + testing::GoldenFile(name, o);
      std::ofstream f(path, std::ios::binary);
      f.write(reinterpret_cast<const char*>(t->data_as<float>()), t->num_elements() * sizeof(float));
      std::printf("%s: %lld floats\n", path.c_str(), static_cast<long long>(t->num_elements()));
    }
  }
  return 0;
}
