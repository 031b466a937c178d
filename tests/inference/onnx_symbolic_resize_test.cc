// Session::Resize of ONNX models with symbolic input dimensions. The ONNX
// importer builds its graph for the input shapes it loads with (shape
// arithmetic folded, Flatten / Reshape targets resolved), so a resize to
// other shapes imports the model again at them: after every resize the
// outputs must match ONNX Runtime's run of the same file at that size, and
// be bit-identical to a session created fresh for that size.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
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

void AddOutput(onnx::GraphProto* g, const std::string& name) {
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name(name);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

// x [batch, 3, height, width] -> Conv 3x3 (pads 1, stride 2) 3 -> 8 -> Relu
// -> c; tokens = Reshape(c, Concat(Shape(c)[0], Shape(c)[1], -1)) (the
// flatten(2) of a patch embedding) -> Transpose [batch, L, 8] -> MatMul
// [8, 6] + bias -> y [batch, L, 6].
// `fixed`: the input is [1, 3, 8, 8] in the file, no dimension symbolic.
std::string WriteConvTokensModel(std::mt19937* rng, bool fixed = false) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_symbolic_resize_test");
  onnx::GraphProto* g = m.mutable_graph();
  if (fixed) {
    testing::SetFloatValueInfo(g->add_input(), "x", {1, 3, 8, 8});
  } else {
    SetSymbolicInput(g->add_input(), "x", {1, 3, 1, 1}, {"batch", "", "height", "width"});
  }
  testing::AddFloatInitializer(g, "w", testing::RandomFloats(8 * 3 * 9, rng), {8, 3, 3, 3});
  testing::AddFloatInitializer(g, "b", testing::RandomFloats(8, rng), {8});
  testing::AddFloatInitializer(g, "wm", testing::RandomFloats(8 * 6, rng), {8, 6});
  testing::AddFloatInitializer(g, "bm", testing::RandomFloats(6, rng), {6});
  testing::AddIntInitializer(g, "i0", {0});
  testing::AddIntInitializer(g, "i1", {1});
  testing::AddIntInitializer(g, "minus_one", {-1});
  onnx::NodeProto* conv = AddNode(g, "Conv", {"x", "w", "b"}, "conv");
  testing::AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
  testing::AddIntsAttribute(conv, "strides", {2, 2});
  AddNode(g, "Relu", {"conv"}, "c");
  AddNode(g, "Shape", {"c"}, "c_shape");
  testing::AddIntAttribute(AddNode(g, "Gather", {"c_shape", "i0"}, "n"), "axis", 0);
  testing::AddIntAttribute(AddNode(g, "Gather", {"c_shape", "i1"}, "ch"), "axis", 0);
  testing::AddIntAttribute(AddNode(g, "Concat", {"n", "ch", "minus_one"}, "target"), "axis", 0);
  AddNode(g, "Reshape", {"c", "target"}, "flat");
  testing::AddIntsAttribute(AddNode(g, "Transpose", {"flat"}, "tokens"), "perm", {0, 2, 1});
  AddNode(g, "MatMul", {"tokens", "wm"}, "mm");
  AddNode(g, "Add", {"mm", "bm"}, "y");
  AddOutput(g, "y");
  return testing::SaveOnnxModel(m, fixed ? "conv_tokens_fixed.onnx" : "conv_tokens.onnx");
}

// x [batch, 3, height, width] -> Conv 1x1 3 -> 4 -> Flatten (axis 1) -> y
// [batch, 4 * height * width]: x.flatten(1) of a conv's output. Imported at
// 1x1 (the symbolic sizes' default) the importer resolves the flatten to
// [-1, 4], which a plain re-plan at 4x4 would run as [16, 4].
std::string WriteConvFlattenModel(std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_symbolic_resize_test");
  onnx::GraphProto* g = m.mutable_graph();
  SetSymbolicInput(g->add_input(), "x", {1, 3, 1, 1}, {"batch", "", "height", "width"});
  testing::AddFloatInitializer(g, "w", testing::RandomFloats(4 * 3, rng), {4, 3, 1, 1});
  AddNode(g, "Conv", {"x", "w"}, "c");
  AddNode(g, "Flatten", {"c"}, "y");
  AddOutput(g, "y");
  return testing::SaveOnnxModel(m, "conv_flatten.onnx");
}

