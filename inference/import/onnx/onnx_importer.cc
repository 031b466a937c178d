#include "inference/import/onnx/onnx_importer.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "inference/runtime/importer_registry.h"

namespace rill::inference::onnx_import {
namespace {

using ir::Node;
using ir::OpType;

constexpr int64_t kMaxElements = int64_t{1} << 31;

// ONNX TensorProto.DataType values we read.
enum OnnxType { kFloat = 1, kInt32 = 6, kInt64 = 7, kFloat16 = 10, kDouble = 11 };

class Importer {
 public:
  Importer(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& source,
           const std::map<std::string, std::vector<int>>& input_shapes)
      : bytes_(std::move(bytes)), g_(std::make_shared<ir::Graph>()), input_shapes_(input_shapes) {
    g_->source = source;
    g_->layout = Layout::kNCHW;
  }

  // Imports the model; an error while symbolic dimensions stood at 1 says so.
  StatusOr<std::shared_ptr<ir::Graph>> Run() {
    StatusOr<std::shared_ptr<ir::Graph>> g = RunImport();
    if (g.ok() || symbolic_.empty()) return g;
    return Status(g.status().code(), g.status().message() + " (" + symbolic_ +
                                         " taken as 1: give the input shapes with LoadOptions::input_shapes, "
                                         "rill model --input_shape=NAME:D,D,...)");
  }

  StatusOr<std::shared_ptr<ir::Graph>> RunImport() {
    if (bytes_->size() > static_cast<size_t>(INT32_MAX) ||
        !model_.ParseFromArray(bytes_->data(), static_cast<int>(bytes_->size()))) {
      return DataLossError(g_->source + ": not a valid ONNX protobuf");
    }
    if (!model_.has_graph()) return DataLossError(g_->source + ": ONNX model has no graph");
    for (const auto& opset : model_.opset_import()) {
      if (opset.domain().empty() || opset.domain() == "ai.onnx") opset_ = opset.version();
    }
    const onnx::GraphProto& graph = model_.graph();
    std::set<std::string> initializer_names;
    for (const onnx::TensorProto& t : graph.initializer()) {
      initializer_names.insert(t.name());
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstantFromProto(t, t.name()));
      values_[t.name()] = Value{id, false};
    }
    for (const onnx::ValueInfoProto& in : graph.input()) {
      if (initializer_names.count(in.name())) continue;
      RILL_INF_RETURN_IF_ERROR(AddGraphInput(in));
    }
    for (const auto& given : input_shapes_) {
      if (!values_.count(given.first) || IsConst(values_[given.first].id)) {
        return InvalidArgumentError(g_->source + ": LoadOptions::input_shapes names '" + given.first +
                                    "', which is not an input of the model");
      }
    }
    for (int i = 0; i < graph.node_size(); ++i) {
      if (done_nodes_.count(i)) continue;  // imported with an earlier node
      const onnx::NodeProto& node = graph.node(i);
      node_name_ = node.name().empty() ? (node.output_size() ? node.output(0) : "#" + std::to_string(i)) : node.name();
      ctx_ = g_->source + ": node '" + node_name_ + "' (" + node.op_type() + "): ";
      RILL_INF_RETURN_IF_ERROR(ImportNode(node));
    }
    for (const onnx::ValueInfoProto& out : graph.output()) {
      ctx_ = g_->source + ": output '" + out.name() + "': ";
      RILL_INF_ASSIGN_OR_RETURN(Value v, Get(out.name()));
      RILL_INF_ASSIGN_OR_RETURN(int id, ToNchw(v));
      if (g_->tensors[id].is_constant()) return UnimplementedError(ctx_ + "graph output is a constant");
      if (std::find(g_->inputs.begin(), g_->inputs.end(), id) != g_->inputs.end()) {
        return UnimplementedError(ctx_ + "graph output is a graph input");
      }
      g_->tensors[id].name = out.name();
      g_->outputs.push_back(id);
    }
    RILL_INF_RETURN_IF_ERROR(g_->Validate());
    return g_;
  }

 private:
  struct Value {
    int id = -1;
    bool nhwc = false;  // a 4-D value stored NHWC inside the engine
  };

  // ---- tensors -------------------------------------------------------------

  int NewTensor(const std::string& name, DataType dtype) {
    ir::TensorInfo t;
    t.name = name;
    t.dtype = dtype;
    g_->tensors.push_back(std::move(t));
    shapes_.emplace_back();
    return static_cast<int>(g_->tensors.size()) - 1;
  }

  int NewConst(const std::string& name, DataType dtype, const Shape& shape, std::vector<uint8_t> bytes) {
    const int id = NewTensor(name, dtype);
    g_->SetConstant(id, dtype, shape, std::move(bytes));
    shapes_[id] = shape;
    return id;
  }

  int NewFloatConst(const std::string& name, const Shape& shape, const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * 4);
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return NewConst(name, DataType::kFloat32, shape, std::move(bytes));
  }

  int NewIntConst(const std::string& name, const std::vector<int64_t>& values) {
    std::vector<uint8_t> bytes(values.size() * 8);
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return NewConst(name, DataType::kInt64, {static_cast<int>(values.size())}, std::move(bytes));
  }

  int NewInt32Const(const std::string& name, const Shape& shape, const std::vector<int>& values) {
    std::vector<uint8_t> bytes(values.size() * 4);
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return NewConst(name, DataType::kInt32, shape, std::move(bytes));
  }

  const Shape& ShapeOf(int id) const { return shapes_[id]; }
  bool IsConst(int id) const { return g_->tensors[id].is_constant(); }

