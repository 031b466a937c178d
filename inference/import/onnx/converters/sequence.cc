// ONNX sequences whose items are known at import, and Loop of a constant
// trip count, unrolled: what torch's tensor_split exports (MViT's pooling
// splits its class token off that way): SequenceEmpty, a Loop running a
// constant number of times whose body Slices the input and SequenceInserts
// the slice, SequenceInsert of the rest, SequenceAt of constant positions.
// A sequence is a list of the importer's values (ConverterContext::
// DefineSequence); nothing of it reaches the IR but its items. A Loop whose
// trip count or condition is known only at run time (Mask and Keypoint
// R-CNN's per-detection loops) is a LOOP node run by the session
// (LoopAtRun). SplitToSequence and ConcatFromSequence expand into Split /
// Squeeze and Unsqueeze / Concat of the items (converters/expansion.h), so a
// sequence's length is always known at import: a split of a run-time size,
// a split computed at run time or a position known only at run time is
// UNIMPLEMENTED, naming the node. Scan (scan.cc) becomes a Loop converted
// here.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inference/import/onnx/converters/expansion.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/dynamic_ops.h"

namespace rill::inference::onnx_import {
namespace {

// Loops longer than this are not unrolled (each iteration is a copy of the
// body in the graph).
constexpr int64_t kMaxUnrolledIterations = 64;
// SplitToSequence makes one node per item.
constexpr int64_t kMaxSequenceItems = 4096;

StatusOr<const std::vector<Value>*> SequenceInput(ConverterContext& c, int i) {
  const std::vector<Value>* s = c.HasInput(i) ? c.FindSequence(c.node().input(i)) : nullptr;
  if (s == nullptr) return c.Unsupported("input " + std::to_string(i) + " is not a sequence known at import");
  return s;
}

// A constant position in [-size, size] (`inclusive_end`: size allowed, an
// insertion at the end); negative counts from the end.
StatusOr<int> Position(ConverterContext& c, int input, int size, bool inclusive_end) {
  RILL_INF_ASSIGN_OR_RETURN(Value p, c.Input(input));
  if (!c.IsConst(p.id)) return c.Unsupported("a position known only at run time");
  const std::vector<int64_t> v = c.ConstInts(p.id);
  if (v.size() != 1) return c.Invalid("the position must be a scalar");
  const int64_t pos = v[0] < 0 ? v[0] + size : v[0];
  if (pos < 0 || pos > size || (pos == size && !inclusive_end)) return c.Invalid("position out of range");
  return static_cast<int>(pos);
}

Status SequenceEmpty(ConverterContext& c) {
  c.DefineSequence({});
  return Status::Ok();
}

Status SequenceConstruct(ConverterContext& c) {
  std::vector<Value> items;
  for (int i = 0; i < c.node().input_size(); ++i) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    items.push_back(v);
  }
  c.DefineSequence(std::move(items));
  return Status::Ok();
}

Status SequenceInsert(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(const std::vector<Value>* s, SequenceInput(c, 0));
  std::vector<Value> items = *s;
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(1));
  int pos = static_cast<int>(items.size());
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(pos, Position(c, 2, static_cast<int>(items.size()), true));
  }
  items.insert(items.begin() + pos, v);
  c.DefineSequence(std::move(items));
  return Status::Ok();
}

Status SequenceAt(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(const std::vector<Value>* s, SequenceInput(c, 0));
  RILL_INF_ASSIGN_OR_RETURN(int pos, Position(c, 1, static_cast<int>(s->size()), false));
  const Value v = (*s)[pos];
  c.Define(v.id, v.nhwc);
  return Status::Ok();
}

Status SequenceLength(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(const std::vector<Value>* s, SequenceInput(c, 0));
  const Shape scalar;
  c.Define(c.NewIntConst(c.out_name(), {static_cast<int64_t>(s->size())}, &scalar), false);
  return Status::Ok();
}

Status SequenceErase(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(const std::vector<Value>* s, SequenceInput(c, 0));
  std::vector<Value> items = *s;
  if (items.empty()) return c.Invalid("erasing from an empty sequence");
  int pos = static_cast<int>(items.size()) - 1;  // the last by default
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(pos, Position(c, 1, static_cast<int>(items.size()), false));
  }
  items.erase(items.begin() + pos);
  c.DefineSequence(std::move(items));
  return Status::Ok();
}

