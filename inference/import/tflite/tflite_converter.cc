#include "inference/import/tflite/tflite_converter.h"

#include <cstring>
#include <map>
#include <utility>

namespace rill::inference::tflite {
namespace {

constexpr int kOperatorCustomOptions = 5;  // Operator.custom_options

// Function-local statics: converters register from static initializers in
// other files.
std::map<int32_t, TfLiteConverter>& BuiltinConverters() {
  static auto* converters = new std::map<int32_t, TfLiteConverter>();
  return *converters;
}

std::map<std::string, TfLiteConverter>& CustomConverters() {
  static auto* converters = new std::map<std::string, TfLiteConverter>();
  return *converters;
}

}  // namespace

std::string BuiltinName(int32_t code) {
  static const std::map<int32_t, const char*> kNames = {
      {0, "ADD"},
      {1, "AVERAGE_POOL_2D"},
      {2, "CONCATENATION"},
      {3, "CONV_2D"},
      {4, "DEPTHWISE_CONV_2D"},
      {5, "DEPTH_TO_SPACE"},
      {6, "DEQUANTIZE"},
      {8, "FLOOR"},
      {9, "FULLY_CONNECTED"},
      {11, "L2_NORMALIZATION"},
      {13, "LOCAL_RESPONSE_NORMALIZATION"},
      {14, "LOGISTIC"},
      {16, "LSTM"},
      {17, "MAX_POOL_2D"},
      {18, "MUL"},
      {19, "RELU"},
      {20, "RELU_N1_TO_1"},
      {21, "RELU6"},
      {22, "RESHAPE"},
      {23, "RESIZE_BILINEAR"},
      {25, "SOFTMAX"},
      {26, "SPACE_TO_DEPTH"},
      {28, "TANH"},
      {32, "CUSTOM"},
      {34, "PAD"},
      {36, "GATHER"},
      {37, "BATCH_TO_SPACE_ND"},
      {38, "SPACE_TO_BATCH_ND"},
      {39, "TRANSPOSE"},
      {40, "MEAN"},
      {41, "SUB"},
      {42, "DIV"},
      {43, "SQUEEZE"},
      {45, "STRIDED_SLICE"},
      {47, "EXP"},
      {48, "TOPK_V2"},
      {49, "SPLIT"},
      {50, "LOG_SOFTMAX"},
      {53, "CAST"},
      {54, "PRELU"},
      {55, "MAXIMUM"},
      {56, "ARG_MAX"},
      {57, "MINIMUM"},
      {58, "LESS"},
      {59, "NEG"},
      {60, "PADV2"},
      {61, "GREATER"},
      {62, "GREATER_EQUAL"},
      {63, "LESS_EQUAL"},
      {64, "SELECT"},
      {65, "SLICE"},
      {66, "SIN"},
      {67, "TRANSPOSE_CONV"},
      {69, "TILE"},
      {70, "EXPAND_DIMS"},
      {71, "EQUAL"},
      {72, "NOT_EQUAL"},
      {73, "LOG"},
      {74, "SUM"},
      {75, "SQRT"},
      {76, "RSQRT"},
      {77, "SHAPE"},
      {78, "POW"},
      {79, "ARG_MIN"},
      {81, "REDUCE_PROD"},
      {82, "REDUCE_MAX"},
      {83, "PACK"},
      {84, "LOGICAL_OR"},
      {85, "ONE_HOT"},
      {86, "LOGICAL_AND"},
      {87, "LOGICAL_NOT"},
      {88, "UNPACK"},
      {89, "REDUCE_MIN"},
      {90, "FLOOR_DIV"},
      {91, "REDUCE_ANY"},
      {92, "SQUARE"},
      {95, "FLOOR_MOD"},
      {97, "RESIZE_NEAREST_NEIGHBOR"},
      {98, "LEAKY_RELU"},
      {99, "SQUARED_DIFFERENCE"},
      {100, "MIRROR_PAD"},
      {101, "ABS"},
      {102, "SPLIT_V"},
      {104, "CEIL"},
      {105, "REVERSE_V2"},
      {106, "ADD_N"},
      {107, "GATHER_ND"},
      {108, "COS"},
      {111, "ELU"},
      {114, "QUANTIZE"},
      {116, "ROUND"},
      {117, "HARD_SWISH"},
      {122, "SCATTER_ND"},
      {123, "SELECT_V2"},
      {124, "DENSIFY"},
      {126, "BATCH_MATMUL"},
      {128, "CUMSUM"},
      {130, "BROADCAST_TO"},
      {140, "REDUCE_ALL"},
      {150, "GELU"},
      {158, "SIGN"},
  };
  auto it = kNames.find(code);
  return it != kNames.end() ? it->second : "BUILTIN_" + std::to_string(code);
}

bool RegisterTfLiteConverter(std::initializer_list<int32_t> builtins, TfLiteConverter convert) {
  for (int32_t code : builtins) BuiltinConverters()[code] = convert;
  return true;
}

bool RegisterTfLiteCustomConverter(std::initializer_list<const char*> names, TfLiteConverter convert) {
  for (const char* name : names) CustomConverters()[name] = convert;
  return true;
}

TfLiteConverter FindTfLiteConverter(const OpCode& opcode) {
  if (opcode.builtin == kCustom) {
    auto it = CustomConverters().find(opcode.custom);
    return it == CustomConverters().end() ? nullptr : it->second;
  }
  auto it = BuiltinConverters().find(opcode.builtin);
  return it == BuiltinConverters().end() ? nullptr : it->second;
}

std::vector<int> ConverterContext::Ints(const Vector& v) {
  std::vector<int> out;
  for (uint32_t i = 0; v.valid && i < v.size; ++i) out.push_back(r_.ScalarAt<int32_t>(v, i));
  return out;
}

ConverterContext::Vector ConverterContext::CustomOptions() { return r_.GetVector(op_, kOperatorCustomOptions, 1); }

Status ConverterContext::ReadActivation(int field, ir::Activation* out) {
  const int8_t value = Option<int8_t>(field, 0);
  switch (value) {
    case 0:
      *out = ir::Activation::kNone;
      return Status::Ok();
    case 1:
      *out = ir::Activation::kRelu;
      return Status::Ok();
    case 2:
      *out = ir::Activation::kReluN1To1;
      return Status::Ok();
    case 3:
      *out = ir::Activation::kRelu6;
      return Status::Ok();
    case 4:
      *out = ir::Activation::kTanh;
      return Status::Ok();
    default:
      return UnsupportedAttribute("fused_activation_function", "unsupported fused activation " + std::to_string(value));
  }
}

Shape ConverterContext::InShape(size_t i) const {
  return i < node_->inputs.size() && node_->inputs[i] >= 0 ? graph_.tensors[node_->inputs[i]].shape : Shape();
}

Status ConverterContext::ConstInts(int i, const char* what, std::vector<int>* out) {
  out->clear();
  if (i >= num_inputs() || node_->inputs[i] < 0) return Unsupported(std::string(what) + " is absent");
  const ir::TensorInfo& t = graph_.tensors[node_->inputs[i]];
  if (!t.is_constant() || (t.dtype != DataType::kInt32 && t.dtype != DataType::kInt64)) {
    return Unsupported(std::string(what) + " that is not a constant integer tensor");
  }
  const size_t elem = DataTypeSize(t.dtype);
  const size_t n = static_cast<size_t>(NumElements(t.shape));
  if (t.bytes < n * elem) return Invalid(std::string(what) + " is shorter than its shape");
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* p = static_cast<const uint8_t*>(t.data) + k * elem;
    if (t.dtype == DataType::kInt32) {
      int32_t v;
      std::memcpy(&v, p, 4);
      out->push_back(v);
    } else {
      int64_t v;
      std::memcpy(&v, p, 8);
      if (v < INT32_MIN || v > INT32_MAX) return Unsupported(std::string(what) + " value out of int32 range");
      out->push_back(static_cast<int>(v));
    }
  }
  return Status::Ok();
}

