// Descriptors, shape function and activation functions of LSTM, GRU and RNN
// (recurrent_ops.h).
#include "inference/ir/ops/recurrent_ops.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status RecurrentShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 11));
  const auto* a = c.node().attrs_as<RecurrentAttrs>();
  if (a == nullptr) return c.Error("missing RecurrentAttrs");
  const int g = GatesOf(a->kind), h = a->hidden, d = a->directions;
  if (h < 1) return c.Error("hidden size " + std::to_string(h) + " must be >= 1");
  if (d != 1 && d != 2) return c.Error("directions must be 1 or 2");
  if (static_cast<int>(a->functions.size()) != d * FunctionsPerDirection(a->kind)) {
    return c.Error("expected " + std::to_string(d * FunctionsPerDirection(a->kind)) + " activation functions");
  }
  if (!(a->clip >= 0.0f)) return c.Error("clip must be >= 0");
  if (!(a->cell_clip >= 0.0f) || !(a->proj_clip >= 0.0f)) return c.Error("cell_clip and proj_clip must be >= 0");
  if (a->projection < 0) return c.Error("projection must be >= 0");
  const bool tflite_features = a->input_from_forget || a->cell_clip > 0.0f || a->projection > 0 || a->layer_norm;
  if (tflite_features && a->kind != RecurrentKind::kLstm) {
    return c.Error("CIFG, cell_clip, projection and layer norm are LSTM's");
  }
  if (a->input_from_forget && a->input_forget) return c.Error("input_forget and input_from_forget exclude each other");
  const int hs = StateWidthOf(*a);
  const Shape& x = c.In(0);
  if (x.size() != 3) return c.Error("X " + ShapeToString(x) + " must be [steps, batch, input]");
  const int steps = x[0], batch = x[1], in = x[2];
  auto expect = [&](size_t k, const Shape& want, const char* what) -> Status {
    if (k >= c.node().inputs.size() || c.node().inputs[k] < 0) return Status::Ok();
    if (c.In(k) != want) {
      return c.Error(std::string(what) + " " + ShapeToString(c.In(k)) + " must be " + ShapeToString(want));
    }
    return Status::Ok();
  };
  RILL_INF_RETURN_IF_ERROR(expect(1, {d, g * h, in}, "W"));
  RILL_INF_RETURN_IF_ERROR(expect(2, {d, g * h, hs}, "R"));
  RILL_INF_RETURN_IF_ERROR(expect(3, {d, 2 * g * h}, "B"));
  RILL_INF_RETURN_IF_ERROR(expect(4, {d, batch, hs}, "initial_h"));
  auto present = [&](size_t k) { return k < c.node().inputs.size() && c.node().inputs[k] >= 0; };
  if (a->kind == RecurrentKind::kLstm) {
    RILL_INF_RETURN_IF_ERROR(expect(5, {d, batch, h}, "initial_c"));
    RILL_INF_RETURN_IF_ERROR(expect(6, {d, 3 * h}, "P"));
    if (a->projection > 0) {
      if (!present(7)) return c.Error("a projection needs its weights (input 7)");
      RILL_INF_RETURN_IF_ERROR(expect(7, {d, a->projection, h}, "projection weights"));
      RILL_INF_RETURN_IF_ERROR(expect(8, {d, a->projection}, "projection bias"));
    } else if (present(7) || present(8)) {
      return c.Error("projection inputs without attrs.projection");
    }
    if (a->layer_norm) {
      if (!present(9) || !present(10)) return c.Error("layer norm needs its coefficients and gate bias (inputs 9, 10)");
      RILL_INF_RETURN_IF_ERROR(expect(9, {d, 4 * h}, "layer-norm coefficients"));
      RILL_INF_RETURN_IF_ERROR(expect(10, {d, 4 * h}, "layer-norm gate bias"));
      if (present(3)) return c.Error("with layer norm the gates' bias is input 10, not B");
    } else if (present(9) || present(10)) {
      return c.Error("layer-norm inputs without attrs.layer_norm");
    }
  } else if (c.node().inputs.size() > 5) {
    return c.Error("only LSTM takes initial_c and P");
  }
  if (!a->sequence_lens.empty()) {
    if (static_cast<int>(a->sequence_lens.size()) != batch) {
      return c.Error("sequence_lens has " + std::to_string(a->sequence_lens.size()) + " values for a batch of " +
                     std::to_string(batch));
    }
    for (int len : a->sequence_lens) {
      if (len < 0 || len > steps) {
        return c.Error("sequence length " + std::to_string(len) + " outside [0, " + std::to_string(steps) + "]");
      }
    }
  }
  return c.SetOut({steps + ExtraRowsOf(a->kind), d, batch, OutputWidthOf(*a)});
}

const char* const kNames[] = {"LSTM", "GRU", "RNN"};

const OpType* Ids() {
  static const OpType ids[3] = {RegisterOp({OpType::kRegisteredOp, kNames[0], RecurrentShape}),
                                RegisterOp({OpType::kRegisteredOp, kNames[1], RecurrentShape}),
                                RegisterOp({OpType::kRegisteredOp, kNames[2], RecurrentShape})};
  return ids;
}