// An axis attribute in [-rank, rank) (`rank` counting a new axis).
StatusOr<int> AxisIn(ConverterContext& c, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return c.Invalid("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// SplitToSequence(input[, split]): split absent, pieces of 1 (keepdims 0
// squeezes the axis); a scalar, pieces of that size (the last smaller); a
// 1-D split, those sizes. The input's size along the axis and the split
// must be known at import (the sequence's length follows from them).
Status SplitToSequence(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Shape shape = c.OnnxShape(x);
  const int rank = static_cast<int>(shape.size());
  RILL_INF_ASSIGN_OR_RETURN(int axis, AxisIn(c, c.AttrInt("axis", 0), rank));
  const int64_t size = shape[axis];
  if (size == ir::kDynamicDim) {
    return c.Unsupported("a sequence whose length depends on run-time data (the input's size along axis " +
                         std::to_string(axis) + " is known only at run time)");
  }
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(Value sv, c.Input(1));
    if (!c.IsConst(sv.id)) {
      return c.Unsupported("a sequence whose length depends on run-time data (split computed at run time)");
    }
    const std::vector<int64_t> split = c.ConstInts(sv.id);
    if (c.ShapeOf(sv.id).empty()) {  // a scalar: equal pieces, the last smaller
      if (split.size() != 1 || split[0] < 1) return c.Invalid("split must be positive");
      for (int64_t left = size; left > 0; left -= split[0]) sizes.push_back(std::min(split[0], left));
    } else {
      sizes = split;
      int64_t total = 0;
      for (int64_t v : sizes) {
        if (v < 0) return c.Invalid("negative split size");
        if (v == 0) return c.Unsupported("an empty item (split size 0)");
        total += v;
      }
      if (total != size) return c.Invalid("split sizes do not add up to the axis");
    }
  } else {
    sizes.assign(static_cast<size_t>(size), 1);
    squeeze = c.AttrInt("keepdims", 1) == 0;
  }
  if (sizes.size() > static_cast<size_t>(kMaxSequenceItems)) {
    return c.Unsupported("a sequence of " + std::to_string(sizes.size()) + " items (each one a node; at most " +
                         std::to_string(kMaxSequenceItems) + ")");
  }
  std::vector<Value> items;
  if (!sizes.empty()) {
    Expansion e(c);
    const std::string input = e.Name("input");
    c.DefineName(input, x);
    std::vector<std::string> inputs = {input};
    onnx::NodeProto* split = nullptr;
    if (c.opset() >= 13) {
      onnx::TensorProto* t = e.graph()->add_initializer();
      t->set_name(e.Name("split"));
      t->set_data_type(kInt64);
      t->add_dims(static_cast<int64_t>(sizes.size()));
      for (int64_t v : sizes) t->add_int64_data(v);
      inputs.push_back(e.Name("split"));
      split = e.Add("Split", inputs, "piece0");
    } else {
      split = e.Add("Split", inputs, "piece0");
      Expansion::IntsAttr(split, "split", sizes);
    }
    Expansion::IntAttr(split, "axis", axis);
    for (size_t i = 1; i < sizes.size(); ++i) split->add_output(e.Name("piece" + std::to_string(i)));
    std::vector<std::string> names;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const std::string piece = "piece" + std::to_string(i);
      if (!squeeze) {
        names.push_back(e.Name(piece));
        continue;
      }
      onnx::NodeProto* q = nullptr;
      if (c.opset() >= 13) {
        if (i == 0) {
          onnx::TensorProto* t = e.graph()->add_initializer();
          t->set_name(e.Name("axes"));
          t->set_data_type(kInt64);
          t->add_dims(1);
          t->add_int64_data(axis);
        }
        q = e.Add("Squeeze", {e.Name(piece), e.Name("axes")}, "item" + std::to_string(i));
      } else {
        q = e.Add("Squeeze", {e.Name(piece)}, "item" + std::to_string(i));
        Expansion::IntsAttr(q, "axes", {axis});
      }
      names.push_back(q->output(0));
    }
    RILL_INF_RETURN_IF_ERROR(e.Run({}));
    for (const std::string& name : names) {
      RILL_INF_ASSIGN_OR_RETURN(Value v, c.Get(name));
      items.push_back(v);
    }
  }
  c.DefineSequence(std::move(items));
  return Status::Ok();
}

