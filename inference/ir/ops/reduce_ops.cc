// Pooling and reductions (MAX_POOL_2D, AVERAGE_POOL_2D, MEAN): descriptors
// and shape functions.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status Pool(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  const Shape& x = c.In(0);
  RILL_INF_RETURN_IF_ERROR(CheckWindow(c, a, a.kernel_h, a.kernel_w));
  RILL_INF_RETURN_IF_ERROR(CheckExplicitPads(c, a));
  const int oh = a.padding == Padding::kExplicit
                     ? ExplicitWindowOutputSize(x[1], a.kernel_h, a.stride_h, 1, a.pad_top, a.pad_bottom, a.ceil_mode)
                     : WindowOutputSize(x[1], a.kernel_h, a.stride_h, 1, a.padding);
  const int ow = a.padding == Padding::kExplicit
                     ? ExplicitWindowOutputSize(x[2], a.kernel_w, a.stride_w, 1, a.pad_left, a.pad_right, a.ceil_mode)
                     : WindowOutputSize(x[2], a.kernel_w, a.stride_w, 1, a.padding);
  if (oh <= 0 || ow <= 0) return c.Error("pool window does not fit input " + ShapeToString(x));
  return c.SetOut({x[0], oh, ow, x[3]});
}

Status Mean(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  std::vector<int> axes;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, &axes));
  const Shape& x = c.In(0);
  const int rank = static_cast<int>(x.size());
  std::vector<bool> reduce(rank, false);
  for (int ax : axes) {
    if (ax < -rank || ax >= rank) return c.Error("axis " + std::to_string(ax) + " out of range for " + ShapeToString(x));
    reduce[(ax + rank) % rank] = true;
  }
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (!reduce[i]) out.push_back(x[i]);
    else if (a.keep_dims) out.push_back(1);
  }
  if (out.empty()) out.push_back(1);
  return c.SetOut(out);
}

const bool kRegistered = RegisterOps({
    {OpType::kMaxPool2D, "MAX_POOL_2D", [](ShapeContext& c) { return Pool(c, c.attrs()); }},
    {OpType::kAveragePool2D, "AVERAGE_POOL_2D", [](ShapeContext& c) { return Pool(c, c.attrs()); }},
    {OpType::kMean, "MEAN", [](ShapeContext& c) { return Mean(c, c.attrs()); }},
});

}  // namespace
}  // namespace rill::inference::ir
