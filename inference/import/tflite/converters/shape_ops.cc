// CONCATENATION, RESHAPE, PAD, DEPTH_TO_SPACE, SPACE_TO_DEPTH, REVERSE_V2
// and STRIDED_SLICE.
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/slice_geometry.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kSpaceToDepth = 26;
constexpr int32_t kReverseV2 = 105;

// ConcatenationOptions: axis, fused_activation_function.
Status Concatenation(ConverterContext& c) {
  c.node().type = ir::OpType::kConcatenation;
  c.node().attrs.axis = c.Option<int32_t>(0, 0);
  return c.ReadActivation(1, &c.node().attrs.activation);
}

// ReshapeOptions: new_shape; or the shape as a second input.
Status Reshape(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::OpType::kReshape;
  const ConverterContext::Vector new_shape = c.OptionVector(0, 4);
  node.attrs.new_shape = c.Ints(new_shape);
  // A second input may be absent or an empty placeholder; use options then.
  if (node.inputs.size() >= 2 && node.inputs[1] >= 0 && !c.graph().tensors[node.inputs[1]].is_constant() &&
      new_shape.valid) {
    node.inputs.resize(1);
  }
  return Status::Ok();
}

// The paddings are the second input.
Status Pad(ConverterContext& c) {
  c.node().type = ir::OpType::kPad;
  return Status::Ok();
}

// DepthToSpaceOptions: block_size.
Status DepthToSpace(ConverterContext& c) {
  c.node().type = ir::OpType::kDepthToSpace;
  c.node().attrs.block_size = c.Option<int32_t>(0, 0);
  return Status::Ok();
}

// StridedSliceOptions: begin_mask, end_mask, ellipsis_mask, new_axis_mask,
// shrink_axis_mask, offset. begin, end and strides are constant int32
// inputs, one value per entry of the sparse spec; as TensorFlow, the spec is
// made dense over the input's axes (an ellipsis, or the axes past the last
// entry, take whole axes; a new axis takes none), each axis becomes a
// SLICE's start/end/step (a masked begin or end takes the whole axis in the
// step's direction; a shrunk axis takes [begin, begin + 1); offset makes end
// relative to begin), and a RESHAPE inserts the new axes and drops the
// shrunk ones.
Status StridedSlice(ConverterContext& c) {
  ir::Node& node = c.node();
  const int begin_mask = c.Option<int32_t>(0, 0);
  const int end_mask = c.Option<int32_t>(1, 0);
  const int ellipsis_mask = c.Option<int32_t>(2, 0);
  const int new_axis_mask = c.Option<int32_t>(3, 0);
  const int shrink_mask = c.Option<int32_t>(4, 0);
  const bool offset = c.Option<uint8_t>(5, 0) != 0;
  if (node.inputs.size() != 4) return c.Invalid("expects 4 inputs, has " + std::to_string(node.inputs.size()));
  std::vector<int> begin, end, strides;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "begin", &begin));
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(2, "end", &end));
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(3, "strides", &strides));
  const int n = static_cast<int>(begin.size());
  if (n == 0 || n > 16 || static_cast<int>(end.size()) != n || static_cast<int>(strides.size()) != n) {
    return c.Invalid("begin, end and strides must have the same length (1 to 16)");
  }
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0) return c.Invalid("more than one ellipsis");
  const Shape x = c.InShape(0);
  const int rank = static_cast<int>(x.size());
  if (rank == 0 || rank > 6) return c.Unsupported("a rank-" + std::to_string(rank) + " input (1 to 6)");
  constexpr long long kWhole = 1LL << 40;  // past either end of any axis
  ir::OpAttrs a;
  a.slice_start.assign(rank, 0);
  a.slice_end.assign(rank, kWhole);
  a.slice_step.assign(rank, 1);
  // The output's axes in order: an input axis (>= 0, shrunk: kept out) or
  // a new axis (-1).
  std::vector<int> out_axes;
  std::vector<bool> shrunk(rank, false);
  int axis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < n; ++i) {
    if ((ellipsis_mask >> i) & 1) {
      ellipsis_seen = true;
      int after = 0;  // entries after the ellipsis that take an input axis
      for (int j = i + 1; j < n; ++j) after += ((new_axis_mask >> j) & 1) ? 0 : 1;
      const int stop = rank - after;
      for (; axis < stop; ++axis) out_axes.push_back(axis);
      continue;
    }
    if ((new_axis_mask >> i) & 1) {
      out_axes.push_back(-1);
      continue;
    }
    if (axis >= rank) return c.Invalid("more sliced axes than the input's " + std::to_string(rank));
    const int dim = x[axis];
    if ((shrink_mask >> i) & 1) {
      int b = begin[i];
      if (b < 0) b += dim;
      if (b < 0 || b >= dim) return c.Invalid("shrunk axis " + std::to_string(axis) + " index out of range");
      a.slice_start[axis] = b;
      a.slice_end[axis] = b + 1;
      shrunk[axis] = true;
      ++axis;
      continue;
    }
    if (strides[i] == 0) return c.Invalid("stride 0 on axis " + std::to_string(axis));
    const bool forward = strides[i] > 0;
    a.slice_step[axis] = strides[i];
    a.slice_start[axis] = (begin_mask >> i) & 1 ? (forward ? 0 : kWhole) : begin[i];
    const long long e = offset ? static_cast<long long>(begin[i]) + end[i] : end[i];
    a.slice_end[axis] = (end_mask >> i) & 1 ? (forward ? kWhole : -kWhole) : e;
    out_axes.push_back(axis);
    ++axis;
  }
  if (!ellipsis_seen || axis < rank) {
    for (; axis < rank; ++axis) out_axes.push_back(axis);
  }
  Shape sliced(rank);
  for (int d = 0; d < rank; ++d) {
    int first = 0;
    ir::SliceAxis(x[d], a.slice_start[d], a.slice_end[d], a.slice_step[d], &first, &sliced[d]);
  }
  Shape final_shape;
  for (int d : out_axes) {
    if (d < 0) final_shape.push_back(1);
    else if (!shrunk[d]) final_shape.push_back(sliced[d]);
  }
  if (final_shape == sliced) {
    node.type = ir::OpType::kSlice;
    node.attrs = a;
    node.inputs.resize(1);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int s, c.Emit(ir::OpType::kSlice, {node.inputs[0]}, "slice", -1, a));
  node.type = ir::OpType::kReshape;
  node.attrs = ir::OpAttrs();
  node.attrs.new_shape = final_shape;
  node.inputs = {s};
  return Status::Ok();
}

