#include "inference/import/onnx/onnx_converter.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

namespace rill::inference::onnx_import {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 31;

// Converters by domain ("" for the default one) and op type. A function-local
// static: converters register from static initializers in other files.
std::map<std::pair<std::string, std::string>, OnnxConverter>& Converters() {
  static auto* converters = new std::map<std::pair<std::string, std::string>, OnnxConverter>();
  return *converters;
}

std::string CanonicalDomain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

}  // namespace

// ---- registry ---------------------------------------------------------------

bool RegisterOnnxConverter(const std::string& domain, std::initializer_list<const char*> op_types,
                           OnnxConverter convert) {
  for (const char* op : op_types) Converters()[{CanonicalDomain(domain), op}] = convert;
  return true;
}

OnnxConverter FindOnnxConverter(const std::string& domain, const std::string& op_type) {
  auto it = Converters().find({CanonicalDomain(domain), op_type});
  return it == Converters().end() ? nullptr : it->second;
}

// ---- attributes -------------------------------------------------------------

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t AttrInt(const onnx::NodeProto& node, const std::string& name, int64_t def) {
  const auto* a = FindAttr(node, name);
  return a ? a->i() : def;
}

float AttrFloat(const onnx::NodeProto& node, const std::string& name, float def) {
  const auto* a = FindAttr(node, name);
  return a ? a->f() : def;
}

std::string AttrString(const onnx::NodeProto& node, const std::string& name, const std::string& def) {
  const auto* a = FindAttr(node, name);
  return a ? a->s() : def;
}

std::vector<int64_t> AttrInts(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = FindAttr(node, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>();
}

Status ConverterContext::ReadPadding(ir::OpAttrs* a) {
  const std::string auto_pad = AttrString("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER") {
    a->padding = ir::Padding::kSame;
  } else if (auto_pad == "VALID") {
    a->padding = ir::Padding::kValid;
  } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
    a->padding = ir::Padding::kExplicit;
    const std::vector<int64_t> pads = AttrInts("pads");
    if (!pads.empty()) {
      if (pads.size() != 4) return UnsupportedAttribute("pads", "pads must have 4 values for 2-D ops");
      for (int64_t p : pads) {
        if (p < 0 || p > (1 << 20)) return UnsupportedAttribute("pads", "negative or huge pads");
      }
      a->pad_top = static_cast<int>(pads[0]);
      a->pad_left = static_cast<int>(pads[1]);
      a->pad_bottom = static_cast<int>(pads[2]);
      a->pad_right = static_cast<int>(pads[3]);
    }
  } else {
    return UnsupportedAttribute("auto_pad", "auto_pad '" + auto_pad + "'");
  }
  return Status::Ok();
}

Status ConverterContext::ReadStridesDilations(ir::OpAttrs* a) {
  const std::vector<int64_t> strides = AttrInts("strides");
  const std::vector<int64_t> dilations = AttrInts("dilations");
  if (!strides.empty()) {
    if (strides.size() != 2) return UnsupportedAttribute("strides", "only 2-D strides");
    a->stride_h = static_cast<int>(strides[0]);
    a->stride_w = static_cast<int>(strides[1]);
  }
  if (!dilations.empty()) {
    if (dilations.size() != 2) return UnsupportedAttribute("dilations", "only 2-D dilations");
    a->dilation_h = static_cast<int>(dilations[0]);
    a->dilation_w = static_cast<int>(dilations[1]);
  }
  return Status::Ok();
}

// ---- layout helpers -----------------------------------------------------------

int NhwcAxis(int axis) {
  static const int kMap[4] = {0, 3, 1, 2};
  return kMap[axis];
}

std::vector<float> NchwToNhwc(const std::vector<float>& x, const Shape& nchw) {
  std::vector<float> y(x.size());
  const size_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  for (size_t a = 0; a < n; ++a)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t i = 0; i < h; ++i)
        for (size_t j = 0; j < w; ++j) y[((a * h + i) * w + j) * c + ch] = x[((a * c + ch) * h + i) * w + j];
  return y;
}

