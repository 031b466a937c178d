// Ops that move or reshape data: Reshape, Flatten, Squeeze, Unsqueeze (with
// ShuffleNet's channel shuffle recognised), Transpose, Concat, Slice and Pad.
// On constants (shape arithmetic, weights) they fold.
#include <algorithm>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/mirror_pad_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// ShuffleNet's channel shuffle, Reshape [N, C, H, W] -> [N, g, C/g, H, W],
// Transpose (0, 2, 1, 3, 4), Reshape -> [N, C, H, W], on an NHWC value:
// one TRANSPOSE of each pixel's channels ([g, C/g] -> [C/g, g]) instead of
// converting to NCHW and back around a 5-D transpose. Sets *done when the
// three nodes matched (the other two are then skipped).
Status ChannelShuffle(ConverterContext& c, const Value& x, const Shape& in, std::vector<int> target, bool* done) {
  *done = false;
  if (in.size() != 4 || target.size() != 5) return Status::Ok();
  for (int& d : target) {
    if (d == -1) d = static_cast<int>(NumElements(in) / std::max<int64_t>(1, -NumElements(target)));
  }
  const int n = in[0], ch = in[1], h = in[2], w = in[3], g = target[1];
  if (target[0] != n || target[3] != h || target[4] != w || g <= 1 || static_cast<int64_t>(g) * target[2] != ch) {
    return Status::Ok();
  }
  // Nodes without outputs (a corrupt file; the fuzzer made one) match nothing.
  if (c.node().output_size() < 1) return Status::Ok();
  const int ti = c.SoleConsumer(c.node().output(0));
  if (ti < 0) return Status::Ok();
  const onnx::NodeProto& tr = c.graph_proto().node(ti);
  if (tr.op_type() != "Transpose" || tr.output_size() < 1 ||
      AttrInts(tr, "perm") != std::vector<int64_t>{0, 2, 1, 3, 4}) {
    return Status::Ok();
  }
  const int ri = c.SoleConsumer(tr.output(0));
  if (ri < 0) return Status::Ok();
  const onnx::NodeProto& back = c.graph_proto().node(ri);
  if (back.op_type() != "Reshape" || back.input_size() < 2 || back.output_size() < 1 || back.input(0) != tr.output(0)) {
    return Status::Ok();
  }
  // The shape may come from a Constant node after this one.
  int shape_id = -1;
  if (const Value* shape_value = c.Find(back.input(1))) {
    shape_id = shape_value->id;
  } else {
    for (const onnx::NodeProto& k : c.graph_proto().node()) {
      if (k.op_type() != "Constant" || k.output_size() != 1 || k.output(0) != back.input(1)) continue;
      const onnx::AttributeProto* v = FindAttr(k, "value");
      if (v == nullptr || !v->has_t()) return Status::Ok();
      RILL_INF_ASSIGN_OR_RETURN(shape_id, c.ConstantFromProto(v->t(), k.output(0) + "/lookahead"));
    }
  }
  if (shape_id < 0 || !c.IsConst(shape_id) || c.tensor(shape_id).dtype != DataType::kInt64) return Status::Ok();
  const std::vector<int64_t> s = c.ConstInts(shape_id);
  const std::vector<int64_t> want = {n, ch, h, w};
  if (s.size() != 4) return Status::Ok();
  int64_t known = 1;
  for (size_t i = 0; i < 4; ++i) {
    const int64_t d = s[i] == 0 && i == 0 ? n : s[i];  // 0 copies the batch
    if (d != -1 && d != want[i]) return Status::Ok();
    if (d != -1) known *= d;
  }
  if (known <= 0 || NumElements(in) % known != 0) return Status::Ok();
  ir::OpAttrs split, perm, merge;
  split.new_shape = {n, h, w, g, ch / g};
  perm.perm = {0, 1, 2, 4, 3};
  merge.new_shape = {n, h, w, ch};
  const std::string name = back.output(0);
  RILL_INF_ASSIGN_OR_RETURN(int r1, c.Emit(OpType::kReshape, {x.id}, name + "/groups", split));
  RILL_INF_ASSIGN_OR_RETURN(int t, c.Emit(OpType::kTranspose, {r1}, name + "/shuffle", perm));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kReshape, {t}, name, merge));
  c.DefineName(name, Value{out, true});
  c.SkipNode(ti);
  c.SkipNode(ri);
  *done = true;
  return Status::Ok();
}

