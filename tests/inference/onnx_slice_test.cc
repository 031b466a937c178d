// ONNX Slice of activations (SLICE) and ShuffleNet's channel shuffle
// (Reshape -> Transpose(0, 2, 1, 3, 4) -> Reshape, imported as one
// per-pixel TRANSPOSE of an NHWC tensor) against ONNX Runtime 1.30 on
// models written here: slices of a graph input (NCHW) and of a conv's
// output (NHWC inside the engine) on every axis, negative starts and steps,
// ends past the axis, omitted axes/steps; outputs must be equal (both
// engines copy values), reference and optimized kernels, 1 and 2 threads.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_test_models.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

constexpr int kN = 2, kC = 12, kH = 7, kW = 9;

struct SliceSpec {
  std::vector<int64_t> starts, ends, axes, steps;  // axes/steps empty: input absent
};

// x [2, 12, 7, 9] -> [conv 1x1 12 -> 12 ->] Slice -> y.
std::string WriteSliceModel(const SliceSpec& s, bool after_conv, const std::string& file, std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_slice_test");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {kN, kC, kH, kW});
  std::string src = "x";
  if (after_conv) {
    testing::AddFloatInitializer(g, "w", testing::RandomFloats(kC * kC, rng), {kC, kC, 1, 1});
    onnx::NodeProto* conv = g->add_node();
    conv->set_name("conv");
    conv->set_op_type("Conv");
    conv->add_input("x");
    conv->add_input("w");
    conv->add_output("c");
    src = "c";
  }
  onnx::NodeProto* node = g->add_node();
  node->set_name("the_slice");
  node->set_op_type("Slice");
  node->add_input(src);
  testing::AddIntInitializer(g, "starts", s.starts);
  testing::AddIntInitializer(g, "ends", s.ends);
  node->add_input("starts");
  node->add_input("ends");
  if (!s.axes.empty() || !s.steps.empty()) {
    testing::AddIntInitializer(g, "axes", s.axes);
    node->add_input(s.axes.empty() ? "" : "axes");
  }
  if (!s.steps.empty()) {
    testing::AddIntInitializer(g, "steps", s.steps);
    node->add_input("steps");
  }
  node->add_output("y");
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return testing::SaveOnnxModel(m, file);
}

// x [2, 12, 7, 9] -> conv 1x1 -> Reshape [2, g, 12/g, 7, 9] -> Transpose
// (0, 2, 1, 3, 4) -> Reshape [2, -1, 7, 9] -> conv 1x1 -> y.
std::string WriteShuffleModel(int groups, const std::string& file, std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_slice_test");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {kN, kC, kH, kW});
  auto conv = [&](const std::string& name, const std::string& in, const std::string& out) {
    testing::AddFloatInitializer(g, name + "_w", testing::RandomFloats(kC * kC, rng), {kC, kC, 1, 1});
    onnx::NodeProto* c = g->add_node();
    c->set_name(name);
    c->set_op_type("Conv");
    c->add_input(in);
    c->add_input(name + "_w");
    c->add_output(out);
  };
  conv("conv1", "x", "a");
  testing::AddIntInitializer(g, "split_shape", {kN, groups, kC / groups, kH, kW});
  testing::AddIntInitializer(g, "merge_shape", {kN, -1, kH, kW});
  onnx::NodeProto* r1 = g->add_node();
  r1->set_op_type("Reshape");
  r1->add_input("a");
  r1->add_input("split_shape");
  r1->add_output("r1");
  onnx::NodeProto* t = g->add_node();
  t->set_op_type("Transpose");
  t->add_input("r1");
  t->add_output("t");
  testing::AddIntsAttribute(t, "perm", {0, 2, 1, 3, 4});
  onnx::NodeProto* r2 = g->add_node();
  r2->set_op_type("Reshape");
  r2->add_input("t");
  r2->add_input("merge_shape");
  r2->add_output("r2");
  conv("conv2", "r2", "y");
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return testing::SaveOnnxModel(m, file);
}

