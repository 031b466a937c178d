// The signal ops of opset 17 (and DFT's opset-20 form), at import:
// - HannWindow, HammingWindow, BlackmanWindow: constants (the size must be
//   a constant), periodic or symmetric, computed in double as ONNX Runtime.
// - MelWeightMatrix: a constant, ONNX Runtime's triangles (its mel step is
//   the range over num_mel_bins + 2, its bin edges floor((dft_length + 1) *
//   hz / sample_rate)).
// - DFT: a FULLY_CONNECTED by a constant DFT matrix. The signal axis is
//   moved next to the complex axis (a TRANSPOSE where it is not) and the
//   rest flattened into rows: [rows, n * c] x [n * c, 2k] gives each row's
//   spectrum with its real and imaginary parts interleaved, as ONNX's last
//   axis of 2. Real (c = 1) or complex (c = 2) input, onesided (k = n / 2 +
//   1), inverse (e^{+i}, divided by the length), dft_length (samples past
//   the input are zeros, samples past dft_length are dropped: the matrix's
//   rows). That is O(n) multiply-adds per output, as a naive DFT, but on the
//   kernel table's GEMM, all outputs of a row at once: for the lengths audio
//   front ends use (n <= 2048) it is the fast path; past 2^25 matrix
//   elements (n * c * 2k) it is UNIMPLEMENTED rather than a huge constant.
// - STFT: its frames are a GATHER of constant indices [frames,
//   frame_length] along the signal axis, then the DFT above with the window
//   folded into the matrix (a window computed at run time: a MUL first).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

constexpr int64_t kMaxDftMatrix = int64_t{1} << 25;

StatusOr<int64_t> ConstScalar(ConverterContext& c, int input, const char* what) {
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(input));
  if (!c.IsConst(v.id)) return c.Unsupported(std::string(what) + " computed at run time (a constant is supported)");
  const std::vector<int64_t> x = c.ConstInts(v.id);
  if (x.size() != 1) return c.Invalid(std::string(what) + " must hold one value");
  return x[0];
}

StatusOr<double> ConstFloatScalar(ConverterContext& c, int input, const char* what) {
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(input));
  if (!c.IsConst(v.id)) return c.Unsupported(std::string(what) + " computed at run time (a constant is supported)");
  const std::vector<float> x = c.ConstFloats(v.id);
  if (x.size() != 1) return c.Invalid(std::string(what) + " must hold one value");
  return static_cast<double>(x[0]);
}

bool IntegerType(int64_t t) { return t == 2 || t == 3 || t == 4 || t == 5 || t == 6 || t == 7 || t == 12 || t == 13; }

// A constant of the node's output_datatype (float types as float32; integer
// types truncated toward zero).
Status DefineTyped(ConverterContext& c, const Shape& shape, const std::vector<double>& v) {
  const int64_t type = c.AttrInt("output_datatype", kFloat);
  if (IntegerType(type)) {
    std::vector<int64_t> iv(v.size());
    for (size_t i = 0; i < v.size(); ++i) iv[i] = static_cast<int64_t>(v[i]);
    c.Define(c.NewIntConst(c.out_name(), iv, &shape), false);
  } else if (type == kFloat || type == kDouble || type == kFloat16 || type == 16) {
    c.Define(c.NewFloatConst(c.out_name(), shape, std::vector<float>(v.begin(), v.end())), false);
  } else {
    return c.UnsupportedAttribute("output_datatype", "output_datatype " + std::to_string(type));
  }
  return Status::Ok();
}

