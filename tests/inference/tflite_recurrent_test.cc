// TFLite's recurrent builtins (UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, LSTM, UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN, RNN) on models written here
// (tflite_test_models.h), with the optimized and reference kernels at 1 and
// 2 threads, against a plain-loop LSTM / RNN written here with TFLite's
// equations (peepholes, CIFG, cell and projection clips, projection, layer
// norm, the fused activations). That reference is itself checked against
// ONNX Runtime on the equivalent ONNX LSTM / RNN (the same weights, gates
// reordered) wherever ONNX can express the model; a 1-unit case is worked
// by hand. Then the variable tensors: state carried from one Session::Run
// to the next (two chunks give what the concatenated sequence gives),
// ResetVariables, and the states hidden from the inputs and outputs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/export/onnx_exporter.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/counting_new.h"  // streaming runs must not allocate
#include "tests/inference/onnx_op_test_util.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

using testing::OnnxGraph;
using testing::RandomValues;
using testing::TfliteOp;
using testing::TfliteTensor;

constexpr int32_t kLstmOp = 16, kRnnOp = 24, kUniRnn = 35, kUniLstm = 44, kBiRnn = 46, kBiLstm = 52;
// BuiltinOptions union tags.
constexpr uint8_t kRnnOptions = 7, kLstmOptions = 14, kSequenceRnnOptions = 31, kBiSequenceLstmOptions = 69,
                  kBiSequenceRnnOptions = 70, kUniSequenceLstmOptions = 71;

// ---- the model's description, its weights and a reference ------------------

struct Spec {
  bool lstm = true;
  bool bidirectional = false;
  bool one_step = false;  // LSTM / RNN (16, 24): one step of [batch, input]
  bool time_major = false, merge = true;
  int steps = 4, batch = 2, input = 5, hidden = 6, projection = 0;
  bool peephole = false, cifg = false, layer_norm = false, proj_bias = true;
  float cell_clip = 0.0f, proj_clip = 0.0f;
  int act = 4;  // TFLite's fused activation: 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6, 4 TANH
  int kernel_type = 0;  // LSTM (one step): 0 FULL, 1 BASIC
  bool fp16 = false;    // weights stored fp16 behind DEQUANTIZE (an fp16 model)
  unsigned seed = 1;
  int state() const { return projection > 0 ? projection : hidden; }
  int dirs() const { return bidirectional ? 2 : 1; }
};

// One direction's weights in TFLite's form (gates i, f, c, o).
struct Weights {
  std::vector<float> w[4], r[4], peep[3], bias[4], ln[4], proj_w, proj_b;
};

Weights MakeWeights(const Spec& s, unsigned seed) {
  Weights w;
  const size_t H = s.hidden, I = s.input, Hs = s.state();
  const float ws = 3.0f / s.input, rs = 1.5f / s.state();
  for (int k = 0; k < (s.lstm ? 4 : 1); ++k) {
    w.w[k] = RandomValues(H * I, -ws, ws, seed + 10 * k + 1);
    w.r[k] = RandomValues(H * Hs, -rs, rs, seed + 10 * k + 2);
    w.bias[k] = RandomValues(H, -0.5f, 0.5f, seed + 10 * k + 3);
    w.ln[k] = RandomValues(H, 0.5f, 1.5f, seed + 10 * k + 4);
  }
  for (int k = 0; k < 3; ++k) w.peep[k] = RandomValues(H, -0.5f, 0.5f, seed + 10 * k + 5);
  w.proj_w = RandomValues(Hs * H, -1.0f, 1.0f, seed + 6);
  w.proj_b = RandomValues(Hs, -0.3f, 0.3f, seed + 7);
  return w;
}

float Activate(int act, float x) {
  switch (act) {
    case 0: return x;
    case 1: return std::max(x, 0.0f);
    case 2: return std::min(std::max(x, -1.0f), 1.0f);
    case 3: return std::min(std::max(x, 0.0f), 6.0f);
    default: return std::tanh(x);
  }
}
float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float ClipTo(float v, float clip) { return clip > 0.0f ? std::min(std::max(v, -clip), clip) : v; }

