// ONNX models with symbolic input dimensions and with shape arithmetic:
// LoadOptions::input_shapes gives the shapes at load (checked against ONNX
// Runtime, which takes them at run time), a failed import with symbolic
// dimensions at 1 says how to give them, and Session::Resize to a new input
// shape imports the model again where the importer folded Shape ops (it ran
// the folded constants as they were: a silent wrong shape before);
// onnx_symbolic_resize_test checks resizes against ONNX Runtime.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_test_models.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

using testing::AddNode;
using testing::SetSymbolicInput;

// x [batch, 3, height, width] -> Conv 3x3 (no padding) 3 -> 8 -> Relu ->
// GlobalAveragePool -> Flatten -> y [batch, 8].
std::string WriteSymbolicImageModel(std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_dynamic_shapes_test");
  onnx::GraphProto* g = m.mutable_graph();
  SetSymbolicInput(g->add_input(), "x", {1, 3, 1, 1}, {"batch", "", "height", "width"});
  testing::AddFloatInitializer(g, "w", testing::RandomFloats(8 * 3 * 9, rng), {8, 3, 3, 3});
  AddNode(g, "Conv", {"x", "w"}, "c");
  AddNode(g, "Relu", {"c"}, "r");
  AddNode(g, "GlobalAveragePool", {"r"}, "p");
  AddNode(g, "Flatten", {"p"}, "y");
  SetSymbolicInput(g->add_output(), "y", {1, 8}, {"batch", ""});
  return testing::SaveOnnxModel(m, "symbolic_image.onnx");
}

// x [batch, 4, 5, 5] -> Conv 1x1 4 -> 6 -> Reshape to [Shape(x)[0], -1]
// (PyTorch's x.view(x.size(0), -1)) -> y [batch, 150].
std::string WriteShapeArithmeticModel(std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_dynamic_shapes_test");
  onnx::GraphProto* g = m.mutable_graph();
  SetSymbolicInput(g->add_input(), "x", {1, 4, 5, 5}, {"batch", "", "", ""});
  testing::AddFloatInitializer(g, "w", testing::RandomFloats(6 * 4, rng), {6, 4, 1, 1});
  testing::AddIntInitializer(g, "zero", {0});
  testing::AddIntInitializer(g, "minus_one", {-1});
  AddNode(g, "Conv", {"x", "w"}, "c");
  AddNode(g, "Shape", {"c"}, "the_shape");
  testing::AddIntAttribute(AddNode(g, "Gather", {"the_shape", "zero"}, "batch"), "axis", 0);
  testing::AddIntAttribute(AddNode(g, "Concat", {"batch", "minus_one"}, "target"), "axis", 0);
  AddNode(g, "Reshape", {"c", "target"}, "y");
  SetSymbolicInput(g->add_output(), "y", {1, 150}, {"batch", ""});
  return testing::SaveOnnxModel(m, "shape_arithmetic.onnx");
}

// Runs `model` on `x` (its only input, shape `shape`) and ONNX Runtime on the
// same file and input; outputs must agree within 1e-4 of their range.
void ExpectSameAsOrt(const std::shared_ptr<const Model>& model, const std::string& path, const std::vector<int>& shape,
                     const std::vector<float>& x) {
  auto s = Session::Create(model, SessionConfig{});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Tensor* in = (*s)->input(0);
  ASSERT_EQ(in->shape(), Shape(shape.begin(), shape.end()));
  std::copy(x.begin(), x.end(), in->data_as<float>());
  ASSERT_TRUE((*s)->Run().ok());
  if (!testing::FileExists(ort::DefaultLibraryPath())) return;  // the engine's side ran; no reference here
  auto ort = ort::OrtRunner::Create(path);
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  std::vector<ort::OrtTensor> want;
  ASSERT_TRUE((*ort)->Run({{"x", std::vector<int64_t>(shape.begin(), shape.end()), x}}, &want).ok());
  const Tensor* y = (*s)->output(0);
  ASSERT_EQ(std::vector<int64_t>(y->shape().begin(), y->shape().end()), want[0].shape);
  EXPECT_TRUE(
      ort::DiffOutputs(y->data_as<float>(), want[0].data.data(), want[0].data.size()).Within(ort::kCompareTolerance));
}