// ConcatFromSequence: the items concatenated along `axis`, or (new_axis 1)
// stacked along a new one (each Unsqueezed there first).
Status ConcatFromSequence(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(const std::vector<Value>* s, SequenceInput(c, 0));
  if (s->empty()) return c.Invalid("concatenating an empty sequence");
  const bool new_axis = c.AttrInt("new_axis", 0) != 0;
  const int rank = static_cast<int>(c.OnnxShape((*s)[0]).size());
  RILL_INF_ASSIGN_OR_RETURN(int axis, AxisIn(c, c.AttrInt("axis", 0), rank + (new_axis ? 1 : 0)));
  // The items must match but along the axis (stacked: everywhere); checked
  // here, so that the error names this node, not the expanded Concat. A size
  // known only at run time is checked when the Concat runs.
  const Shape first = c.OnnxShape((*s)[0]);
  for (size_t i = 1; i < s->size(); ++i) {
    const Shape item = c.OnnxShape((*s)[i]);
    bool match = item.size() == first.size();
    for (size_t d = 0; match && d < item.size(); ++d) {
      const bool known = item[d] != ir::kDynamicDim && first[d] != ir::kDynamicDim;
      if (known && item[d] != first[d] && (new_axis || static_cast<int>(d) != axis)) match = false;
    }
    if (!match) {
      return c.Invalid("the sequence's items do not match in shape: item 0 is " + ShapeToString(first) + ", item " +
                       std::to_string(i) + " " + ShapeToString(item) +
                       (new_axis ? " (stacked, they must be equal)"
                                 : " (only their sizes along axis " + std::to_string(axis) + " may differ)"));
    }
  }
  Expansion e(c);
  std::vector<std::string> parts;
  for (size_t i = 0; i < s->size(); ++i) {
    const std::string item = e.Name("item" + std::to_string(i));
    c.DefineName(item, (*s)[i]);
    if (!new_axis) {
      parts.push_back(item);
      continue;
    }
    onnx::NodeProto* u = nullptr;
    if (c.opset() >= 13) {
      if (i == 0) {
        onnx::TensorProto* t = e.graph()->add_initializer();
        t->set_name(e.Name("axes"));
        t->set_data_type(kInt64);
        t->add_dims(1);
        t->add_int64_data(axis);
      }
      u = e.Add("Unsqueeze", {item, e.Name("axes")}, "unsqueezed" + std::to_string(i));
    } else {
      u = e.Add("Unsqueeze", {item}, "unsqueezed" + std::to_string(i));
      Expansion::IntsAttr(u, "axes", {axis});
    }
    parts.push_back(u->output(0));
  }
  Expansion::IntAttr(e.Add("Concat", parts, "concat"), "axis", axis);
  return e.Run({"concat"});
}

// Whether the body's condition output is its condition input passed on (as
// is or through an Identity): nothing in the body stops the loop early.
bool PassesConditionThrough(const onnx::GraphProto& body) {
  if (body.input_size() < 2 || body.output_size() < 1) return false;
  const std::string& cond_in = body.input(1).name();
  if (body.output(0).name() == cond_in) return true;
  for (const onnx::NodeProto& n : body.node()) {
    if (n.op_type() == "Identity" && n.input_size() == 1 && n.input(0) == cond_in && n.output_size() == 1 &&
        n.output(0) == body.output(0).name()) {
      return true;
    }
  }
  return false;
}

