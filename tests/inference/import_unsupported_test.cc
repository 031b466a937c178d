// What a model needs that the engine lacks is one error: every unsupported
// node of an ONNX or TFLite model (node, op, the attribute at fault), with
// the model's name, not only the first.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_test_models.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op, const std::string& name,
                         const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  n->add_output(output);
  return n;
}

void AddStringAttribute(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

// x -> Relu -> TopK-like "Frobnicate" -> Relu -> Add(., StringNormalizer(x))
// -> y: two op types without a converter (StringNormalizer, a string op of
// the standard opset, which the float engine will not take) (one reading the other's output through a
// Relu) and, on x, a Resize whose nearest_mode is not supported.
TEST(ImportUnsupportedTest, OnnxListsEveryUnsupportedNode) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "unsupported");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {1, 3, 4, 4});
  testing::SetFloatValueInfo(g->add_output(), "y", {1, 3, 4, 4});
  testing::SetFloatValueInfo(g->add_output(), "z", {1, 3, 8, 8});
  AddNode(g, "Relu", "relu", {"x"}, "r");
  AddNode(g, "Frobnicate", "first_unknown", {"r"}, "f");
  AddNode(g, "Relu", "after_unknown", {"f"}, "fr");
  AddNode(g, "StringNormalizer", "second_unknown", {"x"}, "h");
  AddNode(g, "Add", "sum", {"fr", "h"}, "y");
  testing::AddFloatInitializer(g, "scales", {1, 1, 2, 2});
  onnx::NodeProto* resize = AddNode(g, "Resize", "the_resize", {"x", "", "scales"}, "z");
  AddStringAttribute(resize, "nearest_mode", "sideways");
  const std::string path = testing::SaveOnnxModel(m, "unsupported.onnx");

  auto model = Model::FromFile(path);
  ASSERT_FALSE(model.ok());
  const std::string& message = model.status().message();
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented) << message;
  EXPECT_EQ(message.substr(0, message.find('\n')), path + ": 3 unsupported nodes:") << message;
  EXPECT_TRUE(Contains(message, "\n  node 'first_unknown' (Frobnicate): unsupported op type 'Frobnicate'")) << message;
  EXPECT_TRUE(
      Contains(message, "\n  node 'second_unknown' (StringNormalizer): unsupported op type 'StringNormalizer'"))
      << message;
  EXPECT_TRUE(Contains(message, "\n  node 'the_resize' (Resize), attribute 'nearest_mode': nearest_mode 'sideways'"))
      << message;
  // The nodes downstream of an unconverted one are not checked, and say so.
  EXPECT_FALSE(Contains(message, "'after_unknown'")) << message;
  EXPECT_FALSE(Contains(message, "'sum'")) << message;
  EXPECT_TRUE(Contains(message, "(2 nodes reading their outputs skipped)")) << message;
}

TEST(ImportUnsupportedTest, OnnxOneUnsupportedNodeIsOneLine) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "one_unsupported");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {1, 4});
  testing::SetFloatValueInfo(g->add_output(), "y", {1, 4});
  AddNode(g, "Relu", "relu", {"x"}, "r");
  AddNode(g, "StringNormalizer", "the_normalizer", {"r"}, "y");
  const std::string path = testing::SaveOnnxModel(m, "one_unsupported.onnx");
  auto model = Model::FromFile(path);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(model.status().message(),
            path + ": node 'the_normalizer' (StringNormalizer): unsupported op type 'StringNormalizer'");

  // An op of another domain names the domain.
  g->mutable_node(1)->set_op_type("Gelu");
  g->mutable_node(1)->set_domain("com.example");
  const std::string other = testing::SaveOnnxModel(m, "other_domain.onnx");
  model = Model::FromFile(other);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            other + ": node 'the_normalizer' (Gelu): unsupported op 'Gelu' of domain 'com.example'");
}

