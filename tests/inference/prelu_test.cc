// PRELU on the CPU backend: the kernel table's PRELU (AVX2 / AVX-512 /
// NEON) against the reference policy, bit for bit, on every slope form TFLite
// allows ([C], [1, 1, C], a scalar, x's shape) and a per-image slope, at 1,
// 2 and 3 threads (tensors large enough to split), and the forms the table's
// kernel does not take (a slope broadcast along an inner axis) on the
// reference kernel.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

// x -> PRELU(x, slope) with a constant slope of `slope_shape`.
std::shared_ptr<Model> PReluModel(const Shape& x_shape, const Shape& slope_shape, std::mt19937* rng) {
  auto g = std::make_shared<ir::Graph>();
  ir::TensorInfo x;
  x.name = "x";
  x.shape = x_shape;
  g->tensors.push_back(x);
  ir::TensorInfo slope;
  slope.name = "slope";
  g->tensors.push_back(slope);
  const std::vector<float> v = testing::RandomFloats(static_cast<size_t>(NumElements(slope_shape)), rng);
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  g->SetConstant(1, DataType::kFloat32, slope_shape, std::move(bytes));
  ir::TensorInfo y;
  y.name = "y";
  y.shape = x_shape;
  g->tensors.push_back(y);
  ir::Node n;
  n.name = "y";
  n.type = ir::OpType::kPRelu;
  n.inputs = {0, 1};
  n.outputs = {2};
  g->nodes.push_back(n);
  g->inputs = {0};
  g->outputs = {2};
  return std::make_shared<Model>(g);
}

struct Result {
  std::vector<float> y;
  std::string kernel;
};

Result RunModel(const std::shared_ptr<Model>& model, AlgorithmPolicy policy, int threads, const std::vector<float>& x) {
  SessionConfig config;
  config.algorithm = policy;
  config.num_threads = threads;
  auto s = Session::Create(model, config);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  std::memcpy((*s)->input(0)->data(), x.data(), x.size() * 4);
  EXPECT_TRUE((*s)->Run().ok());
  const Tensor* y = (*s)->output(0);
  return {std::vector<float>(y->data_as<float>(), y->data_as<float>() + y->num_elements()), (*s)->KernelNames()[0]};
}

TEST(PReluTest, TableKernelMatchesReferenceOnEveryBroadcast) {
  const cpu::CpuKernels& k = cpu::CpuKernelsFor(AlgorithmPolicy::kAuto);
  if (k.elementwise.prelu == nullptr) GTEST_SKIP() << "no PRELU kernel on this CPU";
  struct Case {
    Shape x, slope;
    bool table;  // the table's kernel takes it
  };
  const std::vector<Case> cases = {
      {{1, 96, 96, 32}, {1, 1, 32}, true},    // palm detection's first PRELU, split over threads
      {{1, 45, 37, 17}, {17}, true},          // odd channels: a tail every pixel
      {{1, 40, 41, 3}, {1, 1, 3}, true},      // narrow channels
      {{2, 33, 29, 24}, {1}, true},           // a scalar slope, batch 2
      {{1, 61, 67, 5}, {1, 61, 67, 5}, true}, // a slope of x's shape
      {{3, 20, 21, 40}, {3, 1, 1, 40}, true}, // a slope per image and channel
      {{1, 7, 1}, {1}, true},                 // too small to split
      {{1, 30, 31, 8}, {1, 31, 1}, false},    // along the width: the reference
      {{2, 30, 31, 8}, {2, 1, 1, 1}, false},  // per image only: the reference
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    const std::string what = ::testing::PrintToString(c.x) + " slope " + ::testing::PrintToString(c.slope);
    auto model = PReluModel(c.x, c.slope, &rng);
    std::vector<float> x = testing::RandomFloats(static_cast<size_t>(NumElements(c.x)), &rng);
    x[0] = std::nanf("");
    x[1] = -0.0f;
    x[2] = -INFINITY;
    const Result want = RunModel(model, AlgorithmPolicy::kReference, 1, x);
    ASSERT_EQ(want.kernel, "prelu_ref");
    for (int threads : {1, 2, 3}) {
      const Result got = RunModel(model, AlgorithmPolicy::kAuto, threads, x);
      EXPECT_EQ(got.kernel, c.table ? std::string("prelu_") + k.elementwise.prelu_isa : "prelu_ref") << what;
      ASSERT_EQ(want.y.size(), got.y.size());
      ASSERT_EQ(0, std::memcmp(want.y.data(), got.y.data(), want.y.size() * 4)) << what << " threads " << threads;
    }
  }
}

// The values themselves, by hand: slope 0.5 and -1 per channel.
TEST(PReluTest, PerChannelSlopeByHand) {
  std::mt19937 rng(1);
  auto model = PReluModel({1, 1, 2, 2}, {2}, &rng);
  // Overwrite the slope with known values.
  ir::Graph graph = model->graph();
  const std::vector<float> slope = {0.5f, -1.0f};
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), slope.data(), 8);
  graph.SetConstant(1, DataType::kFloat32, {2}, std::move(bytes));
  auto fixed = std::make_shared<Model>(std::make_shared<const ir::Graph>(graph));
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    const Result r = RunModel(fixed, policy, 1, {-2.0f, -3.0f, 4.0f, 0.0f});
    EXPECT_EQ(r.y, (std::vector<float>{-1.0f, 3.0f, 4.0f, 0.0f}));
  }
}

}  // namespace
}  // namespace rill::inference