const bool kRegistered = (Ids(), true);

}  // namespace

int GatesOf(RecurrentKind kind) { return kind == RecurrentKind::kLstm ? 4 : kind == RecurrentKind::kGru ? 3 : 1; }
int FunctionsPerDirection(RecurrentKind kind) {
  return kind == RecurrentKind::kLstm ? 3 : kind == RecurrentKind::kGru ? 2 : 1;
}
int ExtraRowsOf(RecurrentKind kind) { return kind == RecurrentKind::kLstm ? 2 : 1; }
int StateWidthOf(const RecurrentAttrs& a) { return a.projection > 0 ? a.projection : a.hidden; }
int OutputWidthOf(const RecurrentAttrs& a) { return std::max(StateWidthOf(a), a.hidden); }

OpType RecurrentOp(RecurrentKind kind) { return Ids()[static_cast<int>(kind)]; }

bool IsRecurrentOp(OpType type, RecurrentKind* kind) {
  for (int i = 0; i < 3; ++i) {
    if (Ids()[i] == type) {
      if (kind != nullptr) *kind = static_cast<RecurrentKind>(i);
      return true;
    }
  }
  return false;
}

bool RecurrentActivationByName(const std::string& name, RecurrentFunction* f) {
  struct Entry {
    const char* name;
    RecurrentActivation fn;
    float alpha, beta;  // ONNX's defaults (those of the operators of the same names)
  };
  static const Entry kEntries[] = {
      {"Sigmoid", RecurrentActivation::kSigmoid, 0.0f, 0.0f},
      {"Tanh", RecurrentActivation::kTanh, 0.0f, 0.0f},
      {"Relu", RecurrentActivation::kRelu, 0.0f, 0.0f},
      {"Affine", RecurrentActivation::kAffine, 1.0f, 0.0f},
      {"LeakyRelu", RecurrentActivation::kLeakyRelu, 0.01f, 0.0f},
      {"ThresholdedRelu", RecurrentActivation::kThresholdedRelu, 1.0f, 0.0f},
      {"ScaledTanh", RecurrentActivation::kScaledTanh, 1.0f, 1.0f},
      {"HardSigmoid", RecurrentActivation::kHardSigmoid, 0.2f, 0.5f},
      {"Elu", RecurrentActivation::kElu, 1.0f, 0.0f},
      {"Softsign", RecurrentActivation::kSoftsign, 0.0f, 0.0f},
      {"Softplus", RecurrentActivation::kSoftplus, 0.0f, 0.0f},
  };
  for (const Entry& e : kEntries) {
    // ONNX's names are case-insensitive for these (PyTorch writes "Tanh").
    if (name.size() == std::char_traits<char>::length(e.name) &&
        std::equal(name.begin(), name.end(), e.name,
                   [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); })) {
      f->fn = e.fn;
      f->alpha = e.alpha;
      f->beta = e.beta;
      return true;
    }
  }
  return false;
}

bool RecurrentActivationTakesAlpha(RecurrentActivation fn) {
  switch (fn) {
    case RecurrentActivation::kAffine:
    case RecurrentActivation::kLeakyRelu:
    case RecurrentActivation::kThresholdedRelu:
    case RecurrentActivation::kScaledTanh:
    case RecurrentActivation::kHardSigmoid:
    case RecurrentActivation::kElu: return true;
    default: return false;
  }
}

bool RecurrentActivationTakesBeta(RecurrentActivation fn) {
  return fn == RecurrentActivation::kAffine || fn == RecurrentActivation::kScaledTanh ||
         fn == RecurrentActivation::kHardSigmoid;
}

float ApplyRecurrentActivation(const RecurrentFunction& f, float x) {
  switch (f.fn) {
    case RecurrentActivation::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case RecurrentActivation::kTanh: return std::tanh(x);
    case RecurrentActivation::kRelu: return std::max(x, 0.0f);
    case RecurrentActivation::kAffine: return f.alpha * x + f.beta;
    case RecurrentActivation::kLeakyRelu: return x >= 0.0f ? x : f.alpha * x;
    case RecurrentActivation::kThresholdedRelu: return x > f.alpha ? x : 0.0f;
    case RecurrentActivation::kScaledTanh: return f.alpha * std::tanh(f.beta * x);
    case RecurrentActivation::kHardSigmoid: return std::min(std::max(f.alpha * x + f.beta, 0.0f), 1.0f);
    case RecurrentActivation::kElu: return x >= 0.0f ? x : f.alpha * (std::exp(x) - 1.0f);
    case RecurrentActivation::kSoftsign: return x / (1.0f + std::fabs(x));
    case RecurrentActivation::kSoftplus: return std::max(x, 0.0f) + std::log1p(std::exp(-std::fabs(x)));
    case RecurrentActivation::kClamp: return std::min(std::max(x, f.alpha), f.beta);
  }
  return x;
}

}  // namespace rill::inference::ir
