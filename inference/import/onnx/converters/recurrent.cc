// LSTM, GRU and RNN: one registered op each (ir/ops/recurrent_ops.h) whose
// single output stacks ONNX's Y, Y_h and Y_c; SLICEs (and TRANSPOSEs for
// layout 1, batch first) give the node's outputs back. W, R, B and P must be
// constants (they are packed once); sequence_lens a constant or absent.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/recurrent_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;
using ir::RecurrentKind;

// Rows [begin, end) of axis 0 of a rank-`rank` tensor.
StatusOr<int> SliceRows(ConverterContext& c, int x, int rank, int begin, int end, const std::string& name) {
  ir::OpAttrs a;
  a.slice_start.assign(rank, 0);
  a.slice_end.assign(rank, 1LL << 40);
  a.slice_step.assign(rank, 1);
  a.slice_start[0] = begin;
  a.slice_end[0] = end;
  return c.Emit(OpType::kSlice, {x}, name, a);
}

StatusOr<int> Permute(ConverterContext& c, int x, std::vector<int> perm, const std::string& name) {
  ir::OpAttrs a;
  a.perm = std::move(perm);
  return c.Emit(OpType::kTranspose, {x}, name, a);
}

Status Recurrent(ConverterContext& c) {
  const RecurrentKind kind = c.op_type() == "LSTM"  ? RecurrentKind::kLstm
                             : c.op_type() == "GRU" ? RecurrentKind::kGru
                                                    : RecurrentKind::kRnn;
  auto a = std::make_shared<ir::RecurrentAttrs>();
  a->kind = kind;
  const int layout = static_cast<int>(c.AttrInt("layout", 0));
  if (layout != 0 && layout != 1) return c.UnsupportedAttribute("layout", std::to_string(layout));
  const std::string direction = c.AttrString("direction", "forward");
  if (direction == "bidirectional") {
    a->directions = 2;
  } else if (direction == "reverse") {
    a->reverse = true;
  } else if (direction != "forward") {
    return c.UnsupportedAttribute("direction", direction);
  }
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  for (int i : {1, 2}) {
    if (!c.HasInput(i)) return c.Invalid("W and R are required");
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    if (!c.IsConst(v.id)) return c.Unsupported("W and R computed at run time (the engine packs them once)");
  }
  RILL_INF_ASSIGN_OR_RETURN(int w, c.ConstInput(1));
  RILL_INF_ASSIGN_OR_RETURN(int r, c.ConstInput(2));
  const Shape rs = c.ShapeOf(r);
  if (rs.size() != 3) return c.Invalid("R must be [directions, gates x hidden, hidden]");
  a->hidden = static_cast<int>(c.AttrInt("hidden_size", rs[2]));
  // The functions: ONNX's defaults, or the list (one set per direction, or
  // one set for both), alpha and beta taken in order by those that read them.
  const int per_dir = ir::FunctionsPerDirection(kind);
  std::vector<std::string> names;
  if (const onnx::AttributeProto* list = c.FindAttr("activations")) {
    for (const std::string& s : list->strings()) names.push_back(s);
  }
  if (names.empty()) {
    names = kind == RecurrentKind::kLstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
            : kind == RecurrentKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                          : std::vector<std::string>{"Tanh"};
  }
  if (static_cast<int>(names.size()) == per_dir && a->directions == 2) {
    const std::vector<std::string> once = names;
    names.insert(names.end(), once.begin(), once.end());
  }
  if (static_cast<int>(names.size()) != per_dir * a->directions) {
    return c.UnsupportedAttribute("activations", std::to_string(names.size()) + " functions for " +
                                                     std::to_string(a->directions) + " direction(s)");
  }
  const std::vector<float> alphas = [&] {
    std::vector<float> v;
    if (const onnx::AttributeProto* l = c.FindAttr("activation_alpha")) v.assign(l->floats().begin(), l->floats().end());
    return v;
  }();
  const std::vector<float> betas = [&] {
    std::vector<float> v;
    if (const onnx::AttributeProto* l = c.FindAttr("activation_beta")) v.assign(l->floats().begin(), l->floats().end());
    return v;
  }();
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    ir::RecurrentFunction f;
    if (!ir::RecurrentActivationByName(name, &f)) return c.UnsupportedAttribute("activations", name);
    if (ir::RecurrentActivationTakesAlpha(f.fn) && next_alpha < alphas.size()) f.alpha = alphas[next_alpha++];
    if (ir::RecurrentActivationTakesBeta(f.fn) && next_beta < betas.size()) f.beta = betas[next_beta++];
    a->functions.push_back(f);
  }
  if (c.FindAttr("clip") != nullptr) {
    a->clip = c.AttrFloat("clip", 0.0f);
    if (!(a->clip > 0.0f)) return c.UnsupportedAttribute("clip", "a threshold that is not > 0");
  }
  a->input_forget = kind == RecurrentKind::kLstm && c.AttrInt("input_forget", 0) != 0;
  a->linear_before_reset = kind == RecurrentKind::kGru && c.AttrInt("linear_before_reset", 0) != 0;

  const Shape xs = c.ShapeOf(x);
  if (xs.size() != 3) return c.Invalid("X must be 3-D, is " + ShapeToString(xs));
  if (layout == 1) {  // [batch, steps, input] -> [steps, batch, input]
    RILL_INF_ASSIGN_OR_RETURN(x, Permute(c, x, {1, 0, 2}, c.out_name() + "/steps_first"));
  }
  const int steps = layout == 1 ? xs[1] : xs[0];
  const int batch = layout == 1 ? xs[0] : xs[1];
  std::vector<int> inputs = {x, w, r, -1, -1};
  if (c.HasInput(3)) {
    RILL_INF_ASSIGN_OR_RETURN(inputs[3], c.ConstInput(3));
  }
  if (c.HasInput(4)) {
    const Value* lens = c.Find(c.node().input(4));
    if (lens == nullptr || !c.IsConst(lens->id)) {
      return c.Unsupported("sequence_lens computed at run time (a constant or none is supported)");
    }
    for (int64_t v : c.ConstInts(lens->id)) a->sequence_lens.push_back(static_cast<int>(v));
  }
  // The states: [batch, directions, hidden] in layout 1.
  auto state = [&](int index, const char* what) -> StatusOr<int> {
    if (!c.HasInput(index)) return -1;
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(index));
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ToNchw(v));
    if (layout == 1) return Permute(c, id, {1, 0, 2}, c.out_name() + "/" + what + "_directions_first");
    return id;
  };
  RILL_INF_ASSIGN_OR_RETURN(inputs[4], state(5, "initial_h"));
  if (kind == RecurrentKind::kLstm) {
    RILL_INF_ASSIGN_OR_RETURN(int init_c, state(6, "initial_c"));
    int p = -1;
    if (c.HasInput(7)) {
      RILL_INF_ASSIGN_OR_RETURN(p, c.ConstInput(7));
    }
    inputs.push_back(init_c);
    inputs.push_back(p);
  } else if (c.HasInput(6) || c.HasInput(7)) {
    return c.Invalid("only LSTM takes initial_c and P");
  }
  RILL_INF_ASSIGN_OR_RETURN(int all, c.Emit(ir::RecurrentOp(kind), inputs, c.out_name() + "/y_and_states", {}, a));
  const int d = a->directions, h = a->hidden;
  for (int i = 0; i < c.node().output_size() && i < (kind == RecurrentKind::kLstm ? 3 : 2); ++i) {
    const std::string& name = c.node().output(i);
    if (name.empty()) continue;
    if (i == 0) {  // Y [S, D, B, H]; layout 1 [B, S, D, H]
      RILL_INF_ASSIGN_OR_RETURN(int y, SliceRows(c, all, 4, 0, steps, layout == 1 ? name + "/steps_first" : name));
      if (layout == 1) {
        RILL_INF_ASSIGN_OR_RETURN(y, Permute(c, y, {2, 0, 1, 3}, name));
      }
      c.Define(y, false, i);
      continue;
    }
    // Y_h / Y_c [D, B, H]; layout 1 [B, D, H].
    RILL_INF_ASSIGN_OR_RETURN(int row, SliceRows(c, all, 4, steps + i - 1, steps + i, name + "/row"));
    ir::OpAttrs flat;
    flat.new_shape = {d, batch, h};
    RILL_INF_ASSIGN_OR_RETURN(int s, c.Emit(OpType::kReshape, {row}, layout == 1 ? name + "/directions_first" : name,
                                            flat));
    if (layout == 1) {
      RILL_INF_ASSIGN_OR_RETURN(s, Permute(c, s, {1, 0, 2}, name));
    }
    c.Define(s, false, i);
  }
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"LSTM", "GRU", "RNN"}, Recurrent);

}  // namespace
}  // namespace rill::inference::onnx_import
