// Session::Run makes no heap allocation: this binary replaces the global
// operator new/delete with counting versions and runs real models.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/counting_new.h"
#include "tests/inference/cpu_device_backend.h"
#include "tests/inference/test_util.h"

namespace {
int* volatile g_sink = nullptr;  // keeps the self-check allocation from being elided
}  // namespace

namespace rill::inference {
namespace {

class ZeroAllocationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZeroAllocationTest, RunDoesNotAllocate) {
  const std::string path = testing::ModelPath(GetParam());
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // The Vulkan variants (lavapipe runs shaders on the CPU, slowly) on the
  // smaller models only; resnet18's ops are among theirs.
  const bool vulkan_too = GetParam() != "resnet18.onnx" && GetParam() != "pose_landmark_lite.tflite";
  for (int variant = 0; variant < 10; ++variant) {
    if (variant >= 7 && !vulkan_too) continue;
    SessionConfig config;
    if (variant == 5) config.precision = Precision::kFp16;  // half-precision GEMM panels
    config.algorithm = variant == 0 ? AlgorithmPolicy::kReference : AlgorithmPolicy::kAuto;
    config.num_threads = variant == 2 ? 2 : 1;  // the thread pool's dispatch is allocation-free too
    if (variant >= 3) {
      // Two backends: convolutions on the device, the rest falls back to the
      // CPU, copies between them; concurrent streams (3) or one thread (4).
      testing::UseCpuDevice(&config, {"CONV_2D", "DEPTHWISE_CONV_2D"});
      config.concurrent_backends = variant == 3;
    }
    if (variant == 6) {
      // The OpenCL backend (PoCL in CI): enqueues and transfers only.
      config.backend = "opencl";
      config.num_threads = 2;
    }
    if (variant >= 7) {
      // The Vulkan backend (lavapipe in CI): the recorded command buffers
      // replayed; whole (7), with fp16 storage (8), and every other node on
      // the CPU (9: a submit per stretch between transfers, two streams).
      config.backend = "vulkan";
      if (variant == 8) config.precision = Precision::kFp16;
      if (variant == 9) {
        const ir::Graph& g = (*model)->graph();
        for (size_t n = 1; n < g.nodes.size(); n += 2) config.node_backends[g.nodes[n].name] = kCpuBackend;
        config.num_threads = 2;
      }
      if (const char* tmp = std::getenv("TEST_TMPDIR")) config.backend_options["vulkan.cache_dir"] = std::string(tmp) + "/vk";
    }
    auto session = Session::Create(*model, config);
    if (variant == 6 && !session.ok() && session.status().code() == StatusCode::kUnavailable) {
      RILL_REQUIRE(false, "no OpenCL device (PoCL: scripts/setup.sh): " << session.status().ToString());
    }
    if (variant >= 7 && !session.ok() && session.status().code() == StatusCode::kUnavailable) {
      RILL_REQUIRE(false, "no Vulkan device (lavapipe: scripts/setup.sh): " << session.status().ToString());
    }
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Tensor* in = (*session)->input(0);
    for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = 0.5f;
    // The counter itself is checked to work: an allocation in the window counts.
    rill::testing::StartCountingAllocations();
    g_sink = new int(1);
    delete g_sink;
    ASSERT_EQ(rill::testing::StopCountingAllocations(), 1);

    // PoCL compiles each kernel for its launch size at the first launch (the
    // driver's JIT, not the engine's): the OpenCL variant is checked in
    // steady state, after one run.
    if (variant >= 6) {
      ASSERT_TRUE((*session)->Run().ok());
    }
    rill::testing::StartCountingAllocations();
    Status s1 = (*session)->Run();
    Status s2 = (*session)->Run();
    const long allocations = rill::testing::StopCountingAllocations();
    ASSERT_TRUE(s1.ok() && s2.ok()) << s1.ToString() << " " << s2.ToString();
    EXPECT_EQ(allocations, 0) << "heap allocations during Run() (variant " << variant << ")";
  }
}

// After Session::Resize, Run stays allocation-free: a TFLite model re-plans
// its graph (the cheap path), an ONNX model's session plans the graph
// imported again at the new shapes, or its own again when resized back.
TEST(ZeroAllocationAfterResizeTest, RunDoesNotAllocate) {
  const std::vector<std::pair<std::string, std::vector<Shape>>> cases = {
      {"face_detection_short_range.tflite", {{2, 128, 128, 3}, {1, 128, 128, 3}}},
      {"resnet18.onnx", {{1, 3, 160, 192}, {2, 3, 224, 224}, {1, 3, 224, 224}}},
      {"rill_op_zoo.onnx", {{1, 3, 33, 21}, {1, 3, 17, 13}}},
  };
  for (const auto& [file, shapes] : cases) {
    const std::string path = testing::ModelPath(file);
    RILL_SKIP_IF_MISSING(path);
    auto model = Model::FromFile(path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (int threads : {1, 2}) {
      SessionConfig config;
      config.num_threads = threads;
      auto session = Session::Create(*model, config);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      for (const Shape& shape : shapes) {
        const Status resized = (*session)->Resize({{(*session)->input(0)->name(), shape}});
        ASSERT_TRUE(resized.ok()) << file << ": " << resized.ToString();
        Tensor* in = (*session)->input(0);
        ASSERT_EQ(in->shape(), shape);
        for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = 0.25f;
        rill::testing::StartCountingAllocations();
        Status s1 = (*session)->Run();
        Status s2 = (*session)->Run();
        const long allocations = rill::testing::StopCountingAllocations();
        ASSERT_TRUE(s1.ok() && s2.ok()) << s1.ToString() << " " << s2.ToString();
        EXPECT_EQ(allocations, 0) << file << " resized to " << ShapeToString(shape) << ", " << threads << " threads";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(MediaPipe, ZeroAllocationTest,
                         ::testing::Values("face_detection_short_range.tflite", "selfie_segmentation.tflite",
                                           "hand_landmark_lite.tflite", "pose_landmark_lite.tflite",
                                           // ONNX: Winograd, im2col, layout transposes, BN folds.
                                           "resnet18.onnx", "rill_op_zoo.onnx"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

}  // namespace
}  // namespace rill::inference