Status ConverterContext::NormalizeAxis(int axis, int rank, const char* what, int* out) {
  if (axis < -rank || axis >= rank) {
    return Invalid(std::string(what) + " " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  *out = axis < 0 ? axis + rank : axis;
  return Status::Ok();
}

int ConverterContext::NewTensor(const std::string& suffix, const Shape& shape) {
  ir::TensorInfo t;
  t.name = node_->name + "/" + suffix;
  t.dtype = DataType::kFloat32;
  t.shape = shape;
  graph_.tensors.push_back(std::move(t));
  return static_cast<int>(graph_.tensors.size()) - 1;
}

int ConverterContext::NewFloatConst(const std::string& suffix, const Shape& shape, const std::vector<float>& values) {
  const int id = NewTensor(suffix, shape);
  std::vector<uint8_t> bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  graph_.SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
  return id;
}

StatusOr<int> ConverterContext::FloatInput(int i) {
  if (i >= num_inputs() || node_->inputs[i] < 0) return Invalid("input " + std::to_string(i) + " is absent");
  const int id = node_->inputs[i];
  const ir::TensorInfo& t = graph_.tensors[id];
  if (!t.is_constant() || t.dtype == DataType::kFloat32) return id;
  const size_t n = static_cast<size_t>(NumElements(t.shape));
  const size_t elem = DataTypeSize(t.dtype);
  if (elem == 0 || t.bytes < n * elem) return Invalid("constant input " + std::to_string(i) + " is too short");
  std::vector<float> values(n);
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* p = static_cast<const uint8_t*>(t.data) + k * elem;
    if (t.dtype == DataType::kInt32) {
      int32_t v;
      std::memcpy(&v, p, 4);
      values[k] = static_cast<float>(v);
    } else if (t.dtype == DataType::kInt64) {
      int64_t v;
      std::memcpy(&v, p, 8);
      values[k] = static_cast<float>(v);
    } else if (t.dtype == DataType::kBool || t.dtype == DataType::kUInt8) {
      values[k] = *p != 0 ? (t.dtype == DataType::kBool ? 1.0f : static_cast<float>(*p)) : 0.0f;
    } else {
      return Unsupported("a constant input of type " + std::string(DataTypeName(t.dtype)));
    }
  }
  const Shape shape = t.shape;
  return NewFloatConst("in" + std::to_string(i) + "_f32", shape, values);
}

StatusOr<int> ConverterContext::Emit(ir::OpType type, std::vector<int> inputs, const std::string& suffix, int output,
                                     ir::OpAttrs attrs, std::shared_ptr<const ir::TypedAttrs> typed) {
  ir::Node n;
  n.type = type;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.typed_attrs = std::move(typed);
  const int out = output >= 0 ? output : NewTensor(suffix, {});
  n.name = graph_.tensors[out].name;
  n.outputs = {out};
  std::vector<Shape> shapes(graph_.tensors.size());
  for (size_t k = 0; k < shapes.size(); ++k) shapes[k] = graph_.tensors[k].shape;
  const Status s = graph_.InferNodeShapes(n, &shapes);
  if (!s.ok()) return Status(s.code(), where_ + s.message());
  if (output < 0) graph_.tensors[out].shape = shapes[out];
  emitted_.push_back(std::move(n));
  return out;
}

StatusOr<int> ConverterContext::EmitReshape(int x, const Shape& shape, const std::string& suffix, int output) {
  ir::OpAttrs a;
  a.new_shape = shape;
  return Emit(ir::OpType::kReshape, {x}, suffix, output, a);
}

StatusOr<int> ConverterContext::EmitSliceAxis(int x, int axis, int begin, int end, const std::string& suffix,
                                              int output) {
  const size_t rank = graph_.tensors[x].shape.size();
  ir::OpAttrs a;
  a.slice_start.assign(rank, 0);
  a.slice_end.assign(rank, 1LL << 40);  // the whole axis
  a.slice_step.assign(rank, 1);
  a.slice_start[axis] = begin;
  a.slice_end[axis] = end;
  return Emit(ir::OpType::kSlice, {x}, suffix, output, a);
}

Status ConverterContext::Corrupt(const std::string& what) const {
  return DataLossError(where_ + what + (r_.ok() ? "" : ": " + r_.error()));
}

}  // namespace rill::inference::tflite