  std::vector<float> ConstFloats(int id) const {
    const ir::TensorInfo& t = g_->tensors[id];
    const size_t n = static_cast<size_t>(NumElements(t.shape));
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
      if (t.dtype == DataType::kFloat32) {
        std::memcpy(&v[i], t.data + 4 * i, 4);
      } else if (t.dtype == DataType::kInt64) {
        int64_t x;
        std::memcpy(&x, t.data + 8 * i, 8);
        v[i] = static_cast<float>(x);
      } else if (t.dtype == DataType::kInt32) {
        int32_t x;
        std::memcpy(&x, t.data + 4 * i, 4);
        v[i] = static_cast<float>(x);
      }
    }
    return v;
  }

  std::vector<int64_t> ConstInts(int id) const {
    const ir::TensorInfo& t = g_->tensors[id];
    const size_t n = static_cast<size_t>(NumElements(t.shape));
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) {
      if (t.dtype == DataType::kInt64) {
        std::memcpy(&v[i], t.data + 8 * i, 8);
      } else if (t.dtype == DataType::kInt32) {
        int32_t x;
        std::memcpy(&x, t.data + 4 * i, 4);
        v[i] = x;
      } else if (t.dtype == DataType::kFloat32) {
        float x;
        std::memcpy(&x, t.data + 4 * i, 4);
        v[i] = static_cast<int64_t>(x);
      }
    }
    return v;
  }

  StatusOr<int> ConstantFromProto(const onnx::TensorProto& t, const std::string& name) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      return UnimplementedError(g_->source + ": tensor '" + name + "' uses external data");
    }
    Shape shape;
    int64_t n = 1;
    for (int64_t d : t.dims()) {
      if (d < 0 || d > kMaxElements) return DataLossError(g_->source + ": tensor '" + name + "' has a bad dimension");
      shape.push_back(static_cast<int>(d));
      n *= d;
      if (n > kMaxElements) return DataLossError(g_->source + ": tensor '" + name + "' is too large");
    }
    const size_t count = static_cast<size_t>(n);
    const bool raw = t.has_raw_data();
    // Check the stored size before allocating anything for the claimed shape.
    {
      size_t stored = 0;
      switch (t.data_type()) {
        case kFloat: stored = raw ? t.raw_data().size() / 4 : static_cast<size_t>(t.float_data_size()); break;
        case kDouble: stored = raw ? t.raw_data().size() / 8 : static_cast<size_t>(t.double_data_size()); break;
        case kInt64: stored = raw ? t.raw_data().size() / 8 : static_cast<size_t>(t.int64_data_size()); break;
        case kInt32: stored = raw ? t.raw_data().size() / 4 : static_cast<size_t>(t.int32_data_size()); break;
        default: stored = count; break;
      }
      if (stored != count) {
        return DataLossError(g_->source + ": tensor '" + name + "' stores " + std::to_string(stored) +
                             " values, its shape needs " + std::to_string(count));
      }
    }
    auto need_raw = [&](size_t elem) -> Status {
      if (t.raw_data().size() != count * elem) {
        return DataLossError(g_->source + ": tensor '" + name + "' holds " + std::to_string(t.raw_data().size()) +
                             " bytes, its shape needs " + std::to_string(count * elem));
      }
      return Status::Ok();
    };
    switch (t.data_type()) {
      case kFloat: {
        std::vector<float> v(count);
        if (raw) {
          RILL_INF_RETURN_IF_ERROR(need_raw(4));
          if (count) std::memcpy(v.data(), t.raw_data().data(), count * 4);
        } else {
          if (static_cast<size_t>(t.float_data_size()) != count) return DataLossError(g_->source + ": tensor '" + name + "' size mismatch");
          for (size_t i = 0; i < count; ++i) v[i] = t.float_data(static_cast<int>(i));
        }
        return NewFloatConst(name, shape, v);
      }
      case kDouble: {
        std::vector<float> v(count);
        if (raw) {
          RILL_INF_RETURN_IF_ERROR(need_raw(8));
          for (size_t i = 0; i < count; ++i) {
            double d;
            std::memcpy(&d, t.raw_data().data() + 8 * i, 8);
            v[i] = static_cast<float>(d);
          }
        } else {
          if (static_cast<size_t>(t.double_data_size()) != count) return DataLossError(g_->source + ": tensor '" + name + "' size mismatch");
          for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(t.double_data(static_cast<int>(i)));
        }
        return NewFloatConst(name, shape, v);
      }
      case kInt64:
      case kInt32: {
        std::vector<int64_t> v(count);
        const size_t elem = t.data_type() == kInt64 ? 8 : 4;
        if (raw) {
          RILL_INF_RETURN_IF_ERROR(need_raw(elem));
          for (size_t i = 0; i < count; ++i) {
            if (elem == 8) {
              std::memcpy(&v[i], t.raw_data().data() + 8 * i, 8);
            } else {
              int32_t x;
              std::memcpy(&x, t.raw_data().data() + 4 * i, 4);
              v[i] = x;
            }
          }
        } else if (t.data_type() == kInt64) {
          if (static_cast<size_t>(t.int64_data_size()) != count) return DataLossError(g_->source + ": tensor '" + name + "' size mismatch");
          for (size_t i = 0; i < count; ++i) v[i] = t.int64_data(static_cast<int>(i));
        } else {
          if (static_cast<size_t>(t.int32_data_size()) != count) return DataLossError(g_->source + ": tensor '" + name + "' size mismatch");
          for (size_t i = 0; i < count; ++i) v[i] = t.int32_data(static_cast<int>(i));
        }
        std::vector<uint8_t> bytes(count * 8);
        if (count) std::memcpy(bytes.data(), v.data(), bytes.size());
        return NewConst(name, DataType::kInt64, shape, std::move(bytes));
      }
      default:
        return UnimplementedError(g_->source + ": tensor '" + name + "' has unsupported ONNX data type " +
                                  std::to_string(t.data_type()));
    }
  }

  Status AddGraphInput(const onnx::ValueInfoProto& in) {
    const auto& type = in.type();
    if (!type.has_tensor_type()) return UnimplementedError(g_->source + ": input '" + in.name() + "' is not a tensor");
    if (type.tensor_type().elem_type() != kFloat) {
      return UnimplementedError(g_->source + ": input '" + in.name() + "' is not float32");
    }
    Shape shape;
    std::vector<std::string> symbolic;
    for (const auto& d : type.tensor_type().shape().dim()) {
      // Symbolic dimensions (a dynamic batch) start at 1 unless given.
      if (!d.has_dim_value()) symbolic.push_back(d.dim_param().empty() ? "?" : d.dim_param());
      const int64_t v = d.has_dim_value() ? d.dim_value() : 1;
      if (v <= 0 || v > (1 << 24)) return DataLossError(g_->source + ": input '" + in.name() + "' has a bad dimension");
      shape.push_back(static_cast<int>(v));
    }
    auto given = input_shapes_.find(in.name());
    if (given != input_shapes_.end()) {
      if (given->second.size() != shape.size()) {
        return InvalidArgumentError(g_->source + ": LoadOptions::input_shapes gives input '" + in.name() + "' " +
                                    ShapeToString(given->second) + ", but it has rank " +
                                    std::to_string(shape.size()));
      }
      for (int d : given->second) {
        if (d <= 0 || d > (1 << 24)) {
          return InvalidArgumentError(g_->source + ": LoadOptions::input_shapes gives input '" + in.name() +
                                      "' the bad shape " + ShapeToString(given->second));
        }
      }
      shape = given->second;
    } else if (!symbolic.empty()) {
      std::string dims;
      for (const std::string& d : symbolic) dims += (dims.empty() ? "" : ", ") + d;
      symbolic_ += (symbolic_.empty() ? "" : "; ") + ("input '" + in.name() + "' has symbolic dimensions " + dims);
    }
    const int id = NewTensor(in.name(), DataType::kFloat32);
    shapes_[id] = shape;
    g_->tensors[id].shape = shape;
    g_->inputs.push_back(id);
    values_[in.name()] = Value{id, false};
    return Status::Ok();
  }

  // ---- nodes ---------------------------------------------------------------

  StatusOr<int> Emit(OpType type, std::vector<int> inputs, const std::string& out_name, ir::OpAttrs attrs = {}) {
    Node node;
    node.name = out_name;
    node.type = type;
    node.inputs = std::move(inputs);
    node.attrs = std::move(attrs);
    const int out = NewTensor(out_name, DataType::kFloat32);
    node.outputs = {out};
    g_->nodes.push_back(std::move(node));
    Status s = g_->InferNodeShapes(g_->nodes.back(), &shapes_);
    if (!s.ok()) return Status(s.code(), ctx_ + s.message());
    g_->tensors[out].shape = shapes_[out];
    return out;
  }

  StatusOr<Value> Get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return InvalidArgumentError(ctx_ + "input '" + name + "' is not produced by any earlier node");
    return it->second;
  }

  StatusOr<Value> Input(const onnx::NodeProto& node, int i) const {
    if (i >= node.input_size() || node.input(i).empty()) {
      return InvalidArgumentError(ctx_ + "missing input " + std::to_string(i));
    }
    return Get(node.input(i));
  }
  bool HasInput(const onnx::NodeProto& node, int i) const { return i < node.input_size() && !node.input(i).empty(); }

  StatusOr<int> ConstInput(const onnx::NodeProto& node, int i) const {
    RILL_INF_ASSIGN_OR_RETURN(Value v, Input(node, i));
    if (!IsConst(v.id)) return UnimplementedError(ctx_ + "input " + std::to_string(i) + " must be a constant");
    return v.id;
  }

  void Define(const onnx::NodeProto& node, int id, bool nhwc, int output = 0) {
    if (output < node.output_size()) values_[node.output(output)] = Value{id, nhwc};
  }

  static const onnx::AttributeProto* FindAttr(const onnx::NodeProto& node, const std::string& name) {
    for (const auto& a : node.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  static int64_t AttrInt(const onnx::NodeProto& node, const std::string& name, int64_t def) {
    const auto* a = FindAttr(node, name);
    return a ? a->i() : def;
  }
  static float AttrFloat(const onnx::NodeProto& node, const std::string& name, float def) {
    const auto* a = FindAttr(node, name);
    return a ? a->f() : def;
  }
  static std::string AttrString(const onnx::NodeProto& node, const std::string& name, const std::string& def) {
    const auto* a = FindAttr(node, name);
    return a ? a->s() : def;
  }
  static std::vector<int64_t> AttrInts(const onnx::NodeProto& node, const std::string& name) {
    const auto* a = FindAttr(node, name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>();
  }

  Status Unsupported(const std::string& what) const { return UnimplementedError(ctx_ + what); }

  // The single value of a constant scalar operand.
  StatusOr<float> ScalarInput(const onnx::NodeProto& node, int i) const {
    RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, i));
    const std::vector<float> v = ConstFloats(id);
    if (v.size() != 1) return Unsupported("input " + std::to_string(i) + " must be a scalar");
    return v[0];
  }

  // ---- layout --------------------------------------------------------------

  StatusOr<int> ToNhwc(const Value& v) {
    if (v.nhwc) return v.id;
    const Shape& s = ShapeOf(v.id);
    if (s.size() != 4) return Unsupported("needs a 4-D input, got " + ShapeToString(s));
    auto cached = nhwc_of_.find(v.id);
    if (cached != nhwc_of_.end()) return cached->second;
    int id;
    if (IsConst(v.id)) {
      const std::vector<float> x = ConstFloats(v.id);
      std::vector<float> y(x.size());
      const int n = s[0], c = s[1], h = s[2], w = s[3];
      for (int a = 0; a < n; ++a)
        for (int ch = 0; ch < c; ++ch)
          for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) y[((static_cast<size_t>(a) * h + i) * w + j) * c + ch] = x[((static_cast<size_t>(a) * c + ch) * h + i) * w + j];
      id = NewFloatConst(g_->tensors[v.id].name + "/nhwc", {n, h, w, c}, y);
    } else {
      ir::OpAttrs a;
      a.perm = {0, 2, 3, 1};
      RILL_INF_ASSIGN_OR_RETURN(id, Emit(OpType::kTranspose, {v.id}, g_->tensors[v.id].name + "/nhwc", a));
    }
    nhwc_of_[v.id] = id;
    return id;
  }

  StatusOr<int> ToNchw(const Value& v) {
    if (!v.nhwc) return v.id;
    auto cached = nchw_of_.find(v.id);
    if (cached != nchw_of_.end()) return cached->second;
    const Shape s = ShapeOf(v.id);  // N H W C
    ir::OpAttrs a;
    int id;
    const std::string name = g_->tensors[v.id].name + "/nchw";
    if (s[1] == 1 && s[2] == 1) {
      // With H = W = 1 both layouts hold the same bytes.
      a.new_shape = {-1, s[3], 1, 1};  // batch left free for resizes
      RILL_INF_ASSIGN_OR_RETURN(id, Emit(OpType::kReshape, {v.id}, name, a));
    } else {
      a.perm = {0, 3, 1, 2};
      RILL_INF_ASSIGN_OR_RETURN(id, Emit(OpType::kTranspose, {v.id}, name, a));
    }
    nchw_of_[v.id] = id;
    return id;
  }

  // NCHW axis -> NHWC axis for 4-D values.
  static int NhwcAxis(int axis) {
    static const int kMap[4] = {0, 3, 1, 2};
    return kMap[axis];
  }

  // ---- ops -----------------------------------------------------------------

  Status ImportNode(const onnx::NodeProto& node) {
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      return Unsupported("unsupported op domain '" + node.domain() + "'");
    }
    const std::string& op = node.op_type();
    const std::string out_name = node.output_size() ? node.output(0) : node_name_;
    if (op == "Conv") return Conv(node, out_name);
    if (op == "ConvTranspose") return ConvTranspose(node, out_name);
    if (op == "Gemm") return Gemm(node, out_name);
    if (op == "MatMul") return MatMul(node, out_name);
    if (op == "BatchNormalization") return BatchNorm(node, out_name);
    if (op == "Relu" || op == "Sigmoid" || op == "HardSwish" || op == "HardSigmoid" || op == "LeakyRelu" ||
        op == "Clip") {
      return Unary(node, out_name);
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "PRelu") return Binary(node, out_name);
    if (op == "MaxPool" || op == "AveragePool") return Pool(node, out_name);
    if (op == "GlobalAveragePool") return GlobalAveragePool(node, out_name);
    if (op == "ReduceMean") return ReduceMean(node, out_name);
    if (op == "Concat") return Concat(node, out_name);
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") return ReshapeLike(node, out_name);
    if (op == "Transpose") return Transpose(node, out_name);
    if (op == "Pad") return Pad(node, out_name);
    if (op == "Resize" || op == "Upsample") return Resize(node, out_name);
    if (op == "Softmax") return Softmax(node, out_name);
    if (op == "Constant") return Constant(node, out_name);
    if (op == "Shape") return ShapeOp(node, out_name);
    if (op == "Gather") return Gather(node, out_name);
    if (op == "Slice") return Slice(node, out_name);
    if (op == "Cast") return Cast(node, out_name);
    if (op == "Identity" || op == "Dropout") {
      RILL_INF_ASSIGN_OR_RETURN(Value v, Input(node, 0));
      if (node.output_size() >= 1) values_[node.output(0)] = v;
      return Status::Ok();
    }
    return Unsupported("unsupported op type '" + op + "'");
  }

  struct Window {
    int kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  };

  // Fills padding attrs from auto_pad/pads.
  Status ReadPadding(const onnx::NodeProto& node, ir::OpAttrs* a) {
    const std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
    if (auto_pad == "SAME_UPPER") {
      a->padding = ir::Padding::kSame;
    } else if (auto_pad == "VALID") {
      a->padding = ir::Padding::kValid;
    } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
      a->padding = ir::Padding::kExplicit;
      const std::vector<int64_t> pads = AttrInts(node, "pads");
      if (!pads.empty()) {
        if (pads.size() != 4) return Unsupported("pads must have 4 values for 2-D ops");
        for (int64_t p : pads) {
          if (p < 0 || p > (1 << 20)) return Unsupported("negative or huge pads");
        }
        a->pad_top = static_cast<int>(pads[0]);
        a->pad_left = static_cast<int>(pads[1]);
        a->pad_bottom = static_cast<int>(pads[2]);
        a->pad_right = static_cast<int>(pads[3]);
      }
    } else {
      return Unsupported("auto_pad '" + auto_pad + "'");
    }
    return Status::Ok();
  }

  Status ReadStridesDilations(const onnx::NodeProto& node, ir::OpAttrs* a) {
    const std::vector<int64_t> strides = AttrInts(node, "strides");
    const std::vector<int64_t> dilations = AttrInts(node, "dilations");
    if (!strides.empty()) {
      if (strides.size() != 2) return Unsupported("only 2-D strides");
      a->stride_h = static_cast<int>(strides[0]);
      a->stride_w = static_cast<int>(strides[1]);
    }
    if (!dilations.empty()) {
      if (dilations.size() != 2) return Unsupported("only 2-D dilations");
      a->dilation_h = static_cast<int>(dilations[0]);
      a->dilation_w = static_cast<int>(dilations[1]);
    }
    return Status::Ok();
  }

  Status Conv(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int w_id, ConstInput(node, 1));
    const Shape ws = ShapeOf(w_id);  // O, I/g, kh, kw
    if (ws.size() != 4) return Unsupported("only 2-D convolutions");
    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNhwc(x));
    const int in_c = ShapeOf(xi)[3];
    const int group = static_cast<int>(AttrInt(node, "group", 1));
    ir::OpAttrs a;
    RILL_INF_RETURN_IF_ERROR(ReadPadding(node, &a));
    RILL_INF_RETURN_IF_ERROR(ReadStridesDilations(node, &a));
    const int o = ws[0], ipg = ws[1], kh = ws[2], kw = ws[3];
    const std::vector<float> w = ConstFloats(w_id);
    std::vector<float> f(w.size());
    OpType type;
    Shape fshape;
    if (group < 1 || static_cast<long long>(ipg) * group != in_c || o % group != 0) {
      return Unsupported("weights " + ShapeToString(ws) + " with group=" + std::to_string(group) + " do not match " +
                         std::to_string(in_c) + " input channels");
    }
    if (group == 1 || ipg > 1) {
      // Grouped convs (ResNeXt, ShuffleNet) stay one CONV_2D: its filter's
      // ipg input channels of in_c make the groups.
      type = OpType::kConv2D;
      fshape = {o, kh, kw, ipg};
      for (int oc = 0; oc < o; ++oc)
        for (int ic = 0; ic < ipg; ++ic)
          for (int y = 0; y < kh; ++y)
            for (int xx = 0; xx < kw; ++xx)
              f[((static_cast<size_t>(oc) * kh + y) * kw + xx) * ipg + ic] = w[((static_cast<size_t>(oc) * ipg + ic) * kh + y) * kw + xx];
    } else {  // group == in_c: depthwise
      type = OpType::kDepthwiseConv2D;
      fshape = {1, kh, kw, o};
      a.depth_multiplier = o / group;
      for (int oc = 0; oc < o; ++oc)
        for (int y = 0; y < kh; ++y)
          for (int xx = 0; xx < kw; ++xx) f[(static_cast<size_t>(y) * kw + xx) * o + oc] = w[(static_cast<size_t>(oc) * kh + y) * kw + xx];
    }
    std::vector<int> inputs = {xi, NewFloatConst(g_->tensors[w_id].name + "/ohwi", fshape, f)};
    if (HasInput(node, 2)) {
      RILL_INF_ASSIGN_OR_RETURN(int b, ConstInput(node, 2));
      inputs.push_back(b);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(type, inputs, out_name, a));
    Define(node, out, true);
    return Status::Ok();
  }

  Status ConvTranspose(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int w_id, ConstInput(node, 1));
    const Shape ws = ShapeOf(w_id);  // I, O/g, kh, kw
    if (ws.size() != 4) return Unsupported("only 2-D transposed convolutions");
    if (!AttrInts(node, "output_shape").empty()) return Unsupported("output_shape attribute");
    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNhwc(x));
    ir::OpAttrs a;
    RILL_INF_RETURN_IF_ERROR(ReadPadding(node, &a));
    RILL_INF_RETURN_IF_ERROR(ReadStridesDilations(node, &a));
    if (a.dilation_h != 1 || a.dilation_w != 1) return Unsupported("dilated ConvTranspose");
    if (a.padding != ir::Padding::kExplicit) return Unsupported("auto_pad on ConvTranspose");
    const std::vector<int64_t> out_pad = AttrInts(node, "output_padding");
    if (out_pad.size() == 2) {
      a.pad_bottom -= static_cast<int>(out_pad[0]);
      a.pad_right -= static_cast<int>(out_pad[1]);
    }
    // Weights (C, M/group, kh, kw) -> [M, kh, kw, C/group]: output channel
    // g * M/group + m reads input channels g * C/group + j.
    const int ci = ws[0], cog = ws[1], kh = ws[2], kw = ws[3];
    const int group = static_cast<int>(AttrInt(node, "group", 1));
    if (group < 1 || ci != ShapeOf(xi)[3] || ci % group != 0 ||
        static_cast<long long>(cog) * group > (1 << 24)) {
      return Unsupported("weights " + ShapeToString(ws) + " with group=" + std::to_string(group) + " do not match " +
                         std::to_string(ShapeOf(xi)[3]) + " input channels");
    }
    const int cig = ci / group, co = cog * group;
    const std::vector<float> w = ConstFloats(w_id);
    std::vector<float> f(w.size());
    for (int ic = 0; ic < ci; ++ic)
      for (int m = 0; m < cog; ++m)
        for (int y = 0; y < kh; ++y)
          for (int xx = 0; xx < kw; ++xx) {
            const size_t oc = static_cast<size_t>(ic / cig) * cog + m;
            f[((oc * kh + y) * kw + xx) * cig + ic % cig] = w[((static_cast<size_t>(ic) * cog + m) * kh + y) * kw + xx];
          }
    std::vector<int> inputs = {xi, NewFloatConst(g_->tensors[w_id].name + "/ohwi", {co, kh, kw, cig}, f)};
    if (HasInput(node, 2)) {
      RILL_INF_ASSIGN_OR_RETURN(int b, ConstInput(node, 2));
      inputs.push_back(b);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kTransposeConv2D, inputs, out_name, a));
    Define(node, out, true);
    return Status::Ok();
  }

  Status Gemm(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value a_value, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int b_id, ConstInput(node, 1));
    if (AttrInt(node, "transA", 0) != 0) return Unsupported("transA=1");
    RILL_INF_ASSIGN_OR_RETURN(int a_id, ToNchw(a_value));
    if (ShapeOf(a_id).size() != 2) return Unsupported("input A must be 2-D, is " + ShapeToString(ShapeOf(a_id)));
    const Shape bs = ShapeOf(b_id);
    if (bs.size() != 2) return Unsupported("B must be 2-D");
    const bool trans_b = AttrInt(node, "transB", 0) != 0;
    const float alpha = AttrFloat(node, "alpha", 1.0f), beta = AttrFloat(node, "beta", 1.0f);
    const int n = trans_b ? bs[0] : bs[1], k = trans_b ? bs[1] : bs[0];
    const std::vector<float> b = ConstFloats(b_id);
    std::vector<float> w(static_cast<size_t>(n) * k);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < k; ++j)
        w[static_cast<size_t>(i) * k + j] = alpha * (trans_b ? b[static_cast<size_t>(i) * k + j] : b[static_cast<size_t>(j) * n + i]);
    std::vector<int> inputs = {a_id, NewFloatConst(g_->tensors[b_id].name + "/nk", {n, k}, w)};
    if (HasInput(node, 2)) {
      RILL_INF_ASSIGN_OR_RETURN(int c_id, ConstInput(node, 2));
      std::vector<float> c = ConstFloats(c_id);
      if (c.size() == 1) c.assign(n, c[0]);
      if (static_cast<int>(c.size()) != n) return Unsupported("C must broadcast along N only");
      for (float& v : c) v *= beta;
      inputs.push_back(NewFloatConst(g_->tensors[c_id].name + "/bias", {n}, c));
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kFullyConnected, inputs, out_name));
    Define(node, out, false);
    return Status::Ok();
  }

  Status MatMul(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value a_value, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(Value b_value, Input(node, 1));
    if (!IsConst(b_value.id)) return Unsupported("MatMul with a non-constant right operand");
    RILL_INF_ASSIGN_OR_RETURN(int a_id, ToNchw(a_value));
    const Shape bs = ShapeOf(b_value.id);
    if (bs.size() != 2 || ShapeOf(a_id).size() < 2) return Unsupported("MatMul needs A of rank >= 2 and a 2-D B");
    const int k = bs[0], n = bs[1];
    const std::vector<float> b = ConstFloats(b_value.id);
    std::vector<float> w(static_cast<size_t>(n) * k);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < k; ++j) w[static_cast<size_t>(i) * k + j] = b[static_cast<size_t>(j) * n + i];
    ir::OpAttrs a;
    a.keep_num_dims = true;
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kFullyConnected,
                                            {a_id, NewFloatConst(g_->tensors[b_value.id].name + "/nk", {n, k}, w)},
                                            out_name, a));
    Define(node, out, false);
    return Status::Ok();
  }

  // y = x * s + t per channel, with s = scale / sqrt(var + eps), t = B - mean * s.
  Status BatchNorm(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    std::vector<float> p[4];
    for (int i = 0; i < 4; ++i) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, i + 1));
      p[i] = ConstFloats(id);
    }
    const size_t c = p[0].size();
    for (int i = 1; i < 4; ++i) {
      if (p[i].size() != c) return Unsupported("BatchNormalization parameters differ in size");
    }
    const float eps = AttrFloat(node, "epsilon", 1e-5f);
    std::vector<float> s(c), t(c);
    for (size_t i = 0; i < c; ++i) {
      s[i] = p[0][i] / std::sqrt(p[3][i] + eps);
      t[i] = p[1][i] - p[2][i] * s[i];
    }
    int xi = x.id;
    bool nhwc = x.nhwc;
    if (!nhwc && ShapeOf(xi).size() == 4) {
      RILL_INF_ASSIGN_OR_RETURN(xi, ToNhwc(x));
      nhwc = true;
    } else if (!nhwc && ShapeOf(xi).size() != 2) {
      return Unsupported("BatchNormalization on rank " + std::to_string(ShapeOf(xi).size()));
    }
    const int cs = static_cast<int>(c);
    RILL_INF_ASSIGN_OR_RETURN(int scaled, Emit(OpType::kMul, {xi, NewFloatConst(out_name + "/bn_scale", {cs}, s)},
                                               out_name + "/bn_scaled"));
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kAdd, {scaled, NewFloatConst(out_name + "/bn_shift", {cs}, t)},
                                            out_name));
    Define(node, out, nhwc);
    return Status::Ok();
  }

  Status Unary(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    const std::string& op = node.op_type();
    ir::OpAttrs a;
    OpType type;
    if (op == "Relu") {
      type = OpType::kRelu;
    } else if (op == "Sigmoid") {
      type = OpType::kLogistic;
    } else if (op == "HardSwish") {
      type = OpType::kHardSwish;
    } else if (op == "HardSigmoid") {
      type = OpType::kHardSigmoid;
      a.alpha = AttrFloat(node, "alpha", 0.2f);
      a.beta = AttrFloat(node, "beta", 0.5f);
    } else if (op == "LeakyRelu") {
      type = OpType::kLeakyRelu;
      a.alpha = AttrFloat(node, "alpha", 0.01f);
    } else {  // Clip
      float lo = AttrFloat(node, "min", -3.402823466e38f), hi = AttrFloat(node, "max", 3.402823466e38f);
      if (HasInput(node, 1)) {
        RILL_INF_ASSIGN_OR_RETURN(lo, ScalarInput(node, 1));
      }
      if (HasInput(node, 2)) {
        RILL_INF_ASSIGN_OR_RETURN(hi, ScalarInput(node, 2));
      }
      type = (lo == 0.0f && hi == 6.0f) ? OpType::kRelu6 : OpType::kClamp;
      a.clamp_min = lo;
      a.clamp_max = hi;
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(type, {x.id}, out_name, a));
    Define(node, out, x.nhwc);
    return Status::Ok();
  }

  // Brings a constant operand of an NHWC value's binary op into NHWC: numpy
  // alignment to rank 4 in NCHW, then the permutation.
  StatusOr<int> BroadcastOperandToNhwc(const Value& v) {
    if (v.nhwc) return v.id;
    Shape s = ShapeOf(v.id);
    if (s.size() > 4) return Unsupported("operand of rank > 4 against a 4-D value");
    const int64_t n = NumElements(s);
    if (n == 1) return v.id;  // scalars broadcast in any layout
    if (!IsConst(v.id)) {
      if (s.size() == 4) return ToNhwc(v);
      return Unsupported("non-constant operand " + ShapeToString(s) + " against a 4-D value");
    }
    while (s.size() < 4) s.insert(s.begin(), 1);
    const std::vector<float> x = ConstFloats(v.id);
    std::vector<float> y(x.size());
    const int N = s[0], C = s[1], H = s[2], W = s[3];
    for (int a = 0; a < N; ++a)
      for (int c = 0; c < C; ++c)
        for (int i = 0; i < H; ++i)
          for (int j = 0; j < W; ++j) y[((static_cast<size_t>(a) * H + i) * W + j) * C + c] = x[((static_cast<size_t>(a) * C + c) * H + i) * W + j];
    return NewFloatConst(g_->tensors[v.id].name + "/nhwc", {N, H, W, C}, y);
  }

  Status Binary(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value a, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(Value b, Input(node, 1));
    const std::string& op = node.op_type();
    // Integer shape arithmetic on constants folds.
    if (IsConst(a.id) && IsConst(b.id) && (g_->tensors[a.id].dtype == DataType::kInt64 || g_->tensors[b.id].dtype == DataType::kInt64)) {
      std::vector<int64_t> x = ConstInts(a.id), y = ConstInts(b.id);
      if (x.size() != y.size() && x.size() != 1 && y.size() != 1) return Unsupported("constant shapes differ");
      const size_t n = std::max(x.size(), y.size());
      std::vector<int64_t> r(n);
      for (size_t i = 0; i < n; ++i) {
        const int64_t u = x[x.size() == 1 ? 0 : i], v = y[y.size() == 1 ? 0 : i];
        if (op == "Add") r[i] = u + v;
        else if (op == "Sub") r[i] = u - v;
        else if (op == "Mul") r[i] = u * v;
        else if (op == "Div") r[i] = v == 0 ? 0 : u / v;
        else return Unsupported("integer PRelu");
      }
      Define(node, NewIntConst(out_name, r), false);
      return Status::Ok();
    }
    OpType type = op == "Add" ? OpType::kAdd : op == "Sub" ? OpType::kSub : op == "Mul" ? OpType::kMul
                : op == "Div" ? OpType::kDiv : OpType::kPRelu;
    int ai = a.id, bi = b.id;
    bool nhwc = false;
    if (a.nhwc || b.nhwc) {
      RILL_INF_ASSIGN_OR_RETURN(ai, BroadcastOperandToNhwc(a));
      RILL_INF_ASSIGN_OR_RETURN(bi, BroadcastOperandToNhwc(b));
      nhwc = true;
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(type, {ai, bi}, out_name));
    Define(node, out, nhwc);
    return Status::Ok();
  }

  Status Pool(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNhwc(x));
    ir::OpAttrs a;
    RILL_INF_RETURN_IF_ERROR(ReadPadding(node, &a));
    RILL_INF_RETURN_IF_ERROR(ReadStridesDilations(node, &a));
    if (a.dilation_h != 1 || a.dilation_w != 1) return Unsupported("dilated pooling");
    const std::vector<int64_t> k = AttrInts(node, "kernel_shape");
    if (k.size() != 2) return Unsupported("kernel_shape must have 2 values");
    a.kernel_h = static_cast<int>(k[0]);
    a.kernel_w = static_cast<int>(k[1]);
    a.ceil_mode = AttrInt(node, "ceil_mode", 0) != 0;
    const bool is_max = node.op_type() == "MaxPool";
    if (!is_max && AttrInt(node, "count_include_pad", 0) != 0 &&
        (a.pad_top || a.pad_left || a.pad_bottom || a.pad_right || a.padding == ir::Padding::kSame)) {
      return Unsupported("count_include_pad=1 with padding");
    }
    if (node.output_size() > 1 && !node.output(1).empty()) return Unsupported("MaxPool indices output");
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(is_max ? OpType::kMaxPool2D : OpType::kAveragePool2D, {xi}, out_name, a));
    Define(node, out, true);
    return Status::Ok();
  }

  Status GlobalAveragePool(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNhwc(x));
    ir::OpAttrs a;
    a.keep_dims = true;
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kMean, {xi, NewInt32Const(out_name + "/axes", {2}, {1, 2})}, out_name, a));
    Define(node, out, true);
    return Status::Ok();
  }

  Status ReduceMean(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    std::vector<int64_t> axes = AttrInts(node, "axes");
    if (axes.empty() && HasInput(node, 1)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 1));
      axes = ConstInts(id);
    }
    const bool keep = AttrInt(node, "keepdims", 1) != 0;
    const int rank = static_cast<int>(ShapeOf(x.id).size());
    ir::OpAttrs a;
    a.keep_dims = keep;
    std::vector<int> ax;
    if (axes.empty()) {
      for (int i = 0; i < rank; ++i) ax.push_back(i);
    } else {
      for (int64_t v : axes) ax.push_back(static_cast<int>(v < 0 ? v + rank : v));
    }
    int xi;
    bool nhwc = false;
    if (x.nhwc && keep) {
      xi = x.id;
      for (int& v : ax) {
        if (v < 0 || v > 3) return Unsupported("axis out of range");
        v = NhwcAxis(v);
      }
      nhwc = true;
    } else {
      RILL_INF_ASSIGN_OR_RETURN(xi, ToNchw(x));
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kMean, {xi, NewInt32Const(out_name + "/axes", {static_cast<int>(ax.size())}, ax)}, out_name, a));
    Define(node, out, nhwc);
    return Status::Ok();
  }

  Status Concat(const onnx::NodeProto& node, const std::string& out_name) {
    std::vector<Value> ins;
    bool any_nhwc = false, all_const = true;
    for (int i = 0; i < node.input_size(); ++i) {
      RILL_INF_ASSIGN_OR_RETURN(Value v, Input(node, i));
      ins.push_back(v);
      any_nhwc = any_nhwc || v.nhwc;
      all_const = all_const && IsConst(v.id) && g_->tensors[v.id].dtype == DataType::kInt64;
    }
    if (ins.empty()) return Unsupported("no inputs");
    if (all_const) {  // shape arithmetic
      std::vector<int64_t> r;
      for (const Value& v : ins) {
        const std::vector<int64_t> x = ConstInts(v.id);
        r.insert(r.end(), x.begin(), x.end());
      }
      Define(node, NewIntConst(out_name, r), false);
      return Status::Ok();
    }
    const int rank = static_cast<int>(ShapeOf(ins[0].id).size());
    int axis = static_cast<int>(AttrInt(node, "axis", 0));
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return Unsupported("axis out of range");
    std::vector<int> ids;
    for (const Value& v : ins) {
      int id;
      if (any_nhwc) {
        RILL_INF_ASSIGN_OR_RETURN(id, ToNhwc(v));
      } else {
        id = v.id;
      }
      ids.push_back(id);
    }
    ir::OpAttrs a;
    a.axis = any_nhwc ? NhwcAxis(axis) : axis;
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kConcatenation, ids, out_name, a));
    Define(node, out, any_nhwc);
    return Status::Ok();
  }

  // Reshape, Flatten, Squeeze, Unsqueeze: all a new shape of NCHW bytes.
  Status ReshapeLike(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    const std::string& op = node.op_type();
    const Shape in = x.nhwc ? Shape{ShapeOf(x.id)[0], ShapeOf(x.id)[3], ShapeOf(x.id)[1], ShapeOf(x.id)[2]} : ShapeOf(x.id);
    const int rank = static_cast<int>(in.size());
    std::vector<int> target;
    if (op == "Reshape") {
      RILL_INF_ASSIGN_OR_RETURN(int s, ConstInput(node, 1));
      const std::vector<int64_t> shape = ConstInts(s);
      const bool allow_zero = AttrInt(node, "allowzero", 0) != 0;
      for (size_t i = 0; i < shape.size(); ++i) {
        int64_t d = shape[i];
        if (d == 0 && !allow_zero) {
          if (static_cast<int>(i) >= rank) return Unsupported("0 in shape beyond input rank");
          d = in[i];
        }
        if (d < -1 || d > (int64_t{1} << 30)) return Unsupported("invalid shape value");
        target.push_back(static_cast<int>(d));
      }
    } else if (op == "Flatten") {
      int axis = static_cast<int>(AttrInt(node, "axis", 1));
      if (axis < 0) axis += rank;
      if (axis < 0 || axis > rank) return Unsupported("axis out of range");
      int64_t outer = 1, inner = 1;
      for (int i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[i];
      // -1 keeps the leading (batch) dimension free, so a session can resize it.
      target = {axis >= 1 ? -1 : static_cast<int>(outer), static_cast<int>(inner)};
    } else {
      std::vector<int64_t> axes = AttrInts(node, "axes");
      if (axes.empty() && HasInput(node, 1)) {
        RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 1));
        axes = ConstInts(id);
      }
      if (op == "Squeeze") {
        std::set<int> drop;
        for (int64_t a : axes) drop.insert(static_cast<int>(a < 0 ? a + rank : a));
        for (int i = 0; i < rank; ++i) {
          if (axes.empty() ? in[i] != 1 : !drop.count(i)) target.push_back(in[i]);
        }
      } else {
        const int out_rank = rank + static_cast<int>(axes.size());
        std::set<int> add;
        for (int64_t a : axes) add.insert(static_cast<int>(a < 0 ? a + out_rank : a));
        for (int i = 0, j = 0; i < out_rank; ++i) {
          if (add.count(i)) {
            target.push_back(1);
          } else {
            if (j >= rank) return Unsupported("bad axes");
            target.push_back(in[j++]);
          }
        }
      }
    }
    if (IsConst(x.id)) {  // constant folding (shape tensors and weights)
      const ir::TensorInfo& t = g_->tensors[x.id];
      int64_t known = 1;
      int infer = -1;
      for (size_t i = 0; i < target.size(); ++i) {
        if (target[i] == -1) infer = static_cast<int>(i);
        else known *= target[i];
      }
      if (infer >= 0 && known > 0) target[infer] = static_cast<int>(NumElements(t.shape) / known);
      if (NumElements(target) != NumElements(t.shape)) return Unsupported("cannot reshape constant");
      std::vector<uint8_t> bytes(t.data, t.data + t.bytes);
      Define(node, NewConst(out_name, t.dtype, target, std::move(bytes)), false);
      return Status::Ok();
    }
    if (op == "Reshape" && x.nhwc) {
      bool shuffled = false;
      RILL_INF_RETURN_IF_ERROR(ChannelShuffle(node, x, in, target, &shuffled));
      if (shuffled) return Status::Ok();
    }
    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNchw(x));
    ir::OpAttrs a;
    a.new_shape = target;
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kReshape, {xi}, out_name, a));
    Define(node, out, false);
    return Status::Ok();
  }

  // The graph node reading `name`, if exactly one does and it is not a graph
  // output; -1 otherwise.
  int SoleConsumer(const std::string& name) const {
    const onnx::GraphProto& graph = model_.graph();
    for (const onnx::ValueInfoProto& out : graph.output()) {
      if (out.name() == name) return -1;
    }
    int found = -1;
    for (int i = 0; i < graph.node_size(); ++i) {
      for (const std::string& in : graph.node(i).input()) {
        if (in != name) continue;
        if (found >= 0 && found != i) return -1;
        found = i;
      }
    }
    return found;
  }

  // ShuffleNet's channel shuffle, Reshape [N, C, H, W] -> [N, g, C/g, H, W],
  // Transpose (0, 2, 1, 3, 4), Reshape -> [N, C, H, W], on an NHWC value:
  // one TRANSPOSE of each pixel's channels ([g, C/g] -> [C/g, g]) instead of
  // converting to NCHW and back around a 5-D transpose. Sets *done when the
  // three nodes matched (the other two are then skipped).
  Status ChannelShuffle(const onnx::NodeProto& node, const Value& x, const Shape& in, std::vector<int> target,
                        bool* done) {
    *done = false;
    if (in.size() != 4 || target.size() != 5) return Status::Ok();
    for (int& d : target) {
      if (d == -1) d = static_cast<int>(NumElements(in) / std::max<int64_t>(1, -NumElements(target)));
    }
    const int n = in[0], c = in[1], h = in[2], w = in[3], g = target[1];
    if (target[0] != n || target[3] != h || target[4] != w || g <= 1 || static_cast<int64_t>(g) * target[2] != c) {
      return Status::Ok();
    }
    // Nodes without outputs (a corrupt file; the fuzzer made one) match nothing.
    if (node.output_size() < 1) return Status::Ok();
    const int ti = SoleConsumer(node.output(0));
    if (ti < 0) return Status::Ok();
    const onnx::NodeProto& tr = model_.graph().node(ti);
    if (tr.op_type() != "Transpose" || tr.output_size() < 1 ||
        AttrInts(tr, "perm") != std::vector<int64_t>{0, 2, 1, 3, 4}) {
      return Status::Ok();
    }
    const int ri = SoleConsumer(tr.output(0));
    if (ri < 0) return Status::Ok();
    const onnx::NodeProto& back = model_.graph().node(ri);
    if (back.op_type() != "Reshape" || back.input_size() < 2 || back.output_size() < 1 ||
        back.input(0) != tr.output(0)) {
      return Status::Ok();
    }
    // The shape may come from a Constant node after this one.
    int shape_id = -1;
    auto shape_value = values_.find(back.input(1));
    if (shape_value != values_.end()) {
      shape_id = shape_value->second.id;
    } else {
      for (const onnx::NodeProto& k : model_.graph().node()) {
        if (k.op_type() != "Constant" || k.output_size() != 1 || k.output(0) != back.input(1)) continue;
        const onnx::AttributeProto* v = FindAttr(k, "value");
        if (v == nullptr || !v->has_t()) return Status::Ok();
        RILL_INF_ASSIGN_OR_RETURN(shape_id, ConstantFromProto(v->t(), k.output(0) + "/lookahead"));
      }
    }
    if (shape_id < 0 || !IsConst(shape_id) || g_->tensors[shape_id].dtype != DataType::kInt64) return Status::Ok();
    const std::vector<int64_t> s = ConstInts(shape_id);
    const std::vector<int64_t> want = {n, c, h, w};
    if (s.size() != 4) return Status::Ok();
    int64_t known = 1;
    for (size_t i = 0; i < 4; ++i) {
      const int64_t d = s[i] == 0 && i == 0 ? n : s[i];  // 0 copies the batch
      if (d != -1 && d != want[i]) return Status::Ok();
      if (d != -1) known *= d;
    }
    if (known <= 0 || NumElements(in) % known != 0) return Status::Ok();
    ir::OpAttrs split, perm, merge;
    split.new_shape = {n, h, w, g, c / g};
    perm.perm = {0, 1, 2, 4, 3};
    merge.new_shape = {n, h, w, c};
    const std::string name = back.output(0);
    RILL_INF_ASSIGN_OR_RETURN(int r1, Emit(OpType::kReshape, {x.id}, name + "/groups", split));
    RILL_INF_ASSIGN_OR_RETURN(int t, Emit(OpType::kTranspose, {r1}, name + "/shuffle", perm));
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kReshape, {t}, name, merge));
    Define(back, out, true);
    done_nodes_.insert(ti);
    done_nodes_.insert(ri);
    *done = true;
    return Status::Ok();
  }

  Status Transpose(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNchw(x));
    const int rank = static_cast<int>(ShapeOf(xi).size());
    ir::OpAttrs a;
    for (int64_t p : AttrInts(node, "perm")) a.perm.push_back(static_cast<int>(p));
    if (a.perm.empty()) {
      for (int i = rank - 1; i >= 0; --i) a.perm.push_back(i);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kTranspose, {xi}, out_name, a));
    Define(node, out, false);
    return Status::Ok();
  }

  Status Pad(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    if (AttrString(node, "mode", "constant") != "constant") return Unsupported("only constant padding");
    std::vector<int64_t> pads = AttrInts(node, "pads");
    float value = AttrFloat(node, "value", 0.0f);
    if (HasInput(node, 1)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 1));
      pads = ConstInts(id);
    }
    if (HasInput(node, 2)) {
      RILL_INF_ASSIGN_OR_RETURN(value, ScalarInput(node, 2));
    }
    if (HasInput(node, 3)) return Unsupported("axes input");
    const int rank = static_cast<int>(ShapeOf(x.id).size());
    if (static_cast<int>(pads.size()) != 2 * rank) return Unsupported("pads must have 2 * rank values");
    std::vector<int> pairs(2 * rank);
    for (int d = 0; d < rank; ++d) {
      const int to = x.nhwc ? NhwcAxis(d) : d;
      if (pads[d] < 0 || pads[d + rank] < 0) return Unsupported("negative pads");
      pairs[2 * to] = static_cast<int>(pads[d]);
      pairs[2 * to + 1] = static_cast<int>(pads[d + rank]);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kPad,
                                            {x.id, NewInt32Const(out_name + "/paddings", {rank, 2}, pairs),
                                             NewFloatConst(out_name + "/value", {}, {value})},
                                            out_name));
    Define(node, out, x.nhwc);
    return Status::Ok();
  }

  // Resize (opsets 10 to 19) and Upsample (7, 9) of a 4-D NCHW input over H
  // and W, in ONNX Runtime 1.30's conventions: output sizes from scales in
  // float, keep_aspect_ratio_policy, an output as large as the input copied
  // as is, an axis whose scale is 1 not transformed. Every attribute is read;
  // an attribute or value not handled is an error, never ignored.
  Status Resize(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    const bool upsample = node.op_type() == "Upsample";
    // Upsample and Resize before opset 11 take (X, scales) (Upsample-7 the
    // scales as an attribute); later Resize (X, roi, scales, sizes).
    const bool old_resize = upsample || opset_ < 11;
    const bool opset18 = !old_resize && opset_ >= 18;
    for (const onnx::AttributeProto& attr : node.attribute()) {
      const std::string& n = attr.name();
      const bool known = n == "mode" || (upsample && opset_ < 9 && n == "scales") ||
                         (!old_resize && (n == "coordinate_transformation_mode" || n == "nearest_mode" ||
                                          n == "cubic_coeff_a" || n == "exclude_outside" ||
                                          n == "extrapolation_value")) ||
                         (opset18 && (n == "antialias" || n == "axes" || n == "keep_aspect_ratio_policy"));
      if (!known) {
        return Unsupported("attribute '" + n + "' (not one of " + node.op_type() + "-" +
                           std::to_string(opset_) + "'s)");
      }
    }
    std::string mode = AttrString(node, "mode", "nearest");
    if (mode == "bilinear") mode = "linear";  // older converters' spelling
    if (mode != "nearest" && mode != "linear" && mode != "cubic") return Unsupported("Resize mode '" + mode + "'");
    if (mode == "cubic" && old_resize) return Unsupported("mode cubic before Resize-11");

    const int64_t antialias = AttrInt(node, "antialias", 0);
    const int64_t exclude_outside = AttrInt(node, "exclude_outside", 0);
    if (antialias != 0 && antialias != 1) return Unsupported("antialias " + std::to_string(antialias));
    if (exclude_outside != 0 && exclude_outside != 1) {
      return Unsupported("exclude_outside " + std::to_string(exclude_outside));
    }
    if (antialias && mode == "nearest") return Unsupported("antialias=1 with mode nearest");
    if (exclude_outside && !(mode == "cubic" || (mode == "linear" && antialias))) {
      return Unsupported("exclude_outside=1 with mode " + mode + (antialias ? "" : " without antialias"));
    }
    const float cubic_coeff_a = AttrFloat(node, "cubic_coeff_a", -0.75f);
    const float extrapolation_value = AttrFloat(node, "extrapolation_value", 0.0f);
    if (!std::isfinite(cubic_coeff_a)) return Unsupported("cubic_coeff_a must be finite");

    ir::ResizeCoordinate coordinate = ir::ResizeCoordinate::kAsymmetric;  // the only one before opset 11
    if (!old_resize) {
      static const std::map<std::string, ir::ResizeCoordinate> kModes = {
          {"half_pixel", ir::ResizeCoordinate::kHalfPixel},
          {"pytorch_half_pixel", ir::ResizeCoordinate::kPytorchHalfPixel},
          {"align_corners", ir::ResizeCoordinate::kAlignCorners},
          {"asymmetric", ir::ResizeCoordinate::kAsymmetric},
          {"tf_half_pixel_for_nn", ir::ResizeCoordinate::kTfHalfPixelForNn},
          {"tf_crop_and_resize", ir::ResizeCoordinate::kTfCropAndResize},
          {"half_pixel_symmetric", ir::ResizeCoordinate::kHalfPixelSymmetric},
      };
      const std::string ctm = AttrString(node, "coordinate_transformation_mode", "half_pixel");
      auto it = kModes.find(ctm);
      if (it == kModes.end()) return Unsupported("coordinate_transformation_mode '" + ctm + "'");
      coordinate = it->second;
    }
    const bool crop = coordinate == ir::ResizeCoordinate::kTfCropAndResize;
    ir::NearestRounding rounding = ir::NearestRounding::kSimple;  // ONNX Runtime's rounding before opset 11
    if (!old_resize) {
      const std::string nm = AttrString(node, "nearest_mode", "round_prefer_floor");
      if (nm == "round_prefer_floor") rounding = ir::NearestRounding::kRoundPreferFloor;
      else if (nm == "round_prefer_ceil") rounding = ir::NearestRounding::kRoundPreferCeil;
      else if (nm == "floor") rounding = ir::NearestRounding::kFloor;
      else if (nm == "ceil") rounding = ir::NearestRounding::kCeil;
      else return Unsupported("nearest_mode '" + nm + "'");
    }
    // keep_aspect_ratio_policy changes sizes only (below), but a value
    // outside the three is an error whatever is given.
    const std::string policy = AttrString(node, "keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      return Unsupported("keep_aspect_ratio_policy '" + policy + "'");
    }

    RILL_INF_ASSIGN_OR_RETURN(int xi, ToNhwc(x));
    const Shape s = ShapeOf(xi);  // N H W C
    const std::vector<int64_t> in_dims = {s[0], s[3], s[1], s[2]};  // NCHW

    // The NCHW axes that scales, sizes and roi give values for.
    std::vector<int> axes = {0, 1, 2, 3};
    const std::vector<int64_t> axes_attr = AttrInts(node, "axes");
    if (!axes_attr.empty()) {
      axes.clear();
      for (int64_t v : axes_attr) {
        const int64_t a = v < 0 ? v + 4 : v;
        if ((a != 2 && a != 3) || std::count(axes.begin(), axes.end(), static_cast<int>(a)) > 0) {
          return Unsupported("axes must name H and W only ({2, 3} or {-2, -1})");
        }
        axes.push_back(static_cast<int>(a));
      }
    }
    const size_t n_axes = axes.size();

    std::vector<float> scales(4, 1.0f);  // NCHW
    std::vector<int64_t> out_dims = in_dims;
    bool from_sizes = false;
    ir::ResizeAspectPolicy aspect = ir::ResizeAspectPolicy::kStretch;
    int64_t aspect_sizes[4] = {0, 0, 0, 0};
    if (old_resize) {
      std::vector<float> v;
      if (upsample && opset_ < 9) {
        if (const auto* attr = FindAttr(node, "scales")) v.assign(attr->floats().begin(), attr->floats().end());
      } else if (HasInput(node, 1)) {
        RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 1));
        v = ConstFloats(id);
      }
      if (v.size() != 4) return Unsupported("scales must have 4 values");
      scales = v;
    } else {
      std::vector<float> scale_values;
      std::vector<int64_t> size_values;
      if (HasInput(node, 2)) {
        RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 2));
        scale_values = ConstFloats(id);
      }
      if (HasInput(node, 3)) {
        RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 3));
        size_values = ConstInts(id);
      }
      if (!scale_values.empty() && !size_values.empty()) return Unsupported("both scales and sizes given");
      if (scale_values.empty() && size_values.empty()) return Unsupported("neither scales nor sizes given");
      if (!scale_values.empty()) {
        if (scale_values.size() != n_axes) return Unsupported("scales must have " + std::to_string(n_axes) + " values");
        for (size_t i = 0; i < n_axes; ++i) scales[axes[i]] = scale_values[i];
      } else {
        if (size_values.size() != n_axes) return Unsupported("sizes must have " + std::to_string(n_axes) + " values");
        for (size_t i = 0; i < n_axes; ++i) out_dims[axes[i]] = size_values[i];
        for (int d = 0; d < 4; ++d) {
          if (out_dims[d] < 1 || out_dims[d] > (1 << 24)) return Unsupported("invalid sizes");
          scales[d] = static_cast<float>(out_dims[d]) / static_cast<float>(in_dims[d]);
        }
        from_sizes = true;
        // keep_aspect_ratio_policy (sizes only): one scale for the named axes
        // (all when axes is absent), the smallest or the largest, and their
        // sizes round(scale * in).
        if (policy != "stretch") {
          if (std::any_of(axes_attr.begin(), axes_attr.end(), [](int64_t v) { return v < 0; })) {
            // ONNX Runtime 1.30 matches the policy's axes without normalizing
            // them: with negative axes it returns the input's size.
            return Unsupported("keep_aspect_ratio_policy with negative axes (ONNX Runtime ignores the sizes there)");
          }
          aspect = policy == "not_smaller" ? ir::ResizeAspectPolicy::kNotSmaller : ir::ResizeAspectPolicy::kNotLarger;
          for (int d = 0; d < 4; ++d) aspect_sizes[d] = std::count(axes.begin(), axes.end(), d) > 0 ? out_dims[d] : 0;
          float scale = 1.0f;
          int64_t dims[4];
          ir::AspectResize(aspect, aspect_sizes, in_dims.data(), dims, &scale);
          for (int d = 0; d < 4; ++d) {
            scales[d] = aspect_sizes[d] > 0 ? scale : 1.0f;
            out_dims[d] = dims[d];
          }
        }
      }
    }
    if (scales[0] != 1.0f || scales[1] != 1.0f || out_dims[0] != in_dims[0] || out_dims[1] != in_dims[1]) {
      return Unsupported("Resize must keep N and C (scales 1, 1, h, w)");
    }
    if (!from_sizes) {
      for (int d = 2; d < 4; ++d) {
        if (!(scales[d] > 0.0f && scales[d] < 65536.0f)) return Unsupported("invalid scales");
        if (upsample && scales[d] < 1.0f) return Unsupported("Upsample scales below 1");
        // As ONNX Runtime: the product in float, truncated.
        out_dims[d] = static_cast<int64_t>(scales[d] * static_cast<float>(in_dims[d]));
      }
    }
    for (int d = 2; d < 4; ++d) {
      if (out_dims[d] < 1 || out_dims[d] > (1 << 24)) return Unsupported("invalid output size");
    }
    const int out_h = static_cast<int>(out_dims[2]), out_w = static_cast<int>(out_dims[3]);

    ir::OpAttrs a;
    a.resize_coordinate = coordinate;
    // Coordinates divide by the model's scales (0: out / in), as in ONNX Runtime.
    const bool given_scales = !from_sizes || policy != "stretch";
    a.scale_h = given_scales ? scales[2] : 0.0f;
    a.scale_w = given_scales ? scales[3] : 0.0f;
    a.resize_from_scales = !from_sizes;  // sizes are absolute; scales follow the input
    a.resize_aspect = aspect;             // ... and so does an aspect-ratio policy
    std::copy(aspect_sizes, aspect_sizes + 4, a.resize_sizes);
    if (crop) {
      // roi: starts then ends, for every axis (or those of `axes`); N and C
      // must be whole. Absent: the whole input.
      std::vector<float> roi = {0, 0, 0, 0, 1, 1, 1, 1};
      if (HasInput(node, 1)) {
        RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 1));
        const std::vector<float> v = ConstFloats(id);
        if (v.size() != 2 * n_axes) return Unsupported("roi must have " + std::to_string(2 * n_axes) + " values");
        for (size_t i = 0; i < n_axes; ++i) {
          roi[axes[i]] = v[i];
          roi[4 + axes[i]] = v[n_axes + i];
        }
      }
      for (float r : roi) {
        if (!(std::fabs(r) <= 1e6f)) return Unsupported("roi values must be finite, at most 1e6");
      }
      if (roi[0] != 0 || roi[1] != 0 || roi[4] != 1 || roi[5] != 1) {
        return Unsupported("roi must keep N and C whole (0 to 1)");
      }
      a.roi_start_h = roi[2];
      a.roi_start_w = roi[3];
      a.roi_end_h = roi[6];
      a.roi_end_w = roi[7];
      a.extrapolation_value = extrapolation_value;
    }
    const int size = NewInt32Const(out_name + "/size", {2}, {out_h, out_w});
    if (out_h == s[1] && out_w == s[2]) {
      // As large as the input: ONNX Runtime copies it, whatever the mode.
      ir::OpAttrs copy;
      copy.resize_coordinate = ir::ResizeCoordinate::kAsymmetric;
      copy.nearest_rounding = ir::NearestRounding::kFloor;
      RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kResizeNearest, {xi, size}, out_name, copy));
      Define(node, out, true);
      return Status::Ok();
    }
    OpType type = OpType::kResizeBilinear;
    if (mode == "nearest") {
      type = OpType::kResizeNearest;
      a.nearest_rounding = rounding;
    } else if (mode == "cubic") {
      type = OpType::kResizeBicubic;
      a.cubic_coeff_a = cubic_coeff_a;
    }
    a.exclude_outside = exclude_outside != 0;
    a.antialias = antialias != 0;
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(type, {xi, size}, out_name, a));
    Define(node, out, true);
    return Status::Ok();
  }

  Status Softmax(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    const Shape& s = ShapeOf(x.id);
    const int rank = static_cast<int>(s.size());
    int axis = static_cast<int>(AttrInt(node, "axis", opset_ >= 13 ? -1 : 1));
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return Unsupported("axis out of range");
    if (opset_ < 13) {
      // Before opset 13, softmax flattens from `axis`; equal when the rest is 1s.
      for (int d = axis + 1; d < rank; ++d) {
        if ((x.nhwc ? ShapeOf(x.id)[NhwcAxis(d)] : s[d]) != 1) return Unsupported("opset < 13 softmax over several axes");
      }
    }
    ir::OpAttrs a;
    a.axis = x.nhwc ? NhwcAxis(axis) : axis;
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kSoftmax, {x.id}, out_name, a));
    Define(node, out, x.nhwc);
    return Status::Ok();
  }

  Status Constant(const onnx::NodeProto& node, const std::string& out_name) {
    const auto* value = FindAttr(node, "value");
    if (value && value->has_t()) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstantFromProto(value->t(), out_name));
      Define(node, id, false);
      return Status::Ok();
    }
    if (const auto* f = FindAttr(node, "value_float")) {
      Define(node, NewFloatConst(out_name, {}, {f->f()}), false);
      return Status::Ok();
    }
    if (const auto* i = FindAttr(node, "value_int")) {
      Define(node, NewIntConst(out_name, {i->i()}), false);
      return Status::Ok();
    }
    if (const auto* is = FindAttr(node, "value_ints")) {
      Define(node, NewIntConst(out_name, std::vector<int64_t>(is->ints().begin(), is->ints().end())), false);
      return Status::Ok();
    }
    return Unsupported("Constant without a supported value attribute");
  }

  Status ShapeOp(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    const Shape& s = ShapeOf(x.id);
    std::vector<int64_t> dims;
    if (x.nhwc) dims = {s[0], s[3], s[1], s[2]};
    else dims.assign(s.begin(), s.end());
    g_->shape_folds.push_back(node_name_);  // valid for the import-time input shapes only
    Define(node, NewIntConst(out_name, dims), false);
    return Status::Ok();
  }

  Status Gather(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value data, Input(node, 0));
    RILL_INF_ASSIGN_OR_RETURN(int idx, ConstInput(node, 1));
    if (!IsConst(data.id) || ShapeOf(data.id).size() != 1 || AttrInt(node, "axis", 0) != 0) {
      return Unsupported("Gather is supported only on constant 1-D data (shape arithmetic)");
    }
    const std::vector<int64_t> d = ConstInts(data.id), ix = ConstInts(idx);
    std::vector<int64_t> r;
    for (int64_t i : ix) {
      const int64_t k = i < 0 ? i + static_cast<int64_t>(d.size()) : i;
      if (k < 0 || k >= static_cast<int64_t>(d.size())) return Unsupported("index out of range");
      r.push_back(d[k]);
    }
    const int id = NewIntConst(out_name, r);
    if (ShapeOf(idx).empty()) {  // scalar index gives a scalar
      g_->tensors[id].shape = {};
      shapes_[id] = {};
    }
    Define(node, id, false);
    return Status::Ok();
  }

  Status Slice(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value data, Input(node, 0));
    if (!IsConst(data.id)) return SliceTensor(node, data, out_name);
    if (ShapeOf(data.id).size() != 1) return Unsupported("Slice of a constant with more than one axis");
    std::vector<int64_t> starts = AttrInts(node, "starts"), ends = AttrInts(node, "ends"), steps;
    if (HasInput(node, 1)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 1));
      starts = ConstInts(id);
    }
    if (HasInput(node, 2)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 2));
      ends = ConstInts(id);
    }
    if (HasInput(node, 4)) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, 4));
      steps = ConstInts(id);
    }
    if (starts.size() != 1 || ends.size() != 1) return Unsupported("Slice with several axes");
    const std::vector<int64_t> d = ConstInts(data.id);
    const int64_t n = static_cast<int64_t>(d.size());
    const int64_t step = steps.empty() ? 1 : steps[0];
    if (step != 1) return Unsupported("Slice with step != 1");
    int64_t b = starts[0] < 0 ? starts[0] + n : starts[0];
    int64_t e = ends[0] < 0 ? ends[0] + n : ends[0];
    b = std::max<int64_t>(0, std::min(b, n));
    e = std::max<int64_t>(0, std::min(e, n));
    std::vector<int64_t> r;
    for (int64_t i = b; i < e; ++i) r.push_back(d[i]);
    Define(node, NewIntConst(out_name, r), false);
    return Status::Ok();
  }

  // Slice of an activation (ShuffleNet's channel split): a SLICE node with
  // one start/end/step per axis; NCHW axes of an NHWC value are moved.
  Status SliceTensor(const onnx::NodeProto& node, const Value& data, const std::string& out_name) {
    if (g_->tensors[data.id].dtype != DataType::kFloat32) return Unsupported("Slice of a non-float tensor");
    std::vector<int64_t> starts = AttrInts(node, "starts"), ends = AttrInts(node, "ends"), axes = AttrInts(node, "axes"),
                         steps;
    auto read = [&](int input, std::vector<int64_t>* v) -> Status {
      if (!HasInput(node, input)) return Status::Ok();
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(node, input));
      *v = ConstInts(id);
      return Status::Ok();
    };
    RILL_INF_RETURN_IF_ERROR(read(1, &starts));
    RILL_INF_RETURN_IF_ERROR(read(2, &ends));
    RILL_INF_RETURN_IF_ERROR(read(3, &axes));
    RILL_INF_RETURN_IF_ERROR(read(4, &steps));
    const int rank = static_cast<int>(ShapeOf(data.id).size());
    if (starts.size() != ends.size() || starts.empty()) return Unsupported("starts and ends must have one value per axis");
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size()) {
      return Unsupported("axes and steps must have one value per start");
    }
    ir::OpAttrs a;
    a.slice_start.assign(rank, 0);
    a.slice_end.assign(rank, 1LL << 40);  // whole axis
    a.slice_step.assign(rank, 1);
    std::vector<bool> seen(rank, false);
    // Values beyond any dim mean "to the end": clamp far outside int range.
    auto clamp = [](int64_t v) { return static_cast<long long>(std::clamp<int64_t>(v, -(1LL << 40), 1LL << 40)); };
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (axis < 0 || axis >= rank || seen[axis]) return Unsupported("axes out of range or repeated");
      seen[axis] = true;
      if (steps[i] == 0 || steps[i] > (1 << 30) || steps[i] < -(1 << 30)) return Unsupported("step 0 or out of range");
      const int d = data.nhwc ? NhwcAxis(static_cast<int>(axis)) : static_cast<int>(axis);
      a.slice_start[d] = clamp(starts[i]);
      a.slice_end[d] = clamp(ends[i]);
      a.slice_step[d] = static_cast<int>(steps[i]);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, Emit(OpType::kSlice, {data.id}, out_name, a));
    Define(node, out, data.nhwc);
    return Status::Ok();
  }

  Status Cast(const onnx::NodeProto& node, const std::string& out_name) {
    RILL_INF_ASSIGN_OR_RETURN(Value x, Input(node, 0));
    const int64_t to = AttrInt(node, "to", kFloat);
    if (!IsConst(x.id)) {
      if (to == kFloat && g_->tensors[x.id].dtype == DataType::kFloat32) {
        values_[out_name] = x;
        return Status::Ok();
      }
      return Unsupported("Cast of a non-constant tensor");
    }
    const Shape shape = ShapeOf(x.id);
    if (to == kFloat || to == kDouble) {
      Define(node, NewFloatConst(out_name, shape, ConstFloats(x.id)), false);
    } else if (to == kInt64 || to == kInt32) {
      const std::vector<int64_t> v = ConstInts(x.id);
      std::vector<uint8_t> bytes(v.size() * 8);
      if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
      Define(node, NewConst(out_name, DataType::kInt64, shape, std::move(bytes)), false);
    } else {
      return Unsupported("Cast to type " + std::to_string(to));
    }
    return Status::Ok();
  }

  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  onnx::ModelProto model_;
  std::shared_ptr<ir::Graph> g_;
  std::vector<Shape> shapes_;
  std::map<std::string, Value> values_;
  std::map<int, int> nhwc_of_, nchw_of_;
  std::map<std::string, std::vector<int>> input_shapes_;  // LoadOptions::input_shapes
  std::string symbolic_;       // inputs whose symbolic dimensions stood at 1, for messages
  std::set<int> done_nodes_;  // graph nodes imported along with an earlier one
  int64_t opset_ = 13;
  std::string node_name_;
  std::string ctx_;
};

const bool kRegistered = RegisterModelImporter(ModelImporter{"onnx", &LooksLikeOnnx, &ImportOnnx});

}  // namespace

bool LooksLikeOnnx(const uint8_t* data, size_t size, const std::string& name) {
  (void)kRegistered;
  if (name.size() >= 5 && name.compare(name.size() - 5, 5, ".onnx") == 0) return true;
  // ModelProto starts with ir_version (field 1, varint): tag byte 0x08.
  return size >= 2 && data[0] == 0x08;
}

StatusOr<std::shared_ptr<ir::Graph>> ImportOnnx(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                const std::string& source,
                                                const std::map<std::string, std::vector<int>>& input_shapes) {
  if (!bytes) return InvalidArgumentError(source + ": no data");
  Importer importer(std::move(bytes), source, input_shapes);
  return importer.Run();
}

}  // namespace rill::inference::onnx_import
