// Operators of several outputs or inputs, lowered into one engine node per
// piece (ConverterContext::Emit): SPLIT (axis a constant first input,
// SplitOptions num_splits) and SPLIT_V (size_splits a constant, one -1 takes
// the rest) as one SLICE per output; UNPACK (UnpackOptions num, axis) as a
// SLICE and a RESHAPE dropping the axis per output; PACK (PackOptions
// values_count, axis) as a RESHAPE adding the axis per input and one
// CONCATENATION.
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kSplit = 49;
constexpr int32_t kPack = 83;
constexpr int32_t kUnpack = 88;
constexpr int32_t kSplitV = 102;

// One SLICE per output along `axis`, sizes in order.
Status SliceOutputs(ConverterContext& c, int x, int axis, const std::vector<int>& sizes) {
  int begin = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    RILL_INF_RETURN_IF_ERROR(c.EmitSliceAxis(x, axis, begin, begin + sizes[i], "", c.node().outputs[i]).status());
    begin += sizes[i];
  }
  c.Lowered();
  return Status::Ok();
}

Status Split(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the axis and the input");
  std::vector<int> axis;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(0, "axis", &axis));
  const Shape x = c.InShape(1);
  const int rank = static_cast<int>(x.size());
  if (axis.size() != 1) return c.Invalid("axis must hold one value");
  int a = 0;
  RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(axis[0], rank, "axis", &a));
  const int n = c.Option<int32_t>(0, 0);
  if (n < 1 || n != static_cast<int>(c.node().outputs.size())) {
    return c.Invalid("num_splits " + std::to_string(n) + " differs from the " +
                     std::to_string(c.node().outputs.size()) + " outputs");
  }
  if (x[a] % n != 0) return c.Invalid("axis of size " + std::to_string(x[a]) + " does not split in " + std::to_string(n));
  return SliceOutputs(c, c.node().inputs[1], a, std::vector<int>(n, x[a] / n));
}

Status SplitV(ConverterContext& c) {
  if (c.num_inputs() != 3) return c.Invalid("expects the input, size_splits and the axis");
  std::vector<int> sizes, axis;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "size_splits", &sizes));
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(2, "axis", &axis));
  const Shape x = c.InShape(0);
  const int rank = static_cast<int>(x.size());
  if (axis.size() != 1) return c.Invalid("axis must hold one value");
  int a = 0;
  RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(axis[0], rank, "axis", &a));
  if (sizes.size() != c.node().outputs.size()) return c.Invalid("size_splits must have one size per output");
  int rest = -1, total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && rest < 0) {
      rest = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return c.Invalid("size_splits may hold one -1 and no other negative size");
    } else {
      total += sizes[i];
    }
  }
  if (rest >= 0) sizes[rest] = x[a] - total;
  if ((rest >= 0 && sizes[rest] < 0) || (rest < 0 && total != x[a])) {
    return c.Invalid("size_splits do not add up to the axis's " + std::to_string(x[a]));
  }
  for (int s : sizes) {
    if (s == 0) return c.Unsupported("an empty SPLIT_V output");
  }
  return SliceOutputs(c, c.node().inputs[0], a, sizes);
}

Status Unpack(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  const Shape x = c.InShape(0);
  const int rank = static_cast<int>(x.size());
  if (rank < 2) return c.Unsupported("UNPACK of a rank-" + std::to_string(rank) + " tensor (scalar outputs)");
  int a = 0;
  RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(c.Option<int32_t>(1, 0), rank, "axis", &a));
  const int n = c.Option<int32_t>(0, 0);
  if (n != x[a] || n != static_cast<int>(c.node().outputs.size())) {
    return c.Invalid("num " + std::to_string(n) + " differs from the axis's size or the outputs");
  }
  Shape piece = x;
  piece.erase(piece.begin() + a);
  for (int i = 0; i < n; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int s, c.EmitSliceAxis(c.node().inputs[0], a, i, i + 1, "slice" + std::to_string(i)));
    RILL_INF_RETURN_IF_ERROR(c.EmitReshape(s, piece, "", c.node().outputs[i]).status());
  }
  c.Lowered();
  return Status::Ok();
}

Status Pack(ConverterContext& c) {
  const int n = c.num_inputs();
  if (n < 1 || c.Option<int32_t>(0, 0) != n) return c.Invalid("values_count differs from the inputs");
  const Shape x = c.InShape(0);
  const int rank = static_cast<int>(x.size());
  int a = 0;
  RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(c.Option<int32_t>(1, 0), rank + 1, "axis", &a));
  Shape grown = x;
  grown.insert(grown.begin() + a, 1);
  std::vector<int> parts;
  for (int i = 0; i < n; ++i) {
    if (c.InShape(i) != x) return c.Invalid("inputs differ in shape");
    RILL_INF_ASSIGN_OR_RETURN(int in, c.FloatInput(i));
    RILL_INF_ASSIGN_OR_RETURN(int r, c.EmitReshape(in, grown, "part" + std::to_string(i)));
    parts.push_back(r);
  }
  ir::OpAttrs concat;
  concat.axis = a;
  RILL_INF_RETURN_IF_ERROR(
      c.Emit(ir::OpType::kConcatenation, parts, "", c.node().outputs[0], concat).status());
  c.Lowered();
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kSplit}, Split) && RegisterTfLiteConverter({kSplitV}, SplitV) &&
                         RegisterTfLiteConverter({kUnpack}, Unpack) && RegisterTfLiteConverter({kPack}, Pack);

}  // namespace
}  // namespace rill::inference::tflite