// TFLite's LSTM / RNN with plain loops, from zero states: x [S, B, I]
// (steps first); returns Y [S, D, B, Hs] (ONNX's layout).
std::vector<float> Reference(const Spec& s, const std::vector<Weights>& ws, const std::vector<float>& x) {
  const int S = s.steps, B = s.batch, I = s.input, H = s.hidden, Hs = s.state(), D = s.dirs();
  std::vector<float> y(static_cast<size_t>(S) * D * B * Hs);
  for (int d = 0; d < D; ++d) {
    const Weights& w = ws[d];
    std::vector<float> h(static_cast<size_t>(B) * Hs, 0.0f), c(static_cast<size_t>(B) * H, 0.0f);
    for (int step = 0; step < S; ++step) {
      const int t = d == 0 ? step : S - 1 - step;
      std::vector<float> hn(h.size());
      for (int b = 0; b < B; ++b) {
        const float* xb = &x[(static_cast<size_t>(t) * B + b) * I];
        const float* hb = &h[static_cast<size_t>(b) * Hs];
        float* cb = &c[static_cast<size_t>(b) * H];
        // The pre-activation of gate k (i, f, c, o) on the state c given.
        auto pre = [&](int k, const std::vector<float>& cstate) {
          std::vector<float> v(H);
          for (int u = 0; u < H; ++u) {
            float acc = 0.0f;
            for (int i = 0; i < I; ++i) acc += w.w[k][static_cast<size_t>(u) * I + i] * xb[i];
            for (int j = 0; j < Hs; ++j) acc += w.r[k][static_cast<size_t>(u) * Hs + j] * hb[j];
            if (s.lstm && s.peephole && k != 2) acc += w.peep[k == 3 ? 2 : k][u] * cstate[u];
            v[u] = acc;
          }
          if (s.layer_norm) {
            double mean = 0, sq = 0;
            for (float e : v) mean += e;
            mean /= H;
            for (float e : v) sq += (e - mean) * (e - mean);
            const double var = sq / H;
            for (int u = 0; u < H; ++u) {
              v[u] = static_cast<float>((v[u] - mean) / std::sqrt(var > 0 ? var : 1e-8)) * w.ln[k][u];
            }
          }
          for (int u = 0; u < H; ++u) v[u] += w.bias[k][u];
          return v;
        };
        if (!s.lstm) {
          std::vector<float> v = pre(0, {});
          for (int u = 0; u < H; ++u) hn[static_cast<size_t>(b) * Hs + u] = Activate(s.act, v[u]);
          continue;
        }
        const std::vector<float> cprev(cb, cb + H);
        std::vector<float> f = pre(1, cprev), g = pre(2, cprev), in(H);
        for (int u = 0; u < H; ++u) f[u] = Sigmoid(f[u]);
        if (s.cifg) {
          for (int u = 0; u < H; ++u) in[u] = 1.0f - f[u];
        } else {
          in = pre(0, cprev);
          for (int u = 0; u < H; ++u) in[u] = Sigmoid(in[u]);
        }
        for (int u = 0; u < H; ++u) cb[u] = ClipTo(f[u] * cprev[u] + in[u] * Activate(s.act, g[u]), s.cell_clip);
        const std::vector<float> cnew(cb, cb + H);
        std::vector<float> o = pre(3, cnew), out(H);
        for (int u = 0; u < H; ++u) out[u] = Sigmoid(o[u]) * Activate(s.act, cnew[u]);
        for (int j = 0; j < Hs; ++j) {
          float v = out[j < H ? j : 0];
          if (s.projection > 0) {
            v = s.proj_bias ? w.proj_b[j] : 0.0f;
            for (int u = 0; u < H; ++u) v += w.proj_w[static_cast<size_t>(j) * H + u] * out[u];
            v = ClipTo(v, s.proj_clip);
          }
          hn[static_cast<size_t>(b) * Hs + j] = v;
        }
      }
      h = hn;
      for (int b = 0; b < B; ++b) {
        std::copy(&h[static_cast<size_t>(b) * Hs], &h[static_cast<size_t>(b) * Hs] + Hs,
                  &y[((static_cast<size_t>(t) * D + d) * B + b) * Hs]);
      }
    }
  }
  return y;
}

// Y [S, D, B, Hs] in the op's output layout(s): one output (one direction,
// or merged: [.., D Hs]) or one per direction; steps or batch first; the
// one-step ops [B, Hs].
std::vector<std::vector<float>> ToTfliteOutputs(const Spec& s, const std::vector<float>& y) {
  const int S = s.steps, B = s.batch, Hs = s.state(), D = s.dirs();
  const bool split = s.bidirectional && !s.merge;
  std::vector<std::vector<float>> outs(split ? 2 : 1);
  for (int k = 0; k < static_cast<int>(outs.size()); ++k) {
    const int width = split ? Hs : D * Hs;
    outs[k].resize(static_cast<size_t>(S) * B * width);
    for (int t = 0; t < S; ++t) {
      for (int b = 0; b < B; ++b) {
        for (int d = split ? k : 0; d < (split ? k + 1 : D); ++d) {
          for (int j = 0; j < Hs; ++j) {
            const size_t row = s.time_major ? static_cast<size_t>(t) * B + b : static_cast<size_t>(b) * S + t;
            outs[k][row * width + (split ? 0 : d * Hs) + j] = y[((static_cast<size_t>(t) * D + d) * B + b) * Hs + j];
          }
        }
      }
    }
  }
  return outs;
}

// ---- the TFLite model --------------------------------------------------------

template <int Act, bool TimeMajor, bool Merge>
flatbuffers::uoffset_t SequenceRnnOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(0), TimeMajor, 0);
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(1), Act, 0);
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(2), Merge, 0);
  return b->EndTable(start);
}

template <int Act>
flatbuffers::uoffset_t RnnOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(0), Act, 0);
  return b->EndTable(start);
}

// The LSTM options: fused activation 0, cell_clip 1, proj_clip 2, then
// `field3` and `field4` (time_major / merge_outputs / kernel_type).
struct LstmOptionValues {
  int act = 4;
  float cell_clip = 0, proj_clip = 0;
  int field3 = 0, field4 = -1;  // -1: not written
};
LstmOptionValues g_lstm_options;  // read by LstmOptions (the builder takes a plain function)
flatbuffers::uoffset_t LstmOptions(flatbuffers::FlatBufferBuilder* b) {
  const LstmOptionValues& v = g_lstm_options;
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(0), static_cast<int8_t>(v.act), 0);
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(1), v.cell_clip, 0.0f);
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(2), v.proj_clip, 0.0f);
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(3), static_cast<uint8_t>(v.field3), 0xFF);
  if (v.field4 >= 0) b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(4), static_cast<uint8_t>(v.field4), 0xFF);
  return b->EndTable(start);
}

// The RNN options by (activation, time_major, merge).
flatbuffers::uoffset_t (*RnnOptionsFor(const Spec& s))(flatbuffers::FlatBufferBuilder*) {
  if (s.one_step) return s.act == 1 ? RnnOptions<1> : RnnOptions<4>;
  if (s.act == 1) {
    return s.time_major ? (s.merge ? SequenceRnnOptions<1, true, true> : SequenceRnnOptions<1, true, false>)
                        : (s.merge ? SequenceRnnOptions<1, false, true> : SequenceRnnOptions<1, false, false>);
  }
  return s.time_major ? (s.merge ? SequenceRnnOptions<4, true, true> : SequenceRnnOptions<4, true, false>)
                      : (s.merge ? SequenceRnnOptions<4, false, true> : SequenceRnnOptions<4, false, false>);
}

