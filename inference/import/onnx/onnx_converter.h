// The ONNX importer's converter API. Each ONNX op type has one converter,
// registered beside its code (converters/*.cc, or any file linked into the
// binary) with RegisterOnnxConverter; the importer looks the node's op type
// up and hands the converter a ConverterContext, which carries the shared
// utilities: input values and their layout, constants and constant folding,
// IR nodes, attributes and errors.
//
// Layout: ONNX is NCHW, the engine's kernels NHWC. Every value carries its
// layout (Value::nhwc). Spatial ops produce NHWC values (ToNhwc on their
// input), elementwise ops follow their inputs, and layout-sensitive ops
// (Reshape, Gemm, ...) take ToNchw, so a transpose is emitted only where an
// NHWC value meets one of those (or a graph output).
//
// Errors: a converter returns Unsupported(...) (or UnsupportedAttribute(...)
// naming the attribute) for what the engine lacks; the importer goes on with
// the nodes that do not read that node's outputs and reports every such node
// in one Unimplemented error. Any other error code stops the import at once.
#ifndef RILL_INFERENCE_IMPORT_ONNX_ONNX_CONVERTER_H_
#define RILL_INFERENCE_IMPORT_ONNX_ONNX_CONVERTER_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference::onnx_import {

// ONNX TensorProto.DataType values the importer reads.
enum OnnxType { kFloat = 1, kInt32 = 6, kInt64 = 7, kBool = 9, kFloat16 = 10, kDouble = 11 };

// An ONNX value inside the engine: a tensor id, and whether that tensor holds
// a 4-D NCHW value as NHWC.
struct Value {
  int id = -1;
  bool nhwc = false;
};

// Attribute readers; absent attributes give the default.
const onnx::AttributeProto* FindAttr(const onnx::NodeProto& node, const std::string& name);
int64_t AttrInt(const onnx::NodeProto& node, const std::string& name, int64_t def);
float AttrFloat(const onnx::NodeProto& node, const std::string& name, float def);
std::string AttrString(const onnx::NodeProto& node, const std::string& name, const std::string& def);
std::vector<int64_t> AttrInts(const onnx::NodeProto& node, const std::string& name);

// The NHWC axis of NCHW axis `axis` (0..3).
int NhwcAxis(int axis);
// The elements of an NCHW array of shape `nchw` (rank 4) in NHWC order.
std::vector<float> NchwToNhwc(const std::vector<float>& x, const Shape& nchw);

class ConverterContext {
 public:
  ConverterContext(std::shared_ptr<ir::Graph> graph, const onnx::ModelProto* model, int64_t opset);
  ConverterContext(const ConverterContext&) = delete;
  ConverterContext& operator=(const ConverterContext&) = delete;

  // ---- the node being converted ----------------------------------------
  const onnx::NodeProto& node() const { return *node_; }
  const std::string& op_type() const { return node_->op_type(); }
  // The node's name, or its first output's when it has none.
  const std::string& node_name() const { return node_name_; }
  // The name for the tensor of the node's first output.
  const std::string& out_name() const { return out_name_; }
  // The model's default-domain opset.
  int64_t opset() const { return opset_; }
  const std::string& source() const { return graph_->source; }

  int64_t AttrInt(const std::string& name, int64_t def) const { return onnx_import::AttrInt(*node_, name, def); }
  float AttrFloat(const std::string& name, float def) const { return onnx_import::AttrFloat(*node_, name, def); }
  std::string AttrString(const std::string& name, const std::string& def) const {
    return onnx_import::AttrString(*node_, name, def);
  }
  std::vector<int64_t> AttrInts(const std::string& name) const { return onnx_import::AttrInts(*node_, name); }
  const onnx::AttributeProto* FindAttr(const std::string& name) const { return onnx_import::FindAttr(*node_, name); }
  // auto_pad / pads into a 2-D window's padding, and strides / dilations
  // (shared by Conv, ConvTranspose and the pools).
  Status ReadPadding(ir::OpAttrs* a);
  Status ReadStridesDilations(ir::OpAttrs* a);

