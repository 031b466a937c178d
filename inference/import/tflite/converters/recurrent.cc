// TFLite's recurrent ops onto the engine's one LSTM / RNN op
// (ir/ops/recurrent_ops.h): UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM and LSTM (one step, the full kernel);
// UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN and RNN. Each is
// lowered: the per-gate weights (TFLite's gates i, f, c, o) packed into the
// op's W, R, B, P (gates i, o, f, c) as constants, the input transposed to
// steps first where it is batch first, the op, then SLICEs / RESHAPEs /
// TRANSPOSEs that give the outputs back. The state inputs (variable
// tensors) feed the op's initial_h / initial_c, and its last state becomes
// the variables' new value (ConverterContext::UpdateVariable), carried to
// the next run by the session. Weights must be constants: float32, or fp16
// behind a DEQUANTIZE (an fp16 model).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/dequantize.h"
#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/recurrent_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kLstm = 16, kRnn = 24, kUnidirectionalSequenceRnn = 35, kUnidirectionalSequenceLstm = 44,
                  kBidirectionalSequenceRnn = 46, kBidirectionalSequenceLstm = 52;

using ir::RecurrentKind;

bool Present(ConverterContext& c, int i) { return i >= 0 && i < c.num_inputs() && c.node().inputs[i] >= 0; }

// The fp16 constant that an earlier DEQUANTIZE turns into tensor `id` (an
// fp16 model's weights; the importer folds those nodes after the import),
// or null.
const ir::TensorInfo* Fp16Source(ConverterContext& c, int id) {
  for (const ir::Node& n : c.graph().nodes) {
    if (n.type != ir::OpType::kDequantize || n.outputs.size() != 1 || n.outputs[0] != id || n.inputs.size() != 1 ||
        n.inputs[0] < 0) {
      continue;
    }
    const ir::TensorInfo& src = c.graph().tensors[n.inputs[0]];
    return src.is_constant() && src.dtype == DataType::kFloat16 && !src.sparsity ? &src : nullptr;
  }
  return nullptr;
}

// Input i's constant values (float32, or fp16 behind a DEQUANTIZE); its
// shape must be `want`.
Status ConstFloats(ConverterContext& c, int i, const Shape& want, const char* what, std::vector<float>* out) {
  if (!Present(c, i)) return c.Invalid(std::string(what) + " (input " + std::to_string(i) + ") is absent");
  const ir::TensorInfo& t = c.graph().tensors[c.node().inputs[i]];
  if (const ir::TensorInfo* half = t.is_constant() ? nullptr : Fp16Source(c, c.node().inputs[i])) {
    if (half->shape != want) {
      return c.Invalid(std::string(what) + " " + ShapeToString(half->shape) + " must be " + ShapeToString(want));
    }
    const size_t n = static_cast<size_t>(NumElements(half->shape));
    if (half->bytes < n * 2) return c.Invalid(std::string(what) + " is shorter than its shape");
    std::vector<uint16_t> bits(n);
    if (n > 0) std::memcpy(bits.data(), half->data, n * 2);
    out->resize(n);
    cpu::DequantizeFp16Ref(static_cast<long long>(n), bits.data(), out->data());
    return Status::Ok();
  }
  if (!t.is_constant() || t.dtype != DataType::kFloat32) {
    return c.Unsupported(std::string(what) + " (input " + std::to_string(i) +
                         ") that is not a float32 or fp16 constant (quantized or computed weights)");
  }
  if (t.shape != want) {
    return c.Invalid(std::string(what) + " " + ShapeToString(t.shape) + " must be " + ShapeToString(want));
  }
  const size_t n = static_cast<size_t>(NumElements(t.shape));
  if (t.bytes < n * 4) return c.Invalid(std::string(what) + " is shorter than its shape");
  out->resize(n);
  if (n > 0) std::memcpy(out->data(), t.data, n * 4);
  return Status::Ok();
}

// The fused activation (TFLite's ActivationFunctionType) as the op's function.
Status FusedFunction(ConverterContext& c, int field, ir::RecurrentFunction* f) {
  const int v = c.Option<int8_t>(field, 0);
  switch (v) {
    case 0: *f = {ir::RecurrentActivation::kAffine, 1.0f, 0.0f}; return Status::Ok();  // NONE
    case 1: *f = {ir::RecurrentActivation::kRelu, 0.0f, 0.0f}; return Status::Ok();
    case 2: *f = {ir::RecurrentActivation::kClamp, -1.0f, 1.0f}; return Status::Ok();  // RELU_N1_TO_1
    case 3: *f = {ir::RecurrentActivation::kClamp, 0.0f, 6.0f}; return Status::Ok();   // RELU6
    case 4: *f = {ir::RecurrentActivation::kTanh, 0.0f, 0.0f}; return Status::Ok();
    default:
      return c.UnsupportedAttribute("fused_activation_function", "fused activation " + std::to_string(v));
  }
}

