// A graph of standard ONNX nodes standing for the node being converted, as
// ONNX functions expand (quantize.cc's QLinearConv ..., sequence.cc's
// SplitToSequence and ConcatFromSequence), converted in place through the
// nodes' converters (ConverterContext::ConvertBranch with no guard).
#ifndef RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_EXPANSION_H_
#define RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_EXPANSION_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {

// A graph of standard nodes standing for the node being converted, its
// intermediate values named under the node's output (no clash with the
// model's), converted in place.
class Expansion {
 public:
  explicit Expansion(ConverterContext& c) : c_(c), prefix_(c.out_name() + "/expanded/") {}
  std::string Name(const std::string& s) const { return prefix_ + s; }
  onnx::GraphProto* graph() { return &g_; }
  onnx::NodeProto* Add(const std::string& op, const std::vector<std::string>& in, const std::string& out) {
    onnx::NodeProto* n = g_.add_node();
    n->set_op_type(op);
    n->set_name(Name(out));
    for (const std::string& i : in) n->add_input(i);
    n->add_output(Name(out));
    return n;
  }
  std::string Float(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    onnx::TensorProto* t = g_.add_initializer();
    t->set_name(Name(name));
    t->set_data_type(kFloat);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(v.data(), v.size() * sizeof(float));
    return Name(name);
  }
  static void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t e : v) a->add_ints(e);
  }
  // Converts the graph and binds the node's outputs to `outs` (names
  // inside it).
  Status Run(const std::vector<std::string>& outs) {
    std::vector<Value> unused;
    RILL_INF_RETURN_IF_ERROR(c_.ConvertBranch(g_, nullptr, &unused));
    for (size_t k = 0; k < outs.size(); ++k) {
      if (static_cast<int>(k) >= c_.node().output_size() || c_.node().output(k).empty()) continue;
      RILL_INF_ASSIGN_OR_RETURN(Value v, c_.Get(Name(outs[k])));
      c_.Define(v, static_cast<int>(k));
    }
    return Status::Ok();
  }

 private:
  ConverterContext& c_;
  std::string prefix_;
  onnx::GraphProto g_;
};

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_CONVERTERS_EXPANSION_H_