// ---- the context --------------------------------------------------------------

ConverterContext::ConverterContext(std::shared_ptr<ir::Graph> graph, const onnx::ModelProto* model, int64_t opset)
    : graph_(std::move(graph)), model_(model), opset_(opset) {}

void ConverterContext::BeginNode(int index) { BeginNode(&model_->graph().node(index), index); }

void ConverterContext::BeginNode(const onnx::NodeProto* node, int index) {
  node_ = node;
  node_name_ =
      node_->name().empty() ? (node_->output_size() ? node_->output(0) : "#" + std::to_string(index)) : node_->name();
  out_name_ = node_->output_size() ? node_->output(0) : node_name_;
  where_ = graph_->source + ": node '" + node_name_ + "' (" + node_->op_type() + "): ";
  unsupported_attribute_.clear();
}

Status ConverterContext::UnsupportedAttribute(const std::string& attribute, const std::string& what) {
  unsupported_attribute_ = attribute;
  return Unsupported(what);
}

StatusOr<Value> ConverterContext::Get(const std::string& name) const {
  const Value* v = Find(name);
  if (v == nullptr) return Invalid("input '" + name + "' is not produced by any earlier node");
  return *v;
}

const Value* ConverterContext::Find(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return &it->second;
  // A subgraph reads the enclosing scopes' values as inputs of its own.
  return outer_ == nullptr ? nullptr : const_cast<ConverterContext*>(this)->ImportOuterValue(name);
}

const Value* ConverterContext::ImportOuterValue(const std::string& name) {
  const Value* v = outer_->Find(name);
  if (v == nullptr) return nullptr;
  Value local;
  if (outer_->IsConst(v->id)) {
    const ir::TensorInfo t = outer_->tensor(v->id);
    if (t.sparsity) return nullptr;
    local.id = NewConst(name, t.dtype, t.shape, std::vector<uint8_t>(t.data, t.data + t.bytes));
  } else {
    StatusOr<int> id = outer_->ToNchw(*v);
    if (!id.ok()) return nullptr;
    local.id = NewTensor(name, DataType::kFloat32);
    shapes_[local.id] = outer_->ShapeOf(*id);
    graph_->tensors[local.id].shape = shapes_[local.id];
    graph_->tensors[local.id].plan_values = outer_->tensor(*id).plan_values;
    graph_->inputs.push_back(local.id);
    outer_ids_->push_back(*id);
    if (outer_->IsIntegerValue(name)) integer_values_.insert(name);
  }
  return &(values_[name] = local);
}

StatusOr<Value> ConverterContext::Input(int i) const {
  if (!HasInput(i)) return Invalid("missing input " + std::to_string(i));
  return Get(node_->input(i));
}

StatusOr<int> ConverterContext::ConstInput(int i) const {
  RILL_INF_ASSIGN_OR_RETURN(Value v, Input(i));
  if (!IsConst(v.id)) return Unsupported("input " + std::to_string(i) + " must be a constant");
  return v.id;
}

StatusOr<float> ConverterContext::ScalarInput(int i) const {
  RILL_INF_ASSIGN_OR_RETURN(int id, ConstInput(i));
  const std::vector<float> v = ConstFloats(id);
  if (v.size() != 1) return Unsupported("input " + std::to_string(i) + " must be a scalar");
  return v[0];
}

Shape ConverterContext::OnnxShape(const Value& v) const {
  const Shape& s = ShapeOf(v.id);
  return v.nhwc ? Shape{s[0], s[3], s[1], s[2]} : s;
}

int ConverterContext::NewTensor(const std::string& name, DataType dtype) {
  ir::TensorInfo t;
  t.name = name;
  t.dtype = dtype;
  graph_->tensors.push_back(std::move(t));
  shapes_.emplace_back();
  return static_cast<int>(graph_->tensors.size()) - 1;
}

