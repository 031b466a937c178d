// LSTM, GRU and RNN (ir/ops/recurrent_ops.h) on the CPU: one direction's
// steps, shared by the reference kernel and the optimized execution, which
// differ only in how they multiply by W and R.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RECURRENT_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RECURRENT_H_

#include <cstddef>

#include "inference/ir/ops/recurrent_ops.h"

namespace rill::inference::cpu {

struct RecurrentDims {
  int steps = 0, batch = 0, input = 0, hidden = 0;
};

// out[row * ldo + j] = h[rows, Hs] R[gate0 * H + j, :]^T + (the R bias of
// that column) for j < gates * H: the recurrent product of one direction
// over `gates` gates from gate0 (Hs: ir::StateWidthOf, H without a
// projection). `out` and `h` do not overlap.
//
// The callables below are views of a caller's function object (no copy and
// no allocation: the CPU execution builds them on every run), valid while
// that object lives.
template <typename Signature>
class CallableRef;
template <typename R, typename... Args>
class CallableRef<R(Args...)> {
 public:
  template <typename F>
  CallableRef(const F& f)  // NOLINT: implicit, as a view of `f`
      : object_(&f), call_([](const void* o, Args... a) -> R { return (*static_cast<const F*>(o))(a...); }) {}
  R operator()(Args... a) const { return call_(object_, a...); }

 private:
  const void* object_;
  R (*call_)(const void*, Args...);
};
using RecurrentProduct = CallableRef<void(int rows, const float* h, int gate0, int gates, float* out, int ldo)>;
// LSTM's projection: out[rows, P] = in[rows, H] Wp^T + bp (no clip).
using RecurrentProject = CallableRef<void(int rows, const float* in, float* out)>;

// Applies `f` to v[0, n) in place (the reference: ApplyRecurrentActivation
// element by element; the CPU execution: the kernel table's vector
// logistic and tanh).
using RecurrentActivate = CallableRef<void(const ir::RecurrentFunction& f, float* v, int n)>;
void ScalarRecurrentActivate(const ir::RecurrentFunction& f, float* v, int n);

// Floats of scratch RunRecurrentDirection needs.
size_t RecurrentScratchFloats(const ir::RecurrentAttrs& a, const RecurrentDims& d);

// Direction `dir` over all steps. `xw` [S * B, G * H]: x_t W^T plus the W
// biases, row t * B + b (GRU's h gate: Wbh only, its R bias is the
// product's); `init_h`, `init_c` [B, H] of this direction or null (zeros);
// `peep` [3 H] or null; LSTM's layer norm `ln_coeff` and `ln_bias` [4 H]
// (with attrs.layer_norm) and `project` (with attrs.projection) of this
// direction. Writes out's rows of this direction (ONNX's Y, then Y_h, then
// LSTM's Y_c: ir::RecurrentAttrs). The product is called once per step for
// all B rows (twice for GRU without linear_before_reset; the projection once
// per step); the activations run on whole gates of a row.
struct RecurrentDirectionArgs {
  const float* xw = nullptr;
  const float* init_h = nullptr;  // [B, Hs]
  const float* init_c = nullptr;  // [B, H]
  const float* peep = nullptr;
  const float* ln_coeff = nullptr;
  const float* ln_bias = nullptr;
  const RecurrentProject* project = nullptr;
};
void RunRecurrentDirection(const ir::RecurrentAttrs& a, const RecurrentDims& d, int dir,
                           const RecurrentDirectionArgs& in, const RecurrentProduct& product,
                           const RecurrentActivate& activate, float* scratch, float* out);

// The whole op with scalar products, on the op's inputs in order (ir
// RecurrentOp: x [S, B, I], w [D, G H, I], r [D, G H, Hs], then the
// optional ones, null when absent); out [S + E, D, B, W].
struct RecurrentInputs {
  const float* x = nullptr;
  const float* w = nullptr;
  const float* r = nullptr;
  const float* b = nullptr;       // [D, 2 G H]
  const float* init_h = nullptr;  // [D, B, Hs]
  const float* init_c = nullptr;  // [D, B, H]
  const float* p = nullptr;       // [D, 3 H]
  const float* proj_w = nullptr;  // [D, P, H]
  const float* proj_b = nullptr;  // [D, P]
  const float* ln_coeff = nullptr;  // [D, 4 H]
  const float* ln_bias = nullptr;   // [D, 4 H]
};
void RecurrentRef(const ir::RecurrentAttrs& a, const RecurrentDims& d, const RecurrentInputs& in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RECURRENT_H_