Status Window(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(int64_t size, ConstScalar(c, 0, "size"));
  if (size < 1 || size > (1 << 24)) return c.Invalid("size must be in 1..2^24");
  const bool periodic = c.AttrInt("periodic", 1) != 0;
  const double n_den = periodic ? static_cast<double>(size) : static_cast<double>(size - 1);
  const std::string& op = c.op_type();
  std::vector<double> v(static_cast<size_t>(size));
  const double pi = 3.14159265358979323846;
  for (int64_t i = 0; i < size; ++i) {
    const double a = n_den == 0.0 ? 0.0 : 2.0 * pi * static_cast<double>(i) / n_den;
    if (op == "HannWindow") {
      v[i] = 0.5 - 0.5 * std::cos(a);
    } else if (op == "HammingWindow") {
      const double a0 = 25.0 / 46.0;
      v[i] = a0 - (1.0 - a0) * std::cos(a);
    } else {  // BlackmanWindow
      v[i] = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2.0 * a);
    }
  }
  return DefineTyped(c, {static_cast<int>(size)}, v);
}

Status MelWeightMatrix(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(int64_t mels, ConstScalar(c, 0, "num_mel_bins"));
  RILL_INF_ASSIGN_OR_RETURN(int64_t dft_length, ConstScalar(c, 1, "dft_length"));
  RILL_INF_ASSIGN_OR_RETURN(int64_t sample_rate, ConstScalar(c, 2, "sample_rate"));
  RILL_INF_ASSIGN_OR_RETURN(double lower, ConstFloatScalar(c, 3, "lower_edge_hertz"));
  RILL_INF_ASSIGN_OR_RETURN(double upper, ConstFloatScalar(c, 4, "upper_edge_hertz"));
  if (mels < 1 || dft_length < 1 || sample_rate < 1 || mels > (1 << 16) || dft_length > (1 << 24)) {
    return c.Invalid("num_mel_bins, dft_length and sample_rate must be positive");
  }
  if (!(lower >= 0.0) || !(upper > lower)) return c.Invalid("the edges must satisfy 0 <= lower < upper");
  const int64_t bins = dft_length / 2 + 1;
  if (bins * mels > (int64_t{1} << 26)) return c.Unsupported("MelWeightMatrix larger than 2^26 elements");
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  auto to_hz = [](double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); };
  const double low_mel = to_mel(lower), high_mel = to_mel(upper);
  const double step = (high_mel - low_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (size_t i = 0; i < edge.size(); ++i) {
    const double hz = to_hz(low_mel + step * static_cast<double>(i));
    const double bin = static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate);
    edge[i] = static_cast<int64_t>(std::floor(bin));
  }
  std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
  auto set = [&](int64_t row, int64_t col, double value) {
    if (row >= 0 && row < bins) w[static_cast<size_t>(row * mels + col)] = value;
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t lo = edge[i], mid = edge[i + 1], hi = edge[i + 2];
    if (mid == lo) {
      set(mid, i, 1.0);
    } else {
      for (int64_t j = lo; j <= mid; ++j) {
        set(j, i, static_cast<double>(static_cast<float>(j - lo) / static_cast<float>(mid - lo)));
      }
    }
    for (int64_t j = mid; j < hi; ++j) {
      set(j, i, static_cast<double>(static_cast<float>(hi - j) / static_cast<float>(hi - mid)));
    }
  }
  return DefineTyped(c, {static_cast<int>(bins), static_cast<int>(mels)}, w);
}

// The DFT matrix as FULLY_CONNECTED weights [2k, n * c]: output 2j + o (o 0
// real, 1 imaginary) from input sample s, part p. `window` (empty: none)
// scales sample s.
std::vector<float> DftWeights(int64_t n, int64_t c, int64_t length, int64_t k, bool inverse,
                              const std::vector<float>& window) {
  std::vector<float> w(static_cast<size_t>(2 * k * n * c), 0.0f);
  const double pi = 3.14159265358979323846;
  const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  const double sign = inverse ? 1.0 : -1.0;  // e^{sign i theta}
  const int64_t used = std::min(n, length);
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t s = 0; s < used; ++s) {
      const double theta = 2.0 * pi * static_cast<double>((j * s) % length) / static_cast<double>(length);
      const double cs = std::cos(theta) * scale, sn = sign * std::sin(theta) * scale;
      const double win = window.empty() ? 1.0 : static_cast<double>(window[s]);
      // (xr + i xi)(cs + i sn) = xr cs - xi sn + i (xr sn + xi cs)
      float* re = &w[static_cast<size_t>((2 * j) * n * c + s * c)];
      float* im = &w[static_cast<size_t>((2 * j + 1) * n * c + s * c)];
      re[0] = static_cast<float>(cs * win);
      im[0] = static_cast<float>(sn * win);
      if (c == 2) {
        re[1] = static_cast<float>(-sn * win);
        im[1] = static_cast<float>(cs * win);
      }
    }
  }
  return w;
}

