// The TFLite importer's converter API. Each builtin operator code (and each
// custom op name) has one converter, registered beside its code
// (converters/*.cc) with RegisterTfLiteConverter or
// RegisterTfLiteCustomConverter. The importer reads an operator's inputs and
// outputs into an ir::Node; the converter sets its type and attributes from
// the operator's options through a ConverterContext.
//
// TFLite's layout is the engine's (NHWC; axes number the same) and its
// tensors are read before the operators, so a converter mostly translates
// options. An operator the engine has no single op for is lowered into
// several nodes: Emit appends engine nodes (into new tensors, or into the
// operator's own outputs) ahead of the operator's node, and Lowered() drops
// the operator's node when the emitted ones replace it (SPLIT, PACK,
// SQUARED_DIFFERENCE...). Values at run time are float32: int32, int64 and
// bool activations become float32 tensors (booleans 0 / 1, indices whole
// numbers), so constants of those types feed run-time ops through
// FloatInput. What the engine lacks
// is Unsupported(...) (or UnsupportedAttribute(...), naming the option); the
// importer goes on with the other operators and reports every unsupported one
// in one Unimplemented error. Any other error stops the import at once.
#ifndef RILL_INFERENCE_IMPORT_TFLITE_TFLITE_CONVERTER_H_
#define RILL_INFERENCE_IMPORT_TFLITE_TFLITE_CONVERTER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inference/import/tflite/flatbuffer_reader.h"
#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference::tflite {

// BuiltinOperator codes of the TFLite schema that converters name.
enum Builtin : int32_t {
  kAdd = 0,
  kAveragePool2D = 1,
  kConcatenation = 2,
  kConv2D = 3,
  kDepthwiseConv2D = 4,
  kDepthToSpace = 5,
  kDequantize = 6,
  kFullyConnected = 9,
  kLogistic = 14,
  kMaxPool2D = 17,
  kMul = 18,
  kRelu = 19,
  kRelu6 = 21,
  kReshape = 22,
  kResizeBilinear = 23,
  kSoftmax = 25,
  kCustom = 32,
  kPad = 34,
  kMean = 40,
  kStridedSlice = 45,
  kPRelu = 54,
  kResizeNearest = 97,
  kHardSwish = 117,
  kDensify = 124,
};

// The schema's name of a builtin code ("CONV_2D"), for messages.
std::string BuiltinName(int32_t code);

struct OpCode {
  int32_t builtin = 0;
  std::string custom;  // the custom op's name when builtin is kCustom
  int32_t version = 1;  // the operator code's version (custom ops' kernels differ by it)
  std::string Name() const { return builtin == kCustom ? "CUSTOM '" + custom + "'" : BuiltinName(builtin); }
};

class ConverterContext {
 public:
  using Table = FlatBufferReader::Table;
  using Vector = FlatBufferReader::Vector;

  // `node` has its name, inputs and outputs read; `where` prefixes errors.
  ConverterContext(FlatBufferReader& reader, ir::Graph& graph, const OpCode& opcode, const Table& op,
                   const Table& options, ir::Node* node, std::string where)
      : r_(reader), graph_(graph), opcode_(opcode), op_(op), options_(options), node_(node), where_(std::move(where)) {}

  const OpCode& opcode() const { return opcode_; }
  // The IR node to complete: set type, attrs (or typed_attrs); inputs may be
  // edited.
  ir::Node& node() { return *node_; }
  const ir::Graph& graph() const { return graph_; }
  // Input i's declared shape (a copy: Emit and the New* calls add tensors).
  Shape InShape(size_t i) const;
  int num_inputs() const { return static_cast<int>(node_->inputs.size()); }
  // Constant int32 / int64 input i's values; Unsupported (naming `what`)
  // when it is absent or not a constant integer tensor.
  Status ConstInts(int i, const char* what, std::vector<int>* out);
  // An axis in [-rank, rank) as [0, rank); Invalid naming `what` otherwise.
  Status NormalizeAxis(int axis, int rank, const char* what, int* out);