// Appends the op of `s` reading tensor `x` (its tensors named from
// `prefix`) to `t`; returns the op.
// IEEE half bits of v, which must be zero or a normal fp16 value exactly.
uint16_t HalfBits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  if ((b & 0x7fffffffu) == 0) return static_cast<uint16_t>(sign);
  const uint32_t exponent = ((b >> 23) & 0xffu) - 127u + 15u;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((b >> 13) & 0x3ffu));
}

// Rounds every weight to a multiple of 1/256 (exact in fp16 below 4).
void RoundToFp16Grid(Weights* w) {
  auto round = [](std::vector<float>& v) {
    for (float& e : v) e = std::round(e * 256.0f) / 256.0f;
  };
  for (int k = 0; k < 4; ++k) {
    round(w->w[k]);
    round(w->r[k]);
    round(w->bias[k]);
    round(w->ln[k]);
  }
  for (int k = 0; k < 3; ++k) round(w->peep[k]);
  round(w->proj_w);
  round(w->proj_b);
}

// Appends the op of `s` reading tensor `x` (its tensors named from
// `prefix`) to `t`; returns the op. With s.fp16 its weights are fp16
// constants, each behind a DEQUANTIZE appended to `pre_ops`.
TfliteOp AppendOp(const Spec& s, const std::vector<Weights>& ws, int32_t x, const std::string& prefix,
                  std::vector<TfliteTensor>* tensors, std::vector<TfliteOp>* pre_ops = nullptr) {
  const int S = s.steps, B = s.batch, I = s.input, H = s.hidden, Hs = s.state();
  std::vector<TfliteTensor>& t = *tensors;
  auto add = [&](const std::string& name, const Shape& shape, const std::vector<float>& data) {
    if (s.fp16 && !data.empty() && pre_ops != nullptr) {
      TfliteTensor half{prefix + name + "_fp16", shape, {}, {}};
      for (float v : data) half.half_data.push_back(HalfBits(v));
      t.push_back(half);
      t.push_back({prefix + name, shape, {}, {}});
      const int32_t out = static_cast<int32_t>(t.size() - 1);
      TfliteOp dequantize;
      dequantize.builtin = 6;  // DEQUANTIZE
      dequantize.inputs = {out - 1};
      dequantize.outputs = {out};
      pre_ops->push_back(dequantize);
      return out;
    }
    t.push_back({prefix + name, shape, data, {}});
    return static_cast<int32_t>(t.size() - 1);
  };
  auto add_state = [&](const std::string& name, const Shape& shape) {
    TfliteTensor v{prefix + name, shape, {}, {}};
    v.variable = true;
    t.push_back(v);
    return static_cast<int32_t>(t.size() - 1);
  };
  std::vector<int32_t> in = {x};
  std::vector<int32_t> states;
  for (int d = 0; d < s.dirs(); ++d) {
    const Weights& w = ws[d];
    const std::string p = d == 0 ? "fw_" : "bw_";
    if (!s.lstm) {
      in.push_back(add(p + "w", {H, I}, w.w[0]));
      in.push_back(add(p + "r", {H, H}, w.r[0]));
      in.push_back(add(p + "b", {H}, w.bias[0]));
      in.push_back(add_state(p + "h", {B, H}));
      continue;
    }
    for (int k = 0; k < 4; ++k) in.push_back(k == 0 && s.cifg ? -1 : add(p + "w" + std::to_string(k), {H, I}, w.w[k]));
    for (int k = 0; k < 4; ++k) in.push_back(k == 0 && s.cifg ? -1 : add(p + "r" + std::to_string(k), {H, Hs}, w.r[k]));
    for (int k = 0; k < 3; ++k) {
      in.push_back(!s.peephole || (k == 0 && s.cifg) ? -1 : add(p + "p" + std::to_string(k), {H}, w.peep[k]));
    }
    for (int k = 0; k < 4; ++k) in.push_back(k == 0 && s.cifg ? -1 : add(p + "b" + std::to_string(k), {H}, w.bias[k]));
    in.push_back(s.projection > 0 ? add(p + "proj_w", {Hs, H}, w.proj_w) : -1);
    in.push_back(s.projection > 0 && s.proj_bias ? add(p + "proj_b", {Hs}, w.proj_b) : -1);
    if (!s.bidirectional) {
      in.push_back(add_state("h", {B, Hs}));
      in.push_back(add_state("c", {B, H}));
      for (int k = 0; k < 4; ++k) {
        in.push_back(!s.layer_norm || (k == 0 && s.cifg) ? -1 : add("ln" + std::to_string(k), {H}, w.ln[k]));
      }
    }
  }
  if (s.lstm && s.bidirectional) {
    for (int d = 0; d < 2; ++d) {
      states.push_back(add_state(std::string(d == 0 ? "fw" : "bw") + "_h", {B, Hs}));
      states.push_back(add_state(std::string(d == 0 ? "fw" : "bw") + "_c", {B, H}));
    }
    in.insert(in.end(), states.begin(), states.end());
    for (int k = 39; k < 48; ++k) in.push_back(-1);  // no auxiliary input
  }
  std::vector<int32_t> outs;
  const bool split = s.bidirectional && !s.merge;
  for (int k = 0; k < (split ? 2 : 1); ++k) {
    const int width = split ? Hs : s.dirs() * Hs;
    const Shape ys = s.one_step ? Shape{B, width} : s.time_major ? Shape{S, B, width} : Shape{B, S, width};
    outs.push_back(add("y" + std::to_string(k), ys, {}));
  }
  TfliteOp op;
  op.inputs = in;
  op.outputs = outs;
  if (s.lstm) {
    op.builtin = s.one_step ? kLstmOp : s.bidirectional ? kBiLstm : kUniLstm;
    op.options_type = s.one_step ? kLstmOptions : s.bidirectional ? kBiSequenceLstmOptions : kUniSequenceLstmOptions;
    g_lstm_options = {s.act, s.cell_clip, s.proj_clip, 0, -1};
    if (s.bidirectional) {
      g_lstm_options.field3 = s.merge;
      g_lstm_options.field4 = s.time_major;
    } else if (!s.one_step) {
      g_lstm_options.field3 = s.time_major;
    } else {
      g_lstm_options.field3 = s.kernel_type;
    }
    op.options = LstmOptions;
  } else {
    op.builtin = s.one_step ? kRnnOp : s.bidirectional ? kBiRnn : kUniRnn;
    op.options_type = s.one_step ? kRnnOptions : s.bidirectional ? kBiSequenceRnnOptions : kSequenceRnnOptions;
    op.options = RnnOptionsFor(s);
  }
  return op;
}