// Loop whose trip count or condition is known only at run time (or too
// long to unroll): a LOOP node (ir/ops/dynamic_ops.h) owning its body as a
// graph of its own, converted by the same converters
// (ConverterContext::ConvertSubgraph). The body's carried inputs are planned
// with the dims that stay the same from one iteration to the next: the body
// is converted with the initial values' shapes, each dim its result changes
// becomes kDynamicDim, and so on until its results keep its inputs' shapes.
Status LoopAtRun(ConverterContext& c, const onnx::GraphProto& body, int carried) {
  const onnx::NodeProto& node = c.node();
  const int scans = body.output_size() - 1 - carried;
  // A run-time operand in ONNX's layout, constants as float32 (-1: absent).
  auto operand = [&](int i) -> StatusOr<int> {
    if (!c.HasInput(i)) return -1;
    if (c.FindSequence(node.input(i)) != nullptr && c.Find(node.input(i)) == nullptr) {
      return c.Unsupported("Loop carrying a sequence, with a trip count or condition known only at run time");
    }
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    if (c.IsConst(v.id) && c.tensor(v.id).dtype != DataType::kFloat32) {
      return c.NewFloatConst(c.tensor(v.id).name + "/f32", c.ShapeOf(v.id), c.ConstFloats(v.id));
    }
    return c.ToNchw(v);
  };
  std::vector<int> inputs;
  for (int i = 0; i < 2 + carried; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int id, operand(i));
    if (id < 0 && i >= 2) return c.Invalid("a carried value has no initial value");
    inputs.push_back(id);
  }
  std::vector<ConverterContext::SubgraphInput> in(2 + carried);
  in[0].integer = true;  // the iteration number; both scalars
  for (int k = 0; k < carried; ++k) {
    in[2 + k].shape = c.ShapeOf(inputs[2 + k]);
    in[2 + k].integer = c.IsIntegerValue(node.input(2 + k));
  }
  std::shared_ptr<ir::Graph> graph;
  std::vector<int> outer;
  for (int round = 0;; ++round) {
    RILL_INF_RETURN_IF_ERROR(c.ConvertSubgraph(body, in, &graph, &outer));
    bool same = true;
    for (int k = 0; k < carried; ++k) {
      Shape& planned = in[2 + k].shape;
      const Shape& result = graph->tensors[graph->outputs[1 + k]].shape;
      if (result.size() != planned.size()) {
        // The LOOP op plans each carried value with one rank (its dims may
        // change, known only at run time).
        return c.Unsupported("carried value '" + node.input(2 + k) + "' (the body's '" + body.input(2 + k).name() +
                             "') changes rank in the body (" + ShapeToString(planned) + " to " +
                             ShapeToString(result) + "), which a Loop run at run time cannot carry");
      }
      for (size_t d = 0; d < planned.size(); ++d) {
        if (planned[d] != ir::kDynamicDim && (result[d] != planned[d] || planned[d] == 0)) {
          planned[d] = ir::kDynamicDim;
          same = false;
        }
      }
    }
    if (same) break;
    if (round > 8) return c.Unsupported("carried values whose shapes do not settle");
  }
  // A constant trip count that nothing stops early (no condition input, or
  // a constant true one, and a body that passes its condition through, as
  // Scan's Loop, scan.cc): the scan outputs have M rows, known at plan.
  int rows = ir::kDynamicDim;
  if (c.HasInput(0) && c.IsConst(inputs[0]) && (inputs[1] < 0 || (c.IsConst(inputs[1]) &&
                                                                  c.ConstFloats(inputs[1]).at(0) != 0.0f))) {
    const std::vector<float> m = c.ConstFloats(inputs[0]);
    if (PassesConditionThrough(body) && m.size() == 1 && m[0] >= 1.0f && m[0] < static_cast<float>(1 << 24)) rows = static_cast<int>(m[0]);
  }
  auto attrs = std::make_shared<ir::LoopAttrs>();
  attrs->carried = carried;
  for (int k = 0; k < carried; ++k) attrs->output_shapes.push_back(in[2 + k].shape);
  for (int j = 0; j < scans; ++j) {
    Shape s = graph->tensors[graph->outputs[1 + carried + j]].shape;
    for (int& d : s) {
      if (d == 0) d = ir::kDynamicDim;
    }
    s.insert(s.begin(), rows);
    attrs->output_shapes.push_back(s);
    Shape empty = {0};
    const onnx::TypeProto& type = body.output(1 + carried + j).type();
    if (type.has_tensor_type() && type.tensor_type().has_shape()) {
      for (const auto& d : type.tensor_type().shape().dim()) {
        const bool known = d.has_dim_value() && d.dim_value() > 0 && d.dim_value() < (1 << 24);
        empty.push_back(known ? static_cast<int>(d.dim_value()) : 0);
      }
    }
    attrs->empty_scan_shapes.push_back(empty);
  }
  attrs->body = graph;
  inputs.insert(inputs.end(), outer.begin(), outer.end());
  std::vector<std::string> names;
  for (int k = 0; k < carried + scans; ++k) {
    names.push_back(k < node.output_size() && !node.output(k).empty() ? node.output(k)
                                                                        : c.out_name() + "/" + std::to_string(k));
  }
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int> outs, c.EmitMulti(ir::LoopOp(), inputs, names, attrs));
  for (int k = 0; k < carried + scans; ++k) c.Define(outs[k], false, k);
  return Status::Ok();
}