  // ---- inputs -------------------------------------------------------------
  bool HasInput(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }
  StatusOr<Value> Input(int i) const;
  // Input i, which must be a constant; its tensor id.
  StatusOr<int> ConstInput(int i) const;
  // The single value of constant scalar input i.
  StatusOr<float> ScalarInput(int i) const;
  // The value named `name`, or an error naming the node.
  StatusOr<Value> Get(const std::string& name) const;
  // The value named `name`, nullptr when no earlier node produced it.
  const Value* Find(const std::string& name) const;

  // ---- tensors and constants ----------------------------------------------
  // A copy (as ShapeOf): the tensor table grows as converters add tensors,
  // so a reference into it would dangle.
  ir::TensorInfo tensor(int id) const { return graph_->tensors[id]; }
  // The shape as the engine stores it (NHWC for NHWC values). A copy: adding
  // a tensor (NewFloatConst, AddNode...) grows the table, so a reference
  // held across such a call would dangle.
  Shape ShapeOf(int id) const { return shapes_[id]; }
  // The shape in ONNX's (NCHW) order.
  Shape OnnxShape(const Value& v) const;
  bool IsConst(int id) const { return graph_->tensors[id].is_constant(); }
  // A constant's elements converted to float / int64.
  std::vector<float> ConstFloats(int id) const;
  std::vector<int64_t> ConstInts(int id) const;
  int NewConst(const std::string& name, DataType dtype, const Shape& shape, std::vector<uint8_t> bytes);
  int NewFloatConst(const std::string& name, const Shape& shape, const std::vector<float>& values);
  // A float constant of `shape` whose elements `fill` writes in place (one
  // buffer: no vector of values copied in).
  template <typename Fill>
  int NewFloatConstFilled(const std::string& name, const Shape& shape, Fill fill) {
    std::vector<uint8_t> bytes(static_cast<size_t>(NumElements(shape)) * 4);
    if (!bytes.empty()) fill(reinterpret_cast<float*>(bytes.data()));
    return NewConst(name, DataType::kFloat32, shape, std::move(bytes));
  }
  // A float32 constant's elements where they are stored (null for other
  // types: ConstFloats converts those).
  const float* ConstFloatData(int id) const;
  // An int64 constant, 1-D unless `shape` is given.
  int NewIntConst(const std::string& name, const std::vector<int64_t>& values, const Shape* shape = nullptr);
  int NewInt32Const(const std::string& name, const Shape& shape, const std::vector<int>& values);
  // A constant from an initializer or a Constant node's tensor (float, double,
  // int8, uint8, int16, uint16, int32, int64 and bool become float32 and
  // int64; bools 0 / 1).
  StatusOr<int> ConstantFromProto(const onnx::TensorProto& t, const std::string& name);
  // Run-time tensor `id` holds a shape's values `dims`, kDynamicDim where
  // known only at run time (ir::TensorInfo::plan_values): a SHAPE's output,
  // and the shape arithmetic on it (converters/plan_values.cc).
  void NoteShapeValues(int id, const Shape& dims) { graph_->tensors[id].plan_values = dims; }
  const Shape* ShapeValues(int id) const {
    const Shape& v = graph_->tensors[id].plan_values;
    return v.empty() ? nullptr : &v;
  }
  // Whether value `name` holds ONNX integers (int32 / int64, not bool): an
  // integer constant, or a run-time value noted by NoteIntegerOutputs. Run-
  // time values are float32 whatever their ONNX type; ops whose integer
  // semantics differ (Div truncates) ask this.
  bool IsIntegerValue(const std::string& name) const;
  // After a node's converter: notes which of its outputs hold integers (the
  // indices NonZero / NMS / ArgMax / TopK give, Shape, Cast to an integer
  // type, and the ops that keep their input's type).
  void NoteIntegerOutputs();
  // Notes that the node's output was folded from the import-time input shapes.
  void NoteShapeFold() { graph_->shape_folds.push_back(node_name_); }

