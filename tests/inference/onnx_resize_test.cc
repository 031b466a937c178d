// ONNX Resize / Upsample in mode "nearest" (RESIZE_NEAREST_NEIGHBOR) against
// ONNX Runtime 1.30: models written here with the ONNX protobuf classes, one
// per coordinate_transformation_mode x nearest_mode x size (enlarging,
// shrinking, non-integer ratios, sizes or scales given), plus Resize-10 and
// Upsample-9 (ONNX Runtime's "simple" rounding). Nearest copies input values,
// so the outputs must be equal, not close. Linear Resize before opset 11 is
// asymmetric (checked the same way); unsupported attributes are errors
// naming the node.
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

struct ResizeCase {
  int opset = 13;
  std::string op = "Resize";
  std::string mode = "nearest";
  std::string ctm;           // empty: attribute absent
  std::string nearest_mode;  // empty: attribute absent
  std::vector<float> scales;     // (1, 1, h, w), or empty
  std::vector<int64_t> sizes;    // (N, C, h, w), or empty
  int n = 1, c = 3, h = 5, w = 7;
  std::string Describe() const {
    std::string s = op + "-" + std::to_string(opset) + " " + mode + " ctm=" + ctm + " nearest_mode=" + nearest_mode;
    for (float v : scales) s += " s" + std::to_string(v);
    for (int64_t v : sizes) s += " z" + std::to_string(v);
    return s;
  }
};

void AddFloats(onnx::GraphProto* g, const std::string& name, const std::vector<float>& v) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (float x : v) t->add_float_data(x);
}

void AddInts(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& v) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
}

void SetFloatValueInfo(onnx::ValueInfoProto* info, const std::string& name, const std::vector<int64_t>& dims) {
  info->set_name(name);
  onnx::TypeProto_Tensor* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// Writes the case's one-node model to a file; returns its path.
std::string WriteModel(const ResizeCase& rc, const std::string& file) {
  onnx::ModelProto m;
  m.set_ir_version(rc.opset >= 13 ? 7 : 5);
  m.set_producer_name("rill onnx_resize_test");
  onnx::OperatorSetIdProto* ops = m.add_opset_import();
  ops->set_domain("");
  ops->set_version(rc.opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("resize");
  SetFloatValueInfo(g->add_input(), "x", {rc.n, rc.c, rc.h, rc.w});
  onnx::NodeProto* node = g->add_node();
  node->set_name("the_resize");
  node->set_op_type(rc.op);
  node->add_input("x");
  const bool old = rc.op == "Upsample" || rc.opset < 11;
  if (old) {
    AddFloats(g, "scales", rc.scales);
    node->add_input("scales");
  } else {
    AddFloats(g, "roi", {});
    node->add_input("roi");
    if (!rc.scales.empty()) {
      AddFloats(g, "scales", rc.scales);
      node->add_input("scales");
    } else {
      AddFloats(g, "scales", {});
      node->add_input("scales");
      AddInts(g, "sizes", rc.sizes);
      node->add_input("sizes");
    }
  }
  node->add_output("y");
  auto attr = [&](const std::string& name, const std::string& value) {
    if (value.empty()) return;
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  };
  attr("mode", rc.mode);
  attr("coordinate_transformation_mode", rc.ctm);
  attr("nearest_mode", rc.nearest_mode);
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/" + file;
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
  return path;
}

// Runs the case on the engine (reference and optimized kernels) and on ONNX
// Runtime; outputs must be identical (nearest), or within the ORT
// comparison tolerance (linear).
void ExpectSameAsOrt(const ResizeCase& rc, int index) {
  const std::string path = WriteModel(rc, "resize_" + std::to_string(index) + ".onnx");
  std::mt19937 rng(index);
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(rc.n) * rc.c * rc.h * rc.w, &rng);
  auto ort = ort::OrtRunner::Create(path);
  ASSERT_TRUE(ort.ok()) << rc.Describe() << ": " << ort.status().ToString();
  std::vector<ort::OrtTensor> want;
  ASSERT_TRUE((*ort)->Run({{"x", {rc.n, rc.c, rc.h, rc.w}, x}}, &want).ok()) << rc.Describe();
  ASSERT_EQ(want.size(), 1u);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << rc.Describe() << ": " << model.status().ToString();
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
    for (int threads : {1, 2}) {
      SessionConfig config;
      config.algorithm = policy;
      config.num_threads = threads;
      auto s = Session::Create(*model, config);
      ASSERT_TRUE(s.ok()) << rc.Describe() << ": " << s.status().ToString();
      std::copy(x.begin(), x.end(), (*s)->input(0)->data_as<float>());
      ASSERT_TRUE((*s)->Run().ok());
      const Tensor* y = (*s)->output(0);
      std::vector<int64_t> shape(y->shape().begin(), y->shape().end());
      ASSERT_EQ(shape, want[0].shape) << rc.Describe();
      const std::vector<float> got(y->data_as<float>(), y->data_as<float>() + y->num_elements());
      const std::string what =
          rc.Describe() + (policy == AlgorithmPolicy::kAuto ? " optimized" : " reference") + " threads " +
          std::to_string(threads);
      if (rc.mode == "nearest") {
        ASSERT_EQ(got, want[0].data) << what;
      } else {
        ASSERT_EQ(got.size(), want[0].data.size()) << what;
        EXPECT_TRUE(ort::DiffOutputs(got.data(), want[0].data.data(), got.size()).Within(ort::kCompareTolerance))
            << what;
      }
    }
  }
}