// Loop(M, cond, v...) with M and cond constants: the body converted M times
// (fewer if its condition output turns a constant false; a condition output
// known only at run time makes it a LOOP node instead), each time with the
// iteration number and the condition bound as constants and the carried
// values (tensors or sequences) bound to the previous iteration's. Scan
// outputs only where the body passes its condition through: the iterations'
// values stacked (Unsqueeze, Concat).
Status Loop(ConverterContext& c) {
  const onnx::AttributeProto* body_attr = c.FindAttr("body");
  if (body_attr == nullptr || !body_attr->has_g()) return c.Invalid("needs a body");
  const onnx::GraphProto& body = body_attr->g();
  const onnx::NodeProto& node = c.node();
  const int carried = node.input_size() - 2;
  if (carried < 0 || body.input_size() != carried + 2 || body.output_size() < carried + 1) {
    return c.Invalid("body inputs and outputs do not match the Loop's");
  }
  // Unrolled when it can be: a constant trip count of at most 64, a
  // constant condition, a body whose condition folds (the carried sequences
  // of torch's tensor_split); with scan outputs only at least one iteration
  // that nothing stops early (Scan's Loop, scan.cc), each scan output then
  // the iterations' values stacked; else run at run time (a body whose
  // condition turns out not to fold too).
  const int scans = body.output_size() - 1 - carried;
  if (!c.HasInput(0)) return LoopAtRun(c, body, carried);
  RILL_INF_ASSIGN_OR_RETURN(Value m, c.Input(0));
  if (!c.IsConst(m.id)) return LoopAtRun(c, body, carried);
  const std::vector<int64_t> mv = c.ConstInts(m.id);
  if (mv.size() != 1) return c.Invalid("the trip count must be a scalar");
  if (mv[0] > kMaxUnrolledIterations) return LoopAtRun(c, body, carried);
  bool cond = true;
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(Value cv, c.Input(1));
    if (!c.IsConst(cv.id)) return LoopAtRun(c, body, carried);
    cond = c.ConstFloats(cv.id).at(0) != 0.0f;
  }
  if (scans > 0 && (mv[0] < 1 || !cond || !PassesConditionThrough(body))) return LoopAtRun(c, body, carried);
  std::vector<std::vector<Value>> scanned(static_cast<size_t>(scans));
  // The carried state: a value, or a sequence (id -1).
  std::vector<Value> values(carried);
  std::vector<std::vector<Value>> sequences(carried);
  for (int k = 0; k < carried; ++k) {
    const std::string& name = node.input(2 + k);
    if (const std::vector<Value>* s = c.FindSequence(name); s != nullptr && c.Find(name) == nullptr) {
      values[k].id = -1;
      sequences[k] = *s;
    } else {
      RILL_INF_ASSIGN_OR_RETURN(values[k], c.Input(2 + k));
    }
  }
  const std::string loop_name = c.out_name();
  const Shape scalar;
  // A body whose condition turns out to be known only at run time (an early
  // exit on data) is not unrolled: what the iterations made is dropped and
  // the Loop is a LOOP node instead.
  const ConverterContext::Mark before_unrolling = c.Save();
  for (int64_t i = 0; i < mv[0] && cond; ++i) {
    c.DefineName(body.input(0).name(), Value{c.NewIntConst(loop_name + "/iteration" + std::to_string(i), {i}, &scalar)});
    c.DefineName(body.input(1).name(), Value{c.NewIntConst(loop_name + "/condition" + std::to_string(i), {1}, &scalar)});
    for (int k = 0; k < carried; ++k) {
      if (values[k].id < 0) {
        c.BindSequence(body.input(2 + k).name(), sequences[k]);
      } else {
        c.DefineName(body.input(2 + k).name(), values[k]);
      }
    }
    std::vector<Value> outs;
    RILL_INF_RETURN_IF_ERROR(c.ConvertBranch(body, nullptr, &outs));
    if (outs[0].id < 0) return c.Invalid("the body's condition is a sequence");
    if (!c.IsConst(outs[0].id)) {
      c.Rewind(before_unrolling);
      return LoopAtRun(c, body, carried);
    }
    cond = c.ConstFloats(outs[0].id).at(0) != 0.0f;
    for (int k = 0; k < carried; ++k) {
      if ((outs[1 + k].id < 0) != (values[k].id < 0)) return c.Invalid("a carried value changes kind");
      if (outs[1 + k].id < 0) {
        sequences[k] = *c.FindSequence(body.output(1 + k).name());
      } else {
        values[k] = outs[1 + k];
      }
    }
    for (int j = 0; j < scans; ++j) {
      if (outs[1 + carried + j].id < 0) return c.Invalid("a scan output is a sequence");
      scanned[static_cast<size_t>(j)].push_back(outs[1 + carried + j]);
    }
  }
  for (int k = 0; k < carried && k < node.output_size(); ++k) {
    if (values[k].id < 0) {
      c.DefineSequence(sequences[k], k);
    } else {
      c.Define(values[k].id, values[k].nhwc, k);
    }
  }
  // Scan outputs: each iteration's value unsqueezed, then concatenated.
  Expansion e(c);
  std::vector<std::string> stacked(static_cast<size_t>(scans));
  for (int j = 0; j < scans; ++j) {
    if (carried + j >= node.output_size() || node.output(carried + j).empty()) continue;
    std::vector<std::string> rows;
    for (size_t i = 0; i < scanned[static_cast<size_t>(j)].size(); ++i) {
      const std::string tag = std::to_string(j) + "_" + std::to_string(i);
      c.DefineName(e.Name("scan" + tag), scanned[static_cast<size_t>(j)][i]);
      onnx::NodeProto* u = nullptr;
      if (c.opset() >= 13) {
        if (e.graph()->initializer_size() == 0) {
          onnx::TensorProto* t = e.graph()->add_initializer();
          t->set_name(e.Name("axes"));
          t->set_data_type(kInt64);
          t->add_dims(1);
          t->add_int64_data(0);
        }
        u = e.Add("Unsqueeze", {e.Name("scan" + tag), e.Name("axes")}, "row" + tag);
      } else {
        u = e.Add("Unsqueeze", {e.Name("scan" + tag)}, "row" + tag);
        Expansion::IntsAttr(u, "axes", {0});
      }
      rows.push_back(u->output(0));
    }
    onnx::NodeProto* cat = e.Add("Concat", rows, "stacked" + std::to_string(j));
    Expansion::IntAttr(cat, "axis", 0);
    stacked[static_cast<size_t>(j)] = cat->output(0);
  }
  if (e.graph()->node_size() > 0) RILL_INF_RETURN_IF_ERROR(e.Run({}));
  for (int j = 0; j < scans; ++j) {
    if (stacked[static_cast<size_t>(j)].empty()) continue;
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Get(stacked[static_cast<size_t>(j)]));
    c.Define(v, carried + j);
  }
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"SequenceEmpty"}, SequenceEmpty) &&
                         RegisterOnnxConverter({"SequenceConstruct"}, SequenceConstruct) &&
                         RegisterOnnxConverter({"SequenceInsert"}, SequenceInsert) &&
                         RegisterOnnxConverter({"SequenceAt"}, SequenceAt) &&
                         RegisterOnnxConverter({"SequenceLength"}, SequenceLength) &&
                         RegisterOnnxConverter({"SequenceErase"}, SequenceErase) &&
                         RegisterOnnxConverter({"SplitToSequence"}, SplitToSequence) &&
                         RegisterOnnxConverter({"ConcatFromSequence"}, ConcatFromSequence) &&
                         RegisterOnnxConverter({"Loop"}, Loop);

}  // namespace
}  // namespace rill::inference::onnx_import