// Multi-head self-attention on x [batch, seq, 16], 2 heads of 8, its head
// reshapes computed from Shape(x) as PyTorch exports them:
// q = Reshape(x Wq, [batch, seq, 2, 8]) -> Transpose (0 2 1 3), k the same
// -> (0 2 3 1), v -> (0 2 1 3); Softmax(q k / sqrt(8)) v -> Transpose ->
// Reshape [batch, seq, 16] -> MatMul Wo -> y.
std::string WriteAttentionModel(std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_symbolic_resize_test");
  onnx::GraphProto* g = m.mutable_graph();
  SetSymbolicInput(g->add_input(), "x", {1, 1, 16}, {"batch", "seq", ""});
  for (const char* w : {"wq", "wk", "wv", "wo"}) testing::AddFloatInitializer(g, w, testing::RandomFloats(256, rng), {16, 16});
  testing::AddFloatInitializer(g, "scale", {0.35355339f}, {1});
  testing::AddIntInitializer(g, "i0", {0});
  testing::AddIntInitializer(g, "i1", {1});
  testing::AddIntInitializer(g, "heads", {2});
  testing::AddIntInitializer(g, "head_dim", {8});
  testing::AddIntInitializer(g, "model_dim", {16});
  AddNode(g, "Shape", {"x"}, "x_shape");
  testing::AddIntAttribute(AddNode(g, "Gather", {"x_shape", "i0"}, "n"), "axis", 0);
  testing::AddIntAttribute(AddNode(g, "Gather", {"x_shape", "i1"}, "l"), "axis", 0);
  testing::AddIntAttribute(AddNode(g, "Concat", {"n", "l", "heads", "head_dim"}, "split_shape"), "axis", 0);
  testing::AddIntAttribute(AddNode(g, "Concat", {"n", "l", "model_dim"}, "merge_shape"), "axis", 0);
  const std::vector<std::pair<std::string, std::vector<int64_t>>> heads = {
      {"q", {0, 2, 1, 3}}, {"k", {0, 2, 3, 1}}, {"v", {0, 2, 1, 3}}};
  for (const auto& [h, perm] : heads) {
    AddNode(g, "MatMul", {"x", "w" + h}, h);
    AddNode(g, "Reshape", {h, "split_shape"}, h + "_split");
    testing::AddIntsAttribute(AddNode(g, "Transpose", {h + "_split"}, h + "_heads"), "perm", perm);
  }
  AddNode(g, "MatMul", {"q_heads", "k_heads"}, "qk");
  AddNode(g, "Mul", {"qk", "scale"}, "scores");
  testing::AddIntAttribute(AddNode(g, "Softmax", {"scores"}, "p"), "axis", -1);
  AddNode(g, "MatMul", {"p", "v_heads"}, "ctx");
  testing::AddIntsAttribute(AddNode(g, "Transpose", {"ctx"}, "ctx_t"), "perm", {0, 2, 1, 3});
  AddNode(g, "Reshape", {"ctx_t", "merge_shape"}, "merged");
  AddNode(g, "MatMul", {"merged", "wo"}, "y");
  AddOutput(g, "y");
  return testing::SaveOnnxModel(m, "attention.onnx");
}

std::vector<float> Values(const Tensor& t) {
  const float* p = t.data_as<float>();
  return std::vector<float>(p, p + t.num_elements());
}