// Sequences exist only at import: a SplitToSequence of a size known only at
// run time (NonZero's count) and a SequenceAt at a run-time position are
// listed, naming model, node and op, with a Scan along that size (its trip
// count unknown at import); the nodes reading them are skipped.
TEST(ImportUnsupportedTest, OnnxSequenceOfRunTimeLengthIsListed) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "run_time_sequences");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {1, 4});
  testing::SetFloatValueInfo(g->add_output(), "y", {1, 4});
  AddNode(g, "NonZero", "nonzero", {"x"}, "nz");
  onnx::NodeProto* cast = AddNode(g, "Cast", "cast", {"nz"}, "nzf");
  onnx::AttributeProto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(1);
  onnx::NodeProto* split = AddNode(g, "SplitToSequence", "the_split", {"nzf"}, "pieces");
  onnx::AttributeProto* axis = split->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(1);
  AddNode(g, "ConcatFromSequence", "the_concat", {"pieces"}, "joined");
  AddNode(g, "SequenceConstruct", "construct", {"x", "x"}, "pair");
  onnx::NodeProto* argmax = AddNode(g, "ArgMax", "argmax", {"x"}, "where");
  onnx::AttributeProto* keep = argmax->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  AddNode(g, "SequenceAt", "the_at", {"pair", "where"}, "picked");
  AddNode(g, "Add", "sum", {"picked", "x"}, "y");
  // A Scan along that run-time size: its trip count is not known at import.
  onnx::NodeProto* scan = AddNode(g, "Scan", "the_scan", {"nzf"}, "scanned");
  onnx::AttributeProto* inputs = scan->add_attribute();
  inputs->set_name("num_scan_inputs");
  inputs->set_type(onnx::AttributeProto::INT);
  inputs->set_i(1);
  onnx::AttributeProto* axes = scan->add_attribute();
  axes->set_name("scan_input_axes");
  axes->set_type(onnx::AttributeProto::INTS);
  axes->add_ints(1);
  onnx::AttributeProto* body = scan->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  testing::SetFloatValueInfo(body->mutable_g()->add_input(), "column", {2});
  testing::SetFloatValueInfo(body->mutable_g()->add_output(), "negated", {2});
  AddNode(body->mutable_g(), "Neg", "neg", {"column"}, "negated");
  const std::string path = testing::SaveOnnxModel(m, "run_time_sequences.onnx");
  auto model = Model::FromFile(path);
  ASSERT_FALSE(model.ok());
  const std::string message = model.status().message();
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented) << message;
  EXPECT_EQ(message.substr(0, message.find('\n')), path + ": 3 unsupported nodes:") << message;
  EXPECT_TRUE(Contains(message, "\n  node 'the_scan' (Scan): scan input 0 has a size known only at run time along "
                                "its axis"))
      << message;
  EXPECT_TRUE(Contains(message, "\n  node 'the_split' (SplitToSequence): a sequence whose length depends on run-time "
                                "data (the input's size along axis 1 is known only at run time)"))
      << message;
  EXPECT_TRUE(Contains(message, "\n  node 'the_at' (SequenceAt): a position known only at run time")) << message;
  EXPECT_FALSE(Contains(message, "'the_concat'")) << message;
  EXPECT_TRUE(Contains(message, "(2 nodes reading their outputs skipped)")) << message;
}

// Malformed models still stop at the first error, whatever else is missing.
TEST(ImportUnsupportedTest, OnnxInvalidNodesStopAtOnce) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "invalid");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {1, 4});
  testing::SetFloatValueInfo(g->add_output(), "y", {1, 4});
  AddNode(g, "StringNormalizer", "the_normalizer", {"x"}, "e");
  AddNode(g, "Relu", "orphan", {"nowhere"}, "y");
  const std::string path = testing::SaveOnnxModel(m, "invalid.onnx");
  auto model = Model::FromFile(path);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument) << model.status().ToString();
  EXPECT_TRUE(Contains(model.status().message(), "'orphan'")) << model.status().ToString();
}

// SoftmaxOptions { beta: float }.
flatbuffers::uoffset_t SoftmaxBetaTwo(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(0), 2.0f, 0.0f);
  return b->EndTable(start);
}

// x -> SIGN -> RELU -> CUSTOM 'Mystery' -> SOFTMAX (beta 2) -> y.
TEST(ImportUnsupportedTest, TfLiteListsEveryUnsupportedNode) {
  constexpr int32_t kSign = 158, kRelu = 19, kCustom = 32, kSoftmax = 25;
  constexpr uint8_t kSoftmaxOptions = 9;  // BuiltinOptions.SoftmaxOptions
  const std::vector<int32_t> shape = {1, 8};
  const std::vector<testing::TfliteTensor> tensors = {
      {"x", shape, {}}, {"t", shape, {}}, {"r", shape, {}}, {"m", shape, {}}, {"y", shape, {}}};
  const std::vector<testing::TfliteOp> ops = {
      {kSign, "", {0}, {1}},
      {kRelu, "", {1}, {2}},
      {kCustom, "Mystery", {2}, {3}},
      {kSoftmax, "", {3}, {4}, kSoftmaxOptions, SoftmaxBetaTwo},
  };
  const std::vector<uint8_t> bytes = testing::TfliteModel(tensors, ops, {4});
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "unsupported.tflite");
  ASSERT_FALSE(model.ok());
  const std::string& message = model.status().message();
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented) << message;
  EXPECT_EQ(message,
            "unsupported.tflite: 3 unsupported nodes:\n"
            "  node #0 't' (SIGN): unsupported op SIGN\n"
            "  node #2 'm' (CUSTOM 'Mystery'): unsupported custom op 'Mystery'\n"
            "  node #3 'y' (SOFTMAX), option 'beta': SOFTMAX with beta 2.000000 (1 only)");

  // With those replaced, the same model loads and runs.
  std::vector<testing::TfliteOp> relus(4, {kRelu, "", {}, {}});
  for (int32_t i = 0; i < 4; ++i) {
    relus[i].inputs = {i};
    relus[i].outputs = {i + 1};
  }
  const std::vector<uint8_t> fixed = testing::TfliteModel(tensors, relus, {4});
  auto ok = Model::FromBuffer(fixed.data(), fixed.size(), "fixed.tflite");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto session = Session::Create(*ok);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (int i = 0; i < 8; ++i) (*session)->input(0)->data_as<float>()[i] = static_cast<float>(i) - 4.0f;
  ASSERT_TRUE((*session)->Run().ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ((*session)->output(0)->data_as<float>()[i], std::max(0.0f, i - 4.0f));
}

}  // namespace
}  // namespace rill::inference
