// Scan (opset 9 and later): its trip count is the scan inputs' size along
// their scan axes, known at import, so it becomes a Loop of that constant
// count (converters/expansion.h; sequence.cc's Loop converter): the Loop's
// body Gathers each scan input's slice at the iteration number (N - 1 - it
// for a reverse direction) along its axis, then runs Scan's body; its
// carried values are Scan's states and its scan outputs Scan's. After the
// Loop, a reverse scan output is Gathered back into order and one whose
// axis is not 0 Transposed there. So a Scan of at most 64 iterations
// unrolls at import, as such a Loop does (its scan outputs a Concat of the
// iterations' values), and a longer one runs as a LOOP node whose scan
// outputs have their rows known at plan (docs/design.md, "Data-dependent
// sizes"). A scan input
// whose scan axis has a size known only at run time is UNIMPLEMENTED.
#include <string>
#include <vector>

#include "inference/import/onnx/converters/expansion.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/graph.h"

namespace rill::inference::onnx_import {
namespace {

// Attribute `name` with one value per scan input / output (0 where absent).
StatusOr<std::vector<int64_t>> PerItem(ConverterContext& c, const std::string& name, int count) {
  std::vector<int64_t> v = c.AttrInts(name);
  if (v.empty()) v.assign(static_cast<size_t>(count), 0);
  if (static_cast<int>(v.size()) != count) {
    return c.Invalid(name + " has " + std::to_string(v.size()) + " values for " + std::to_string(count) + " items");
  }
  return v;
}

onnx::TensorProto* Int64Initializer(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& values) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(kInt64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return t;
}

Status Scan(ConverterContext& c) {
  if (c.opset() < 9) return c.Unsupported("Scan of opset 8 (sequence_lens and a batch axis)");
  const onnx::AttributeProto* body_attr = c.FindAttr("body");
  if (body_attr == nullptr || !body_attr->has_g()) return c.Invalid("needs a body");
  const onnx::GraphProto& body = body_attr->g();
  const onnx::NodeProto& node = c.node();
  const int scans_in = static_cast<int>(c.AttrInt("num_scan_inputs", 0));
  const int states = node.input_size() - scans_in;
  const int scans_out = body.output_size() - states;
  if (scans_in < 1 || states < 0 || body.input_size() != states + scans_in || scans_out < 0) {
    return c.Invalid("body inputs and outputs do not match the Scan's states and scan inputs");
  }
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> in_dirs, PerItem(c, "scan_input_directions", scans_in));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> in_axes, PerItem(c, "scan_input_axes", scans_in));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> out_dirs, PerItem(c, "scan_output_directions", scans_out));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> out_axes, PerItem(c, "scan_output_axes", scans_out));
  // The trip count: every scan input's size along its axis, the same.
  int64_t trips = -1;
  for (int j = 0; j < scans_in; ++j) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(states + j));
    const Shape s = c.OnnxShape(v);
    const int64_t rank = static_cast<int64_t>(s.size());
    if (in_axes[j] < -rank || in_axes[j] >= rank) return c.Invalid("scan_input_axes out of range");
    if (in_axes[j] < 0) in_axes[j] += rank;
    const int64_t n = s[static_cast<size_t>(in_axes[j])];
    if (n == ir::kDynamicDim) {
      return c.Unsupported("scan input " + std::to_string(j) + " has a size known only at run time along its axis");
    }
    if (trips >= 0 && n != trips) return c.Invalid("scan inputs differ in length");
    trips = n;
  }
  if (trips >= (int64_t{1} << 24)) return c.Unsupported("Scan of " + std::to_string(trips) + " iterations");
  // The Loop: M = trips, no condition, Scan's states carried.
  Expansion e(c);
  const std::string m = e.Name("trip_count"), last = e.Name("last");
  Int64Initializer(e.graph(), m, {}, {trips});
  Int64Initializer(e.graph(), last, {}, {trips - 1});
  std::vector<std::string> loop_in = {m, ""};
  for (int k = 0; k < states; ++k) loop_in.push_back(node.input(k));
  onnx::NodeProto* loop = e.Add("Loop", loop_in, "state0");
  loop->clear_output();
  std::vector<std::string> loop_out;
  for (int k = 0; k < states + scans_out; ++k) {
    loop_out.push_back(e.Name((k < states ? "state" : "scan") + std::to_string(k)));
    loop->add_output(loop_out.back());
  }
  onnx::AttributeProto* attr = loop->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* lb = attr->mutable_g();
  lb->set_name(body.name());
  const std::string iteration = e.Name("iteration"), cond_in = e.Name("cond_in"), cond_out = e.Name("cond_out");
  lb->add_input()->set_name(iteration);
  lb->add_input()->set_name(cond_in);
  for (int k = 0; k < states; ++k) *lb->add_input() = body.input(k);
  for (int j = 0; j < scans_in; ++j) {
    std::string index = iteration;
    if (in_dirs[j] != 0) {  // reverse: N - 1 - iteration
      index = e.Name("index" + std::to_string(j));
      onnx::NodeProto* sub = lb->add_node();
      sub->set_op_type("Sub");
      sub->set_name(index);
      sub->add_input(last);
      sub->add_input(iteration);
      sub->add_output(index);
    }
    onnx::NodeProto* gather = lb->add_node();
    gather->set_op_type("Gather");
    gather->set_name(e.Name("slice" + std::to_string(j)));
    gather->add_input(node.input(states + j));
    gather->add_input(index);
    gather->add_output(body.input(states + j).name());
    Expansion::IntAttr(gather, "axis", in_axes[j]);
  }
  for (const onnx::TensorProto& t : body.initializer()) *lb->add_initializer() = t;
  for (const onnx::NodeProto& n : body.node()) *lb->add_node() = n;
  onnx::NodeProto* cond = lb->add_node();
  cond->set_op_type("Identity");
  cond->set_name(cond_out);
  cond->add_input(cond_in);
  cond->add_output(cond_out);
  lb->add_output()->set_name(cond_out);
  for (const onnx::ValueInfoProto& o : body.output()) *lb->add_output() = o;
  RILL_INF_RETURN_IF_ERROR(e.Run({}));
  for (int k = 0; k < states && k < node.output_size(); ++k) {
    if (node.output(k).empty()) continue;
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Get(loop_out[k]));
    c.Define(v, k);
  }
  // Scan outputs: back into order, then to their axes.
  Expansion post(c);
  std::vector<std::string> results(static_cast<size_t>(scans_out));
  bool any = false;
  for (int j = 0; j < scans_out; ++j) {
    const int k = states + j;
    if (k >= node.output_size() || node.output(k).empty()) continue;
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Get(loop_out[k]));
    const int64_t rank = static_cast<int64_t>(c.OnnxShape(v).size());
    int64_t axis = out_axes[j];
    if (axis < -rank || axis >= rank) return c.Invalid("scan_output_axes out of range");
    if (axis < 0) axis += rank;
    std::string name = loop_out[k];
    if (out_dirs[j] != 0) {
      std::vector<int64_t> order;
      for (int64_t i = trips - 1; i >= 0; --i) order.push_back(i);
      const std::string idx = post.Name("order" + std::to_string(j));
      Int64Initializer(post.graph(), idx, {trips}, order);
      name = post.Add("Gather", {name, idx}, "reversed" + std::to_string(j))->output(0);
      any = true;
    }
    if (axis != 0) {
      std::vector<int64_t> perm;
      for (int64_t d = 1; d <= axis; ++d) perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = axis + 1; d < rank; ++d) perm.push_back(d);
      onnx::NodeProto* t = post.Add("Transpose", {name}, "moved" + std::to_string(j));
      Expansion::IntsAttr(t, "perm", perm);
      name = t->output(0);
      any = true;
    }
    results[static_cast<size_t>(j)] = name;
  }
  if (any) RILL_INF_RETURN_IF_ERROR(post.Run({}));
  for (int j = 0; j < scans_out; ++j) {
    const int k = states + j;
    if (results[static_cast<size_t>(j)].empty()) continue;
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Get(results[static_cast<size_t>(j)]));
    c.Define(v, k);
  }
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Scan"}, Scan);

}  // namespace
}  // namespace rill::inference::onnx_import