std::vector<uint8_t> BuildTflite(const Spec& s, const std::vector<Weights>& ws) {
  const Shape xs = s.one_step ? Shape{s.batch, s.input} : s.time_major ? Shape{s.steps, s.batch, s.input}
                                                                        : Shape{s.batch, s.steps, s.input};
  std::vector<TfliteTensor> t = {{"x", xs, {}, {}}};
  std::vector<TfliteOp> ops;
  const TfliteOp op = AppendOp(s, ws, 0, "", &t, &ops);
  ops.push_back(op);
  return testing::TfliteModel(t, ops, op.outputs);
}

// x [S, B, I] (steps first) in the model's input layout.
std::vector<float> ToModelInput(const Spec& s, const std::vector<float>& x) {
  if (s.time_major || s.one_step) return x;
  std::vector<float> out(x.size());
  for (int t = 0; t < s.steps; ++t) {
    for (int b = 0; b < s.batch; ++b) {
      std::copy(&x[(static_cast<size_t>(t) * s.batch + b) * s.input],
                &x[(static_cast<size_t>(t) * s.batch + b) * s.input] + s.input,
                &out[(static_cast<size_t>(b) * s.steps + t) * s.input]);
    }
  }
  return out;
}

// ---- the equivalent ONNX model on ONNX Runtime -------------------------------

// ONNX Runtime's Y [S, D, B, H] of the ONNX LSTM / RNN with the same weights
// (W, R, B, P in ONNX's gate order i, o, f, c; activations Sigmoid and the
// fused one). Only for what ONNX expresses: no CIFG, clip, projection or
// layer norm.
std::vector<float> OrtReference(const Spec& s, const std::vector<Weights>& ws, const std::vector<float>& x) {
  const int D = s.dirs(), H = s.hidden, I = s.input;
  const int tf_of_onnx[4] = {0, 3, 1, 2};  // ONNX gate g is TFLite's gate tf_of_onnx[g]
  const int gates = s.lstm ? 4 : 1;
  std::vector<float> w, r, b, p;
  for (int d = 0; d < D; ++d) {
    for (int g = 0; g < gates; ++g) {
      const int k = s.lstm ? tf_of_onnx[g] : 0;
      w.insert(w.end(), ws[d].w[k].begin(), ws[d].w[k].end());
      r.insert(r.end(), ws[d].r[k].begin(), ws[d].r[k].end());
    }
    for (int g = 0; g < gates; ++g) {
      const int k = s.lstm ? tf_of_onnx[g] : 0;
      b.insert(b.end(), ws[d].bias[k].begin(), ws[d].bias[k].end());
    }
    b.insert(b.end(), static_cast<size_t>(gates) * H, 0.0f);
    for (int k : {0, 2, 1}) p.insert(p.end(), ws[d].peep[k].begin(), ws[d].peep[k].end());  // i, o, f
  }
  OnnxGraph g;
  g.Input("x", {s.steps, s.batch, I});
  g.Initializer("w", {D, gates * H, I}, w);
  g.Initializer("r", {D, gates * H, H}, r);
  g.Initializer("b", {D, 2 * gates * H}, b);
  std::vector<std::string> inputs = {"x", "w", "r", "b"};
  if (s.lstm && s.peephole) {
    g.Initializer("p", {D, 3 * H}, p);
    inputs.insert(inputs.end(), {"", "", "", "p"});
  }
  onnx::NodeProto* n = g.Node(s.lstm ? "LSTM" : "RNN", inputs, {"y"});
  OnnxGraph::Attr(n, "hidden_size", static_cast<int64_t>(H));
  OnnxGraph::Attr(n, "direction", std::string(s.bidirectional ? "bidirectional" : "forward"));
  const std::string act = s.act == 1 ? "Relu" : "Tanh";
  onnx::AttributeProto* acts = n->add_attribute();
  acts->set_name("activations");
  acts->set_type(onnx::AttributeProto::STRINGS);
  for (int d = 0; d < D; ++d) {
    if (s.lstm) acts->add_strings("Sigmoid");
    acts->add_strings(act);
    if (s.lstm) acts->add_strings(act);
  }
  g.Output("y");
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/tflite_recurrent_equivalent.onnx";
  std::ofstream(path, std::ios::binary) << g.Serialize();
  auto ort = ort::OrtRunner::Create(path);
  EXPECT_TRUE(ort.ok()) << ort.status().ToString();
  if (!ort.ok()) return {};
  std::vector<ort::OrtTensor> outs;
  const Status st = (*ort)->Run({{"x", {s.steps, s.batch, I}, x}}, &outs);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return st.ok() && !outs.empty() ? outs[0].data : std::vector<float>{};
}