StatusOr<int> Permute(ConverterContext& c, int x, std::vector<int> perm, const std::string& suffix, int output = -1) {
  ir::OpAttrs a;
  a.perm = std::move(perm);
  return c.Emit(ir::OpType::kTranspose, {x}, suffix, output, a);
}

// The steps-first [S, B, I] input: as is (time major), transposed (batch
// major) or, for the one-step ops, [B, I] as [1, B, I].
StatusOr<int> StepsFirstInput(ConverterContext& c, bool one_step, bool time_major) {
  const int x = c.node().inputs[0];
  const Shape xs = c.InShape(0);
  if (one_step) {
    if (xs.size() != 2) return c.Invalid("input " + ShapeToString(xs) + " must be [batch, input]");
    return c.EmitReshape(x, {1, xs[0], xs[1]}, "steps_first");
  }
  if (xs.size() != 3) return c.Invalid("input " + ShapeToString(xs) + " must be 3-D");
  if (time_major) return x;
  return Permute(c, x, {1, 0, 2}, "steps_first");
}

// The op's initial state [D, B, width] from the directions' state inputs
// (each [B, width]; all absent: -1, zeros).
StatusOr<int> InitialState(ConverterContext& c, const std::vector<int>& inputs, int batch, int width,
                           const std::string& what) {
  std::vector<int> parts;
  for (size_t d = 0; d < inputs.size(); ++d) {
    if (!Present(c, inputs[d])) {
      if (!parts.empty()) return c.Unsupported(what + " of one direction only");
      continue;
    }
    const Shape s = c.InShape(inputs[d]);
    if (s != Shape{batch, width}) {
      return c.Invalid(what + " " + ShapeToString(s) + " must be " + ShapeToString({batch, width}));
    }
    RILL_INF_ASSIGN_OR_RETURN(int id, c.FloatInput(inputs[d]));
    RILL_INF_ASSIGN_OR_RETURN(int r, c.EmitReshape(id, {1, batch, width}, what + std::to_string(d)));
    parts.push_back(r);
  }
  if (parts.empty()) return -1;
  if (parts.size() != inputs.size()) return c.Unsupported(what + " of one direction only");
  if (parts.size() == 1) return parts[0];
  ir::OpAttrs a;
  a.axis = 0;
  return c.Emit(ir::OpType::kConcatenation, parts, what, -1, a);
}

// Rows [row, row + 1) of the op's output [S + E, D, B, W], direction d,
// columns [0, width), as [B, width]: a final state. It becomes the new value
// of the variable tensor that input `state_input` is (when it is one).
Status UpdateState(ConverterContext& c, int all, int row, int d, int dirs, int batch, int width, int out_width,
                   int state_input, const std::string& what) {
  if (!Present(c, state_input) || !c.IsVariable(c.node().inputs[state_input])) return Status::Ok();
  const std::string name = what + std::to_string(d);
  RILL_INF_ASSIGN_OR_RETURN(int y, c.EmitSliceAxis(all, 0, row, row + 1, name + "/row"));
  if (dirs > 1) {
    RILL_INF_ASSIGN_OR_RETURN(y, c.EmitSliceAxis(y, 1, d, d + 1, name + "/direction"));
  }
  if (width != out_width) {
    RILL_INF_ASSIGN_OR_RETURN(y, c.EmitSliceAxis(y, 3, 0, width, name + "/columns"));
  }
  RILL_INF_ASSIGN_OR_RETURN(y, c.EmitReshape(y, {batch, width}, name));
  c.UpdateVariable(c.node().inputs[state_input], y);
  return Status::Ok();
}