// x [rows..., n, c] (the signal axis second to last) -> [rows..., k, 2].
StatusOr<int> DftLastAxis(ConverterContext& c, int x, int64_t length, bool onesided, bool inverse,
                          const std::vector<float>& window, const std::string& name) {
  const Shape s = c.ShapeOf(x);
  const int rank = static_cast<int>(s.size());
  const int64_t n = s[rank - 2], parts = s[rank - 1];
  if (parts != 1 && parts != 2) return c.Invalid("the last axis must be 1 (real) or 2 (complex)");
  if (length < 1 || length > (1 << 24)) return c.Invalid("dft_length must be positive");
  const int64_t k = onesided ? length / 2 + 1 : length;
  if (2 * k * n * parts > kMaxDftMatrix) {
    return c.Unsupported("a DFT matrix of " + std::to_string(2 * k * n * parts) + " elements (at most 2^25)");
  }
  int64_t rows = 1;
  for (int d = 0; d < rank - 2; ++d) rows *= s[d];
  ir::OpAttrs flat;
  flat.new_shape = {static_cast<int>(rows), static_cast<int>(n * parts)};
  RILL_INF_ASSIGN_OR_RETURN(int x2, c.Emit(OpType::kReshape, {x}, name + "/rows", flat));
  const int w = c.NewFloatConst(name + "/dft_matrix", {static_cast<int>(2 * k), static_cast<int>(n * parts)},
                                DftWeights(n, parts, length, k, inverse, window));
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kFullyConnected, {x2, w}, name + "/spectra"));
  ir::OpAttrs back;
  back.new_shape.assign(s.begin(), s.end() - 2);
  back.new_shape.push_back(static_cast<int>(k));
  back.new_shape.push_back(2);
  return c.Emit(OpType::kReshape, {y}, name, back);
}

Status Dft(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const Shape s = c.ShapeOf(x);
  const int rank = static_cast<int>(s.size());
  if (rank < 3 || ir::HasDynamicDim(s)) return c.Invalid("input must be [batch, signal..., 1 or 2] of known sizes");
  const bool inverse = c.AttrInt("inverse", 0) != 0, onesided = c.AttrInt("onesided", 0) != 0;
  if (inverse && onesided) return c.UnsupportedAttribute("onesided", "onesided with inverse");
  if (onesided && s[rank - 1] == 2) return c.UnsupportedAttribute("onesided", "onesided with a complex input");
  int64_t axis = c.opset() >= 20 ? -2 : c.AttrInt("axis", 1);
  if (c.opset() >= 20 && c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(axis, ConstScalar(c, 2, "axis"));
  }
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank - 2) return c.Invalid("axis " + std::to_string(axis) + " out of range");
  int64_t length = s[axis];
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(length, ConstScalar(c, 1, "dft_length"));
  }
  const std::string base = c.out_name();
  const bool moved = axis != rank - 2;
  std::vector<int> perm;
  if (moved) {  // the signal axis next to the complex one
    for (int d = 0; d < rank - 1; ++d) {
      if (d != axis) perm.push_back(d);
    }
    perm.push_back(static_cast<int>(axis));
    perm.push_back(rank - 1);
    ir::OpAttrs t;
    t.perm = perm;
    RILL_INF_ASSIGN_OR_RETURN(x, c.Emit(OpType::kTranspose, {x}, base + "/signal_last", t));
  }
  RILL_INF_ASSIGN_OR_RETURN(int y, DftLastAxis(c, x, length, onesided, inverse, {}, moved ? base + "/moved" : base));
  if (moved) {
    ir::OpAttrs t;
    t.perm.assign(rank, 0);
    for (int d = 0; d < rank; ++d) t.perm[perm[d]] = d;  // the inverse permutation
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kTranspose, {y}, base, t));
  }
  c.Define(y, false);
  return Status::Ok();
}