// ---- running the engine ---------------------------------------------------------

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::fabs(want[i]))) << what << " element " << i;
  }
}

std::vector<float> OutputValues(const Session& s, int k) {
  const Tensor* y = s.output(k);
  return std::vector<float>(y->data_as<float>(), y->data_as<float>() + y->num_elements());
}

// The model of `s` on random weights and inputs, on every policy and thread
// count, against the reference (and, with `ort`, the reference against ONNX
// Runtime).
void Check(const Spec& s, bool ort = false) {
  std::vector<Weights> ws;
  for (int d = 0; d < s.dirs(); ++d) ws.push_back(MakeWeights(s, s.seed + 100 * d));
  if (s.fp16) {
    for (Weights& w : ws) RoundToFp16Grid(&w);
  }
  const Spec steps_spec = s;
  const std::vector<float> x =
      RandomValues(static_cast<size_t>(s.one_step ? 1 : s.steps) * s.batch * s.input, -1.0f, 1.0f, s.seed + 1000);
  Spec ref_spec = s;
  if (s.one_step) ref_spec.steps = 1;
  const std::vector<float> y = Reference(ref_spec, ws, x);
  if (ort) {
    const std::vector<float> y_ort = OrtReference(ref_spec, ws, x);
    ExpectNear(y, y_ort, 1e-5f, "reference vs ONNX Runtime");
  }
  const std::vector<std::vector<float>> want = ToTfliteOutputs(ref_spec, y);
  const std::vector<uint8_t> bytes = BuildTflite(steps_spec, ws);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "recurrent.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& sess = **session;
    ASSERT_EQ(sess.num_inputs(), 1);  // the states are not inputs
    ASSERT_EQ(sess.num_outputs(), static_cast<int>(want.size()));
    const std::vector<float> in = ToModelInput(ref_spec, x);
    ASSERT_EQ(static_cast<size_t>(sess.input(0)->num_elements()), in.size());
    std::memcpy(sess.input(0)->data(), in.data(), in.size() * 4);
    ASSERT_TRUE(sess.Run().ok());
    if (config.algorithm != AlgorithmPolicy::kReference) {  // the packed-weights execution ran
      bool packed = false;
      for (const std::string& name : sess.KernelNames()) packed = packed || name.find("_gemm_") != std::string::npos;
      EXPECT_TRUE(packed);
    }
    for (size_t k = 0; k < want.size(); ++k) {
      ExpectNear(OutputValues(sess, static_cast<int>(k)), want[k], 2e-5f,
                 std::string(config.algorithm == AlgorithmPolicy::kReference ? "reference" : "optimized") +
                     " kernels, " + std::to_string(config.num_threads) + " threads, output " + std::to_string(k));
    }
  }
}

// ---- against ONNX Runtime -----------------------------------------------------

TEST(TfliteRecurrent, UnidirectionalLstmMatchesOrt) {
  for (bool time_major : {false, true}) {
    for (bool peephole : {false, true}) {
      Spec s;
      s.time_major = time_major;
      s.peephole = peephole;
      Check(s, true);
    }
  }
  Spec relu;
  relu.act = 1;
  relu.hidden = 40;  // across the GEMM panels
  Check(relu, true);
  Spec one_row;
  one_row.batch = 1;  // the recurrent product as a GEMV
  one_row.peephole = true;
  Check(one_row, true);
}

TEST(TfliteRecurrent, BidirectionalLstmMatchesOrt) {
  for (bool merge : {true, false}) {
    for (bool time_major : {true, false}) {
      Spec s;
      s.bidirectional = true;
      s.merge = merge;
      s.time_major = time_major;
      s.peephole = merge;
      Check(s, true);
    }
  }
}

TEST(TfliteRecurrent, RnnMatchesOrt) {
  for (bool bidirectional : {false, true}) {
    for (bool time_major : {false, true}) {
      Spec s;
      s.lstm = false;
      s.bidirectional = bidirectional;
      s.time_major = time_major;
      s.merge = !time_major;
      s.act = time_major ? 1 : 4;
      Check(s, true);
    }
  }
}

TEST(TfliteRecurrent, OneStepOpsMatchOrt) {
  Spec lstm;
  lstm.one_step = true;
  lstm.peephole = true;
  Check(lstm, true);
  Spec rnn;
  rnn.lstm = false;
  rnn.one_step = true;
  Check(rnn, true);
}

// ---- TFLite-only features, against the reference -------------------------------

TEST(TfliteRecurrent, CifgCellClipAndFusedActivations) {
  Spec cifg;
  cifg.cifg = true;
  cifg.peephole = true;
  Check(cifg);
  Spec clip;
  clip.cell_clip = 0.3f;
  clip.act = 0;  // NONE: the cell grows, the clip bites
  Check(clip);
  for (int act : {2, 3}) {
    Spec s;
    s.act = act;
    Check(s);
  }
}

TEST(TfliteRecurrent, ProjectionAndProjClip) {
  for (int projection : {3, 9}) {  // narrower and wider than the cells
    Spec s;
    s.projection = projection;
    s.peephole = true;
    Check(s);
    s.proj_clip = 0.2f;
    s.proj_bias = false;
    s.batch = 1;
    Check(s);
  }
  Spec bi;
  bi.bidirectional = true;
  bi.projection = 4;
  bi.merge = false;
  Check(bi);
}

TEST(TfliteRecurrent, LayerNormLstm) {
  Spec s;
  s.layer_norm = true;
  s.peephole = true;
  Check(s);
  s.cifg = true;
  s.projection = 4;
  s.cell_clip = 0.5f;
  s.hidden = 40;
  Check(s);
}