// The outputs from the op's output `all` [S + E, D, B, W]: Y's rows, its
// first `width` columns; for two directions merged ([.., 2 width], forward
// first) or one output per direction; steps first or batch first.
Status EmitOutputs(ConverterContext& c, int all, int steps, int dirs, int batch, int width, int out_width,
                   bool one_step, bool time_major, bool merge) {
  RILL_INF_ASSIGN_OR_RETURN(int y, c.EmitSliceAxis(all, 0, 0, steps, "y"));
  if (width != out_width) {
    RILL_INF_ASSIGN_OR_RETURN(y, c.EmitSliceAxis(y, 3, 0, width, "y_columns"));
  }
  const std::vector<int>& outs = c.node().outputs;
  if (one_step) {  // [1, 1, B, width] -> [B, width]
    return c.EmitReshape(y, {batch, width}, "", outs[0]).status();
  }
  if (dirs == 1 || merge) {
    // [S, D, B, w] -> [S, B, D w] (time major) or [B, S, D w].
    if (dirs == 2) {
      RILL_INF_ASSIGN_OR_RETURN(y, Permute(c, y, time_major ? std::vector<int>{0, 2, 1, 3} : std::vector<int>{2, 0, 1, 3},
                                           "y_merged"));
      const Shape target = time_major ? Shape{steps, batch, 2 * width} : Shape{batch, steps, 2 * width};
      return c.EmitReshape(y, target, "", outs[0]).status();
    }
    if (time_major) return c.EmitReshape(y, {steps, batch, width}, "", outs[0]).status();
    RILL_INF_ASSIGN_OR_RETURN(y, c.EmitReshape(y, {steps, batch, width}, "y_steps_first"));
    return Permute(c, y, {1, 0, 2}, "", outs[0]).status();
  }
  if (outs.size() < 2) return c.Invalid("two directions not merged need two outputs");
  for (int d = 0; d < 2; ++d) {
    RILL_INF_ASSIGN_OR_RETURN(int yd, c.EmitSliceAxis(y, 1, d, d + 1, "y_direction" + std::to_string(d)));
    if (time_major) {
      RILL_INF_RETURN_IF_ERROR(c.EmitReshape(yd, {steps, batch, width}, "", outs[d]).status());
    } else {
      RILL_INF_ASSIGN_OR_RETURN(yd, c.EmitReshape(yd, {steps, batch, width}, "y_steps_first" + std::to_string(d)));
      RILL_INF_RETURN_IF_ERROR(Permute(c, yd, {1, 0, 2}, "", outs[d]).status());
    }
  }
  return Status::Ok();
}

// One LSTM direction's tensors: input indices in TFLite's order of the
// gates i, f, c, o (-1: none).
struct LstmInputs {
  int input_w[4], recurrent_w[4];
  int peephole[3];  // i, f, o
  int bias[4];
  int proj_w, proj_b;
  int state_h, state_c;
  int layer_norm[4];
};

LstmInputs UnidirectionalLstmInputs() {
  return {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11}, {12, 13, 14, 15}, 16, 17, 18, 19, {20, 21, 22, 23}};
}

LstmInputs BidirectionalLstmInputs(int d) {
  const int o = d * 17;  // the backward direction's weights follow the forward's 17
  return {{1 + o, 2 + o, 3 + o, 4 + o},
          {5 + o, 6 + o, 7 + o, 8 + o},
          {9 + o, 10 + o, 11 + o},
          {12 + o, 13 + o, 14 + o, 15 + o},
          16 + o,
          17 + o,
          35 + 2 * d,
          36 + 2 * d,
          {-1, -1, -1, -1}};
}

// TFLite's gate k (i, f, c, o) is the op's gate kIrGate[k] (i, o, f, c).
constexpr int kIrGate[4] = {0, 2, 3, 1};