int ConverterContext::NewConst(const std::string& name, DataType dtype, const Shape& shape,
                               std::vector<uint8_t> bytes) {
  const int id = NewTensor(name, dtype);
  graph_->SetConstant(id, dtype, shape, std::move(bytes));
  shapes_[id] = shape;
  return id;
}

int ConverterContext::NewFloatConst(const std::string& name, const Shape& shape, const std::vector<float>& values) {
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(values.data());
  return NewConst(name, DataType::kFloat32, shape, std::vector<uint8_t>(begin, begin + values.size() * 4));
}

const float* ConverterContext::ConstFloatData(int id) const {
  const ir::TensorInfo& t = graph_->tensors[id];
  return t.dtype == DataType::kFloat32 && t.data != nullptr ? reinterpret_cast<const float*>(t.data) : nullptr;
}

int ConverterContext::NewIntConst(const std::string& name, const std::vector<int64_t>& values, const Shape* shape) {
  std::vector<uint8_t> bytes(values.size() * 8);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return NewConst(name, DataType::kInt64, shape ? *shape : Shape{static_cast<int>(values.size())}, std::move(bytes));
}

int ConverterContext::NewInt32Const(const std::string& name, const Shape& shape, const std::vector<int>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return NewConst(name, DataType::kInt32, shape, std::move(bytes));
}