// Runs `session` (resized to `shape` already) on `x`; checks the output
// against a session created fresh for that size (bit-identical) and ONNX
// Runtime's run of the file (within the zoo tolerance; *ort_missing set and
// that check left out when its library is missing).
void CheckAtSize(Session* session, const std::string& path, const std::vector<int>& shape, std::mt19937* rng,
                 bool* ort_missing) {
  SCOPED_TRACE("input shape " + ShapeToString(Shape(shape.begin(), shape.end())));
  Tensor* in = session->input(0);
  ASSERT_EQ(in->shape(), Shape(shape.begin(), shape.end()));
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in->num_elements()), rng);
  std::copy(x.begin(), x.end(), in->data_as<float>());
  ASSERT_TRUE(session->Run().ok());
  const Tensor* y = session->output(0);

  LoadOptions options;
  options.input_shapes = {{"x", shape}};
  auto fresh_model = Model::FromFile(path, options);
  ASSERT_TRUE(fresh_model.ok()) << fresh_model.status().ToString();
  auto fresh = Session::Create(*fresh_model, session->config());
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  std::copy(x.begin(), x.end(), (*fresh)->input(0)->data_as<float>());
  ASSERT_TRUE((*fresh)->Run().ok());
  ASSERT_EQ(y->shape(), (*fresh)->output(0)->shape());
  EXPECT_EQ(Values(*y), Values(*(*fresh)->output(0))) << "differs from a session created at this size";

  if (!testing::FileExists(ort::DefaultLibraryPath())) {
    *ort_missing = true;
    return;
  }
  auto ort = ort::OrtRunner::Create(path);
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  std::vector<ort::OrtTensor> want;
  ASSERT_TRUE((*ort)->Run({{"x", std::vector<int64_t>(shape.begin(), shape.end()), x}}, &want).ok());
  ASSERT_EQ(std::vector<int64_t>(y->shape().begin(), y->shape().end()), want[0].shape);
  const ort::OutputDiff diff = ort::DiffOutputs(y->data_as<float>(), want[0].data.data(), want[0].data.size());
  EXPECT_TRUE(diff.Within(ort::kCompareTolerance)) << "max diff " << diff.max_abs << " of scale " << diff.scale;
}

// Creates a session on `path` loaded with `load_shape` (empty: the symbolic
// dims' default 1) and resizes it through `sizes`, checking each.
void ResizeThrough(const std::string& path, const std::vector<int>& load_shape,
                   const std::vector<std::vector<int>>& sizes, const SessionConfig& config) {
  std::mt19937 rng(11);
  LoadOptions options;
  if (!load_shape.empty()) options.input_shapes = {{"x", load_shape}};
  auto model = Model::FromFile(path, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE((*model)->specialized_to_input_shapes());
  EXPECT_TRUE((*model)->can_reimport());
  auto session = Session::Create(*model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  bool ort_missing = false;
  const Tensor* in = (*session)->input(0);
  const Tensor* out = (*session)->output(0);
  for (const std::vector<int>& size : sizes) {
    const Status resized = (*session)->Resize({{"x", Shape(size.begin(), size.end())}});
    ASSERT_TRUE(resized.ok()) << resized.ToString();
    // The tensors the caller holds stay valid.
    ASSERT_EQ((*session)->input(0), in);
    ASSERT_EQ((*session)->output(0), out);
    CheckAtSize(session->get(), path, size, &rng, &ort_missing);
  }
  if (ort_missing) {
    GTEST_SKIP() << ort::DefaultLibraryPath()
                 << " is missing (run scripts/fetch_models.sh): checked against fresh sessions only, not ONNX Runtime";
  }
}

TEST(OnnxSymbolicResizeTest, ConvShapeArithmeticMatMulFollowsResizes) {
  std::mt19937 rng(1);
  const std::string path = WriteConvTokensModel(&rng);
  // Loaded at the symbolic dims' default (1x1): larger, smaller, back.
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    ResizeThrough(path, {}, {{2, 3, 16, 12}, {1, 3, 6, 10}, {3, 3, 21, 20}, {2, 3, 16, 12}, {1, 3, 1, 1}}, config);
  }
}

TEST(OnnxSymbolicResizeTest, ConvShapeArithmeticLoadedAtAGivenSize) {
  std::mt19937 rng(1);
  const std::string path = WriteConvTokensModel(&rng);
  ResizeThrough(path, {1, 3, 8, 8}, {{1, 3, 8, 8}, {2, 3, 32, 24}, {1, 3, 5, 7}, {1, 3, 8, 8}}, SessionConfig{});
}

TEST(OnnxSymbolicResizeTest, FlattenOfAConvFollowsResizes) {
  std::mt19937 rng(2);
  const std::string path = WriteConvFlattenModel(&rng);
  ResizeThrough(path, {}, {{1, 3, 4, 4}, {2, 3, 5, 3}, {1, 3, 1, 1}, {1, 3, 4, 4}}, SessionConfig{});
}

TEST(OnnxSymbolicResizeTest, AttentionHeadReshapesFollowResizes) {
  std::mt19937 rng(3);
  const std::string path = WriteAttentionModel(&rng);
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    ResizeThrough(path, {1, 4, 16}, {{2, 7, 16}, {1, 3, 16}, {3, 12, 16}, {2, 7, 16}, {1, 4, 16}}, config);
  }
}