// The target shape of Reshape, Flatten, Squeeze or Unsqueeze of a value of
// (ONNX) shape `in`; -1 for a dimension left to the runtime.
Status ReshapeTarget(ConverterContext& c, const Shape& in, std::vector<int>* target) {
  const std::string& op = c.op_type();
  const int rank = static_cast<int>(in.size());
  if (op == "Reshape") {
    RILL_INF_ASSIGN_OR_RETURN(int s, c.ConstInput(1));
    const std::vector<int64_t> shape = c.ConstInts(s);
    const bool allow_zero = c.AttrInt("allowzero", 0) != 0;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t d = shape[i];
      if (d == 0 && !allow_zero) {
        if (static_cast<int>(i) >= rank) return c.Unsupported("0 in shape beyond input rank");
        d = in[i];
      }
      if (d < -1 || d > (int64_t{1} << 30)) return c.Unsupported("invalid shape value");
      target->push_back(static_cast<int>(d));
    }
    return Status::Ok();
  }
  if (op == "Flatten") {
    int axis = static_cast<int>(c.AttrInt("axis", 1));
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return c.UnsupportedAttribute("axis", "axis out of range");
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[i];
    int dynamic = 0;
    for (int i = 0; i < rank; ++i) dynamic += in[i] == ir::kDynamicDim;
    if (dynamic > 0 && !(dynamic == 1 && in[0] == ir::kDynamicDim && axis >= 1)) {
      *target = {};  // ReshapeLike emits a flatten of run-time sizes (OpAttrs::flatten_axis)
      return Status::Ok();
    }
    // -1 keeps the leading (batch) dimension free, so a session can resize it.
    *target = {axis >= 1 ? -1 : static_cast<int>(outer), static_cast<int>(inner)};
    return Status::Ok();
  }
  std::vector<int64_t> axes = c.AttrInts("axes");
  if (axes.empty() && c.HasInput(1)) {  // an input from opset 13
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
    axes = c.ConstInts(id);
  }
  if (op == "Squeeze") {
    std::set<int> drop;
    for (int64_t a : axes) drop.insert(static_cast<int>(a < 0 ? a + rank : a));
    for (int i = 0; i < rank; ++i) {
      if (axes.empty() ? in[i] != 1 : !drop.count(i)) target->push_back(in[i]);
    }
    return Status::Ok();
  }
  const int out_rank = rank + static_cast<int>(axes.size());
  std::set<int> add;
  for (int64_t a : axes) add.insert(static_cast<int>(a < 0 ? a + out_rank : a));
  for (int i = 0, j = 0; i < out_rank; ++i) {
    if (add.count(i)) {
      target->push_back(1);
    } else {
      if (j >= rank) return c.UnsupportedAttribute("axes", "bad axes");
      target->push_back(in[j++]);
    }
  }
  return Status::Ok();
}