std::vector<float> ConverterContext::ConstFloats(int id) const {
  const ir::TensorInfo& t = graph_->tensors[id];
  const size_t n = static_cast<size_t>(NumElements(t.shape));
  if (t.dtype == DataType::kFloat32) {
    const float* begin = reinterpret_cast<const float*>(t.data);
    return std::vector<float>(begin, begin + n);
  }
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (t.dtype == DataType::kInt64) {
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

std::vector<int64_t> ConverterContext::ConstInts(int id) const {
  const ir::TensorInfo& t = graph_->tensors[id];
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

StatusOr<int> ConverterContext::ConstantFromProto(const onnx::TensorProto& t, const std::string& name) {
  const std::string& source = graph_->source;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    return UnimplementedError(source + ": tensor '" + name + "' uses external data");
  }
  Shape shape;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > kMaxElements) return DataLossError(source + ": tensor '" + name + "' has a bad dimension");
    shape.push_back(static_cast<int>(d));
    n *= d;
    if (n > kMaxElements) return DataLossError(source + ": tensor '" + name + "' is too large");
  }
  const size_t count = static_cast<size_t>(n);
  const bool raw = t.has_raw_data();
  // Check the stored size before allocating anything for the claimed shape.
  {
    size_t stored = 0;
    switch (t.data_type()) {
      case kFloat:
        stored = raw ? t.raw_data().size() / 4 : static_cast<size_t>(t.float_data_size());
        break;
      case kDouble:
        stored = raw ? t.raw_data().size() / 8 : static_cast<size_t>(t.double_data_size());
        break;
      case kInt64:
        stored = raw ? t.raw_data().size() / 8 : static_cast<size_t>(t.int64_data_size());
        break;
      case kInt32:
        stored = raw ? t.raw_data().size() / 4 : static_cast<size_t>(t.int32_data_size());
        break;
      case 2:
      case 3:
        stored = raw ? t.raw_data().size() : static_cast<size_t>(t.int32_data_size());
        break;
      case 4:
      case 5:
        stored = raw ? t.raw_data().size() / 2 : static_cast<size_t>(t.int32_data_size());
        break;
      default:
        stored = count;
        break;
    }
    if (stored != count) {
      return DataLossError(source + ": tensor '" + name + "' stores " + std::to_string(stored) +
                           " values, its shape needs " + std::to_string(count));
    }
  }
  auto need_raw = [&](size_t elem) -> Status {
    if (t.raw_data().size() != count * elem) {
      return DataLossError(source + ": tensor '" + name + "' holds " + std::to_string(t.raw_data().size()) +
                           " bytes, its shape needs " + std::to_string(count * elem));
    }
    return Status::Ok();
  };
  auto size_mismatch = [&] { return DataLossError(source + ": tensor '" + name + "' size mismatch"); };
  switch (t.data_type()) {
    case kFloat: {
      if (raw) {
        RILL_INF_RETURN_IF_ERROR(need_raw(4));
        const std::string& bytes = t.raw_data();
        return NewConst(name, DataType::kFloat32, shape, std::vector<uint8_t>(bytes.begin(), bytes.end()));
      }
      if (static_cast<size_t>(t.float_data_size()) != count) return size_mismatch();
      const float* begin = t.float_data().data();
      return NewFloatConst(name, shape, std::vector<float>(begin, begin + count));
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
        if (static_cast<size_t>(t.double_data_size()) != count) return size_mismatch();
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
        if (static_cast<size_t>(t.int64_data_size()) != count) return size_mismatch();
        for (size_t i = 0; i < count; ++i) v[i] = t.int64_data(static_cast<int>(i));
      } else {
        if (static_cast<size_t>(t.int32_data_size()) != count) return size_mismatch();
        for (size_t i = 0; i < count; ++i) v[i] = t.int32_data(static_cast<int>(i));
      }
      return NewIntConst(name, v, &shape);
    }
    case 2:    // uint8
    case 3:    // int8
    case 4:    // uint16
    case 5: {  // int16: as int64 (quantized weights: DequantizeLinear folds them)
      const int type = t.data_type();
      const size_t elem = type <= 3 ? 1 : 2;
      std::vector<int64_t> v(count);
      if (raw) {
        RILL_INF_RETURN_IF_ERROR(need_raw(elem));
        const auto* b = reinterpret_cast<const unsigned char*>(t.raw_data().data());
        for (size_t i = 0; i < count; ++i) {
          if (type == 2) {
            v[i] = b[i];
          } else if (type == 3) {
            v[i] = static_cast<int8_t>(b[i]);
          } else {
            uint16_t u;
            std::memcpy(&u, b + 2 * i, 2);
            v[i] = type == 4 ? static_cast<int64_t>(u) : static_cast<int64_t>(static_cast<int16_t>(u));
          }
        }
      } else {
        if (static_cast<size_t>(t.int32_data_size()) != count) return size_mismatch();
        for (size_t i = 0; i < count; ++i) v[i] = t.int32_data(static_cast<int>(i));
      }
      return NewIntConst(name, v, &shape);
    }
    case kBool: {  // int64 0 / 1 (the comparisons' folded results are too)
      std::vector<int64_t> v(count);
      if (raw) {
        RILL_INF_RETURN_IF_ERROR(need_raw(1));
        for (size_t i = 0; i < count; ++i) v[i] = t.raw_data()[i] != 0;
      } else {
        if (static_cast<size_t>(t.int32_data_size()) != count) return size_mismatch();
        for (size_t i = 0; i < count; ++i) v[i] = t.int32_data(static_cast<int>(i)) != 0;
      }
      return NewIntConst(name, v, &shape);
    }
    default:
      return UnimplementedError(source + ": tensor '" + name + "' has unsupported ONNX data type " +
                                std::to_string(t.data_type()));
  }
}

StatusOr<int> ConverterContext::ToNhwc(const Value& v) {
  if (v.nhwc) return v.id;
  const Shape& s = ShapeOf(v.id);
  if (s.size() != 4) return Unsupported("needs a 4-D input, got " + ShapeToString(s));
  auto cached = nhwc_of_.find(v.id);
  if (cached != nhwc_of_.end()) return cached->second;
  int id;
  const std::string name = graph_->tensors[v.id].name + "/nhwc";
  if (IsConst(v.id)) {
    id = NewFloatConst(name, {s[0], s[2], s[3], s[1]}, NchwToNhwc(ConstFloats(v.id), s));
  } else {
    ir::OpAttrs a;
    a.perm = {0, 2, 3, 1};
    RILL_INF_ASSIGN_OR_RETURN(id, Emit(ir::OpType::kTranspose, {v.id}, name, a));
  }
  nhwc_of_[v.id] = id;
  return id;
}