Status Stft(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const Shape s = c.ShapeOf(x);
  if (s.size() != 3 || ir::HasDynamicDim(s)) return c.Invalid("signal must be [batch, length, 1 or 2]");
  RILL_INF_ASSIGN_OR_RETURN(int64_t step, ConstScalar(c, 1, "frame_step"));
  const bool onesided = c.AttrInt("onesided", 1) != 0;
  if (onesided && s[2] == 2) return c.UnsupportedAttribute("onesided", "onesided with a complex signal");
  int window = -1;
  int64_t frame = -1;
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(Value wv, c.Input(2));
    RILL_INF_ASSIGN_OR_RETURN(window, c.ToNchw(wv));
    const Shape ws = c.ShapeOf(window);
    if (ws.size() != 1) return c.Invalid("window must be 1-D");
    frame = ws[0];
  }
  if (c.HasInput(3)) {
    RILL_INF_ASSIGN_OR_RETURN(int64_t fl, ConstScalar(c, 3, "frame_length"));
    if (frame >= 0 && fl != frame) return c.Invalid("frame_length differs from the window's length");
    frame = fl;
  }
  if (frame < 1) return c.Invalid("needs a window or a frame_length");
  if (step < 1) return c.Invalid("frame_step must be positive");
  if (frame > s[1]) return c.Invalid("frame_length longer than the signal");
  const int64_t frames = (s[1] - frame) / step + 1;
  if (frames * frame > (int64_t{1} << 26)) return c.Unsupported("more than 2^26 frame samples");
  const std::string base = c.out_name();
  std::vector<int64_t> idx(static_cast<size_t>(frames * frame));
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t i = 0; i < frame; ++i) idx[static_cast<size_t>(f * frame + i)] = f * step + i;
  }
  const Shape is = {static_cast<int>(frames), static_cast<int>(frame)};
  const int idx_id = c.NewIntConst(base + "/frame_positions", idx, &is);
  auto ga = std::make_shared<ir::AxisAttrs>();
  ga->axis = 1;
  RILL_INF_ASSIGN_OR_RETURN(int framed, c.Emit(ir::GatherOp(), {x, idx_id}, base + "/frames", {}, ga));
  std::vector<float> wv;
  if (window >= 0 && c.IsConst(window)) {
    wv = c.ConstFloats(window);
  } else if (window >= 0) {
    ir::OpAttrs r;
    r.new_shape = {static_cast<int>(frame), 1};
    RILL_INF_ASSIGN_OR_RETURN(int w2, c.Emit(OpType::kReshape, {window}, base + "/window", r));
    RILL_INF_ASSIGN_OR_RETURN(framed, c.Emit(OpType::kMul, {framed, w2}, base + "/windowed"));
  }
  RILL_INF_ASSIGN_OR_RETURN(int y, DftLastAxis(c, framed, frame, onesided, false, wv, base));
  c.Define(y, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"HannWindow", "HammingWindow", "BlackmanWindow"}, Window) &&
                         RegisterOnnxConverter({"MelWeightMatrix"}, MelWeightMatrix) &&
                         RegisterOnnxConverter({"DFT"}, Dft) && RegisterOnnxConverter({"STFT"}, Stft);

}  // namespace
}  // namespace rill::inference::onnx_import