// An fp16 model: every weight an fp16 constant behind a DEQUANTIZE, which
// the converter reads through (the importer folds those nodes after the
// import).
TEST(TfliteRecurrent, Fp16WeightsBehindDequantize) {
  Spec lstm;
  lstm.fp16 = true;
  lstm.peephole = true;
  lstm.projection = 4;
  lstm.layer_norm = true;
  Check(lstm);
  Spec bi;
  bi.fp16 = true;
  bi.bidirectional = true;
  Check(bi, true);
  Spec rnn;
  rnn.fp16 = true;
  rnn.lstm = false;
  Check(rnn, true);
}

// One cell, one input, one step from zero states, by hand: x = 1, every
// weight 0.5 and bias 0 gives i = f = o = sigmoid(0.5) = 0.622459,
// g = tanh(0.5) = 0.462117, c = i g = 0.287649, h = o tanh(c) = 0.174270;
// a cell clip of 0.1 makes c 0.1 and h = o tanh(0.1) = 0.062039.
TEST(TfliteRecurrent, HandWorkedOneUnit) {
  for (float clip : {0.0f, 0.1f}) {
    Spec s;
    s.steps = 1;
    s.batch = 1;
    s.input = 1;
    s.hidden = 1;
    s.time_major = true;
    s.cell_clip = clip;
    Weights w;
    for (int k = 0; k < 4; ++k) {
      w.w[k] = {0.5f};
      w.r[k] = {0.5f};
      w.bias[k] = {0.0f};
    }
    const std::vector<uint8_t> bytes = BuildTflite(s, {w});
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "one_unit.tflite");
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    auto session = Session::Create(*model);
    ASSERT_TRUE(session.ok());
    (*session)->input(0)->data_as<float>()[0] = 1.0f;
    ASSERT_TRUE((*session)->Run().ok());
    EXPECT_NEAR((*session)->output(0)->data_as<float>()[0], clip > 0 ? 0.062039f : 0.174270f, 1e-6f);
  }
}

// What the engine cannot run is an UNIMPLEMENTED import error naming the
// node and the option.
TEST(TfliteRecurrent, UnsupportedFormsAreNamed) {
  auto import_error = [](const Spec& s, const std::vector<Weights>& ws) {
    const std::vector<uint8_t> bytes = BuildTflite(s, ws);
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "unsupported.tflite");
    EXPECT_FALSE(model.ok());
    return model.ok() ? Status::Ok() : model.status();
  };
  Spec basic;
  basic.one_step = true;
  basic.kernel_type = 1;
  Status st = import_error(basic, {MakeWeights(basic, 1)});
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("kernel_type"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("LSTM"), std::string::npos) << st.ToString();
  Spec sign_bit;
  sign_bit.act = 5;
  st = import_error(sign_bit, {MakeWeights(sign_bit, 1)});
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("fused_activation_function"), std::string::npos) << st.ToString();
}

// Layer norm, projection and its clip by hand: two cells, one input x = 1,
// one step from zero states. Every gate's input weights [1, -1] give the
// pre-activations [1, -1], normalized over the two cells to [1, -1] (mean 0,
// variance 1), times the coefficients 0.5 and plus the bias 0: [0.5, -0.5].
// So i = f = o = [sigmoid(0.5), sigmoid(-0.5)] = [0.622459, 0.377541],
// g = [0.462117, -0.462117], c = i g = [0.287649, -0.174468],
// o tanh(c) = [0.174270, -0.065208]; the projection [1, 1] plus 0.1 gives
// 0.209061, which proj_clip 0.05 clips to 0.05.
TEST(TfliteRecurrent, HandWorkedLayerNormProjection) {
  for (float proj_clip : {0.0f, 0.05f}) {
    Spec s;
    s.steps = 1;
    s.batch = 1;
    s.input = 1;
    s.hidden = 2;
    s.projection = 1;
    s.layer_norm = true;
    s.proj_clip = proj_clip;
    s.time_major = true;
    Weights w;
    for (int k = 0; k < 4; ++k) {
      w.w[k] = {1.0f, -1.0f};
      w.r[k] = {0.3f, 0.7f};  // the state is zero: no effect
      w.bias[k] = {0.0f, 0.0f};
      w.ln[k] = {0.5f, 0.5f};
    }
    w.proj_w = {1.0f, 1.0f};
    w.proj_b = {0.1f};
    const std::vector<uint8_t> bytes = BuildTflite(s, {w});
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "ln_projection.tflite");
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (const SessionConfig& config : testing::PolicyThreadConfigs({1})) {
      auto session = Session::Create(*model, config);
      ASSERT_TRUE(session.ok());
      (*session)->input(0)->data_as<float>()[0] = 1.0f;
      ASSERT_TRUE((*session)->Run().ok());
      EXPECT_NEAR((*session)->output(0)->data_as<float>()[0], proj_clip > 0 ? 0.05f : 0.209061f, 1e-5f);
    }
  }
}

// ---- variable tensors: state from run to run --------------------------------