StatusOr<int> ConverterContext::ToNchw(const Value& v) {
  if (!v.nhwc) return v.id;
  auto cached = nchw_of_.find(v.id);
  if (cached != nchw_of_.end()) return cached->second;
  const Shape s = ShapeOf(v.id);  // N H W C
  ir::OpAttrs a;
  int id;
  const std::string name = graph_->tensors[v.id].name + "/nchw";
  if (s[1] == 1 && s[2] == 1) {
    // With H = W = 1 both layouts hold the same bytes.
    a.new_shape = {-1, s[3], 1, 1};  // batch left free for resizes
    RILL_INF_ASSIGN_OR_RETURN(id, Emit(ir::OpType::kReshape, {v.id}, name, a));
  } else {
    a.perm = {0, 3, 1, 2};
    RILL_INF_ASSIGN_OR_RETURN(id, Emit(ir::OpType::kTranspose, {v.id}, name, a));
  }
  nchw_of_[v.id] = id;
  return id;
}

StatusOr<int> ConverterContext::Emit(ir::OpType type, std::vector<int> inputs, const std::string& out_name,
                                     ir::OpAttrs attrs, std::shared_ptr<const ir::TypedAttrs> typed) {
  ir::Node node;
  node.name = out_name;
  node.type = type;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  node.typed_attrs = std::move(typed);
  node.guards = guards_;
  const int out = NewTensor(out_name, DataType::kFloat32);
  node.outputs = {out};
  graph_->nodes.push_back(std::move(node));
  Status s = graph_->InferNodeShapes(graph_->nodes.back(), &shapes_);
  if (!s.ok()) return Status(s.code(), where_ + s.message());
  graph_->tensors[out].shape = shapes_[out];
  return out;
}

bool ConverterContext::IsIntegerValue(const std::string& name) const {
  const Value* v = Find(name);
  if (v == nullptr) return false;
  if (IsConst(v->id)) {
    const DataType t = graph_->tensors[v->id].dtype;
    return t == DataType::kInt64 || t == DataType::kInt32;
  }
  return integer_values_.count(name) > 0;
}