TEST(OnnxDynamicShapesTest, SymbolicImageSizeNeedsInputShapes) {
  std::mt19937 rng(3);
  const std::string path = WriteSymbolicImageModel(&rng);
  // At 1x1 the 3x3 window does not fit: the error names the symbolic
  // dimensions and the option that gives them.
  auto failed = Model::FromFile(path);
  ASSERT_FALSE(failed.ok());
  const std::string message = failed.status().message();
  EXPECT_NE(message.find("symbolic dimensions batch, height, width"), std::string::npos) << message;
  EXPECT_NE(message.find("LoadOptions::input_shapes"), std::string::npos) << message;

  LoadOptions options;
  options.input_shapes = {{"x", {2, 3, 17, 23}}};
  auto model = Model::FromFile(path, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ExpectSameAsOrt(*model, path, {2, 3, 17, 23}, testing::RandomFloats(2 * 3 * 17 * 23, &rng));
  // Without shape arithmetic the session may still be resized freely.
  auto s = Session::Create(*model, SessionConfig{});
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->Resize({{"x", {1, 3, 9, 40}}}).ok());
  EXPECT_EQ((*s)->output(0)->shape(), Shape({1, 8}));
}

TEST(OnnxDynamicShapesTest, ShapeArithmeticFoldsWithTheLoadShapes) {
  std::mt19937 rng(4);
  const std::string path = WriteShapeArithmeticModel(&rng);
  // Loaded at batch 1 (the symbolic batch's default): runs at batch 1 ...
  auto one = Model::FromFile(path);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  // The model records what it took as 1, for tools to say (rill model).
  EXPECT_EQ((*one)->graph().symbolic_inputs,
            std::vector<std::string>({"input 'x' has symbolic dimensions batch"}));
  ExpectSameAsOrt(*one, path, {1, 4, 5, 5}, testing::RandomFloats(100, &rng));
  // ... and follows a resize to batch 2: the session imports the model
  // again at the new shape (the folded reshape to [1, -1] ran as it was
  // before: a [1, 300] output for a [2, 150] one).
  auto s = Session::Create(*one, SessionConfig{});
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->Resize({{"x", {2, 4, 5, 5}}}).ok());
  EXPECT_EQ((*s)->output(0)->shape(), Shape({2, 150}));
  EXPECT_TRUE((*s)->Resize({{"x", {1, 4, 5, 5}}}).ok());
  EXPECT_EQ((*s)->output(0)->shape(), Shape({1, 150}));
  EXPECT_TRUE((*s)->Run().ok());

  LoadOptions options;
  options.input_shapes = {{"x", {2, 4, 5, 5}}};
  auto two = Model::FromFile(path, options);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_TRUE((*two)->graph().symbolic_inputs.empty());
  ExpectSameAsOrt(*two, path, {2, 4, 5, 5}, testing::RandomFloats(200, &rng));
}

TEST(OnnxDynamicShapesTest, BadInputShapesAreErrors) {
  std::mt19937 rng(5);
  const std::string path = WriteSymbolicImageModel(&rng);
  const std::vector<std::pair<std::map<std::string, std::vector<int>>, std::string>> cases = {
      {{{"nope", {1, 3, 8, 8}}}, "'nope', which is not an input"},
      {{{"w", {8, 3, 3, 3}}}, "'w', which is not an input"},  // an initializer
      {{{"x", {1, 3, 8}}}, "has rank 4"},
      {{{"x", {1, 3, 0, 8}}}, "bad shape"},
  };
  for (const auto& [shapes, why] : cases) {
    LoadOptions options;
    options.input_shapes = shapes;
    auto model = Model::FromFile(path, options);
    ASSERT_FALSE(model.ok()) << why;
    EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument) << model.status().ToString();
    EXPECT_NE(model.status().message().find(why), std::string::npos) << model.status().message();
  }
  // TFLite models do not fold shapes: they take Session::Resize instead.
  const std::string tflite = testing::ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(tflite);
  LoadOptions options;
  options.input_shapes = {{"input", {1, 128, 128, 3}}};
  auto model = Model::FromFile(tflite, options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("Session::Resize"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace rill::inference
