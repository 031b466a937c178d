// Fusions of the math and normalization ops (ir/ops/math_ops.h): the
// decomposed forms exporters write, back into one node. Run by Optimize.
#ifndef RILL_INFERENCE_OPTIMIZE_MATH_FUSIONS_H_
#define RILL_INFERENCE_OPTIMIZE_MATH_FUSIONS_H_

#include "inference/ir/graph.h"

namespace rill::inference::optimize {

// GELU's erf form, as PyTorch exports nn.GELU():
//   t = DIV(x, sqrt(2)) or MUL(x, 1/sqrt(2)); s = ADD(ERF(t), 1);
//   y = MUL(MUL(x, s), 0.5) or MUL(MUL(x, 0.5), s) or MUL(x, MUL(s, 0.5))
// (operands of ADD and MUL in either order, constants scalars) becomes
// y = GELU(x), when every intermediate's only reader is the next node.
int FuseGelu(ir::Graph* g);

// Layer normalization as PyTorch exports nn.LayerNorm before opset 17:
//   m = MEAN(x, axes, keep); d = SUB(x, m); v = MEAN(POW(d, 2) or MUL(d, d),
//   axes, keep); y = DIV(d, SQRT(ADD(v, eps)))[; y = MUL(y, gamma)
//   [; y = ADD(y, beta)]]
// with axes the trailing axes of x (the same for both MEANs), eps a scalar
// constant and gamma, beta constants with one value per normalized element,
// becomes y = LAYER_NORM(x, gamma (or ones), beta).
int FuseLayerNorm(ir::Graph* g);

// Scaled dot-product attention as PyTorch exports it (ViT's
// nn.MultiheadAttention, Swin's ShiftedWindowAttention):
//   s = BATCH_MATMUL(q', kt) [; s = MUL(s, c) or DIV(s, c)] [; s = ADD(s, bias)];
//   p = SOFTMAX(s, last axis); y = BATCH_MATMUL(p, v)
// with q' = q or MUL(q, c) or DIV(q, c) (the scale on the queries, c a scalar
// constant), kt = TRANSPOSE(k) swapping the last two axes or k read with
// adj_y, bias broadcasting to the scores ([..., M or 1, N]), q, k and v of
// one rank and the same batch dims, becomes y = ATTENTION(q, k, v[, bias])
// with the product of the scales, when every intermediate's only reader is
// the next node and the cost rule (AttentionFusionPays) holds.
int FuseAttention(ir::Graph* g);

// The cost rule. Measured fused against unfused (inference/README.md,
// "Attention": whole-model medians, interleaved, 1 and 2 threads) on
// vit_b_16's shape (12 heads, 197 x 197, d 64: 25.1 vs 25.7 ms / 20.9 vs
// 24.5 ms), swin_t's (64 windows x 3 heads, 49 x 49, d 32, bias: 12.2 vs
// 12.7 / 12.8 vs 13.4 ms), single heads of 48 and 64 rows (0.078 vs 0.086 /
// 0.096 vs 0.132 ms; 0.035 vs 0.036 / 0.043 vs 0.050 ms) and small ones (16
// and 4 keys: equal within the timer's microsecond): the fused op lost on
// none, so it is kept from kMinAttentionKeys keys on, i.e. wherever the
// pattern is found; the rule is the place to add a bound when a shape that
// loses is measured.
constexpr int kMinAttentionKeys = 1;
bool AttentionFusionPays(int keys);

}  // namespace rill::inference::optimize

#endif  // RILL_INFERENCE_OPTIMIZE_MATH_FUSIONS_H_