// Dimensions fixed in the file resize as symbolic ones do (as
// LoadOptions::input_shapes overrides them): the model imported again at
// the new shapes. ONNX Runtime refuses other sizes of a fixed dimension, so
// the same weights with symbolic dimensions are its reference.
TEST(OnnxSymbolicResizeTest, FixedDimsResizeTheSameWay) {
  std::mt19937 rng_fixed(1), rng_symbolic(1);
  const std::string fixed = WriteConvTokensModel(&rng_fixed, true);
  const std::string symbolic = WriteConvTokensModel(&rng_symbolic);
  auto model = Model::FromFile(fixed);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE((*model)->symbolic_dims().empty());
  EXPECT_TRUE((*model)->graph().symbolic_inputs.empty());
  auto session = Session::Create(*model, SessionConfig{});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::mt19937 rng(12);
  for (const std::vector<int>& size : std::vector<std::vector<int>>{{2, 3, 12, 10}, {1, 3, 8, 8}, {1, 3, 3, 17}}) {
    ASSERT_TRUE((*session)->Resize({{"x", Shape(size.begin(), size.end())}}).ok());
    Tensor* in = (*session)->input(0);
    const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in->num_elements()), &rng);
    std::copy(x.begin(), x.end(), in->data_as<float>());
    ASSERT_TRUE((*session)->Run().ok());
    // The symbolic model's session resized to this size: the same graph.
    auto reference_model = Model::FromFile(symbolic);
    ASSERT_TRUE(reference_model.ok());
    auto reference = Session::Create(*reference_model, SessionConfig{});
    ASSERT_TRUE(reference.ok());
    ASSERT_TRUE((*reference)->Resize({{"x", Shape(size.begin(), size.end())}}).ok());
    bool ort_missing = false;
    std::copy(x.begin(), x.end(), (*reference)->input(0)->data_as<float>());
    CheckAtSize(reference->get(), symbolic, size, &rng, &ort_missing);  // against ONNX Runtime (new input)
    std::copy(x.begin(), x.end(), (*reference)->input(0)->data_as<float>());
    ASSERT_TRUE((*reference)->Run().ok());
    EXPECT_EQ(Values(*(*session)->output(0)), Values(*(*reference)->output(0))) << ShapeToString(Shape(size.begin(), size.end()));
  }
}