  // ---- layout ---------------------------------------------------------------
  // The value as an NHWC tensor (rank 4): constants are permuted, activations
  // get a TRANSPOSE. Cached per value.
  StatusOr<int> ToNhwc(const Value& v);
  // The value in ONNX's layout: a TRANSPOSE (or a RESHAPE when H = W = 1) for
  // NHWC values. Cached per value.
  StatusOr<int> ToNchw(const Value& v);

  // ---- output -----------------------------------------------------------------
  // Appends an IR node writing a new float tensor `out_name`, infers its
  // shape (errors name the ONNX node) and returns the tensor's id. Ops
  // registered outside the built-in list take their attributes in `typed`.
  StatusOr<int> Emit(ir::OpType type, std::vector<int> inputs, const std::string& out_name, ir::OpAttrs attrs = {},
                     std::shared_ptr<const ir::TypedAttrs> typed = nullptr);
  // Binds the node's output `output` to tensor `id` in the given layout.
  void Define(int id, bool nhwc, int output = 0);
  void Define(const Value& v, int output = 0) { Define(v.id, v.nhwc, output); }
  // Binds a value name produced by another node (converters that import
  // several nodes at once; see SkipNode).
  void DefineName(const std::string& name, const Value& v) { values_[name] = v; }

  // ---- other nodes --------------------------------------------------------
  const onnx::GraphProto& graph_proto() const { return model_->graph(); }
  // The index of the graph node reading `name`, if exactly one does and it
  // is not a graph output; -1 otherwise.
  int SoleConsumer(const std::string& name) const;
  // Marks graph node `index` as imported with this one.
  void SkipNode(int index) { done_nodes_.insert(index); }

  // ---- subgraphs (If's branches) ----------------------------------------------
  // Converts the nodes of `branch` into this graph through their converters,
  // each node guarded by the guards in force plus `guard` (nullptr: inlined
  // unguarded, an If whose condition is a constant); *outputs gets the
  // branch's outputs as NCHW values (constants as float32, converted while
  // the guard holds; an output that is a sequence gives id -1, FindSequence
  // has it). The first node that cannot be converted fails it.
  Status ConvertBranch(const onnx::GraphProto& branch, const ir::Guard* guard, std::vector<Value>* outputs);

  // ---- subgraphs of their own (Loop's body) -----------------------------------
  struct SubgraphInput {
    Shape shape;           // kDynamicDim where known only at run time
    bool integer = false;  // holds ONNX integers (IsIntegerValue)
  };
  // Converts `body` into a graph of its own (*graph, the same source and
  // layout) through the same converters: its inputs the body's, of the
  // given shapes, then, in the order the body first reads them, the values
  // of this scope it reads (constants are copied into it instead); *outer
  // gets those values' tensor ids here (NCHW). Its outputs are the body's,
  // NCHW, constants as float32. Every body node the engine cannot convert is
  // listed in one Unsupported error.
  Status ConvertSubgraph(const onnx::GraphProto& body, const std::vector<SubgraphInput>& inputs,
                         std::shared_ptr<ir::Graph>* graph, std::vector<int>* outer);
  // Appends an IR node writing one new float tensor per name of `out_names`
  // (a LOOP's outputs) and infers their shapes; their ids.
  StatusOr<std::vector<int>> EmitMulti(ir::OpType type, std::vector<int> inputs,
                                       const std::vector<std::string>& out_names,
                                       std::shared_ptr<const ir::TypedAttrs> typed);

  // What this context has made so far, to drop everything made since
  // (Rewind): a Loop that starts unrolling and then finds its body's
  // condition known only at run time is converted again as a LOOP node.
  struct Mark {
    size_t tensors = 0, nodes = 0, inputs = 0, outer_ids = 0, shape_folds = 0;
    std::map<std::string, Value> values;
    std::map<std::string, std::vector<Value>> sequences;
    std::map<int, int> nhwc_of, nchw_of;
    std::set<int> done_nodes;
    std::set<std::string> integer_values;
  };
  Mark Save() const;
  // Drops the tensors, nodes and graph inputs made since `mark` and the
  // names bound since, as if none of it had been converted.
  void Rewind(const Mark& mark);