#define SKIP_IF_NO_ORT()                                                        \
  if (!testing::FileExists(ort::DefaultLibraryPath()))                          \
  GTEST_SKIP() << ort::DefaultLibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)"

TEST(OnnxResizeTest, NearestEveryModeMatchesOnnxRuntime) {
  SKIP_IF_NO_ORT();
  int index = 0;
  for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"}) {
    for (const char* nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      std::vector<ResizeCase> cases;
      ResizeCase up;  // x2 and x3
      up.ctm = ctm;
      up.nearest_mode = nm;
      up.scales = {1, 1, 2, 3};
      cases.push_back(up);
      ResizeCase down = up;  // shrinking by a non-integer ratio
      down.scales = {1, 1, 0.6f, 0.5f};
      down.h = 10;
      down.w = 9;
      cases.push_back(down);
      ResizeCase odd = up;  // non-integer enlargement
      odd.scales = {1, 1, 1.7f, 2.3f};
      cases.push_back(odd);
      ResizeCase sized = up;  // sizes instead of scales; batch 2; one output column
      sized.scales.clear();
      sized.n = 2;
      sized.sizes = {2, 3, 12, 1};
      cases.push_back(sized);
      ResizeCase sized2 = sized;
      sized2.sizes = {2, 3, 3, 11};
      cases.push_back(sized2);
      for (const ResizeCase& rc : cases) ExpectSameAsOrt(rc, index++);
    }
  }
  // The defaults (half_pixel, round_prefer_floor: no attributes).
  ResizeCase defaults;
  defaults.scales = {1, 1, 2.5f, 1.5f};
  ExpectSameAsOrt(defaults, index++);
  EXPECT_EQ(index, 101);
}

TEST(OnnxResizeTest, OldOpsetsMatchOnnxRuntime) {
  SKIP_IF_NO_ORT();
  int index = 200;
  for (const std::vector<float>& scales :
       {std::vector<float>{1, 1, 2, 2}, {1, 1, 3, 1.5f}, {1, 1, 0.5f, 0.6f}, {1, 1, 1.7f, 2.3f}}) {
    ResizeCase r10;  // Resize-10: (X, scales), asymmetric
    r10.opset = 10;
    r10.scales = scales;
    r10.h = 10;
    r10.w = 9;
    ExpectSameAsOrt(r10, index++);
    ResizeCase up9 = r10;  // Upsample-9
    up9.op = "Upsample";
    up9.opset = 9;
    if (scales[2] >= 1 && scales[3] >= 1) ExpectSameAsOrt(up9, index++);  // Upsample only enlarges
    ResizeCase linear10 = r10;  // linear before opset 11 is asymmetric too
    linear10.mode = "linear";
    if (scales[2] >= 1 && scales[3] >= 1) ExpectSameAsOrt(linear10, index++);
  }
}

TEST(OnnxResizeTest, UnsupportedAttributesAreErrorsNamingTheNode) {
  ResizeCase crop;
  crop.ctm = "tf_crop_and_resize";
  crop.scales = {1, 1, 2, 2};
  ResizeCase cubic;
  cubic.mode = "cubic";
  cubic.scales = {1, 1, 2, 2};
  ResizeCase rounding;
  rounding.nearest_mode = "sideways";
  rounding.scales = {1, 1, 2, 2};
  ResizeCase channels;
  channels.scales = {1, 2, 2, 2};
  int i = 300;
  for (const ResizeCase& rc : {crop, cubic, rounding, channels}) {
    const std::string path = WriteModel(rc, "bad_" + std::to_string(i++) + ".onnx");
    auto model = Model::FromFile(path);
    ASSERT_FALSE(model.ok()) << rc.Describe();
    EXPECT_NE(model.status().message().find("the_resize"), std::string::npos) << model.status().message();
    EXPECT_NE(model.status().message().find(path), std::string::npos) << model.status().message();
  }
}

}  // namespace
}  // namespace rill::inference