// Runs the model of `s` (whose steps are half of x's) on x's first and
// second halves, then again on the first after ResetVariables; the two
// halves' outputs are the whole sequence's, the reset's the first run's.
void CheckStreaming(Spec s) {
  const int total = s.one_step ? 2 : 2 * s.steps;
  std::vector<Weights> ws = {MakeWeights(s, s.seed)};
  const std::vector<float> x = RandomValues(static_cast<size_t>(total) * s.batch * s.input, -1.0f, 1.0f, s.seed + 7);
  Spec whole = s;
  whole.one_step = false;
  whole.steps = total;
  whole.time_major = true;
  const std::vector<float> y = Reference(whole, ws, x);  // [total, 1, B, Hs]
  const int chunk = s.one_step ? 1 : s.steps, Hs = s.state();
  const size_t x_chunk = static_cast<size_t>(chunk) * s.batch * s.input;
  const size_t y_chunk = static_cast<size_t>(chunk) * s.batch * Hs;
  Spec part = s;
  part.steps = chunk;
  const std::vector<uint8_t> bytes = BuildTflite(part, ws);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "streaming.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->input_names().size(), 1u);
  EXPECT_EQ((*model)->output_names().size(), 1u);
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& sess = **session;
    EXPECT_EQ(sess.num_variables(), s.lstm ? 2 : 1);
    std::vector<float> first;
    for (int k = 0; k < 2; ++k) {
      const std::vector<float> xk(x.begin() + k * x_chunk, x.begin() + (k + 1) * x_chunk);
      Spec in_spec = part;
      const std::vector<float> in = ToModelInput(in_spec, xk);
      std::memcpy(sess.input(0)->data(), in.data(), in.size() * 4);
      ASSERT_TRUE(sess.Run().ok());
      Spec ref_spec = part;
      ref_spec.steps = chunk;
      const std::vector<float> yk(y.begin() + k * y_chunk, y.begin() + (k + 1) * y_chunk);
      const std::vector<float> want = ToTfliteOutputs(ref_spec, yk)[0];
      ExpectNear(OutputValues(sess, 0), want, 2e-5f, "chunk " + std::to_string(k));
      if (k == 0) first = OutputValues(sess, 0);
    }
    // A new stream: back to zero states.
    sess.ResetVariables();
    const std::vector<float> x0 = ToModelInput(part, std::vector<float>(x.begin(), x.begin() + x_chunk));
    std::memcpy(sess.input(0)->data(), x0.data(), x0.size() * 4);
    ASSERT_TRUE(sess.Run().ok());
    ExpectNear(OutputValues(sess, 0), first, 0.0f, "after ResetVariables");
  }
}

TEST(TfliteRecurrent, VariablesCarryStateAcrossRuns) {
  Spec lstm;
  lstm.steps = 3;
  lstm.peephole = true;
  CheckStreaming(lstm);
  Spec time_major = lstm;
  time_major.time_major = true;
  time_major.projection = 4;
  CheckStreaming(time_major);
  Spec rnn;
  rnn.lstm = false;
  rnn.steps = 3;
  CheckStreaming(rnn);
  Spec one_step;  // the one-step LSTM: one step per run
  one_step.one_step = true;
  CheckStreaming(one_step);
}

// Two stacked LSTMs (the second CIFG, layer norm, with a projection) and an
// RNN, time major: three operators, five variables, streamed in two chunks
// against the reference applied layer by layer to the whole sequence. The
// model is also written to $TEST_UNDECLARED_OUTPUTS_DIR (the fuzzers' seed
// tests/inference/fuzz/seeds/tflite/stacked_recurrent.tflite is that file).
TEST(TfliteRecurrent, StackedLayersStream) {
  Spec a;
  a.time_major = true;
  a.steps = 3;
  a.peephole = true;
  Spec b = a;
  b.input = a.hidden;
  b.hidden = 4;
  b.projection = 3;
  b.layer_norm = true;
  b.cifg = true;
  b.seed = 7;
  Spec c = a;
  c.lstm = false;
  c.input = b.projection;
  c.hidden = 5;
  c.seed = 11;
  const std::vector<Weights> wa = {MakeWeights(a, a.seed)}, wb = {MakeWeights(b, b.seed)}, wc = {MakeWeights(c, c.seed)};
  std::vector<TfliteTensor> t = {{"x", {a.steps, a.batch, a.input}, {}, {}}};
  const TfliteOp op_a = AppendOp(a, wa, 0, "l1/", &t);
  const TfliteOp op_b = AppendOp(b, wb, op_a.outputs[0], "l2/", &t);
  const TfliteOp op_c = AppendOp(c, wc, op_b.outputs[0], "l3/", &t);
  const std::vector<uint8_t> bytes = testing::TfliteModel(t, {op_a, op_b, op_c}, op_c.outputs);
  if (const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    std::ofstream(std::string(dir) + "/stacked_recurrent.tflite", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  // The whole sequence, steps first ([S, 1, B, H] is [S, B, H]).
  const int total = 2 * a.steps;
  const std::vector<float> x = RandomValues(static_cast<size_t>(total) * a.batch * a.input, -1.0f, 1.0f, 21);
  Spec a6 = a, b6 = b, c6 = c;
  a6.steps = b6.steps = c6.steps = total;
  const std::vector<float> y = Reference(c6, wc, Reference(b6, wb, Reference(a6, wa, x)));
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "stacked.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& sess = **session;
    EXPECT_EQ(sess.num_variables(), 5);
    ASSERT_EQ(sess.num_inputs(), 1);
    ASSERT_EQ(sess.num_outputs(), 1);
    const size_t x_chunk = static_cast<size_t>(a.steps) * a.batch * a.input;
    const size_t y_chunk = static_cast<size_t>(a.steps) * a.batch * c.hidden;
    std::vector<float> first;
    for (int k = 0; k < 3; ++k) {
      const int chunk = k % 2;  // the third run: the first chunk again after a reset
      if (k == 2) sess.ResetVariables();
      std::memcpy(sess.input(0)->data(), x.data() + chunk * x_chunk, x_chunk * 4);
      ASSERT_TRUE(sess.Run().ok());
      ExpectNear(OutputValues(sess, 0), std::vector<float>(y.begin() + chunk * y_chunk, y.begin() + (chunk + 1) * y_chunk),
                 5e-5f, "run " + std::to_string(k));
    }
  }
}

// The imported graph exported to ONNX (onnx_exporter.h: the recurrent op
// as ONNX's LSTM / RNN, the variables as explicit state inputs and
// outputs) and run by ONNX Runtime, chunk by chunk with the state outputs
// fed back as the next chunk's state inputs: the engine's streaming runs
// (state carried inside the session) give the same outputs.
TEST(TfliteRecurrent, ExportedGraphStreamsLikeTheEngine) {
  Spec uni;
  uni.steps = 3;
  uni.peephole = true;
  Spec bi;
  bi.bidirectional = true;
  bi.merge = false;
  bi.time_major = true;
  bi.steps = 3;
  Spec rnn;
  rnn.lstm = false;
  rnn.bidirectional = true;
  rnn.steps = 3;
  rnn.act = 1;
  Spec one_step;
  one_step.one_step = true;
  for (const Spec& s : {uni, bi, rnn, one_step}) {
    std::vector<Weights> ws;
    for (int d = 0; d < s.dirs(); ++d) ws.push_back(MakeWeights(s, s.seed + 100 * d));
    const std::vector<uint8_t> bytes = BuildTflite(s, ws);
    LoadOptions raw;
    raw.optimize = false;
    auto imported = Model::FromBuffer(bytes.data(), bytes.size(), "exported.tflite", raw);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    const ir::Graph& g = (*imported)->graph();
    auto onnx = onnx_export::ExportOnnx(g);
    ASSERT_TRUE(onnx.ok()) << onnx.status().ToString();
    const std::string path = ::testing::TempDir() + "/tflite_recurrent.exported.onnx";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << *onnx;
    auto runner = ort::OrtRunner::Create(path);
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "exported.tflite");
    ASSERT_TRUE(model.ok());
    auto session = Session::Create(*model);
    ASSERT_TRUE(session.ok());
    Session& sess = **session;
    ASSERT_EQ(g.variables.size(), static_cast<size_t>(sess.num_variables()));
    // ORT's inputs: x, then the variables (zeros at first).
    std::vector<ort::OrtTensor> inputs;
    for (int id : g.inputs) {
      const ir::TensorInfo& t = g.tensors[id];
      inputs.push_back({t.name, std::vector<int64_t>(t.shape.begin(), t.shape.end()),
                        std::vector<float>(static_cast<size_t>(NumElements(t.shape)), 0.0f)});
    }
    for (int chunk = 0; chunk < 3; ++chunk) {
      inputs[0].data = RandomValues(inputs[0].data.size(), -1.0f, 1.0f, 50 + chunk);
      std::vector<ort::OrtTensor> outs;
      const Status run = (*runner)->Run(inputs, &outs);
      ASSERT_TRUE(run.ok()) << run.ToString();
      ASSERT_EQ(outs.size(), g.outputs.size());
      std::memcpy(sess.input(0)->data(), inputs[0].data.data(), inputs[0].data.size() * 4);
      ASSERT_TRUE(sess.Run().ok());
      for (int k = 0; k < sess.num_outputs(); ++k) {
        ExpectNear(OutputValues(sess, k), outs[k].data, 2e-5f,
                   "op " + std::to_string(s.lstm) + std::to_string(s.bidirectional) + ", chunk " +
                       std::to_string(chunk) + ", output " + std::to_string(k));
      }
      // The state outputs feed the next chunk's state inputs.
      for (size_t v = 0; v < g.variables.size(); ++v) {
        inputs[g.num_user_inputs() + v].data = outs[g.num_user_outputs() + v].data;
      }
    }
    std::remove(path.c_str());
  }
}