// Reshape, Flatten, Squeeze, Unsqueeze: all a new shape of NCHW bytes.
Status ReshapeLike(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (c.op_type() == "Reshape" && c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(Value shape, c.Input(1));
    if (!c.IsConst(shape.id)) {
      // A shape computed at run time: RESHAPE reads it then (the dynamic
      // region), ONNX's 0 copying the input's dim.
      if (c.AttrInt("allowzero", 0) != 0) return c.UnsupportedAttribute("allowzero", "allowzero with a run-time shape");
      RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
      RILL_INF_ASSIGN_OR_RETURN(int si, c.ToNchw(shape));
      RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kReshape, {xi, si}, c.out_name()));
      c.Define(out, false);
      return Status::Ok();
    }
  }
  const Shape in = c.OnnxShape(x);
  std::vector<int> target;
  RILL_INF_RETURN_IF_ERROR(ReshapeTarget(c, in, &target));
  if (c.IsConst(x.id)) {  // constant folding (shape tensors and weights)
    const ir::TensorInfo& t = c.tensor(x.id);
    int64_t known = 1;
    int infer = -1;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == -1) {
        infer = static_cast<int>(i);
      } else {
        known *= target[i];
      }
    }
    if (infer >= 0 && known > 0) target[infer] = static_cast<int>(NumElements(t.shape) / known);
    if (NumElements(target) != NumElements(t.shape)) return c.Unsupported("cannot reshape constant");
    std::vector<uint8_t> bytes(t.data, t.data + t.bytes);
    c.Define(c.NewConst(c.out_name(), t.dtype, target, std::move(bytes)), false);
    return Status::Ok();
  }
  if (c.op_type() == "Reshape" && x.nhwc) {
    bool shuffled = false;
    RILL_INF_RETURN_IF_ERROR(ChannelShuffle(c, x, in, target, &shuffled));
    if (shuffled) return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  ir::OpAttrs a;
  a.new_shape = target;
  if (c.op_type() == "Flatten" && target.empty()) {
    int axis = static_cast<int>(c.AttrInt("axis", 1));
    if (axis < 0) axis += static_cast<int>(in.size());
    a.flatten_axis = axis;
  }
  if (std::count(target.begin(), target.end(), -1) > 1 && (c.op_type() == "Squeeze" || c.op_type() == "Unsqueeze")) {
    // Several sizes known only at run time: each output dim is an input dim
    // or a 1 (OpAttrs::new_shape_from).
    const int rank = static_cast<int>(in.size());
    std::vector<int64_t> axes = c.AttrInts("axes");
    if (axes.empty() && c.HasInput(1)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
      axes = c.ConstInts(id);
    }
    if (axes.empty()) return c.Unsupported("Squeeze without axes of sizes known only at run time");
    std::set<int> listed;
    const int out_rank = c.op_type() == "Unsqueeze" ? rank + static_cast<int>(axes.size()) : rank;
    for (int64_t ax : axes) listed.insert(static_cast<int>(ax < 0 ? ax + out_rank : ax));
    a.new_shape.clear();
    for (int i = 0; i < rank || (c.op_type() == "Unsqueeze" && static_cast<int>(a.new_shape.size()) < out_rank);) {
      if (c.op_type() == "Unsqueeze" && listed.count(static_cast<int>(a.new_shape.size()))) {
        a.new_shape.push_back(1);
        a.new_shape_from.push_back(-1);
        continue;
      }
      if (i >= rank) break;
      if (c.op_type() == "Squeeze" && listed.count(i)) {
        ++i;
        continue;
      }
      a.new_shape.push_back(-1);
      a.new_shape_from.push_back(i++);
    }
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kReshape, {xi}, c.out_name(), a));
  c.Define(out, false);
  return Status::Ok();
}

Status Transpose(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (c.IsConst(x.id)) return ConvertTransposeConst(c);  // tensor.cc
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  const int rank = static_cast<int>(c.ShapeOf(xi).size());
  ir::OpAttrs a;
  for (int64_t p : c.AttrInts("perm")) a.perm.push_back(static_cast<int>(p));
  if (a.perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) a.perm.push_back(i);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kTranspose, {xi}, c.out_name(), a));
  c.Define(out, false);
  return Status::Ok();
}

// NHWC when any input is; int64 constants (shape arithmetic) fold.
Status Concat(ConverterContext& c) {
  std::vector<Value> ins;
  bool any_nhwc = false, all_const = true, all_int64 = true;
  for (int i = 0; i < c.node().input_size(); ++i) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    ins.push_back(v);
    any_nhwc = any_nhwc || v.nhwc;
    all_const = all_const && c.IsConst(v.id);
    all_int64 = all_int64 && c.tensor(v.id).dtype == DataType::kInt64;
  }
  if (ins.empty()) return c.Unsupported("no inputs");
  // Float constants fold too (a Resize's sizes computed by Floor from the
  // input's static shape, fasterrcnn's transform): left as a run-time
  // CONCATENATION they would make everything after them a run-time value.
  if (all_const && !all_int64) return ConvertConcatConst(c);  // tensor.cc
  if (all_const) {
    for (const Value& v : ins) {
      if (c.ShapeOf(v.id).size() != 1) return ConvertConcatConst(c);  // tensor.cc: any rank
    }
    std::vector<int64_t> r;
    for (const Value& v : ins) {
      const std::vector<int64_t> x = c.ConstInts(v.id);
      r.insert(r.end(), x.begin(), x.end());
    }
    c.Define(c.NewIntConst(c.out_name(), r), false);
    return Status::Ok();
  }
  const int rank = static_cast<int>(c.ShapeOf(ins[0].id).size());
  int axis = static_cast<int>(c.AttrInt("axis", 0));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
  std::vector<int> ids;
  for (const Value& v : ins) {
    int id = v.id;
    if (c.IsConst(id) && c.tensor(id).dtype != DataType::kFloat32) {
      // Shape arithmetic on run-time values (float32, as every run-time
      // tensor): an int64 constant joins them as float32.
      id = c.NewFloatConst(c.tensor(id).name + "/f32", c.ShapeOf(id), c.ConstFloats(id));
    }
    if (any_nhwc) {
      RILL_INF_ASSIGN_OR_RETURN(id, c.ToNhwc(v));
    }
    ids.push_back(id);
  }
  ir::OpAttrs a;
  a.axis = any_nhwc ? NhwcAxis(axis) : axis;
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kConcatenation, ids, c.out_name(), a));
  c.Define(out, any_nhwc);
  return Status::Ok();
}