void ConverterContext::NoteIntegerOutputs() {
  const onnx::NodeProto& n = *node_;
  const std::string& op = n.op_type();
  auto integer_input = [&](int i) { return i < n.input_size() && !n.input(i).empty() && IsIntegerValue(n.input(i)); };
  auto any_integer_input = [&]() {
    for (int i = 0; i < n.input_size(); ++i) {
      if (integer_input(i)) return true;
    }
    return false;
  };
  auto integer_type = [](int64_t t) {  // int8..int64, uint8..uint64
    return t == 2 || t == 3 || t == 4 || t == 5 || t == kInt32 || t == kInt64 || t == 12 || t == 13;
  };
  // Ops whose output has their (first) data input's type.
  static const std::set<std::string> kSameType = {
      "Identity", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Transpose", "Slice", "Gather", "GatherND",
      "GatherElements", "Expand", "Tile", "ReduceMin", "ReduceMax", "ReduceSum", "ReduceProd", "Split", "Range",
      "Clip", "ScatterND", "ScatterElements", "CumSum", "Pad", "Neg", "Abs", "Compress", "ReverseSequence",
      "CenterCropPad", "MaxUnpool"};
  // Elementwise ops whose inputs share one type.
  static const std::set<std::string> kSharedType = {"Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Sum", "Concat"};
  for (int k = 0; k < n.output_size(); ++k) {
    bool integer = false;
    if (op == "Shape" || op == "Size" || op == "NonZero" || op == "NonMaxSuppression" || op == "ArgMax" ||
        op == "ArgMin" || op == "BitwiseAnd" || op == "BitwiseOr" || op == "BitwiseXor" || op == "BitwiseNot" ||
        op == "BitShift" || op == "Multinomial") {
      integer = true;
    } else if (op == "TopK") {
      integer = k == 1 || integer_input(0);
    } else if (op == "Unique") {
      integer = k > 0 || integer_input(0);
    } else if (op == "CastLike") {
      integer = integer_input(1);
    } else if (op == "Cast") {
      integer = integer_type(AttrInt("to", kFloat));
    } else if (op == "Where") {
      integer = integer_input(1) || integer_input(2);
    } else if (op == "If") {
      // The branches' outputs (converted into this graph with their names).
      for (const char* branch : {"then_branch", "else_branch"}) {
        const onnx::AttributeProto* g = FindAttr(branch);
        if (g != nullptr && g->has_g() && k < g->g().output_size()) {
          integer = integer || IsIntegerValue(g->g().output(k).name());
        }
      }
    } else if (op == "Loop" || op == "Scan") {
      // Its final carried values and scan outputs: the body's outputs after
      // the condition (Loop) or all of them (Scan), of the type the body
      // declares.
      const onnx::AttributeProto* body = FindAttr("body");
      const int b = op == "Loop" ? k + 1 : k;
      if (body != nullptr && body->has_g() && b < body->g().output_size()) {
        const onnx::TypeProto& t = body->g().output(b).type();
        integer = t.has_tensor_type() && integer_type(t.tensor_type().elem_type());
      }
    } else if (op == "ConstantOfShape") {
      const onnx::AttributeProto* a = FindAttr("value");
      integer = a != nullptr && a->has_t() && integer_type(a->t().data_type());
    } else if (kSharedType.count(op) > 0) {
      integer = any_integer_input();
    } else if (kSameType.count(op) > 0) {
      integer = integer_input(0);
    }
    if (integer) integer_values_.insert(n.output(k));
  }
}

Status ConverterContext::ConvertBranch(const onnx::GraphProto& branch, const ir::Guard* guard,
                                       std::vector<Value>* outputs) {
  const onnx::NodeProto* saved_node = node_;
  const std::string saved_name = node_name_, saved_out = out_name_, saved_where = where_;
  const std::string saved_attribute = unsupported_attribute_;
  // Layout conversions made inside a guarded branch run only with it: they
  // must not be reused after it.
  const std::map<int, int> saved_nhwc = nhwc_of_, saved_nchw = nchw_of_;
  if (guard != nullptr) guards_.push_back(*guard);
  Status status = [&]() -> Status {
    for (const onnx::TensorProto& t : branch.initializer()) {
      RILL_INF_ASSIGN_OR_RETURN(int id, ConstantFromProto(t, t.name()));
      values_[t.name()] = Value{id, false};
    }
    for (int i = 0; i < branch.node_size(); ++i) {
      const onnx::NodeProto& n = branch.node(i);
      BeginNode(&n, i);
      const OnnxConverter convert = FindOnnxConverter(n.domain(), n.op_type());
      if (convert == nullptr) return Unsupported("unsupported op type '" + n.op_type() + "'");
      RILL_INF_RETURN_IF_ERROR(convert(*this));
      PropagatePlanValues(*this);
      NoteIntegerOutputs();
    }
    for (const onnx::ValueInfoProto& o : branch.output()) {
      if (Find(o.name()) == nullptr && FindSequence(o.name()) != nullptr) {
        outputs->push_back(Value{-1, false});
        continue;
      }
      RILL_INF_ASSIGN_OR_RETURN(Value v, Get(o.name()));
      int id = v.id;
      if (IsConst(id)) {
        if (tensor(id).dtype != DataType::kFloat32) id = NewFloatConst(o.name() + "/f32", ShapeOf(id), ConstFloats(id));
      } else {
        RILL_INF_ASSIGN_OR_RETURN(id, ToNchw(v));
      }
      outputs->push_back(Value{id, false});
    }
    return Status::Ok();
  }();
  if (guard != nullptr) {
    guards_.pop_back();
    nhwc_of_ = saved_nhwc;
    nchw_of_ = saved_nchw;
  }
  node_ = saved_node;
  node_name_ = saved_name;
  out_name_ = saved_out;
  if (!status.ok() && status.code() == StatusCode::kUnimplemented) {
    // "in branch: node 'x' (Op): what", under the If's prefix.
    std::string what = status.message();
    if (what.compare(0, source().size() + 2, source() + ": ") == 0) what = what.substr(source().size() + 2);
    where_ = saved_where;
    unsupported_attribute_ = saved_attribute;
    return Unsupported("in a branch: " + what);
  }
  where_ = saved_where;
  unsupported_attribute_ = saved_attribute;
  return status;
}

