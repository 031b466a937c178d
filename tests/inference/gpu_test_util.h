// What the GPU backends' tests share (opencl_test, vulkan_test, and the next
// backend's): one-op graphs, runs on seeded random inputs, the comparison
// with the CPU within a tolerance of each output's range, and the cases
// every GPU backend must pass (each op against the reference kernels on
// odd shapes, whole models, a resize, one head of a model on the GPU),
// parameterized by the backend's name, its session config and the option
// variants each op runs under. A backend's test derives a fixture from
// GpuBackendTest and names each case in a TEST_F of its own.
#ifndef RILL_TESTS_INFERENCE_GPU_TEST_UTIL_H_
#define RILL_TESTS_INFERENCE_GPU_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference::testing {

// $TEST_TMPDIR, or /tmp outside bazel.
std::string TmpDir();

// A one-op graph (or a short chain): inputs (activations, filled at random)
// and constants.
class OneOp {
 public:
  int Input(const Shape& shape);
  int Const(const Shape& shape, std::vector<float> values);
  int ConstInts(const std::vector<int>& values);
  int RandomConst(const Shape& shape, std::mt19937* rng);
  // A node before the last (a chain of ops): returns its output.
  int Node(ir::OpType type, std::vector<int> inputs, const ir::OpAttrs& attrs = {});
  // The last node: the graph's outputs are its output and `outputs`.
  std::shared_ptr<const Model> Build(ir::OpType type, std::vector<int> inputs, const ir::OpAttrs& attrs = {},
                                     const std::vector<int>& outputs = {});

 private:
  int Tensor(const Shape& shape);
  std::shared_ptr<ir::Graph> g_ = std::make_shared<ir::Graph>();
};

using Outputs = std::vector<std::vector<float>>;

// Fills the inputs with uniform floats in [-2, 2) from `seed`, runs, and
// returns every output (expecting the run to succeed).
Outputs RunOnce(Session* s, uint32_t seed);

// Within `tolerance` of each output's range (and 1e-5 absolute).
void ExpectClose(const Outputs& got, const Outputs& want, double tolerance, const std::string& what);

// The worst error of `got` over each output's range (at least 1).
double WorstRelativeError(const Outputs& got, const Outputs& want);

// A conv or pool window's attributes.
ir::OpAttrs Window(int stride, ir::Padding padding, ir::Activation act = ir::Activation::kNone, int dilation = 1);

// A GPU backend as its tests see it.
struct GpuBackendUnderTest {
  std::string name;                                // SessionConfig::backend, e.g. "opencl"
  std::function<SessionConfig(Precision)> config;  // a session on it (caches in the test's tmpdir)
  std::string missing;                             // why a machine may lack it: "no OpenCL device (PoCL: ...)"
  // The backend options each op runs under (CheckOp), and what a failure
  // message adds for each (e.g. " (split K)").
  struct Variant {
    std::map<std::string, std::string> options;
    std::string label;
  };
  std::vector<Variant> op_variants;
};

class GpuBackendTest : public ::testing::Test {
 protected:
  explicit GpuBackendTest(GpuBackendUnderTest gpu) : gpu_(std::move(gpu)) {}

  // No device: the test fails under CI=true and skips loudly elsewhere.
  void SetUp() override;

  SessionConfig Config(Precision precision = Precision::kFp32) const { return gpu_.config(precision); }
  const std::string& backend() const { return gpu_.name; }

  // The op on the backend against the CPU's reference kernels, under each
  // of the backend's option variants; every layer must run on the backend.
  void CheckOp(const std::shared_ptr<const Model>& model, const std::string& what, double tolerance = 1e-5);

  // The op cases every GPU backend runs (odd shapes, each op's variants).
  void CheckConvolutions();
  void CheckDepthwiseAndTransposedConvolutions();
  void CheckFullyConnectedAndDepthwiseBlock();
  void CheckElementwiseWithBroadcast();
  void CheckPoolsMeanSoftmax();
  void CheckDataMovement();
  void CheckResize();

  // A model from third_party/models wholly on the backend (no layer falls
  // back; squeezenet's concatenations in place), as on a GPU of 132 compute
  // units, against the CPU backend: 1e-3 of the outputs' range for the pose
  // models, 1e-4 for the others, two runs.
  void CheckModelMatchesCpu(const std::string& name);
  // A resize re-plans the device arena; batch 2 matches the CPU.
  void CheckResizeReplans();
  // The face detector's scores head on the backend, the rest on the CPU,
  // concurrently or not, three runs each.
  void CheckTwoHeadsOnGpuAndCpu();
  // The multi-task model's dense head on the backend, the rest on the CPU:
  // outputs, and each head's tasks on its backend's stream in the trace.
  void CheckMultiTaskHeadsOnTwoBackends();
  // backends_test's fallback subsets with the backend as the device: a
  // placement callback puts only some op types on the backend (convs and
  // depthwise convs: a copy at nearly every boundary; depthwise convs and
  // ADDs: islands), or every node; each at 1 thread concurrent and at 2
  // threads in sequence; outputs within 1e-4 of the CPU's, every node where
  // the callback put it, both backends used, two runs each.
  void CheckPlacementCallbackOverOpSubsets(const std::string& name);

  const GpuBackendUnderTest gpu_;
  std::mt19937 rng_{1234};
};

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_GPU_TEST_UTIL_H_
