#include "inference/import/tflite/tflite_converter.h"

#include <map>

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
      {14, "LOGISTIC"},
      {16, "LSTM"},
      {17, "MAX_POOL_2D"},
      {18, "MUL"},
      {19, "RELU"},
      {21, "RELU6"},
      {22, "RESHAPE"},
      {23, "RESIZE_BILINEAR"},
      {25, "SOFTMAX"},
      {26, "SPACE_TO_DEPTH"},
      {28, "TANH"},
      {32, "CUSTOM"},
      {34, "PAD"},
      {36, "GATHER"},
      {39, "TRANSPOSE"},
      {40, "MEAN"},
      {41, "SUB"},
      {42, "DIV"},
      {43, "SQUEEZE"},
      {45, "STRIDED_SLICE"},
      {47, "EXP"},
      {49, "SPLIT"},
      {53, "CAST"},
      {54, "PRELU"},
      {55, "MAXIMUM"},
      {57, "MINIMUM"},
      {65, "SLICE"},
      {67, "TRANSPOSE_CONV"},
      {70, "EXPAND_DIMS"},
      {74, "SUM"},
      {83, "PACK"},
      {97, "RESIZE_NEAREST_NEIGHBOR"},
      {98, "LEAKY_RELU"},
      {114, "QUANTIZE"},
      {117, "HARD_SWISH"},
      {124, "DENSIFY"},
      {126, "BATCH_MATMUL"},
      {150, "GELU"},
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

Status ConverterContext::Corrupt(const std::string& what) const {
  return DataLossError(where_ + what + (r_.ok() ? "" : ": " + r_.error()));
}

}  // namespace rill::inference::tflite
