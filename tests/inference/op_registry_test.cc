// One op, one place: an op defined entirely in this file (its descriptor,
// typed attributes, shape function, CPU execution and ONNX converter) runs in
// a session beside the built-in ops, on the CPU and behind the cpu_device
// boundary, and loads from an ONNX file, without any edit to the engine. And
// every built-in op has a descriptor.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/cpu_backend.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/graph.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"
#include "rill/inference/inference.h"
#include "tests/inference/cpu_device_backend.h"
#include "tests/inference/onnx_test_models.h"

namespace rill::inference {
namespace {

// --- The op: y = scale * x * x + offset --------------------------------

struct ScaledSquareAttrs : ir::TypedAttrs {
  float scale = 1.0f;
  float offset = 0.0f;
};

Status ScaledSquareShape(ir::ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  if (c.node().attrs_as<ScaledSquareAttrs>() == nullptr) return c.Error("missing ScaledSquareAttrs");
  return c.SetOut(c.In(0));
}

ir::OpType ScaledSquareOp() {
  static const ir::OpType type = ir::RegisterOp({ir::OpType::kRegisteredOp, "SCALED_SQUARE", ScaledSquareShape});
  return type;
}

class ScaledSquareExecution : public cpu::CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "scaled_square_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ScaledSquareAttrs>();
    count_ = NumElements(InShape(0));
    return NeedFloatInputs(1);
  }
  void Compute() override {
    const float* x = In(0);
    float* y = Out();
    for (int64_t i = 0; i < count_; ++i) y[i] = attrs_->scale * x[i] * x[i] + attrs_->offset;
  }

 private:
  const ScaledSquareAttrs* attrs_ = nullptr;
  int64_t count_ = 0;
};

std::unique_ptr<Execution> MakeScaledSquare(const cpu::CpuArgs& args) {
  return std::make_unique<ScaledSquareExecution>(args);
}

const bool kCpuRegistered = cpu::RegisterCpuOp(ScaledSquareOp(), MakeScaledSquare);

// ONNX: ScaledSquare of the domain "rill.test", attributes scale and offset.
Status ConvertScaledSquare(onnx_import::ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(onnx_import::Value x, c.Input(0));
  auto attrs = std::make_shared<ScaledSquareAttrs>();
  attrs->scale = c.AttrFloat("scale", 1.0f);
  attrs->offset = c.AttrFloat("offset", 0.0f);
  if (!std::isfinite(attrs->scale)) return c.UnsupportedAttribute("scale", "scale must be finite");
  // Elementwise: the result keeps the input's layout.
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ScaledSquareOp(), {x.id}, c.out_name(), {}, attrs));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

const bool kOnnxRegistered = onnx_import::RegisterOnnxConverter("rill.test", {"ScaledSquare"}, ConvertScaledSquare);

// --- A model using it: input -> RELU -> SCALED_SQUARE -> output ------------

std::shared_ptr<const Model> MakeModel(ir::OpType second_op) {
  auto g = std::make_shared<ir::Graph>();
  g->source = "op_registry_test";
  for (const char* name : {"x", "relu", "y"}) {
    ir::TensorInfo t;
    t.name = name;
    t.shape = {1, 3, 5, 7};
    g->tensors.push_back(t);
  }
  ir::Node relu;
  relu.name = "relu";
  relu.type = ir::OpType::kRelu;
  relu.inputs = {0};
  relu.outputs = {1};
  ir::Node square;
  square.name = "y";
  square.type = second_op;
  square.inputs = {1};
  square.outputs = {2};
  auto attrs = std::make_shared<ScaledSquareAttrs>();
  attrs->scale = 3.0f;
  attrs->offset = 0.5f;
  square.typed_attrs = attrs;
  g->nodes = {relu, square};
  g->inputs = {0};
  g->outputs = {2};
  return std::make_shared<Model>(g);
}

