#include "tests/inference/onnx_op_test_util.h"

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <random>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference::testing {

OnnxGraph::OnnxGraph(int opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("rill-test");
  onnx::OperatorSetIdProto* o = model_.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  model_.mutable_graph()->set_name("op_test");
}

void OnnxGraph::Input(const std::string& name, const std::vector<int64_t>& shape) {
  onnx::ValueInfoProto* v = model_.mutable_graph()->add_input();
  v->set_name(name);
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
}

void OnnxGraph::Initializer(const std::string& name, const std::vector<int64_t>& shape,
                            const std::vector<float>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(float));
}

void OnnxGraph::Int64Initializer(const std::string& name, const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : shape) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(int64_t));
}

onnx::NodeProto* OnnxGraph::Node(const std::string& op_type, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op_type);
  n->set_name(outputs.empty() ? op_type : outputs[0]);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return n;
}

void OnnxGraph::Output(const std::string& name) {
  onnx::ValueInfoProto* v = model_.mutable_graph()->add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

void OnnxGraph::Attr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}
void OnnxGraph::Attr(onnx::NodeProto* node, const std::string& name, float value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}
void OnnxGraph::Attr(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}
void OnnxGraph::Attr(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : value) a->add_ints(v);
}

std::string OnnxGraph::Serialize() const {
  std::string bytes;
  model_.SerializeToString(&bytes);
  return bytes;
}

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<float> RandomValues(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void ExpectMatchesOrt(const OnnxGraph& graph, const std::vector<ort::OrtTensor>& inputs, double tolerance) {
  RILL_REQUIRE(FileExists(ort::DefaultLibraryPath()),
               ort::DefaultLibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)");
  const std::string bytes = graph.Serialize();
  onnx::ModelProto parsed;
  parsed.ParseFromString(bytes);
  const std::string what = parsed.graph().node_size() > 0 ? parsed.graph().node(0).op_type() : "empty";
  static int counter = 0;
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  const std::string path = std::string(dir != nullptr ? dir : ::testing::TempDir().c_str()) + "/op_test_" +
                           what + "_" + std::to_string(counter++) + ".onnx";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto runner = ort::OrtRunner::Create(path);
  ASSERT_TRUE(runner.ok()) << what << ": ONNX Runtime refuses the model: " << runner.status().ToString();
  std::vector<ort::OrtTensor> expected;
  const Status run = (*runner)->Run(inputs, &expected);
  ASSERT_TRUE(run.ok()) << what << ": " << run.ToString();

  auto model = Model::FromBuffer(bytes.data(), bytes.size(), path);
  ASSERT_TRUE(model.ok()) << what << ": " << model.status().ToString();
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(what + (policy == AlgorithmPolicy::kAuto ? " auto " : " reference ") +
                   std::to_string(threads) + " thread(s)");
      SessionConfig config;
      config.algorithm = policy;
      config.num_threads = threads;
      auto session = Session::Create(*model, config);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      Session& s = **session;
      for (const ort::OrtTensor& in : inputs) {
        Tensor* t = s.input(in.name);
        ASSERT_NE(t, nullptr) << "no input " << in.name;
        ASSERT_EQ(static_cast<size_t>(t->num_elements()), in.data.size()) << in.name;
        std::memcpy(t->data(), in.data.data(), in.data.size() * sizeof(float));
      }
      const Status engine_run = s.Run();
      ASSERT_TRUE(engine_run.ok()) << engine_run.ToString();
      for (const ort::OrtTensor& want : expected) {
        const Tensor* got = s.output(want.name);
        ASSERT_NE(got, nullptr) << "the engine has no output " << want.name;
        ASSERT_EQ(std::vector<int64_t>(got->shape().begin(), got->shape().end()), want.shape) << want.name;
        const ort::OutputDiff d = ort::DiffOutputs(got->data_as<float>(), want.data.data(), want.data.size());
        EXPECT_TRUE(d.Within(tolerance)) << want.name << ": max abs error " << d.max_abs << " > " << tolerance
                                         << " x " << d.scale;
      }
    }
  }
}

std::shared_ptr<const Model> LoadOnnxGraph(const OnnxGraph& graph, const std::string& name, bool optimize) {
  const std::string bytes = graph.Serialize();
  LoadOptions options;
  options.optimize = optimize;
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), name, options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

int CountOps(const Model& model, const std::string& op) {
  int n = 0;
  for (const ir::Node& node : model.graph().nodes) n += op == ir::OpTypeName(node.type);
  return n;
}

std::vector<float> RunEngine(const Model& model, const std::vector<float>& x, AlgorithmPolicy policy, int threads) {
  SessionConfig config;
  config.algorithm = policy;
  config.num_threads = threads;
  auto shared = std::shared_ptr<const Model>(&model, [](const Model*) {});
  auto session = Session::Create(shared, config);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  Tensor* in = (*session)->input(0);
  EXPECT_EQ(static_cast<size_t>(in->num_elements()), x.size());
  std::memcpy(in->data(), x.data(), x.size() * sizeof(float));
  EXPECT_TRUE((*session)->Run().ok());
  const Tensor* out = (*session)->output(0);
  return std::vector<float>(out->data_as<float>(), out->data_as<float>() + out->num_elements());
}

}  // namespace rill::inference::testing