Status ConverterContext::ConvertSubgraph(const onnx::GraphProto& body, const std::vector<SubgraphInput>& inputs,
                                         std::shared_ptr<ir::Graph>* graph, std::vector<int>* outer) {
  if (static_cast<size_t>(body.input_size()) != inputs.size()) {
    return Invalid("its body has the wrong number of inputs");
  }
  auto g = std::make_shared<ir::Graph>();
  g->source = graph_->source;
  g->layout = graph_->layout;
  outer->clear();
  ConverterContext sub(g, model_, opset_);
  sub.outer_ = this;
  sub.outer_ids_ = outer;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = body.input(static_cast<int>(i)).name();
    const int id = sub.NewTensor(name, DataType::kFloat32);
    sub.shapes_[id] = inputs[i].shape;
    g->tensors[id].shape = inputs[i].shape;
    g->inputs.push_back(id);
    sub.values_[name] = Value{id, false};
    if (inputs[i].integer) sub.integer_values_.insert(name);
  }
  for (const onnx::TensorProto& t : body.initializer()) {
    RILL_INF_ASSIGN_OR_RETURN(int id, sub.ConstantFromProto(t, t.name()));
    sub.values_[t.name()] = Value{id, false};
  }
  // As the importer does: every node that cannot be converted is listed,
  // the nodes reading its outputs skipped.
  std::string failures;
  std::set<std::string> unconverted;
  for (int i = 0; i < body.node_size(); ++i) {
    const onnx::NodeProto& n = body.node(i);
    sub.BeginNode(&n, i);
    auto unconverted_input = [&](const std::string& in) { return unconverted.count(in) > 0; };
    if (std::any_of(n.input().begin(), n.input().end(), unconverted_input)) {
      for (const std::string& out : n.output()) unconverted.insert(out);
      continue;
    }
    const OnnxConverter convert = FindOnnxConverter(n.domain(), n.op_type());
    Status s = convert == nullptr ? sub.Unsupported("unsupported op type '" + n.op_type() + "'") : convert(sub);
    if (s.ok()) {
      PropagatePlanValues(sub);
      sub.NoteIntegerOutputs();
      continue;
    }
    if (s.code() != StatusCode::kUnimplemented) return s;
    std::string what = s.message();
    for (const std::string& prefix : {sub.where(), source() + ": "}) {
      if (what.compare(0, prefix.size(), prefix) == 0) {
        what = what.substr(prefix.size());
        break;
      }
    }
    failures += (failures.empty() ? "" : "; ") + ("node '" + sub.node_name() + "' (" + n.op_type() + "): " + what);
    for (const std::string& out : n.output()) unconverted.insert(out);
  }
  if (!failures.empty()) return Unsupported("in its body: " + failures);
  for (const onnx::ValueInfoProto& o : body.output()) {
    sub.where_ = where_ + "body output '" + o.name() + "': ";
    RILL_INF_ASSIGN_OR_RETURN(Value v, sub.Get(o.name()));
    int id = v.id;
    if (sub.IsConst(id)) {
      if (sub.tensor(id).dtype != DataType::kFloat32) {
        id = sub.NewFloatConst(o.name() + "/f32", sub.ShapeOf(id), sub.ConstFloats(id));
      }
    } else {
      RILL_INF_ASSIGN_OR_RETURN(id, sub.ToNchw(v));
    }
    g->outputs.push_back(id);
  }
  RILL_INF_RETURN_IF_ERROR(g->Validate());
  *graph = std::move(g);
  return Status::Ok();
}