  // ---- lowering into several engine nodes ------------------------------------
  // A new float32 activation tensor, named `<node name>/<suffix>`.
  int NewTensor(const std::string& suffix, const Shape& shape);
  // A new float32 constant.
  int NewFloatConst(const std::string& suffix, const Shape& shape, const std::vector<float>& values);
  // Input i as a run-time operand: an activation as is, a constant int32,
  // int64 or bool tensor as a new float32 constant of its values.
  StatusOr<int> FloatInput(int i);
  // Appends a node of `type` reading `inputs` and writing tensor `output`
  // (-1: a new tensor named `<node name>/<suffix>`), its shape inferred
  // (errors name the operator); returns the output's id. Emitted nodes run
  // before the operator's node, in the order emitted.
  StatusOr<int> Emit(ir::OpType type, std::vector<int> inputs, const std::string& suffix, int output = -1,
                     ir::OpAttrs attrs = {}, std::shared_ptr<const ir::TypedAttrs> typed = nullptr);
  // RESHAPE of `x` to `shape`; SLICE of `x` to [begin, end) along `axis`
  // (whole along the others). Both as Emit.
  StatusOr<int> EmitReshape(int x, const Shape& shape, const std::string& suffix, int output = -1);
  StatusOr<int> EmitSliceAxis(int x, int axis, int begin, int end, const std::string& suffix, int output = -1);
  // The operator's own node is not added: the emitted nodes replace it.
  void Lowered() { lowered_ = true; }

  // ---- variable tensors (is_variable: state carried from run to run) --------
  // Whether tensor `id` is a variable tensor of the model.
  bool IsVariable(int id) const {
    return variables_ != nullptr && id >= 0 && id < static_cast<int>(variables_->size()) && (*variables_)[id];
  }
  // Tensor `value` (written by an emitted node) is variable `variable`'s
  // value after the run: the session carries it to the next run
  // (ir::Graph::variables).
  void UpdateVariable(int variable, int value) { variable_updates_.push_back({variable, value}); }
  const std::vector<std::pair<int, int>>& variable_updates() const { return variable_updates_; }
  void set_variables(const std::vector<bool>* variables) { variables_ = variables; }
  bool lowered() const { return lowered_; }
  std::vector<ir::Node>& emitted() { return emitted_; }
  FlatBufferReader& reader() { return r_; }

  // ---- the operator's builtin options table (absent: every field defaults)
  template <typename T>
  T Option(int field, T def) {
    return r_.Scalar<T>(options_, field, def);
  }
  bool HasOptions() const { return options_.valid; }
  Vector OptionVector(int field, size_t elem_size) { return r_.GetVector(options_, field, elem_size); }
  // The int32 elements of a vector (an invalid one reads as empty).
  std::vector<int> Ints(const Vector& v);
  // The bytes of a custom op's custom_options (invalid when absent).
  Vector CustomOptions();
  // Shared option fields: a fused ActivationFunctionType, a Padding.
  Status ReadActivation(int field, ir::Activation* out);
  ir::Padding ReadPadding(int field) {
    return Option<int8_t>(field, 0) == 0 ? ir::Padding::kSame : ir::Padding::kValid;
  }

  // ---- errors ------------------------------------------------------------------
  // "<model>: node #<i> '<name>' (<OP>): ", the prefix of this node's errors.
  const std::string& where() const { return where_; }
  // Something the engine lacks: collected with the other nodes'.
  Status Unsupported(const std::string& what) const { return UnimplementedError(where_ + what); }
  // The same, naming the option whose value is not supported.
  Status UnsupportedAttribute(const std::string& option, const std::string& what) {
    unsupported_attribute_ = option;
    return Unsupported(what);
  }
  // Options out of range.
  Status Invalid(const std::string& what) const { return InvalidArgumentError(where_ + what); }
  // Options the reader could not read, or too short.
  Status Corrupt(const std::string& what) const;
  const std::string& unsupported_attribute() const { return unsupported_attribute_; }

 private:
  FlatBufferReader& r_;
  ir::Graph& graph_;
  const OpCode& opcode_;
  Table op_;
  Table options_;
  ir::Node* node_;
  std::string where_;
  std::string unsupported_attribute_;
  std::vector<ir::Node> emitted_;
  bool lowered_ = false;
  const std::vector<bool>* variables_ = nullptr;
  std::vector<std::pair<int, int>> variable_updates_;
};

// Completes ctx.node() from the operator's options.
using TfLiteConverter = Status (*)(ConverterContext& ctx);

// Register `convert` for builtin codes / custom op names; return true, to
// initialise a static. A second registration replaces the first.
bool RegisterTfLiteConverter(std::initializer_list<int32_t> builtins, TfLiteConverter convert);
bool RegisterTfLiteCustomConverter(std::initializer_list<const char*> names, TfLiteConverter convert);
// nullptr when no converter handles the op.
TfLiteConverter FindTfLiteConverter(const OpCode& opcode);

}  // namespace rill::inference::tflite

#endif  // RILL_INFERENCE_IMPORT_TFLITE_TFLITE_CONVERTER_H_
