#include "inference/ir/macs.h"

#include <algorithm>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/ops/tensor_ops.h"
#include "inference/ir/ops/volume_ops.h"

namespace rill::inference::ir {

int64_t NodeMacs(const Node& n, const std::vector<Shape>& shapes) {
  auto shape = [&](int input) -> const Shape& { return shapes[n.inputs[input]]; };
  const int64_t out = NumElements(shapes[n.outputs[0]]);
  int64_t macs = 0;
  if (n.inputs.size() >= 2 && n.inputs[1] >= 0) {
    const Shape& w = shape(1);
    if (n.type == OpType::kConv2D && w.size() == 4) macs = out * w[1] * w[2] * w[3];
    if (n.type == OpType::kDepthwiseConv2D && w.size() == 4) macs = out * w[1] * w[2];
    if (n.type == OpType::kTransposeConv2D && w.size() == 4) {
      const Shape& x = shape(0);  // per group: its share of the outputs
      const int groups = x.size() == 4 ? std::max(1, ConvGroups(x[3], w[3])) : 1;
      macs = NumElements(x) * w[0] * w[1] * w[2] / groups;
    }
    if (n.type == OpType::kFullyConnected && w.size() == 2) macs = out * w[1];
    if (n.type == Conv3dOp() && w.size() == 5) macs = out * w[1] * w[2] * w[3] * w[4];
    if (n.type == AttentionOp() && n.inputs.size() >= 3 && n.inputs[2] >= 0) {
      // Q K^T then the weights times V: batches x M x N x (D + Dv).
      const Shape& q = shape(0);
      const Shape& v = shape(2);
      const AttentionAttrs* a = n.attrs_as<AttentionAttrs>();
      if (q.size() >= 2 && v.size() == q.size() && w.size() == q.size() && a != nullptr) {
        const size_t r = q.size();
        const int64_t keys = a->k_transposed ? w[r - 1] : w[r - 2];
        const int64_t dv = std::max<int64_t>(1, v[r - 1]);
        macs = out / dv * keys * (q[r - 1] + dv);
      }
    }
    if (n.type == BatchMatMulOp() && shape(0).size() >= 2) {  // out * K
      const BatchMatMulAttrs* a = n.attrs_as<BatchMatMulAttrs>();
      macs = out * shape(0)[shape(0).size() - (a && a->adj_x ? 2 : 1)];
    }
  }
  if (n.type == OpType::kDepthwiseBlock && n.inputs.size() > 5 && n.inputs[3] >= 0 && n.inputs[5] >= 0) {
    const Shape& x = shape(0);
    const Shape& wd = shape(3);
    const Shape& wp = shape(5);
    const int64_t pixels = out / std::max(1, wp[0]);
    macs = pixels * wd[1] * wd[2] * wd[3] + pixels * wp[0] * wp[3];
    if (n.inputs[1] >= 0) macs += NumElements(x) * shape(1)[0];
  }
  return macs;
}

}  // namespace rill::inference::ir
