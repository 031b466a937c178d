#include "inference/export/onnx_exporter.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/ops/math_ops.h"
#include "inference/ir/ops/recurrent_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_export {
namespace {

using ir::Activation;
using ir::Node;
using ir::OpType;
using ir::Padding;

int OnnxType(DataType t) {
  switch (t) {
    case DataType::kFloat32: return onnx::TensorProto::FLOAT;
    case DataType::kFloat16: return onnx::TensorProto::FLOAT16;
    case DataType::kInt32: return onnx::TensorProto::INT32;
    case DataType::kInt64: return onnx::TensorProto::INT64;
    case DataType::kUInt8: return onnx::TensorProto::UINT8;
    case DataType::kInt8: return onnx::TensorProto::INT8;
    case DataType::kBool: return onnx::TensorProto::BOOL;
    default: return onnx::TensorProto::UNDEFINED;
  }
}

// Builds the ModelProto node by node. Every IR tensor keeps one ONNX name;
// intermediate values the mapping needs get fresh names.
class Writer {
 public:
  Writer(const ir::Graph& graph, const std::vector<Shape>& shapes) : g_(graph), shapes_(shapes) {
    std::set<std::string> used;
    names_.resize(graph.tensors.size());
    for (size_t i = 0; i < graph.tensors.size(); ++i) {
      std::string name = graph.tensors[i].name.empty() ? "t" + std::to_string(i) : graph.tensors[i].name;
      if (!used.insert(name).second) name += "__" + std::to_string(i);
      used.insert(name);
      names_[i] = name;
    }
    out_ = model_.mutable_graph();
  }

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto* graph() { return out_; }
  const Shape& shape(int id) const { return shapes_[id]; }
  const ir::Graph& graph_ir() const { return g_; }
  const std::string& Name(int id) const { return names_[id]; }

  // The ONNX name of input `k` of `node`; a constant becomes an initializer
  // (once) in its own dtype.
  std::string In(const Node& node, int k) {
    const int id = node.inputs[k];
    const ir::TensorInfo& t = g_.tensors[id];
    if (t.is_constant() && emitted_.insert(id).second) {
      onnx::TensorProto* init = out_->add_initializer();
      init->set_name(names_[id]);
      init->set_data_type(OnnxType(t.dtype));
      for (int d : shapes_[id]) init->add_dims(d);
      init->set_raw_data(t.data, t.bytes);
    }
    return names_[id];
  }
  std::string Out(const Node& node) const { return names_[node.outputs[0]]; }

  std::string Fresh(const std::string& hint) { return hint + "__x" + std::to_string(counter_++); }

  // A new float32 initializer.
  std::string Floats(const std::string& hint, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    onnx::TensorProto* init = out_->add_initializer();
    const std::string name = Fresh(hint);
    init->set_name(name);
    init->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) init->add_dims(d);
    init->set_raw_data(v.data(), v.size() * sizeof(float));
    return name;
  }
  std::string Int64s(const std::string& hint, const std::vector<int64_t>& v) {
    onnx::TensorProto* init = out_->add_initializer();
    const std::string name = Fresh(hint);
    init->set_name(name);
    init->set_data_type(onnx::TensorProto::INT64);
    init->add_dims(static_cast<int64_t>(v.size()));
    init->set_raw_data(v.data(), v.size() * sizeof(int64_t));
    return name;
  }