// Without a run in between, runs repeat; a third run continues from the
// second's state (its output differs from the first's on the same input).
TEST(TfliteRecurrent, RunsOnTheSameInputAdvanceTheState) {
  Spec s;
  s.steps = 2;
  std::vector<Weights> ws = {MakeWeights(s, 3)};
  const std::vector<uint8_t> bytes = BuildTflite(s, ws);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "state.tflite");
  ASSERT_TRUE(model.ok());
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  const std::vector<float> x = RandomValues(static_cast<size_t>(s.steps) * s.batch * s.input, -1.0f, 1.0f, 5);
  std::memcpy((*session)->input(0)->data(), x.data(), x.size() * 4);
  ASSERT_TRUE((*session)->Run().ok());
  const std::vector<float> first = OutputValues(**session, 0);
  ASSERT_TRUE((*session)->Run().ok());
  const std::vector<float> second = OutputValues(**session, 0);
  float diff = 0.0f;
  for (size_t i = 0; i < first.size(); ++i) diff = std::max(diff, std::fabs(first[i] - second[i]));
  EXPECT_GT(diff, 1e-3f);
  // Resize re-plans: the state starts again at zero.
  ASSERT_TRUE((*session)->Resize({}).ok());
  std::memcpy((*session)->input(0)->data(), x.data(), x.size() * 4);
  ASSERT_TRUE((*session)->Run().ok());
  ExpectNear(OutputValues(**session, 0), first, 0.0f, "after Resize");
}

// Carrying the state is a copy: runs with the optimized kernels (the
// projection too) and ResetVariables allocate nothing.
TEST(TfliteRecurrent, StreamingRunsDoNotAllocate) {
  Spec s;
  s.steps = 3;
  s.peephole = true;
  s.projection = 4;
  const std::vector<uint8_t> bytes = BuildTflite(s, {MakeWeights(s, 9)});
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "alloc.tflite");
  ASSERT_TRUE(model.ok());
  for (int threads : {1, 2}) {
    SessionConfig config;
    config.num_threads = threads;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*session)->Run().ok());  // warm-up
    rill::testing::StartCountingAllocations();
    for (int k = 0; k < 3; ++k) ASSERT_TRUE((*session)->Run().ok());
    (*session)->ResetVariables();
    ASSERT_TRUE((*session)->Run().ok());
    const long allocations = rill::testing::StopCountingAllocations();
    EXPECT_EQ(allocations, 0) << threads << " thread(s)";
  }
}

}  // namespace
}  // namespace rill::inference