Status Lstm(ConverterContext& c) {
  const int32_t code = c.opcode().builtin;
  const bool one_step = code == kLstm, bidirectional = code == kBidirectionalSequenceLstm;
  // Options: fused_activation_function 0, cell_clip 1, proj_clip 2; then
  // LSTM: kernel_type 3; UNIDIRECTIONAL: time_major 3; BIDIRECTIONAL:
  // merge_outputs 3, time_major 4 (default true).
  ir::RecurrentFunction act;
  RILL_INF_RETURN_IF_ERROR(FusedFunction(c, 0, &act));
  auto a = std::make_shared<ir::RecurrentAttrs>();
  a->kind = RecurrentKind::kLstm;
  a->cell_clip = c.Option<float>(1, 0.0f);
  a->proj_clip = c.Option<float>(2, 0.0f);
  if (!(a->cell_clip >= 0.0f) || !(a->proj_clip >= 0.0f)) return c.Invalid("cell_clip and proj_clip must be >= 0");
  bool time_major = true, merge = false;
  if (one_step) {
    if (c.Option<int8_t>(3, 0) != 0) return c.UnsupportedAttribute("kernel_type", "the BASIC LSTM kernel");
  } else if (bidirectional) {
    merge = c.Option<uint8_t>(3, 0) != 0;
    time_major = c.Option<uint8_t>(4, 1) != 0;
  } else {
    time_major = c.Option<uint8_t>(3, 0) != 0;
    // asymmetric_quantize_inputs 4 (hybrid weights only); diagonal_recurrent_tensors 5.
    if (c.Option<uint8_t>(5, 0) != 0) {
      return c.UnsupportedAttribute("diagonal_recurrent_tensors", "diagonal recurrent weights");
    }
  }
  if (bidirectional && Present(c, 39)) return c.Unsupported("an auxiliary input");
  if (c.node().outputs.size() != (bidirectional && !merge ? 2u : 1u)) {
    return c.Unsupported(std::to_string(c.node().outputs.size()) + " outputs (the form with " +
                         (bidirectional && !merge ? "2" : "1") + " is supported)");
  }
  const int dirs = bidirectional ? 2 : 1;
  a->directions = dirs;
  for (int d = 0; d < dirs; ++d) a->functions.insert(a->functions.end(), {{ir::RecurrentActivation::kSigmoid, 0.0f, 0.0f}, act, act});

  const LstmInputs first = bidirectional ? BidirectionalLstmInputs(0) : UnidirectionalLstmInputs();
  const Shape fs = c.InShape(first.input_w[1]);  // input_to_forget [H, I]
  if (fs.size() != 2) return c.Invalid("input_to_forget_weights " + ShapeToString(fs) + " must be [cells, input]");
  const int H = fs[0], I = fs[1];
  const Shape rs = c.InShape(first.recurrent_w[1]);  // [H, Hs]
  if (rs.size() != 2 || rs[0] != H) return c.Invalid("recurrent_to_forget_weights " + ShapeToString(rs) + " must be [cells, output]");
  const int Hs = rs[1];
  a->hidden = H;
  a->input_from_forget = !Present(c, first.input_w[0]);  // CIFG
  a->projection = Present(c, first.proj_w) ? Hs : 0;
  if (a->projection == 0 && Hs != H) return c.Invalid("output size " + std::to_string(Hs) + " without a projection");
  a->layer_norm = Present(c, first.layer_norm[1]);
  bool peephole = false;
  // The required weights exist in the file before anything their shapes
  // size is allocated (a corrupt file's shapes are not trusted).
  std::vector<float> v;
  RILL_INF_RETURN_IF_ERROR(ConstFloats(c, first.input_w[1], {H, I}, "input weights", &v));
  RILL_INF_RETURN_IF_ERROR(ConstFloats(c, first.recurrent_w[1], {H, Hs}, "recurrent weights", &v));

  const size_t gh = static_cast<size_t>(4) * H;
  std::vector<float> w(dirs * gh * I, 0.0f), r(dirs * gh * Hs, 0.0f), b, p(dirs * 3 * static_cast<size_t>(H), 0.0f);
  std::vector<float> pw, pb, ln_c, ln_b;
  for (int d = 0; d < dirs; ++d) {
    const LstmInputs in = bidirectional ? BidirectionalLstmInputs(d) : UnidirectionalLstmInputs();
    if (Present(c, in.input_w[0]) == a->input_from_forget) return c.Unsupported("CIFG in one direction only");
    for (int k = 0; k < 4; ++k) {
      const int g = kIrGate[k];
      if (k == 0 && a->input_from_forget) continue;
      RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.input_w[k], {H, I}, "input weights", &v));
      std::copy(v.begin(), v.end(), w.begin() + (d * gh + static_cast<size_t>(g) * H) * I);
      RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.recurrent_w[k], {H, Hs}, "recurrent weights", &v));
      std::copy(v.begin(), v.end(), r.begin() + (d * gh + static_cast<size_t>(g) * H) * Hs);
    }
    // Peepholes i, f, o -> the op's P order i, o, f.
    const int peep_slot[3] = {0, 2, 1};
    for (int k = 0; k < 3; ++k) {
      if (!Present(c, in.peephole[k])) continue;
      peephole = true;
      RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.peephole[k], {H}, "peephole weights", &v));
      std::copy(v.begin(), v.end(), p.begin() + (d * 3 + peep_slot[k]) * static_cast<size_t>(H));
    }
    // The gates' bias: B (W biases, then R biases, zeros) or, with layer
    // norm, the bias added after it.
    std::vector<float>& bias = a->layer_norm ? ln_b : b;
    bias.resize(static_cast<size_t>(dirs) * (a->layer_norm ? gh : 2 * gh), 0.0f);
    float* bd = bias.data() + d * (a->layer_norm ? gh : 2 * gh);
    for (int k = 0; k < 4; ++k) {
      if (k == 0 && a->input_from_forget) continue;
      if (!Present(c, in.bias[k])) continue;  // absent: zeros
      RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.bias[k], {H}, "gate bias", &v));
      std::copy(v.begin(), v.end(), bd + static_cast<size_t>(kIrGate[k]) * H);
    }
    if (a->layer_norm) {
      ln_c.resize(static_cast<size_t>(dirs) * gh, 0.0f);
      for (int k = 0; k < 4; ++k) {
        if (k == 0 && a->input_from_forget) continue;
        RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.layer_norm[k], {H}, "layer-norm coefficients", &v));
        std::copy(v.begin(), v.end(), ln_c.begin() + d * gh + static_cast<size_t>(kIrGate[k]) * H);
      }
    }
    if ((a->projection > 0) != Present(c, in.proj_w)) return c.Unsupported("a projection in one direction only");
    if (a->projection > 0) {
      RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.proj_w, {Hs, H}, "projection weights", &v));
      pw.insert(pw.end(), v.begin(), v.end());
      pb.resize(static_cast<size_t>(d + 1) * Hs, 0.0f);
      if (Present(c, in.proj_b)) {
        RILL_INF_RETURN_IF_ERROR(ConstFloats(c, in.proj_b, {Hs}, "projection bias", &v));
        std::copy(v.begin(), v.end(), pb.begin() + static_cast<size_t>(d) * Hs);
      }
    }
  }

  RILL_INF_ASSIGN_OR_RETURN(int x, StepsFirstInput(c, one_step, time_major));
  const Shape xs = c.graph().tensors[x].shape;
  if (xs[2] != I) return c.Invalid("input size " + std::to_string(xs[2]) + " but the weights take " + std::to_string(I));
  const int steps = xs[0], batch = xs[1];
  std::vector<int> h_inputs, c_inputs;
  for (int d = 0; d < dirs; ++d) {
    const LstmInputs in = bidirectional ? BidirectionalLstmInputs(d) : UnidirectionalLstmInputs();
    h_inputs.push_back(in.state_h);
    c_inputs.push_back(in.state_c);
  }
  RILL_INF_ASSIGN_OR_RETURN(int init_h, InitialState(c, h_inputs, batch, Hs, "initial_h"));
  RILL_INF_ASSIGN_OR_RETURN(int init_c, InitialState(c, c_inputs, batch, H, "initial_c"));
  std::vector<int> inputs = {x,
                             c.NewFloatConst("w", {dirs, 4 * H, I}, w),
                             c.NewFloatConst("r", {dirs, 4 * H, Hs}, r),
                             a->layer_norm ? -1 : c.NewFloatConst("b", {dirs, 8 * H}, b),
                             init_h,
                             init_c,
                             peephole ? c.NewFloatConst("p", {dirs, 3 * H}, p) : -1};
  if (a->projection > 0 || a->layer_norm) {
    inputs.push_back(a->projection > 0 ? c.NewFloatConst("proj_w", {dirs, Hs, H}, pw) : -1);
    inputs.push_back(a->projection > 0 ? c.NewFloatConst("proj_b", {dirs, Hs}, pb) : -1);
  }
  if (a->layer_norm) {
    inputs.push_back(c.NewFloatConst("ln_coeff", {dirs, 4 * H}, ln_c));
    inputs.push_back(c.NewFloatConst("ln_bias", {dirs, 4 * H}, ln_b));
  }
  const int out_width = ir::OutputWidthOf(*a);
  RILL_INF_ASSIGN_OR_RETURN(int all, c.Emit(ir::RecurrentOp(RecurrentKind::kLstm), inputs, "y_and_states", -1, {}, a));
  RILL_INF_RETURN_IF_ERROR(EmitOutputs(c, all, steps, dirs, batch, Hs, out_width, one_step, time_major, merge));
  for (int d = 0; d < dirs; ++d) {
    RILL_INF_RETURN_IF_ERROR(UpdateState(c, all, steps, d, dirs, batch, Hs, out_width, h_inputs[d], "state_h"));
    RILL_INF_RETURN_IF_ERROR(UpdateState(c, all, steps + 1, d, dirs, batch, H, out_width, c_inputs[d], "state_c"));
  }
  c.Lowered();
  return Status::Ok();
}