// Runs the model on ORT and on the engine (both policies, 1 and 2 threads);
// outputs within `tolerance` of ORT's range (0: equal). Returns the engine's
// layer ops (of the last session).
std::vector<std::string> ExpectSameAsOrt(const std::string& path, const std::string& what, double tolerance,
                                         std::mt19937* rng) {
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(kN) * kC * kH * kW, rng);
  auto ort = ort::OrtRunner::Create(path);
  EXPECT_TRUE(ort.ok()) << what << ": " << ort.status().ToString();
  if (!ort.ok()) return {};
  std::vector<ort::OrtTensor> want;
  EXPECT_TRUE((*ort)->Run({{"x", {kN, kC, kH, kW}, x}}, &want).ok()) << what;
  auto model = Model::FromFile(path);
  EXPECT_TRUE(model.ok()) << what << ": " << model.status().ToString();
  if (!model.ok() || want.size() != 1) return {};
  std::vector<std::string> ops;
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    EXPECT_TRUE(s.ok()) << what << ": " << s.status().ToString();
    if (!s.ok()) return {};
    std::copy(x.begin(), x.end(), (*s)->input(0)->data_as<float>());
    EXPECT_TRUE((*s)->Run().ok());
    const Tensor* y = (*s)->output(0);
    const std::vector<int64_t> shape(y->shape().begin(), y->shape().end());
    EXPECT_EQ(shape, want[0].shape) << what;
    const std::vector<float> got(y->data_as<float>(), y->data_as<float>() + y->num_elements());
    if (tolerance == 0) {
      EXPECT_EQ(got, want[0].data) << what << " threads " << config.num_threads;
    } else if (got.size() == want[0].data.size()) {
      EXPECT_TRUE(ort::DiffOutputs(got.data(), want[0].data.data(), got.size()).Within(tolerance))
          << what << " threads " << config.num_threads;
    }
    ops.clear();
    for (const LayerInfo& l : (*s)->Layers()) ops.push_back(l.op + " " + l.kernel);
  }
  return ops;
}

TEST(OnnxSliceTest, SlicesOfActivationsMatchOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  const std::vector<SliceSpec> specs = {
      {{0}, {6}, {1}, {}},                    // ShuffleNet's channel split
      {{6}, {1000}, {1}, {}},                 // the other half, end past the axis
      {{1, -5}, {6, 1000}, {2, 3}, {2, 1}},   // spatial, stride 2, negative start
      {{-1}, {-1000}, {1}, {-1}},             // channels reversed
      {{8, 5}, {0, 1}, {3, 2}, {-3, -2}},     // negative steps on two axes
      {{1}, {2}, {0}, {}},                    // one image of two
      {{0, 2, 1, 3}, {2, 11, 6, 9}, {}, {}},  // every axis, axes omitted
  };
  std::mt19937 rng(11);
  int i = 0;
  for (const SliceSpec& s : specs) {
    for (bool after_conv : {false, true}) {
      const std::string what = "slice " + std::to_string(i) + (after_conv ? " of a conv's output" : " of the input");
      const std::string path = WriteSliceModel(s, after_conv, "slice_" + std::to_string(i) + "_" +
                                                                  std::to_string(after_conv) + ".onnx", &rng);
      // After a conv the values are the conv's (summation order may differ).
      const std::vector<std::string> ops =
          ExpectSameAsOrt(path, what, after_conv ? ort::kCompareTolerance : 0.0, &rng);
      bool sliced = false;
      for (const std::string& op : ops) sliced = sliced || op.rfind("SLICE", 0) == 0;
      EXPECT_TRUE(sliced) << what;
    }
    ++i;
  }
}

TEST(OnnxSliceTest, ChannelShuffleIsOnePixelTranspose) {
  RILL_SKIP_IF_NO_ORT();
  std::mt19937 rng(13);
  for (int groups : {2, 3, 4}) {
    const std::string what = "shuffle in " + std::to_string(groups) + " groups";
    const std::string path = WriteShuffleModel(groups, "shuffle_" + std::to_string(groups) + ".onnx", &rng);
    const std::vector<std::string> ops = ExpectSameAsOrt(path, what, ort::kCompareTolerance, &rng);
    // Input and output transposes at the graph's edges, one shuffle inside.
    int transposes = 0;
    for (const std::string& op : ops) transposes += op.rfind("TRANSPOSE", 0) == 0;
    EXPECT_EQ(transposes, 3) << what;
  }
}

TEST(OnnxSliceTest, BadSlicesAreErrorsNamingTheNode) {
  std::mt19937 rng(17);
  const std::vector<SliceSpec> bad = {
      {{0}, {1}, {7}, {}},      // axis out of range
      {{0}, {4}, {1}, {0}},     // step 0
      {{0, 1}, {4}, {1}, {}},   // starts and ends differ in length
      {{0, 0}, {2, 2}, {1, 1}, {}},  // axis repeated
      {{3}, {3}, {1}, {}},      // empty: the engine has no zero-sized tensors
  };
  int i = 0;
  for (const SliceSpec& s : bad) {
    const std::string path = WriteSliceModel(s, true, "bad_slice_" + std::to_string(i++) + ".onnx", &rng);
    auto model = Model::FromFile(path);
    Status status = model.status();
    if (model.ok()) status = Session::Create(*model).status();  // caught by shape inference at the latest
    ASSERT_FALSE(status.ok()) << path;
    EXPECT_NE(status.message().find("the_slice"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace rill::inference