StatusOr<std::vector<int>> ConverterContext::EmitMulti(ir::OpType type, std::vector<int> inputs,
                                                       const std::vector<std::string>& out_names,
                                                       std::shared_ptr<const ir::TypedAttrs> typed) {
  ir::Node node;
  node.name = out_names.at(0);
  node.type = type;
  node.inputs = std::move(inputs);
  node.typed_attrs = std::move(typed);
  node.guards = guards_;
  for (const std::string& name : out_names) node.outputs.push_back(NewTensor(name, DataType::kFloat32));
  graph_->nodes.push_back(node);
  Status s = graph_->InferNodeShapes(graph_->nodes.back(), &shapes_);
  if (!s.ok()) return Status(s.code(), where_ + s.message());
  for (int out : node.outputs) graph_->tensors[out].shape = shapes_[out];
  return node.outputs;
}

ConverterContext::Mark ConverterContext::Save() const {
  Mark m;
  m.tensors = graph_->tensors.size();
  m.nodes = graph_->nodes.size();
  m.inputs = graph_->inputs.size();
  m.outer_ids = outer_ids_ == nullptr ? 0 : outer_ids_->size();
  m.shape_folds = graph_->shape_folds.size();
  m.values = values_;
  m.sequences = sequences_;
  m.nhwc_of = nhwc_of_;
  m.nchw_of = nchw_of_;
  m.done_nodes = done_nodes_;
  m.integer_values = integer_values_;
  return m;
}

void ConverterContext::Rewind(const Mark& mark) {
  graph_->tensors.resize(mark.tensors);
  shapes_.resize(mark.tensors);
  graph_->nodes.resize(mark.nodes);
  // A subgraph's inputs taken from the enclosing scope since the mark (their
  // values there stay; they are imported again when read again).
  graph_->inputs.resize(mark.inputs);
  if (outer_ids_ != nullptr) outer_ids_->resize(mark.outer_ids);
  graph_->shape_folds.resize(mark.shape_folds);
  values_ = mark.values;
  sequences_ = mark.sequences;
  nhwc_of_ = mark.nhwc_of;
  nchw_of_ = mark.nchw_of;
  done_nodes_ = mark.done_nodes;
  integer_values_ = mark.integer_values;
}

void ConverterContext::DefineSequence(std::vector<Value> items, int output) {
  if (output < node_->output_size()) sequences_[node_->output(output)] = std::move(items);
}

const std::vector<Value>* ConverterContext::FindSequence(const std::string& name) const {
  auto it = sequences_.find(name);
  return it == sequences_.end() ? nullptr : &it->second;
}

void ConverterContext::Define(int id, bool nhwc, int output) {
  if (output < node_->output_size()) values_[node_->output(output)] = Value{id, nhwc};
}

int ConverterContext::SoleConsumer(const std::string& name) const {
  const onnx::GraphProto& graph = model_->graph();
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

StatusOr<int> OperandToNhwc(ConverterContext& c, const Value& v) {
  if (v.nhwc) return v.id;
  Shape s = c.ShapeOf(v.id);
  if (s.size() > 4) return c.Unsupported("operand of rank > 4 against a 4-D value");
  if (NumElements(s) == 1) return v.id;  // scalars broadcast in any layout
  if (!c.IsConst(v.id)) {
    if (s.size() == 4) return c.ToNhwc(v);
    return c.Unsupported("non-constant operand " + ShapeToString(s) + " against a 4-D value");
  }
  while (s.size() < 4) s.insert(s.begin(), 1);
  return c.NewFloatConst(c.tensor(v.id).name + "/nhwc", {s[0], s[2], s[3], s[1]}, NchwToNhwc(c.ConstFloats(v.id), s));
}

}  // namespace rill::inference::onnx_import