// Slice of an activation (ShuffleNet's channel split): a SLICE node with
// one start/end/step per axis; NCHW axes of an NHWC value are moved. With
// starts / ends computed at run time (they index ONNX's axes) an NHWC value
// is brought back to NCHW first (Keypoint R-CNN's heatmap crop).
Status SliceTensor(ConverterContext& c, Value data) {
  if (c.tensor(data.id).dtype != DataType::kFloat32) return c.Unsupported("Slice of a non-float tensor");
  std::vector<int64_t> starts = c.AttrInts("starts"), ends = c.AttrInts("ends"), axes = c.AttrInts("axes"), steps;
  auto read = [&](int input, std::vector<int64_t>* v) -> Status {
    if (!c.HasInput(input)) return Status::Ok();
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(input));
    *v = c.ConstInts(id);
    return Status::Ok();
  };
  // Starts / ends computed at run time: SLICE reads them then (inputs 1, 2,
  // the dynamic region), on the axes given.
  int runtime_bounds[2] = {-1, -1};
  for (int k = 0; k < 2; ++k) {
    if (!c.HasInput(1 + k)) continue;
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(1 + k));
    if (c.IsConst(v.id)) {
      RILL_INF_RETURN_IF_ERROR(read(1 + k, k == 0 ? &starts : &ends));
      continue;
    }
    const Shape s = c.ShapeOf(v.id);
    if (s.size() != 1 || s[0] == ir::kDynamicDim) return c.Unsupported("run-time starts / ends of unknown length");
    RILL_INF_ASSIGN_OR_RETURN(runtime_bounds[k], c.ToNchw(v));
    (k == 0 ? starts : ends).assign(s[0], 0);  // placeholders; the values come at run time
  }
  RILL_INF_RETURN_IF_ERROR(read(3, &axes));
  RILL_INF_RETURN_IF_ERROR(read(4, &steps));
  if (data.nhwc && (runtime_bounds[0] >= 0 || runtime_bounds[1] >= 0)) {
    RILL_INF_ASSIGN_OR_RETURN(data.id, c.ToNchw(data));
    data.nhwc = false;
  }
  const int rank = static_cast<int>(c.ShapeOf(data.id).size());
  if (starts.size() != ends.size() || starts.empty()) {
    return c.Unsupported("starts and ends must have one value per axis");
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    return c.Unsupported("axes and steps must have one value per start");
  }
  ir::OpAttrs a;
  a.slice_start.assign(rank, 0);
  a.slice_end.assign(rank, 1LL << 40);  // whole axis
  a.slice_step.assign(rank, 1);
  std::vector<bool> seen(rank, false);
  // Values beyond any dim mean "to the end": clamp far outside int range.
  auto clamp = [](int64_t v) { return static_cast<long long>(std::clamp<int64_t>(v, -(1LL << 40), 1LL << 40)); };
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank || seen[axis]) return c.Unsupported("axes out of range or repeated");
    seen[axis] = true;
    if (steps[i] == 0 || steps[i] > (1 << 30) || steps[i] < -(1 << 30)) return c.Unsupported("step 0 or out of range");
    const int d = data.nhwc ? NhwcAxis(static_cast<int>(axis)) : static_cast<int>(axis);
    a.slice_start[d] = clamp(starts[i]);
    a.slice_end[d] = clamp(ends[i]);
    a.slice_step[d] = static_cast<int>(steps[i]);
    a.slice_runtime_axes.push_back(d);
  }
  std::vector<int> ins = {data.id};
  if (runtime_bounds[0] < 0 && runtime_bounds[1] < 0) {
    a.slice_runtime_axes.clear();
  } else {
    ins.push_back(runtime_bounds[0]);
    ins.push_back(runtime_bounds[1]);
    if (ins.back() < 0) ins.pop_back();
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kSlice, ins, c.out_name(), a));
  c.Define(out, data.nhwc);
  return Status::Ok();
}