  // ---- sequences (converters/sequence.cc) ---------------------------------------
  // An ONNX sequence whose items are known at import (torch's tensor_split:
  // SequenceEmpty, a Loop of constant trip count inserting slices,
  // SequenceAt of constant positions): a list of values by name.
  void DefineSequence(std::vector<Value> items, int output = 0);
  const std::vector<Value>* FindSequence(const std::string& name) const;
  // Binds a name to a sequence (a Loop body's input; DefineName for values).
  void BindSequence(const std::string& name, std::vector<Value> items) { sequences_[name] = std::move(items); }

  // ---- errors ---------------------------------------------------------------
  // "<model>: node '<name>' (<op>): ", the prefix of this node's errors.
  const std::string& where() const { return where_; }
  // Something the engine lacks: collected with the other nodes'.
  Status Unsupported(const std::string& what) const { return UnimplementedError(where_ + what); }
  // The same, naming the attribute whose value is not supported.
  Status UnsupportedAttribute(const std::string& attribute, const std::string& what);
  // A malformed node.
  Status Invalid(const std::string& what) const { return InvalidArgumentError(where_ + what); }

 private:
  friend class Importer;

  int NewTensor(const std::string& name, DataType dtype);
  // A subgraph's value `name` of an enclosing scope, made a value of this
  // graph (ConvertSubgraph); nullptr when no scope has it.
  const Value* ImportOuterValue(const std::string& name);
  // Makes node `index` (of the model's graph) the current one.
  void BeginNode(int index);
  void BeginNode(const onnx::NodeProto* node, int index);

  std::shared_ptr<ir::Graph> graph_;
  const onnx::ModelProto* model_;
  int64_t opset_;
  std::vector<Shape> shapes_;
  std::map<std::string, Value> values_;
  std::map<std::string, std::vector<Value>> sequences_;
  std::map<int, int> nhwc_of_, nchw_of_;
  std::set<int> done_nodes_;
  const onnx::NodeProto* node_ = nullptr;
  std::string node_name_, out_name_, where_;
  std::string unsupported_attribute_;  // set by UnsupportedAttribute for this node
  std::vector<ir::Guard> guards_;      // of the If branches being converted, outermost first
  std::set<std::string> integer_values_;  // run-time values of ONNX integer type (IsIntegerValue)
  // A subgraph's (ConvertSubgraph): the enclosing scope's context, and the
  // ids there of the values this graph takes as extra inputs.
  ConverterContext* outer_ = nullptr;
  std::vector<int>* outer_ids_ = nullptr;
};

// After a node's converter: the values of its one int output as far as they
// are known before the run, from constants and inputs' plan values (Gather,
// Unsqueeze, Squeeze, Reshape, Concat, Cast, Equal, Where, Identity of shape
// values); wholly known, the output becomes a constant
// (converters/plan_values.cc).
void PropagatePlanValues(ConverterContext& c);

// Converts ctx.node(): emits IR nodes and defines the node's outputs.
using OnnxConverter = Status (*)(ConverterContext& ctx);

// Registers `convert` for op types of `domain` ("" is the default domain,
// also spelt "ai.onnx"); returns true, to initialise a static. A second
// registration of an op type replaces the first.
bool RegisterOnnxConverter(const std::string& domain, std::initializer_list<const char*> op_types,
                           OnnxConverter convert);
inline bool RegisterOnnxConverter(std::initializer_list<const char*> op_types, OnnxConverter convert) {
  return RegisterOnnxConverter("", op_types, convert);
}
// nullptr when no converter handles the op type.
OnnxConverter FindOnnxConverter(const std::string& domain, const std::string& op_type);

// A binary operand `v` against an NHWC value, in NHWC: itself when NHWC or a
// scalar; a constant by numpy alignment to rank 4 in NCHW, then permuted;
// another 4-D value transposed; anything else Unsupported.
StatusOr<int> OperandToNhwc(ConverterContext& c, const Value& v);

}  // namespace rill::inference::onnx_import

#endif  // RILL_INFERENCE_IMPORT_ONNX_ONNX_CONVERTER_H_