// RNN: input 0, then per direction weights [H, I], recurrent weights
// [H, H], bias [H], hidden state [B, H] (BIDIRECTIONAL: forward 1..4,
// backward 5..8, auxiliary input 9..11).
Status Rnn(ConverterContext& c) {
  const int32_t code = c.opcode().builtin;
  const bool one_step = code == kRnn, bidirectional = code == kBidirectionalSequenceRnn;
  // RNNOptions: fused_activation_function 0. SequenceRNNOptions: time_major
  // 0, fused_activation_function 1. BidirectionalSequenceRNNOptions: the
  // same, merge_outputs 2.
  ir::RecurrentFunction act;
  RILL_INF_RETURN_IF_ERROR(FusedFunction(c, one_step ? 0 : 1, &act));
  const bool time_major = one_step || c.Option<uint8_t>(0, 0) != 0;
  const bool merge = bidirectional && c.Option<uint8_t>(2, 0) != 0;
  if (bidirectional && Present(c, 9)) return c.Unsupported("an auxiliary input");
  if (c.node().outputs.size() != (bidirectional && !merge ? 2u : 1u)) {
    return c.Unsupported(std::to_string(c.node().outputs.size()) + " outputs (the form with " +
                         (bidirectional && !merge ? "2" : "1") + " is supported)");
  }
  const int dirs = bidirectional ? 2 : 1;
  auto a = std::make_shared<ir::RecurrentAttrs>();
  a->kind = RecurrentKind::kRnn;
  a->directions = dirs;
  a->functions.assign(dirs, act);
  const Shape ws = c.InShape(1);
  if (ws.size() != 2) return c.Invalid("weights " + ShapeToString(ws) + " must be [units, input]");
  const int H = ws[0], I = ws[1];
  a->hidden = H;
  std::vector<float> w, r, b, v;
  RILL_INF_RETURN_IF_ERROR(ConstFloats(c, 1, {H, I}, "weights", &v));  // exists before b is sized by it
  b.assign(static_cast<size_t>(dirs) * 2 * H, 0.0f);
  std::vector<int> h_inputs;
  for (int d = 0; d < dirs; ++d) {
    const int o = 4 * d;
    RILL_INF_RETURN_IF_ERROR(ConstFloats(c, 1 + o, {H, I}, "weights", &v));
    w.insert(w.end(), v.begin(), v.end());
    RILL_INF_RETURN_IF_ERROR(ConstFloats(c, 2 + o, {H, H}, "recurrent weights", &v));
    r.insert(r.end(), v.begin(), v.end());
    if (Present(c, 3 + o)) {
      RILL_INF_RETURN_IF_ERROR(ConstFloats(c, 3 + o, {H}, "bias", &v));
      std::copy(v.begin(), v.end(), b.begin() + static_cast<size_t>(d) * 2 * H);
    }
    h_inputs.push_back(4 + o);
  }
  RILL_INF_ASSIGN_OR_RETURN(int x, StepsFirstInput(c, one_step, time_major));
  const Shape xs = c.graph().tensors[x].shape;
  if (xs[2] != I) return c.Invalid("input size " + std::to_string(xs[2]) + " but the weights take " + std::to_string(I));
  const int steps = xs[0], batch = xs[1];
  RILL_INF_ASSIGN_OR_RETURN(int init_h, InitialState(c, h_inputs, batch, H, "initial_h"));
  const std::vector<int> inputs = {x, c.NewFloatConst("w", {dirs, H, I}, w), c.NewFloatConst("r", {dirs, H, H}, r),
                                   c.NewFloatConst("b", {dirs, 2 * H}, b), init_h};
  RILL_INF_ASSIGN_OR_RETURN(int all, c.Emit(ir::RecurrentOp(RecurrentKind::kRnn), inputs, "y_and_state", -1, {}, a));
  RILL_INF_RETURN_IF_ERROR(EmitOutputs(c, all, steps, dirs, batch, H, H, one_step, time_major, merge));
  for (int d = 0; d < dirs; ++d) {
    RILL_INF_RETURN_IF_ERROR(UpdateState(c, all, steps, d, dirs, batch, H, H, h_inputs[d], "state_h"));
  }
  c.Lowered();
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteConverter({kLstm, kUnidirectionalSequenceLstm, kBidirectionalSequenceLstm}, Lstm) &&
    RegisterTfLiteConverter({kRnn, kUnidirectionalSequenceRnn, kBidirectionalSequenceRnn}, Rnn);

}  // namespace
}  // namespace rill::inference::tflite
