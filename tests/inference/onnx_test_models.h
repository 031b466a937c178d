// One-node ONNX models written with the protobuf classes, for tests that
// compare the engine with ONNX Runtime op by op.
#ifndef RILL_TESTS_INFERENCE_ONNX_TEST_MODELS_H_
#define RILL_TESTS_INFERENCE_ONNX_TEST_MODELS_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "inference/tools/ort_runner.h"
#include "tests/inference/test_util.h"

namespace rill::inference::testing {

// A float initializer of shape `dims` (empty: 1-D of v.size()).
inline void AddFloatInitializer(onnx::GraphProto* g, const std::string& name, const std::vector<float>& v,
                                std::vector<int64_t> dims = {}) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  if (dims.empty()) dims = {static_cast<int64_t>(v.size())};
  for (int64_t d : dims) t->add_dims(d);
  for (float x : v) t->add_float_data(x);
}

inline void AddIntInitializer(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& v) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
}

inline void SetFloatValueInfo(onnx::ValueInfoProto* info, const std::string& name, const std::vector<int64_t>& dims) {
  info->set_name(name);
  onnx::TypeProto_Tensor* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// An input whose dimensions are symbolic where `names` has a name ("" keeps
// `dims`' value).
inline void SetSymbolicInput(onnx::ValueInfoProto* info, const std::string& name, const std::vector<int64_t>& dims,
                             const std::vector<std::string>& names) {
  SetFloatValueInfo(info, name, dims);
  auto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].empty()) shape->mutable_dim(static_cast<int>(i))->set_dim_param(names[i]);
  }
}

// A node named after its one output.
inline onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
                                const std::string& out) {
  onnx::NodeProto* n = g->add_node();
  n->set_name(out);
  n->set_op_type(op);
  for (const std::string& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

inline void AddIntsAttribute(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

inline void AddIntAttribute(onnx::NodeProto* node, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// A model of one graph at `opset` (ir_version to match), its node to fill in.
inline onnx::ModelProto NewOnnxModel(int opset, const std::string& producer) {
  onnx::ModelProto m;
  m.set_ir_version(opset >= 18 ? 8 : opset >= 13 ? 7 : 5);
  m.set_producer_name(producer);
  onnx::OperatorSetIdProto* ops = m.add_opset_import();
  ops->set_domain("");
  ops->set_version(opset);
  m.mutable_graph()->set_name(producer);
  return m;
}

// Writes `m` under the test's temporary directory; returns the path.
inline std::string SaveOnnxModel(const onnx::ModelProto& m, const std::string& file) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/" + file;
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
  return path;
}

}  // namespace rill::inference::testing

// Skips a test when ONNX Runtime's library has not been fetched.
#define RILL_SKIP_IF_NO_ORT()                                                                  \
  RILL_REQUIRE(::rill::inference::testing::FileExists(::rill::inference::ort::DefaultLibraryPath()), \
               ::rill::inference::ort::DefaultLibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)")

#endif  // RILL_TESTS_INFERENCE_ONNX_TEST_MODELS_H_