  onnx::NodeProto* Emit(const std::string& op, const std::vector<std::string>& inputs, const std::string& output) {
    onnx::NodeProto* n = out_->add_node();
    n->set_op_type(op);
    n->set_name(output + "/" + op);
    for (const std::string& i : inputs) n->add_input(i);
    n->add_output(output);
    return n;
  }
  static void Attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void Attr(onnx::NodeProto* n, const std::string& name, float v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void Attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  static void Attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

  // NHWC -> NCHW and back.
  std::string ToNchw(const std::string& x) {
    const std::string y = Fresh(x + "_nchw");
    Attr(Emit("Transpose", {x}, y), "perm", std::vector<int64_t>{0, 3, 1, 2});
    return y;
  }
  void FromNchw(const std::string& x, const std::string& out) {
    Attr(Emit("Transpose", {x}, out), "perm", std::vector<int64_t>{0, 2, 3, 1});
  }

  // `x` through a fused activation into `out`.
  Status Activate(Activation a, const std::string& x, const std::string& out) {
    switch (a) {
      case Activation::kNone: Emit("Identity", {x}, out); return Status::Ok();
      case Activation::kRelu: Emit("Relu", {x}, out); return Status::Ok();
      case Activation::kTanh: Emit("Tanh", {x}, out); return Status::Ok();
      case Activation::kRelu6:
        Emit("Clip", {x, Floats("zero", {}, {0.0f}), Floats("six", {}, {6.0f})}, out);
        return Status::Ok();
      case Activation::kReluN1To1:
        Emit("Clip", {x, Floats("minus_one", {}, {-1.0f}), Floats("one", {}, {1.0f})}, out);
        return Status::Ok();
    }
    return InternalError("unknown activation");
  }
  // The name an op writes before its activation: `out` itself when there is
  // none, so no Identity is added.
  std::string PreActivation(Activation a, const std::string& out) {
    return a == Activation::kNone ? out : Fresh(out + "_pre");
  }
  Status Finish(Activation a, const std::string& pre, const std::string& out) {
    return a == Activation::kNone ? Status::Ok() : Activate(a, pre, out);
  }

  // A float32 constant input of `node` as a host array.
  const float* ConstFloats(const Node& node, int k) const {
    const ir::TensorInfo& t = g_.tensors[node.inputs[k]];
    return t.is_constant() && t.dtype == DataType::kFloat32 ? reinterpret_cast<const float*>(t.data) : nullptr;
  }
  bool ConstInts(const Node& node, int k, std::vector<int64_t>* v) const {
    const ir::TensorInfo& t = g_.tensors[node.inputs[k]];
    if (!t.is_constant()) return false;
    v->clear();
    if (t.dtype == DataType::kInt32) {
      for (size_t i = 0; i < t.bytes / 4; ++i) {
        int32_t x;
        std::memcpy(&x, t.data + 4 * i, 4);
        v->push_back(x);
      }
      return true;
    }
    if (t.dtype == DataType::kInt64) {
      for (size_t i = 0; i < t.bytes / 8; ++i) {
        int64_t x;
        std::memcpy(&x, t.data + 8 * i, 8);
        v->push_back(x);
      }
      return true;
    }
    return false;
  }

 private:
  const ir::Graph& g_;
  const std::vector<Shape>& shapes_;
  std::vector<std::string> names_;
  std::set<int> emitted_;
  onnx::ModelProto model_;
  onnx::GraphProto* out_ = nullptr;
  int counter_ = 0;
};

bool Has(const Node& n, size_t k) { return k < n.inputs.size() && n.inputs[k] >= 0; }

// TFLite's SAME/VALID (or explicit) padding of a window op as ONNX pads
// [top, left, bottom, right], from the op's actual input and output sizes.
std::vector<int64_t> WindowPads(const ir::OpAttrs& a, int in_h, int in_w, int out_h, int out_w, int k_h, int k_w) {
  if (a.padding == Padding::kExplicit) return {a.pad_top, a.pad_left, a.pad_bottom, a.pad_right};
  auto pads = [&](int in, int out, int k, int s, int d, int64_t* before, int64_t* after) {
    if (a.padding == Padding::kValid) {
      *before = *after = 0;
      return;
    }
    const long long effective = static_cast<long long>(k - 1) * d + 1;
    const long long total = std::max(static_cast<long long>(out - 1) * s + effective - in, 0LL);
    *before = total / 2;
    *after = total - total / 2;
  };
  std::vector<int64_t> p(4);
  pads(in_h, out_h, k_h, a.stride_h, a.dilation_h, &p[0], &p[2]);
  pads(in_w, out_w, k_w, a.stride_w, a.dilation_w, &p[1], &p[3]);
  return p;
}

// CONV_2D and DEPTHWISE_CONV_2D: filters [O,kh,kw,I/g] and [1,kh,kw,O]
// become ONNX's [O,I/g,kh,kw].
Status Conv(Writer& w, const Node& n, bool depthwise) {
  if (Has(n, 3) || Has(n, 4)) return UnimplementedError("a fused residual or PRELU (an optimizer-made input)");
  const Shape& x = w.shape(n.inputs[0]);
  const Shape& f = w.shape(n.inputs[1]);
  const Shape& y = w.shape(n.outputs[0]);
  const float* src = w.ConstFloats(n, 1);
  if (src == nullptr) return UnimplementedError("a filter that is not a float32 constant");
  const int kh = f[1], kw = f[2];
  const int out_c = depthwise ? f[3] : f[0];
  const int in_per_group = depthwise ? 1 : f[3];
  std::vector<float> filter(static_cast<size_t>(out_c) * in_per_group * kh * kw);
  for (int o = 0; o < out_c; ++o) {
    for (int i = 0; i < in_per_group; ++i) {
      for (int r = 0; r < kh; ++r) {
        for (int c = 0; c < kw; ++c) {
          const size_t from = depthwise ? (static_cast<size_t>(r) * kw + c) * out_c + o
                                        : ((static_cast<size_t>(o) * kh + r) * kw + c) * in_per_group + i;
          filter[((static_cast<size_t>(o) * in_per_group + i) * kh + r) * kw + c] = src[from];
        }
      }
    }
  }
  std::vector<std::string> inputs = {w.ToNchw(w.In(n, 0)),
                                     w.Floats(w.Out(n) + "_filter", {out_c, in_per_group, kh, kw}, filter)};
  if (Has(n, 2)) inputs.push_back(w.In(n, 2));
  const std::string conv = w.Fresh(w.Out(n) + "_conv");
  onnx::NodeProto* c = w.Emit("Conv", inputs, conv);
  Writer::Attr(c, "kernel_shape", std::vector<int64_t>{kh, kw});
  Writer::Attr(c, "strides", std::vector<int64_t>{n.attrs.stride_h, n.attrs.stride_w});
  Writer::Attr(c, "dilations", std::vector<int64_t>{n.attrs.dilation_h, n.attrs.dilation_w});
  Writer::Attr(c, "pads", WindowPads(n.attrs, x[1], x[2], y[1], y[2], kh, kw));
  Writer::Attr(c, "group", static_cast<int64_t>(depthwise ? x[3] : ir::ConvGroups(x[3], f[3])));
  const std::string act = w.Fresh(w.Out(n) + "_act");
  RILL_INF_RETURN_IF_ERROR(w.Activate(n.attrs.activation, conv, act));
  w.FromNchw(act, w.Out(n));
  return Status::Ok();
}

// TRANSPOSE_CONV_2D: filter [O,kh,kw,I] becomes ONNX's [I,O,kh,kw].
Status TransposeConv(Writer& w, const Node& n) {
  const Shape& x = w.shape(n.inputs[0]);
  const Shape& f = w.shape(n.inputs[1]);
  const Shape& y = w.shape(n.outputs[0]);
  if (ir::ConvGroups(x[3], f[3]) != 1) return UnimplementedError("a grouped transposed convolution");
  const float* src = w.ConstFloats(n, 1);
  if (src == nullptr) return UnimplementedError("a filter that is not a float32 constant");
  const int out_c = f[0], kh = f[1], kw = f[2], in_c = f[3];
  std::vector<float> filter(static_cast<size_t>(out_c) * in_c * kh * kw);
  for (int o = 0; o < out_c; ++o) {
    for (int r = 0; r < kh; ++r) {
      for (int c = 0; c < kw; ++c) {
        for (int i = 0; i < in_c; ++i) {
          filter[((static_cast<size_t>(i) * out_c + o) * kh + r) * kw + c] =
              src[((static_cast<size_t>(o) * kh + r) * kw + c) * in_c + i];
        }
      }
    }
  }
  std::vector<std::string> inputs = {w.ToNchw(w.In(n, 0)),
                                     w.Floats(w.Out(n) + "_filter", {in_c, out_c, kh, kw}, filter)};
  if (Has(n, 2)) inputs.push_back(w.In(n, 2));
  // The forward convolution maps the output to the input: its padding,
  // taken from the output's side, is the transposed one's crop.
  std::vector<int64_t> pads(4, 0), extra(2, 0);
  const int in_hw[2] = {x[1], x[2]}, out_hw[2] = {y[1], y[2]}, k[2] = {kh, kw};
  const int s[2] = {n.attrs.stride_h, n.attrs.stride_w};
  for (int a = 0; a < 2; ++a) {
    if (n.attrs.padding == Padding::kExplicit) {
      pads[a] = a == 0 ? n.attrs.pad_top : n.attrs.pad_left;
      const int end = a == 0 ? n.attrs.pad_bottom : n.attrs.pad_right;
      if (end >= 0) pads[a + 2] = end; else extra[a] = -end;
      continue;
    }
    const long long full = static_cast<long long>(in_hw[a] - 1) * s[a] + k[a];
    const long long total = full - out_hw[a];
    if (total >= 0) {
      pads[a] = total / 2;
      pads[a + 2] = total - total / 2;
    } else {
      extra[a] = -total;
    }
  }
  const std::string conv = w.Fresh(w.Out(n) + "_deconv");
  onnx::NodeProto* c = w.Emit("ConvTranspose", inputs, conv);
  Writer::Attr(c, "kernel_shape", std::vector<int64_t>{kh, kw});
  Writer::Attr(c, "strides", std::vector<int64_t>{s[0], s[1]});
  Writer::Attr(c, "pads", pads);
  if (extra[0] || extra[1]) Writer::Attr(c, "output_padding", extra);
  const std::string act = w.Fresh(w.Out(n) + "_act");
  RILL_INF_RETURN_IF_ERROR(w.Activate(n.attrs.activation, conv, act));
  w.FromNchw(act, w.Out(n));
  return Status::Ok();
}

// FULLY_CONNECTED: rows of the input by the [O, I] weights (Gemm, transB).
Status FullyConnected(Writer& w, const Node& n) {
  const Shape& f = w.shape(n.inputs[1]);
  const Shape& y = w.shape(n.outputs[0]);
  const std::string rows = w.Fresh(w.Out(n) + "_rows");
  w.Emit("Reshape", {w.In(n, 0), w.Int64s("rows_shape", {-1, f[1]})}, rows);
  std::vector<std::string> inputs = {rows, w.In(n, 1)};
  if (Has(n, 2)) inputs.push_back(w.In(n, 2));
  const std::string gemm = w.Fresh(w.Out(n) + "_gemm");
  Writer::Attr(w.Emit("Gemm", inputs, gemm), "transB", int64_t{1});
  std::string activated = gemm;
  if (n.attrs.activation != Activation::kNone) {
    activated = w.Fresh(w.Out(n) + "_act");
    RILL_INF_RETURN_IF_ERROR(w.Activate(n.attrs.activation, gemm, activated));
  }
  w.Emit("Reshape", {activated, w.Int64s("out_shape", std::vector<int64_t>(y.begin(), y.end()))}, w.Out(n));
  return Status::Ok();
}

Status Pool(Writer& w, const Node& n, const char* op) {
  const Shape& x = w.shape(n.inputs[0]);
  const Shape& y = w.shape(n.outputs[0]);
  const std::string pool = w.Fresh(w.Out(n) + "_pool");
  onnx::NodeProto* p = w.Emit(op, {w.ToNchw(w.In(n, 0))}, pool);
  Writer::Attr(p, "kernel_shape", std::vector<int64_t>{n.attrs.kernel_h, n.attrs.kernel_w});
  Writer::Attr(p, "strides", std::vector<int64_t>{n.attrs.stride_h, n.attrs.stride_w});
  Writer::Attr(p, "pads", WindowPads(n.attrs, x[1], x[2], y[1], y[2], n.attrs.kernel_h, n.attrs.kernel_w));
  if (n.attrs.ceil_mode) Writer::Attr(p, "ceil_mode", int64_t{1});
  // TFLite averages over the window's elements inside the input only.
  if (std::string(op) == "AveragePool") Writer::Attr(p, "count_include_pad", int64_t{0});
  const std::string act = w.Fresh(w.Out(n) + "_act");
  RILL_INF_RETURN_IF_ERROR(w.Activate(n.attrs.activation, pool, act));
  w.FromNchw(act, w.Out(n));
  return Status::Ok();
}

// RESIZE_BILINEAR / RESIZE_NEAREST with TFLite's align_corners and
// half_pixel_centers.
Status Resize(Writer& w, const Node& n, bool bilinear) {
  if (n.attrs.resize_coordinate != ir::ResizeCoordinate::kTflite) {
    return UnimplementedError("a resize in an ONNX coordinate mode (the exporter writes TFLite's)");
  }
  const Shape& y = w.shape(n.outputs[0]);
  const std::string sizes = w.Int64s("sizes", {y[0], y[3], y[1], y[2]});
  const std::string r = w.Fresh(w.Out(n) + "_resize");
  onnx::NodeProto* p = w.Emit("Resize", {w.ToNchw(w.In(n, 0)), "", "", sizes}, r);
  Writer::Attr(p, "mode", std::string(bilinear ? "linear" : "nearest"));
  std::string coord = "asymmetric";
  if (n.attrs.align_corners) coord = "align_corners";
  else if (n.attrs.half_pixel_centers) coord = bilinear ? "half_pixel" : "tf_half_pixel_for_nn";
  Writer::Attr(p, "coordinate_transformation_mode", coord);
  if (!bilinear) Writer::Attr(p, "nearest_mode", std::string(n.attrs.align_corners ? "round_prefer_ceil" : "floor"));
  w.FromNchw(r, w.Out(n));
  return Status::Ok();
}

Status Binary(Writer& w, const Node& n, const char* op) {
  const std::string pre = w.PreActivation(n.attrs.activation, w.Out(n));
  w.Emit(op, {w.In(n, 0), w.In(n, 1)}, pre);
  return w.Finish(n.attrs.activation, pre, w.Out(n));
}

// `x` cast to ONNX type `to` (a fresh name).
std::string CastTo(Writer& w, const std::string& x, int to) {
  const std::string y = w.Fresh(x + "_cast");
  Writer::Attr(w.Emit("Cast", {x}, y), "to", static_cast<int64_t>(to));
  return y;
}

// `x` (bool or int64) cast to float32 into `out`: the engine's values are
// float32 (booleans 0 / 1, indices whole numbers).
void CastToFloat(Writer& w, const std::string& x, const std::string& out) {
  Writer::Attr(w.Emit("Cast", {x}, out), "to", static_cast<int64_t>(onnx::TensorProto::FLOAT));
}

// LSTM, GRU and RNN (ir/ops/recurrent_ops.h) as ONNX's op of the same
// name, its Y, Y_h (and LSTM's Y_c) stacked into the engine's one output
// ([S + E, D, B, H]) by Unsqueeze and Concat. TFLite's LSTM features (CIFG,
// cell clip, projection, layer norm) and the clamp function (fused RELU6,
// RELU_N1_TO_1) have no ONNX form.
Status WriteRecurrent(Writer& w, const Node& n, ir::RecurrentKind kind) {
  const ir::RecurrentAttrs* a = n.attrs_as<ir::RecurrentAttrs>();
  if (a == nullptr) return InvalidArgumentError("missing RecurrentAttrs");
  if (a->input_from_forget || a->cell_clip > 0.0f || a->projection > 0 || a->layer_norm) {
    return UnimplementedError("TFLite's LSTM features (CIFG, cell_clip, projection, layer norm) have no ONNX form");
  }
  static const std::map<ir::RecurrentActivation, const char*> kNames = {
      {ir::RecurrentActivation::kSigmoid, "Sigmoid"},
      {ir::RecurrentActivation::kTanh, "Tanh"},
      {ir::RecurrentActivation::kRelu, "Relu"},
      {ir::RecurrentActivation::kAffine, "Affine"},
      {ir::RecurrentActivation::kLeakyRelu, "LeakyRelu"},
      {ir::RecurrentActivation::kThresholdedRelu, "ThresholdedRelu"},
      {ir::RecurrentActivation::kScaledTanh, "ScaledTanh"},
      {ir::RecurrentActivation::kHardSigmoid, "HardSigmoid"},
      {ir::RecurrentActivation::kElu, "Elu"},
      {ir::RecurrentActivation::kSoftsign, "Softsign"},
      {ir::RecurrentActivation::kSoftplus, "Softplus"}};
  const std::string out = w.Out(n);
  auto in = [&](size_t k) {
    return k < n.inputs.size() && n.inputs[k] >= 0 ? w.In(n, static_cast<int>(k)) : std::string();
  };
  std::string lens;
  if (!a->sequence_lens.empty()) {  // ONNX's sequence_lens is int32
    onnx::TensorProto* init = w.graph()->add_initializer();
    lens = w.Fresh(out + "_sequence_lens");
    init->set_name(lens);
    init->set_data_type(onnx::TensorProto::INT32);
    init->add_dims(static_cast<int64_t>(a->sequence_lens.size()));
    std::vector<int32_t> v(a->sequence_lens.begin(), a->sequence_lens.end());
    init->set_raw_data(v.data(), v.size() * sizeof(int32_t));
  }
  std::vector<std::string> inputs = {in(0), in(1), in(2), in(3), lens, in(4)};
  if (kind == ir::RecurrentKind::kLstm) {
    inputs.push_back(in(5));
    inputs.push_back(in(6));
  }
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  const char* op = kind == ir::RecurrentKind::kLstm ? "LSTM" : kind == ir::RecurrentKind::kGru ? "GRU" : "RNN";
  const std::string y = w.Fresh(out + "_y"), y_h = w.Fresh(out + "_y_h"), y_c = w.Fresh(out + "_y_c");
  onnx::NodeProto* node = w.Emit(op, inputs, y);
  node->add_output(y_h);
  if (kind == ir::RecurrentKind::kLstm) node->add_output(y_c);
  Writer::Attr(node, "hidden_size", static_cast<int64_t>(a->hidden));
  Writer::Attr(node, "direction",
               std::string(a->directions == 2 ? "bidirectional" : a->reverse ? "reverse" : "forward"));
  if (a->clip > 0.0f) Writer::Attr(node, "clip", a->clip);
  if (a->input_forget) Writer::Attr(node, "input_forget", static_cast<int64_t>(1));
  if (a->linear_before_reset) Writer::Attr(node, "linear_before_reset", static_cast<int64_t>(1));
  onnx::AttributeProto* names = node->add_attribute();
  names->set_name("activations");
  names->set_type(onnx::AttributeProto::STRINGS);
  onnx::AttributeProto alphas, betas;
  for (const ir::RecurrentFunction& f : a->functions) {
    auto name = kNames.find(f.fn);
    if (name == kNames.end()) return UnimplementedError("a recurrent activation function with no ONNX form (clamp)");
    names->add_strings(name->second);
    if (ir::RecurrentActivationTakesAlpha(f.fn)) alphas.add_floats(f.alpha);
    if (ir::RecurrentActivationTakesBeta(f.fn)) betas.add_floats(f.beta);
  }
  if (alphas.floats_size() > 0) {
    alphas.set_name("activation_alpha");
    alphas.set_type(onnx::AttributeProto::FLOATS);
    *node->add_attribute() = alphas;
  }
  if (betas.floats_size() > 0) {
    betas.set_name("activation_beta");
    betas.set_type(onnx::AttributeProto::FLOATS);
    *node->add_attribute() = betas;
  }
  const std::string axis0 = w.Int64s(out + "_axis0", {0});
  std::vector<std::string> rows = {y, w.Fresh(out + "_y_h_row")};
  w.Emit("Unsqueeze", {y_h, axis0}, rows[1]);
  if (kind == ir::RecurrentKind::kLstm) {
    rows.push_back(w.Fresh(out + "_y_c_row"));
    w.Emit("Unsqueeze", {y_c, axis0}, rows[2]);
  }
  Writer::Attr(w.Emit("Concat", rows, out), "axis", static_cast<int64_t>(0));
  return Status::Ok();
}

// The registered ops with a direct ONNX form (opset 17): the unary math
// functions (GELU written out: ONNX's Gelu is opset 20), POW / MIN / MAX /
// SUM / MEAN, the reductions, ARG_MAX / ARG_MIN, TOPK, BATCH_MATMUL,
// GATHER, TILE, EXPAND,
// WHERE, the comparisons and logic ops and CAST, with Casts where ONNX
// takes or gives bool or int64. false: `n` is none of them.
bool WriteRegistered(Writer& w, const Node& n, Status* status) {
  *status = Status::Ok();
  ir::RecurrentKind recurrent;
  if (ir::IsRecurrentOp(n.type, &recurrent)) {
    *status = WriteRecurrent(w, n, recurrent);
    return true;
  }
  const std::string out = w.Out(n);
  ir::UnaryFn fn;
  ir::NaryFn nary;
  ir::ReduceKind reduce;
  ir::CompareKind compare;
  if (ir::IsUnaryMathOp(n.type, &fn)) {
    const ir::UnaryMathAttrs* a = n.attrs_as<ir::UnaryMathAttrs>();
    const ir::UnaryMathAttrs attrs = a != nullptr ? *a : ir::UnaryMathAttrs{};
    const std::string x = w.In(n, 0);
    static const std::map<ir::UnaryFn, const char*> kDirect = {
        {ir::UnaryFn::kSqrt, "Sqrt"},   {ir::UnaryFn::kExp, "Exp"},         {ir::UnaryFn::kLog, "Log"},
        {ir::UnaryFn::kNeg, "Neg"},     {ir::UnaryFn::kReciprocal, "Reciprocal"}, {ir::UnaryFn::kAbs, "Abs"},
        {ir::UnaryFn::kTanh, "Tanh"},   {ir::UnaryFn::kErf, "Erf"},         {ir::UnaryFn::kSoftplus, "Softplus"},
        {ir::UnaryFn::kSin, "Sin"},     {ir::UnaryFn::kCos, "Cos"},         {ir::UnaryFn::kFloor, "Floor"},
        {ir::UnaryFn::kCeil, "Ceil"},   {ir::UnaryFn::kRound, "Round"},     {ir::UnaryFn::kSign, "Sign"},
        {ir::UnaryFn::kSoftsign, "Softsign"}, {ir::UnaryFn::kTan, "Tan"},   {ir::UnaryFn::kAsin, "Asin"},
        {ir::UnaryFn::kAcos, "Acos"},   {ir::UnaryFn::kAtan, "Atan"},       {ir::UnaryFn::kSinh, "Sinh"},
        {ir::UnaryFn::kCosh, "Cosh"},   {ir::UnaryFn::kAsinh, "Asinh"},     {ir::UnaryFn::kAcosh, "Acosh"},
        {ir::UnaryFn::kAtanh, "Atanh"}};
    auto direct = kDirect.find(fn);
    if (direct != kDirect.end()) {
      w.Emit(direct->second, {x}, out);
    } else if (fn == ir::UnaryFn::kElu || fn == ir::UnaryFn::kCelu || fn == ir::UnaryFn::kThresholdedRelu) {
      const char* name = fn == ir::UnaryFn::kElu ? "Elu" : fn == ir::UnaryFn::kCelu ? "Celu" : "ThresholdedRelu";
      Writer::Attr(w.Emit(name, {x}, out), "alpha", attrs.alpha);
    } else if (fn == ir::UnaryFn::kIsNan || fn == ir::UnaryFn::kIsInf) {
      // ONNX's bool output, cast to the engine's float 0 / 1.
      const std::string flags = w.Fresh(out + "_bool");
      onnx::NodeProto* p = w.Emit(fn == ir::UnaryFn::kIsNan ? "IsNaN" : "IsInf", {x}, flags);
      if (fn == ir::UnaryFn::kIsInf) {
        Writer::Attr(p, "detect_negative", static_cast<int64_t>(attrs.alpha != 0.0f));
        Writer::Attr(p, "detect_positive", static_cast<int64_t>(attrs.gamma != 0.0f));
      }
      Writer::Attr(w.Emit("Cast", {flags}, out), "to", static_cast<int64_t>(1));
    } else if (fn == ir::UnaryFn::kShrink) {
      onnx::NodeProto* p = w.Emit("Shrink", {x}, out);
      Writer::Attr(p, "lambd", attrs.alpha);
      Writer::Attr(p, "bias", attrs.gamma);
    } else if (fn == ir::UnaryFn::kSelu) {
      onnx::NodeProto* p = w.Emit("Selu", {x}, out);
      Writer::Attr(p, "alpha", attrs.alpha);
      Writer::Attr(p, "gamma", attrs.gamma);
    } else if (fn == ir::UnaryFn::kGelu) {
      // 0.5 x (1 + erf(x / sqrt(2))), or 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
      std::string inner;
      if (attrs.tanh_approximation) {
        const std::string cube = w.Fresh(out + "_cube");
        w.Emit("Mul", {x, x}, cube + "_sq");
        w.Emit("Mul", {cube + "_sq", x}, cube);
        const std::string scaled = w.Fresh(out + "_c3");
        w.Emit("Mul", {cube, w.Floats("k", {}, {0.044715f})}, scaled);
        const std::string sum = w.Fresh(out + "_sum");
        w.Emit("Add", {x, scaled}, sum);
        const std::string arg = w.Fresh(out + "_arg");
        w.Emit("Mul", {sum, w.Floats("sqrt_2_over_pi", {}, {0.7978845608028654f})}, arg);
        inner = w.Fresh(out + "_tanh");
        w.Emit("Tanh", {arg}, inner);
      } else {
        const std::string arg = w.Fresh(out + "_arg");
        w.Emit("Mul", {x, w.Floats("inv_sqrt2", {}, {0.70710678118654752f})}, arg);
        inner = w.Fresh(out + "_erf");
        w.Emit("Erf", {arg}, inner);
      }
      const std::string plus = w.Fresh(out + "_plus1");
      w.Emit("Add", {inner, w.Floats("one", {}, {1.0f})}, plus);
      const std::string half = w.Fresh(out + "_half");
      w.Emit("Mul", {x, w.Floats("half", {}, {0.5f})}, half);
      w.Emit("Mul", {half, plus}, out);
    } else {
      *status = UnimplementedError(std::string("no ONNX form for ") + ir::OpTypeName(n.type));
    }
    return true;
  }
  if (ir::IsNaryMathOp(n.type, &nary)) {
    static const char* const kOps[] = {"Pow", "Min", "Max", "Sum", "Mean"};
    std::vector<std::string> inputs;
    for (size_t k = 0; k < n.inputs.size(); ++k) inputs.push_back(w.In(n, static_cast<int>(k)));
    w.Emit(kOps[static_cast<int>(nary)], inputs, out);
    return true;
  }
  if (ir::ReduceKindOf(n.type, &reduce)) {
    const ir::ReduceAttrs* a = n.attrs_as<ir::ReduceAttrs>();
    if (a == nullptr) {
      *status = InternalError("missing attributes");
      return true;
    }
    const std::vector<int64_t> axes(a->axes.begin(), a->axes.end());
    static const char* const kOps[] = {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"};
    std::vector<std::string> inputs = {w.In(n, 0)};
    // ReduceSum takes its axes as an input from opset 13, the others as an
    // attribute until opset 18.
    if (reduce == ir::ReduceKind::kSum && !axes.empty()) inputs.push_back(w.Int64s("axes", axes));
    onnx::NodeProto* p = w.Emit(kOps[static_cast<int>(reduce)], inputs, out);
    if (reduce != ir::ReduceKind::kSum && !axes.empty()) Writer::Attr(p, "axes", axes);
    Writer::Attr(p, "keepdims", static_cast<int64_t>(a->keep_dims ? 1 : 0));
    return true;
  }
  if (n.type == ir::ArgMaxOp() || n.type == ir::ArgMinOp()) {
    const ir::ArgAttrs* a = n.attrs_as<ir::ArgAttrs>();
    if (a == nullptr) {
      *status = InternalError("missing attributes");
      return true;
    }
    const std::string idx = w.Fresh(out + "_index");
    onnx::NodeProto* p = w.Emit(n.type == ir::ArgMaxOp() ? "ArgMax" : "ArgMin", {w.In(n, 0)}, idx);
    Writer::Attr(p, "axis", static_cast<int64_t>(a->axis));
    Writer::Attr(p, "keepdims", static_cast<int64_t>(a->keep_dims ? 1 : 0));
    if (a->select_last_index) Writer::Attr(p, "select_last_index", int64_t{1});
    CastToFloat(w, idx, out);
    return true;
  }
  if (n.type == ir::TopKValuesOp() || n.type == ir::TopKIndicesOp()) {
    // ONNX's TopK gives both; each engine node keeps its own.
    const ir::TopKAttrs* a = n.attrs_as<ir::TopKAttrs>();
    if (a == nullptr) {
      *status = InternalError("missing attributes");
      return true;
    }
    const bool values = n.type == ir::TopKValuesOp();
    const std::string v = values ? out : w.Fresh(out + "_values");
    const std::string i = w.Fresh(out + "_indices");
    onnx::NodeProto* p = w.graph()->add_node();
    p->set_op_type("TopK");
    p->set_name(out + "/TopK");
    p->add_input(w.In(n, 0));
    p->add_input(w.Int64s("k", {a->k}));
    p->add_output(v);
    p->add_output(i);
    Writer::Attr(p, "axis", static_cast<int64_t>(a->axis));
    Writer::Attr(p, "largest", static_cast<int64_t>(a->largest ? 1 : 0));
    Writer::Attr(p, "sorted", int64_t{1});
    if (!values) CastToFloat(w, i, out);
    return true;
  }
  if (n.type == ir::BatchMatMulOp()) {
    const ir::BatchMatMulAttrs* a = n.attrs_as<ir::BatchMatMulAttrs>();
    std::string operands[2] = {w.In(n, 0), w.In(n, 1)};
    for (int k = 0; k < 2; ++k) {
      if (a == nullptr || !(k == 0 ? a->adj_x : a->adj_y)) continue;
      const int rank = static_cast<int>(w.shape(n.inputs[k]).size());
      std::vector<int64_t> perm;
      for (int d = 0; d < rank; ++d) perm.push_back(d);
      std::swap(perm[rank - 1], perm[rank - 2]);
      const std::string t = w.Fresh(operands[k] + "_adj");
      Writer::Attr(w.Emit("Transpose", {operands[k]}, t), "perm", perm);
      operands[k] = t;
    }
    w.Emit("MatMul", {operands[0], operands[1]}, out);
    return true;
  }
  if (n.type == ir::GatherOp()) {
    const ir::AxisAttrs* a = n.attrs_as<ir::AxisAttrs>();
    const ir::TensorInfo& idx = w.graph_ir().tensors[n.inputs[1]];
    std::string indices = w.In(n, 1);
    if (!(idx.is_constant() && (idx.dtype == DataType::kInt32 || idx.dtype == DataType::kInt64))) {
      indices = CastTo(w, indices, onnx::TensorProto::INT64);
    }
    Writer::Attr(w.Emit("Gather", {w.In(n, 0), indices}, out), "axis", static_cast<int64_t>(a ? a->axis : 0));
    return true;
  }
  if (n.type == ir::TileOp()) {
    const ir::TileAttrs* a = n.attrs_as<ir::TileAttrs>();
    w.Emit("Tile", {w.In(n, 0), w.Int64s("repeats", std::vector<int64_t>(a->repeats.begin(), a->repeats.end()))}, out);
    return true;
  }
  if (n.type == ir::ExpandOp()) {
    const ir::ExpandAttrs* a = n.attrs_as<ir::ExpandAttrs>();
    w.Emit("Expand", {w.In(n, 0), w.Int64s("shape", std::vector<int64_t>(a->shape.begin(), a->shape.end()))}, out);
    return true;
  }
  if (n.type == ir::WhereOp()) {
    w.Emit("Where", {CastTo(w, w.In(n, 0), onnx::TensorProto::BOOL), w.In(n, 1), w.In(n, 2)}, out);
    return true;
  }
  if (ir::CompareKindOf(n.type, &compare)) {
    static const char* const kOps[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"};
    std::string a = w.In(n, 0), b = w.In(n, 1);
    if (compare == ir::CompareKind::kAnd || compare == ir::CompareKind::kOr || compare == ir::CompareKind::kXor) {
      a = CastTo(w, a, onnx::TensorProto::BOOL);
      b = CastTo(w, b, onnx::TensorProto::BOOL);
    }
    const std::string r = w.Fresh(out + "_bool");
    w.Emit(kOps[static_cast<int>(compare)], {a, b}, r);
    CastToFloat(w, r, out);
    return true;
  }
  if (n.type == ir::NotOp()) {
    const std::string r = w.Fresh(out + "_not");
    w.Emit("Not", {CastTo(w, w.In(n, 0), onnx::TensorProto::BOOL)}, r);
    CastToFloat(w, r, out);
    return true;
  }
  if (n.type == ir::CastOp()) {
    const ir::CastAttrs* a = n.attrs_as<ir::CastAttrs>();
    const bool to_bool = a != nullptr && a->kind == ir::CastKind::kToBool;
    onnx::TensorProto::DataType to = onnx::TensorProto::INT64;
    if (to_bool) {
      to = onnx::TensorProto::BOOL;
    } else if (a != nullptr && a->bits < 64) {
      // The narrow type itself, so that ONNX Runtime wraps as the engine does.
      if (a->bits == 8) to = a->is_signed ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8;
      if (a->bits == 16) to = a->is_signed ? onnx::TensorProto::INT16 : onnx::TensorProto::UINT16;
      if (a->bits == 32) to = a->is_signed ? onnx::TensorProto::INT32 : onnx::TensorProto::UINT32;
    }
    // Narrow types through int64 first: ONNX Runtime's float-to-narrow
    // conversion is C++'s (undefined out of range), int64-to-narrow wraps.
    std::string x = w.In(n, 0);
    if (to != onnx::TensorProto::BOOL && to != onnx::TensorProto::INT64) x = CastTo(w, x, onnx::TensorProto::INT64);
    CastToFloat(w, CastTo(w, x, to), out);
    return true;
  }
  return false;
}

Status Write(Writer& w, const Node& n) {
  Status registered;
  if (WriteRegistered(w, n, &registered)) return registered;
  switch (n.type) {
    case OpType::kConv2D: return Conv(w, n, false);
    case OpType::kDepthwiseConv2D: return Conv(w, n, true);
    case OpType::kTransposeConv2D: return TransposeConv(w, n);
    case OpType::kFullyConnected: return FullyConnected(w, n);
    case OpType::kAdd: return Binary(w, n, "Add");
    case OpType::kSub: return Binary(w, n, "Sub");
    case OpType::kMul: return Binary(w, n, "Mul");
    case OpType::kDiv: return Binary(w, n, "Div");
    case OpType::kRelu: w.Emit("Relu", {w.In(n, 0)}, w.Out(n)); return Status::Ok();
    case OpType::kRelu6: return w.Activate(Activation::kRelu6, w.In(n, 0), w.Out(n));
    case OpType::kLogistic: w.Emit("Sigmoid", {w.In(n, 0)}, w.Out(n)); return Status::Ok();
    case OpType::kHardSwish: w.Emit("HardSwish", {w.In(n, 0)}, w.Out(n)); return Status::Ok();
    case OpType::kPRelu: w.Emit("PRelu", {w.In(n, 0), w.In(n, 1)}, w.Out(n)); return Status::Ok();
    case OpType::kClamp:
      w.Emit("Clip", {w.In(n, 0), w.Floats("min", {}, {n.attrs.clamp_min}), w.Floats("max", {}, {n.attrs.clamp_max})},
             w.Out(n));
      return Status::Ok();
    case OpType::kLeakyRelu:
      Writer::Attr(w.Emit("LeakyRelu", {w.In(n, 0)}, w.Out(n)), "alpha", n.attrs.alpha);
      return Status::Ok();
    case OpType::kHardSigmoid: {
      onnx::NodeProto* p = w.Emit("HardSigmoid", {w.In(n, 0)}, w.Out(n));
      Writer::Attr(p, "alpha", n.attrs.alpha);
      Writer::Attr(p, "beta", n.attrs.beta);
      return Status::Ok();
    }
    case OpType::kSoftmax:
      Writer::Attr(w.Emit("Softmax", {w.In(n, 0)}, w.Out(n)), "axis", static_cast<int64_t>(n.attrs.axis));
      return Status::Ok();
    case OpType::kMaxPool2D: return Pool(w, n, "MaxPool");
    case OpType::kAveragePool2D: return Pool(w, n, "AveragePool");
    case OpType::kResizeBilinear: return Resize(w, n, true);
    case OpType::kResizeNearest: return Resize(w, n, false);
    case OpType::kPad: {
      std::vector<int64_t> p;
      if (!w.ConstInts(n, 1, &p) || p.size() % 2 != 0) return UnimplementedError("paddings that are not constant");
      const size_t rank = p.size() / 2;
      std::vector<int64_t> pads(2 * rank);
      for (size_t a = 0; a < rank; ++a) {
        pads[a] = p[2 * a];
        pads[rank + a] = p[2 * a + 1];
      }
      w.Emit("Pad", {w.In(n, 0), w.Int64s("pads", pads)}, w.Out(n));
      return Status::Ok();
    }
    case OpType::kMean: {
      std::vector<int64_t> axes;
      if (!w.ConstInts(n, 1, &axes)) return UnimplementedError("axes that are not constant");
      onnx::NodeProto* p = w.Emit("ReduceMean", {w.In(n, 0)}, w.Out(n));
      Writer::Attr(p, "axes", axes);
      Writer::Attr(p, "keepdims", static_cast<int64_t>(n.attrs.keep_dims ? 1 : 0));
      return Status::Ok();
    }
    case OpType::kReshape: {
      const Shape& y = w.shape(n.outputs[0]);
      w.Emit("Reshape", {w.In(n, 0), w.Int64s("shape", std::vector<int64_t>(y.begin(), y.end()))}, w.Out(n));
      return Status::Ok();
    }
    case OpType::kConcatenation: {
      std::vector<std::string> inputs;
      for (size_t k = 0; k < n.inputs.size(); ++k) inputs.push_back(w.In(n, static_cast<int>(k)));
      const std::string pre = w.PreActivation(n.attrs.activation, w.Out(n));
      Writer::Attr(w.Emit("Concat", inputs, pre), "axis", static_cast<int64_t>(n.attrs.axis));
      return w.Finish(n.attrs.activation, pre, w.Out(n));
    }
    case OpType::kDepthToSpace: {
      const std::string d = w.Fresh(w.Out(n) + "_d2s");
      onnx::NodeProto* p = w.Emit("DepthToSpace", {w.ToNchw(w.In(n, 0))}, d);
      Writer::Attr(p, "blocksize", static_cast<int64_t>(n.attrs.block_size));
      Writer::Attr(p, "mode", std::string("DCR"));
      w.FromNchw(d, w.Out(n));
      return Status::Ok();
    }
    case OpType::kTranspose:
      Writer::Attr(w.Emit("Transpose", {w.In(n, 0)}, w.Out(n)), "perm",
                   std::vector<int64_t>(n.attrs.perm.begin(), n.attrs.perm.end()));
      return Status::Ok();
    case OpType::kSlice: {
      const size_t rank = n.attrs.slice_start.size();
      std::vector<int64_t> axes(rank), steps(rank);
      for (size_t a = 0; a < rank; ++a) {
        axes[a] = static_cast<int64_t>(a);
        steps[a] = a < n.attrs.slice_step.size() ? n.attrs.slice_step[a] : 1;
      }
      w.Emit("Slice",
             {w.In(n, 0), w.Int64s("starts", std::vector<int64_t>(n.attrs.slice_start.begin(), n.attrs.slice_start.end())),
              w.Int64s("ends", std::vector<int64_t>(n.attrs.slice_end.begin(), n.attrs.slice_end.end())),
              w.Int64s("axes", axes), w.Int64s("steps", steps)},
             w.Out(n));
      return Status::Ok();
    }
    default: {
      const ir::OpDescriptor* op = ir::FindOp(n.type);
      return UnimplementedError(std::string("no ONNX form for op ") + (op != nullptr ? op->name : "UNKNOWN"));
    }
  }
}

void AddValueInfo(onnx::ValueInfoProto* v, const std::string& name, DataType dtype, const Shape& shape) {
  v->set_name(name);
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(OnnxType(dtype));
  for (int d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

StatusOr<std::string> ExportOnnx(const ir::Graph& graph) {
  std::vector<Shape> shapes = graph.InitialShapes();
  RILL_INF_RETURN_IF_ERROR(graph.InferShapes(&shapes));
  if (graph.layout != Layout::kNHWC) {
    return UnimplementedError(graph.source + ": only NHWC graphs (TFLite models) are exported");
  }
  Writer w(graph, shapes);
  onnx::ModelProto& model = w.model();
  model.set_ir_version(8);
  model.set_producer_name("rill");
  model.set_producer_version("1");
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  onnx::GraphProto* g = w.graph();
  const size_t slash = graph.source.rfind('/');
  g->set_name(slash == std::string::npos ? graph.source : graph.source.substr(slash + 1));
  for (int id : graph.inputs) {
    AddValueInfo(g->add_input(), w.Name(id), graph.tensors[id].dtype, shapes[id]);
  }
  std::vector<std::string> failures;
  for (const Node& n : graph.nodes) {
    if (n.outputs.size() != 1) {
      failures.push_back(graph.NodeContext(n) + "more than one output");
      continue;
    }
    Status s = Write(w, n);
    if (!s.ok()) failures.push_back(graph.NodeContext(n) + s.message());
  }
  if (!failures.empty()) {
    std::string m = graph.source + ": cannot write as ONNX:";
    for (const std::string& f : failures) m += "\n  " + f;
    return UnimplementedError(m);
  }
  for (int id : graph.outputs) {
    AddValueInfo(g->add_output(), w.Name(id), graph.tensors[id].dtype, shapes[id]);
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return InternalError(graph.source + ": the ONNX model does not serialize");
  return bytes;
}

}  // namespace rill::inference::onnx_export