TEST(OnnxSymbolicResizeTest, SymbolicDimsAreListed) {
  std::mt19937 rng(4);
  const std::string path = WriteConvTokensModel(&rng);
  LoadOptions options;
  options.input_shapes = {{"x", {2, 3, 8, 8}}};
  auto model = Model::FromFile(path, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<Model::SymbolicDim> dims = (*model)->symbolic_dims();
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_EQ(dims[0].input, "x");
  EXPECT_EQ(dims[0].axis, 0);
  EXPECT_EQ(dims[0].name, "batch");
  EXPECT_EQ(dims[1].axis, 2);
  EXPECT_EQ(dims[1].name, "height");
  EXPECT_EQ(dims[2].axis, 3);
  EXPECT_EQ(dims[2].name, "width");
  EXPECT_EQ((*model)->input_shapes()[0], Shape({2, 3, 8, 8}));
  // Given at load: no "taken as 1" note.
  EXPECT_TRUE((*model)->graph().symbolic_inputs.empty());
}

TEST(OnnxSymbolicResizeTest, WithInputShapesImportsAgain) {
  std::mt19937 rng(5);
  const std::string path = WriteConvTokensModel(&rng);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto bigger = (*model)->WithInputShapes({{"x", {2, 3, 10, 6}}});
  ASSERT_TRUE(bigger.ok()) << bigger.status().ToString();
  EXPECT_EQ((*bigger)->input_shapes()[0], Shape({2, 3, 10, 6}));
  // Conv stride 2 of 10x6 (pads 1): 5x3 = 15 tokens.
  EXPECT_EQ((*bigger)->graph().tensors[(*bigger)->graph().outputs[0]].shape, Shape({2, 15, 6}));
  EXPECT_EQ((*model)->input_shapes()[0], Shape({1, 3, 1, 1}));  // the model itself is unchanged
  auto bad = (*model)->WithInputShapes({{"nope", {1, 3, 4, 4}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'nope', which is not an input"), std::string::npos) << bad.status().message();
}

// A model from a file reads the file again to import it at other shapes
// (it does not hold the bytes); a file rewritten since the load is an error
// naming it. A model from a buffer holds a copy of its bytes.
TEST(OnnxSymbolicResizeTest, FileReadAgainBufferKept) {
  std::mt19937 rng(9);
  const std::string path = WriteConvTokensModel(&rng);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE((*model)->can_reimport());
  auto again = (*model)->WithInputShapes({{"x", {1, 3, 6, 6}}});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->input_shapes()[0], Shape({1, 3, 6, 6}));
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  auto from_buffer = Model::FromBuffer(bytes.data(), bytes.size(), "conv_tokens_buffer");
  ASSERT_TRUE(from_buffer.ok()) << from_buffer.status().ToString();
  bytes.assign(bytes.size(), '\0');  // the caller's buffer may go
  auto from_copy = (*from_buffer)->WithInputShapes({{"x", {1, 3, 6, 6}}});
  ASSERT_TRUE(from_copy.ok()) << from_copy.status().ToString();
  EXPECT_EQ((*from_copy)->input_shapes()[0], Shape({1, 3, 6, 6}));
  // Rewrite the file (another model, another size): the first model refuses.
  std::mt19937 other(10);
  const std::string rewritten = WriteConvTokensModel(&other, /*fixed=*/true);
  ASSERT_EQ(std::rename(rewritten.c_str(), path.c_str()), 0);
  auto stale = (*model)->WithInputShapes({{"x", {1, 3, 4, 4}}});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(stale.status().message().find(path), std::string::npos) << stale.status().message();
  EXPECT_NE(stale.status().message().find("changed since it was loaded"), std::string::npos)
      << stale.status().message();
}

// Without the bytes to import again, a resize the graph cannot follow is an
// error naming the input and dimension, and the session runs on as it was.
TEST(OnnxSymbolicResizeTest, ResizeWithoutTheSourceIsAnError) {
  std::mt19937 rng(6);
  const std::string path = WriteConvTokensModel(&rng);
  LoadOptions options;
  options.input_shapes = {{"x", {1, 3, 8, 8}}};
  options.keep_source_for_resize = false;
  auto model = Model::FromFile(path, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_FALSE((*model)->can_reimport());
  auto session = Session::Create(*model, SessionConfig{});
  ASSERT_TRUE(session.ok());
  const Status resized = (*session)->Resize({{"x", {1, 3, 8, 12}}});
  EXPECT_EQ(resized.code(), StatusCode::kFailedPrecondition);
  const std::string& m = resized.message();
  EXPECT_NE(m.find("input 'x' dimension 3 (symbolic 'width') 8 -> 12"), std::string::npos) << m;
  EXPECT_NE(m.find("node 'c_shape'"), std::string::npos) << m;
  EXPECT_NE(m.find("LoadOptions::input_shapes"), std::string::npos) << m;
  // The failed resize left the session planned at its shapes.
  EXPECT_EQ((*session)->input(0)->shape(), Shape({1, 3, 8, 8}));
  bool ort_missing = false;
  CheckAtSize(session->get(), path, {1, 3, 8, 8}, &rng, &ort_missing);
  // The same shapes are no resize at all.
  EXPECT_TRUE((*session)->Resize({{"x", {1, 3, 8, 8}}}).ok());
}

// A resize to shapes the model cannot take fails in the import at those
// shapes; the message names the input and dimension, and the session runs
// on as it was.
TEST(OnnxSymbolicResizeTest, ResizeTheModelCannotTakeIsAnError) {
  std::mt19937 rng(7);
  const std::string path = WriteConvTokensModel(&rng);
  LoadOptions options;
  options.input_shapes = {{"x", {1, 3, 8, 8}}};
  auto model = Model::FromFile(path, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto session = Session::Create(*model, SessionConfig{});
  ASSERT_TRUE(session.ok());
  // The conv's 3 input channels are fixed by its weights.
  const Status resized = (*session)->Resize({{"x", {1, 4, 8, 8}}});
  ASSERT_FALSE(resized.ok());
  EXPECT_NE(resized.message().find("input 'x' dimension 1 (fixed in the model file) 3 -> 4"), std::string::npos)
      << resized.message();
  EXPECT_EQ((*session)->Resize({{"x", {1, 3, 8}}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*session)->input(0)->shape(), Shape({1, 3, 8, 8}));
  bool ort_missing = false;
  CheckAtSize(session->get(), path, {1, 3, 8, 8}, &rng, &ort_missing);
}

// A copy of model `file` whose input `x` has symbolic batch, height and
// width (as torch.onnx.export with dynamic_axes writes them), its graph
// input renamed to "x"; "" when the file is missing.
std::string WriteSymbolicCopy(const std::string& file) {
  const std::string path = testing::ModelPath(file);
  if (!testing::FileExists(path)) return "";
  const std::vector<uint8_t> bytes = testing::ReadBytes(path);
  onnx::ModelProto m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return "";
  onnx::GraphProto* g = m.mutable_graph();
  const std::string old_name = g->input(0).name();
  g->mutable_input(0)->set_name("x");
  for (onnx::NodeProto& n : *g->mutable_node()) {
    for (std::string& in : *n.mutable_input()) {
      if (in == old_name) in = "x";
    }
  }
  auto* dims = g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  const char* names[] = {"batch", "", "height", "width"};
  for (int d : {0, 2, 3}) dims->mutable_dim(d)->set_dim_param(names[d]);
  g->clear_value_info();  // shapes inferred at the export's size
  for (onnx::ValueInfoProto& out : *g->mutable_output()) out.mutable_type()->mutable_tensor_type()->clear_shape();
  return testing::SaveOnnxModel(m, "symbolic_" + file);
}

// Torchvision models with symbolic batch and image size, resized to other
// sizes; each resize timed (printed: the cost of importing again).
TEST(OnnxSymbolicResizeTest, TorchvisionModelsFollowResizes) {
  for (const std::string file : {"mobilenet_v2.onnx", "resnet50.onnx"}) {
    SCOPED_TRACE(file);
    const std::string path = WriteSymbolicCopy(file);
    RILL_SKIP_IF_MISSING(testing::ModelPath(file));
    ASSERT_FALSE(path.empty());
    std::mt19937 rng(8);
    LoadOptions options;
    options.input_shapes = {{"x", {1, 3, 224, 224}}};
    auto t0 = std::chrono::steady_clock::now();
    auto model = Model::FromFile(path, options);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    auto t1 = std::chrono::steady_clock::now();
    auto session = Session::Create(*model, SessionConfig{});
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    auto t2 = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::printf("%s: load %.1f ms, create %.1f ms\n", file.c_str(), ms(t0, t1), ms(t1, t2));
    bool ort_missing = false;
    for (const std::vector<int>& size : std::vector<std::vector<int>>{{2, 3, 160, 192}, {1, 3, 224, 224}, {1, 3, 96, 128}}) {
      auto r0 = std::chrono::steady_clock::now();
      const Status resized = (*session)->Resize({{"x", Shape(size.begin(), size.end())}});
      auto r1 = std::chrono::steady_clock::now();
      ASSERT_TRUE(resized.ok()) << resized.ToString();
      std::printf("%s: Resize to %s %.1f ms\n", file.c_str(), ShapeToString(Shape(size.begin(), size.end())).c_str(),
                  ms(r0, r1));
      CheckAtSize(session->get(), path, size, &rng, &ort_missing);
    }
    if (ort_missing) GTEST_SKIP() << ort::DefaultLibraryPath() << " is missing: checked against fresh sessions only";
  }
}

}  // namespace
}  // namespace rill::inference