// Slice of a 1-D constant (shape arithmetic) folds.
Status Slice(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value data, c.Input(0));
  if (!c.IsConst(data.id)) return SliceTensor(c, data);
  if (c.ShapeOf(data.id).size() != 1) return ConvertSliceConst(c);  // tensor.cc
  std::vector<int64_t> starts = c.AttrInts("starts"), ends = c.AttrInts("ends"), steps;
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
    starts = c.ConstInts(id);
  }
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(2));
    ends = c.ConstInts(id);
  }
  if (c.HasInput(4)) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(4));
    steps = c.ConstInts(id);
  }
  if (starts.size() != 1 || ends.size() != 1) return c.Unsupported("Slice with several axes");
  const std::vector<int64_t> d = c.ConstInts(data.id);
  const int64_t n = static_cast<int64_t>(d.size());
  const int64_t step = steps.empty() ? 1 : steps[0];
  if (step != 1) return c.Unsupported("Slice with step != 1");
  int64_t b = starts[0] < 0 ? starts[0] + n : starts[0];
  int64_t e = ends[0] < 0 ? ends[0] + n : ends[0];
  b = std::max<int64_t>(0, std::min(b, n));
  e = std::max<int64_t>(0, std::min(e, n));
  std::vector<int64_t> r;
  for (int64_t i = b; i < e; ++i) r.push_back(d[i]);
  c.Define(c.NewIntConst(c.out_name(), r), false);
  return Status::Ok();
}

Status Pad(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const std::string mode = c.AttrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return c.UnsupportedAttribute("mode", "mode '" + mode + "' (constant, reflect and edge are supported)");
  }
  std::vector<int64_t> pads = c.AttrInts("pads");
  float value = c.AttrFloat("value", 0.0f);
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
    pads = c.ConstInts(id);
  }
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(value, c.ScalarInput(2));
  }
  if (c.HasInput(3)) return c.Unsupported("axes input");
  const int rank = static_cast<int>(c.ShapeOf(x.id).size());
  if (static_cast<int>(pads.size()) != 2 * rank) return c.Unsupported("pads must have 2 * rank values");
  std::vector<int> pairs(2 * rank);
  for (int d = 0; d < rank; ++d) {
    const int to = x.nhwc ? NhwcAxis(d) : d;
    if (pads[d] < 0 || pads[d + rank] < 0) return c.Unsupported("negative pads");
    pairs[2 * to] = static_cast<int>(pads[d]);
    pairs[2 * to + 1] = static_cast<int>(pads[d + rank]);
  }
  if (mode != "constant") {
    // MIRROR_PAD (inference/ir/ops/mirror_pad_ops.h), on the value's layout.
    auto a = std::make_shared<ir::MirrorPadAttrs>();
    a->mode = mode == "reflect" ? ir::MirrorPadAttrs::Mode::kReflect : ir::MirrorPadAttrs::Mode::kEdge;
    for (int d = 0; d < rank; ++d) {
      a->before.push_back(pairs[2 * d]);
      a->after.push_back(pairs[2 * d + 1]);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::MirrorPadOp(), {x.id}, c.out_name(), {}, a));
    c.Define(out, x.nhwc);
    return Status::Ok();
  }
  const int paddings = c.NewInt32Const(c.out_name() + "/paddings", {rank, 2}, pairs);
  const int fill = c.NewFloatConst(c.out_name() + "/value", {}, {value});
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kPad, {x.id, paddings, fill}, c.out_name()));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Reshape", "Flatten", "Squeeze", "Unsqueeze"}, ReshapeLike) &&
                         RegisterOnnxConverter({"Transpose"}, Transpose) && RegisterOnnxConverter({"Concat"}, Concat) &&
                         RegisterOnnxConverter({"Slice"}, Slice) && RegisterOnnxConverter({"Pad"}, Pad);

}  // namespace
}  // namespace rill::inference::onnx_import
