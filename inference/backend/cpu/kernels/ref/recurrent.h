// LSTM, GRU and RNN (ir/ops/recurrent_ops.h) on the CPU: one direction's
// steps, shared by the reference kernel and the optimized execution, which
// differ only in how they multiply by W and R.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RECURRENT_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RECURRENT_H_

#include <cstddef>
#include <functional>

#include "inference/ir/ops/recurrent_ops.h"

namespace rill::inference::cpu {

struct RecurrentDims {
  int steps = 0, batch = 0, input = 0, hidden = 0;
};

// out[row * ldo + j] = h[rows, H] R[gate0 * H + j, :]^T + (the R bias of
// that column) for j < gates * H: the recurrent product of one direction
// over `gates` gates from gate0. `out` and `h` do not overlap.
using RecurrentProduct =
    std::function<void(int rows, const float* h, int gate0, int gates, float* out, int ldo)>;

// Floats of scratch RunRecurrentDirection needs.
size_t RecurrentScratchFloats(const ir::RecurrentAttrs& a, const RecurrentDims& d);

// Direction `dir` over all steps. `xw` [S * B, G * H]: x_t W^T plus the W
// biases, row t * B + b (GRU's h gate: Wbh only, its R bias is the
// product's); `init_h`, `init_c` [B, H] of this direction or null (zeros);
// `peep` [3 H] or null. Writes out's rows of this direction (ONNX's Y, then
// Y_h, then LSTM's Y_c: ir::RecurrentAttrs). The product is called once per
// step for all B rows (twice for GRU without linear_before_reset).
void RunRecurrentDirection(const ir::RecurrentAttrs& a, const RecurrentDims& d, int dir, const float* xw,
                           const float* init_h, const float* init_c, const float* peep,
                           const RecurrentProduct& product, float* scratch, float* out);

// The whole op with scalar products: x [S, B, I], w [D, G H, I], r [D, G H,
// H], b [D, 2 G H] or null, init_h / init_c [D, B, H] or null, p [D, 3 H]
// or null; out [S + E, D, B, H].
void RecurrentRef(const ir::RecurrentAttrs& a, const RecurrentDims& d, const float* x, const float* w,
                  const float* r, const float* b, const float* init_h, const float* init_c, const float* p,
                  float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RECURRENT_H_