TEST(OpRegistryTest, OpDefinedInOneFileRuns) {
  ASSERT_TRUE(kCpuRegistered);
  const ir::OpType type = ScaledSquareOp();
  EXPECT_GT(static_cast<int>(type), static_cast<int>(ir::OpType::kRegisteredOp));
  EXPECT_STREQ(ir::OpTypeName(type), "SCALED_SQUARE");
  ASSERT_NE(ir::FindOpByName("SCALED_SQUARE"), nullptr);
  EXPECT_EQ(ir::FindOpByName("SCALED_SQUARE")->type, type);
  EXPECT_EQ(ScaledSquareOp(), type) << "registered once";

  auto model = MakeModel(type);
  for (bool device : {false, true}) {
    SessionConfig config;
    if (device) testing::UseCpuDevice(&config, {});
    auto session = Session::Create(model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Tensor* in = (*session)->input(0);
    ASSERT_EQ(in->num_elements(), 105);
    for (int i = 0; i < 105; ++i) in->data_as<float>()[i] = static_cast<float>(i % 11) - 5.0f;
    ASSERT_TRUE((*session)->Run().ok());
    const Tensor* out = (*session)->output(0);
    for (int i = 0; i < 105; ++i) {
      const float r = std::max(0.0f, static_cast<float>(i % 11) - 5.0f);
      EXPECT_EQ(out->data_as<float>()[i], 3.0f * r * r + 0.5f) << i;
    }
    const std::vector<LayerInfo> layers = (*session)->Layers();
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_EQ(layers[1].op, "SCALED_SQUARE");
    EXPECT_EQ(layers[1].kernel, "scaled_square_ref");
    EXPECT_EQ(layers[1].backend, device ? "cpu_device" : "cpu");
  }
}

// The same op from an ONNX file: Relu -> ScaledSquare, its converter above.
onnx::ModelProto ScaledSquareOnnx(float scale) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "op_registry_test");
  onnx::OperatorSetIdProto* domain = m.add_opset_import();
  domain->set_domain("rill.test");
  domain->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {1, 3, 5, 7});
  testing::SetFloatValueInfo(g->add_output(), "y", {1, 3, 5, 7});
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("x");
  relu->add_output("r");
  onnx::NodeProto* square = g->add_node();
  square->set_op_type("ScaledSquare");
  square->set_domain("rill.test");
  square->set_name("square");
  square->add_input("r");
  square->add_output("y");
  for (const auto& [name, value] : {std::pair<const char*, float>{"scale", scale}, {"offset", 0.5f}}) {
    onnx::AttributeProto* a = square->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(value);
  }
  return m;
}

TEST(OpRegistryTest, OpDefinedInOneFileLoadsFromOnnx) {
  ASSERT_TRUE(kCpuRegistered && kOnnxRegistered);
  const std::string path = testing::SaveOnnxModel(ScaledSquareOnnx(3.0f), "scaled_square.onnx");
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Tensor* in = (*session)->input(0);
  ASSERT_EQ(in->num_elements(), 105);
  for (int i = 0; i < 105; ++i) in->data_as<float>()[i] = static_cast<float>(i % 11) - 5.0f;
  ASSERT_TRUE((*session)->Run().ok());
  const Tensor* out = (*session)->output(0);
  EXPECT_EQ(out->shape(), Shape({1, 3, 5, 7}));
  for (int i = 0; i < 105; ++i) {
    const float r = std::max(0.0f, static_cast<float>(i % 11) - 5.0f);
    EXPECT_EQ(out->data_as<float>()[i], 3.0f * r * r + 0.5f) << i;
  }
  const std::vector<LayerInfo> layers = (*session)->Layers();
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[1].op, "SCALED_SQUARE");
  EXPECT_EQ(layers[1].kernel, "scaled_square_ref");

  // The converter's own errors name the node, the op, the attribute and the file.
  const std::string bad = testing::SaveOnnxModel(ScaledSquareOnnx(INFINITY), "scaled_square_inf.onnx");
  auto refused = Model::FromFile(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(refused.status().message(),
            bad + ": node 'square' (ScaledSquare), attribute 'scale': scale must be finite");
}

// An op with a descriptor but no execution on any backend is one clear
// error naming the node and the op.
TEST(OpRegistryTest, OpWithoutExecutionIsAClearError) {
  static const ir::OpType orphan = ir::RegisterOp({ir::OpType::kRegisteredOp, "ORPHAN_OP", ScaledSquareShape});
  auto session = Session::Create(MakeModel(orphan));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(session.status().message().find("'y' (ORPHAN_OP)"), std::string::npos) << session.status().ToString();
}

// Every built-in OpType has a descriptor with a shape function, and names
// are unique.
TEST(OpRegistryTest, EveryBuiltInOpHasADescriptor) {
  std::set<std::string> names;
  for (int t = 0; t <= static_cast<int>(ir::OpType::kDepthwiseBlock); ++t) {
    const ir::OpDescriptor* op = ir::FindOp(static_cast<ir::OpType>(t));
    ASSERT_NE(op, nullptr) << "OpType " << t;
    EXPECT_NE(op->infer_shapes, nullptr) << op->name;
    EXPECT_TRUE(names.insert(op->name).second) << "duplicate name " << op->name;
  }
  EXPECT_STREQ(ir::OpTypeName(ir::OpType::kConv2D), "CONV_2D");
  EXPECT_STREQ(ir::OpTypeName(ir::OpType::kResizeNearest), "RESIZE_NEAREST_NEIGHBOR");
}

}  // namespace
}  // namespace rill::inference