// SpaceToDepthOptions: block_size. NHWC: [N, H, W, C] -> RESHAPE
// [N, H/b, b, W/b, b, C] -> TRANSPOSE (0 1 3 2 4 5) -> RESHAPE
// [N, H/b, W/b, b*b*C] (the output channel is (dy * b + dx) * C + c).
Status SpaceToDepth(ConverterContext& c) {
  ir::Node& node = c.node();
  const int b = c.Option<int32_t>(0, 0);
  const Shape x = c.InShape(0);
  if (x.size() != 4) return c.Invalid("expects a 4-D input");
  if (b < 1) return c.Invalid("block_size must be >= 1");
  if (x[1] % b != 0 || x[2] % b != 0) return c.Invalid("height and width must be multiples of block_size");
  RILL_INF_ASSIGN_OR_RETURN(int r, c.EmitReshape(node.inputs[0], {x[0], x[1] / b, b, x[2] / b, b, x[3]}, "blocks"));
  ir::OpAttrs t;
  t.perm = {0, 1, 3, 2, 4, 5};
  RILL_INF_ASSIGN_OR_RETURN(int p, c.Emit(ir::OpType::kTranspose, {r}, "blocks_t", -1, t));
  node.type = ir::OpType::kReshape;
  node.attrs.new_shape = {x[0], x[1] / b, x[2] / b, b * b * x[3]};
  node.inputs = {p};
  return Status::Ok();
}

// REVERSE_V2: the axes a constant input; a SLICE of step -1 along each.
Status ReverseV2(ConverterContext& c) {
  ir::Node& node = c.node();
  if (node.inputs.size() != 2) return c.Invalid("expects the input and the axes");
  std::vector<int> axes;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "axis", &axes));
  const int rank = static_cast<int>(c.InShape(0).size());
  if (rank == 0 || rank > 6) return c.Unsupported("a rank-" + std::to_string(rank) + " input (1 to 6)");
  constexpr long long kWhole = 1LL << 40;
  ir::OpAttrs& a = node.attrs;
  a.slice_start.assign(rank, 0);
  a.slice_end.assign(rank, kWhole);
  a.slice_step.assign(rank, 1);
  for (int axis : axes) {
    int d = 0;
    RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(axis, rank, "axis", &d));
    a.slice_start[d] = kWhole;
    a.slice_end[d] = -kWhole;
    a.slice_step[d] = -1;
  }
  node.type = ir::OpType::kSlice;
  node.inputs.resize(1);
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kConcatenation}, Concatenation) &&
                         RegisterTfLiteConverter({kReshape}, Reshape) && RegisterTfLiteConverter({kPad}, Pad) &&
                         RegisterTfLiteConverter({kDepthToSpace}, DepthToSpace) &&
                         RegisterTfLiteConverter({kStridedSlice}, StridedSlice) &&
                         RegisterTfLiteConverter({kSpaceToDepth}, SpaceToDepth) &&
                         RegisterTfLiteConverter({kReverseV2}, ReverseV2);

}  // namespace
}  // namespace rill::inference::tflite
