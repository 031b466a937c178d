// The recurrent layers of ONNX: LSTM, GRU and RNN (one layer each, forward,
// reverse or both directions), as three registered ops sharing one typed
// attribute struct (docs/design.md, "How to add an op").
//
// Inputs (ONNX's, layout 0): X [S, B, I]; W [D, G*H, I]; R [D, G*H, H]; then
// optional (-1 when absent): B [D, 2*G*H] (the W biases, then the R biases),
// initial_h [D, B, H], initial_c [D, B, H] (LSTM), P [D, 3*H] (LSTM
// peepholes i, o, f). G = 4 (LSTM, gates i, o, f, c), 3 (GRU, z, r, h), 1
// (RNN); D = 1 or 2 directions, S steps, B the batch, H the hidden size.
//
// LSTM only, TFLite's features (optional, -1 when absent): [7] projection
// weights [D, P, H], [8] projection bias [D, P], [9] layer-norm coefficients
// [D, 4*H], [10] the gates' bias added after the layer norm [D, 4*H] (gates
// i, o, f, c; with layer_norm the gates' bias is [10], not B, which the norm
// would cancel). With a projection of P (attrs.projection) the state h is P
// wide: R is [D, G*H, P] and initial_h [D, B, P].
//
// One output, [S + E, D, B, W]: rows [0, S) are ONNX's Y (steps past a
// sequence's length zero), row S its Y_h (the last state each sequence
// reached; zeros for a length of 0) and, for LSTM (E = 2), row S + 1 Y_c; E =
// 1 for GRU and RNN. The importers slice Y, Y_h and Y_c out of it. W = H
// without a projection, else max(P, H): h's rows fill their first P columns,
// Y_c's its first H, the rest are zeros.
//
// Equations (ONNX's; clip, where > 0, bounds the gates' activation inputs
// to [-clip, clip]; LSTM's h(C) reads the state unclipped, as ONNX Runtime
// computes it):
//   LSTM  i = f(x Wi + h Ri + Pi . c + bi), f = f(x Wf + h Rf + Pf . c + bf)
//         (input_forget: f = 1 - i), g = g(x Wc + h Rc + bc),
//         c' = f . c + i . g, o = f(x Wo + h Ro + Po . c' + bo), h' = o . h(c')
//   GRU   z = f(x Wz + h Rz + bz), r = f(x Wr + h Rr + br),
//         n = g(x Wh + (r . h) Rh + Rbh + Wbh), or with linear_before_reset
//         n = g(x Wh + r . (h Rh + Rbh) + Wbh); h' = (1 - z) . n + z . h
//   RNN   h' = f(x Wi + h Ri + bi)
// with b the sum of the W and R biases. TFLite's LSTM adds (attrs):
// input_from_forget (CIFG: i = 1 - f, f computed), cell_clip (c' clipped to
// [-cell_clip, cell_clip] after its update), layer_norm (each gate's
// pre-activation x W + h R + P . c normalized over its H units per row:
// (v - mean) / sqrt(var), var the mean squared deviation (0: 1e-8), times
// [9], plus [10]), and the projection h' = proj_clip(o . h(c') Wp^T + bp)
// (proj_clip 0: none).
#ifndef RILL_INFERENCE_IR_OPS_RECURRENT_OPS_H_
#define RILL_INFERENCE_IR_OPS_RECURRENT_OPS_H_

#include <string>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

enum class RecurrentKind { kLstm, kGru, kRnn };

// ONNX's activation functions for the recurrent ops.
enum class RecurrentActivation {
  kSigmoid,
  kTanh,
  kRelu,
  kAffine,           // alpha x + beta
  kLeakyRelu,        // x >= 0 ? x : alpha x
  kThresholdedRelu,  // x > alpha ? x : 0
  kScaledTanh,       // alpha tanh(beta x)
  kHardSigmoid,      // min(max(alpha x + beta, 0), 1)
  kElu,              // x >= 0 ? x : alpha (exp(x) - 1)
  kSoftsign,         // x / (1 + |x|)
  kSoftplus,         // log(1 + exp(x))
  kClamp,            // min(max(x, alpha), beta): TFLite's fused RELU6, RELU_N1_TO_1
};

struct RecurrentFunction {
  RecurrentActivation fn = RecurrentActivation::kSigmoid;
  float alpha = 0.0f, beta = 0.0f;
};

struct RecurrentAttrs : TypedAttrs {
  RecurrentKind kind = RecurrentKind::kLstm;
  int hidden = 0;
  int directions = 1;    // 1 or 2
  bool reverse = false;  // one direction, run from the last step
  float clip = 0.0f;     // 0: none
  bool input_forget = false;         // LSTM
  bool linear_before_reset = false;  // GRU
  // Per direction, the kind's functions in ONNX's order: LSTM f, g, h; GRU
  // f, g; RNN f (directions * FunctionsPerDirection(kind) entries).
  std::vector<RecurrentFunction> functions;
  // Steps per batch entry (each in [0, S]); empty: all S.
  std::vector<int> sequence_lens;
  // LSTM, TFLite's (see above).
  bool input_from_forget = false;  // CIFG: i = 1 - f
  float cell_clip = 0.0f;          // 0: none
  int projection = 0;              // P; 0: none
  float proj_clip = 0.0f;          // 0: none
  bool layer_norm = false;
};

int GatesOf(RecurrentKind kind);                // G: 4, 3, 1
int FunctionsPerDirection(RecurrentKind kind);  // 3, 2, 1
int ExtraRowsOf(RecurrentKind kind);            // E: 2, 1, 1
// The width of the state h (P with a projection, else H) and of the output's
// rows (W above).
int StateWidthOf(const RecurrentAttrs& a);
int OutputWidthOf(const RecurrentAttrs& a);

OpType RecurrentOp(RecurrentKind kind);
bool IsRecurrentOp(OpType type, RecurrentKind* kind);

// ONNX's activation function of this name ("Sigmoid", ...) with its default
// alpha and beta; false for another name.
bool RecurrentActivationByName(const std::string& name, RecurrentFunction* f);
// Whether the function reads alpha / beta (and so takes the next value of
// ONNX's activation_alpha / activation_beta lists).
bool RecurrentActivationTakesAlpha(RecurrentActivation fn);
bool RecurrentActivationTakesBeta(RecurrentActivation fn);
float ApplyRecurrentActivation(const RecurrentFunction& f, float x);

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_RECURRENT_OPS_H_
