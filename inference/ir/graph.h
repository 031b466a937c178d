// The engine's graph IR: tensors (with element type, static shape and,
// for constants, their bytes) and nodes in execution order. Importers build
// it; optimizer passes rewrite it; the runtime plans and runs it. Shapes are
// NHWC for models from TFLite; every op carries the attributes of its
// semantics, never of its source format.
#ifndef RILL_INFERENCE_IR_GRAPH_H_
#define RILL_INFERENCE_IR_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/resize_geometry.h"
#include "rill/inference/status.h"
#include "rill/inference/tensor.h"

namespace rill::inference::ir {

// A dimension known only at run time (docs/design.md, "Data-dependent
// sizes"): NonZero's count, NonMaxSuppression's selection, a Reshape to a
// shape computed from data. Plan-time shapes hold it; the session infers the
// node's shapes again at every run, from its inputs' actual shapes and the
// values of its shape operands.
inline constexpr int kDynamicDim = -1;
inline bool HasDynamicDim(const Shape& s) {
  for (int d : s) {
    if (d == kDynamicDim) return true;
  }
  return false;
}

enum class OpType {
  // Optional inputs made by the optimizer: [3] a residual (CONV_2D), [4] a
  // fused PRELU's per-channel slope (both).
  kConv2D,
  kDepthwiseConv2D,
  kTransposeConv2D,
  kFullyConnected,
  kAdd,
  kMul,
  kRelu,
  kRelu6,
  kHardSwish,
  kLogistic,
  kPad,
  kMaxPool2D,
  kAveragePool2D,
  kMean,
  kResizeBilinear,  // inputs: x, size [2]; attrs: align_corners/half_pixel_centers (TFLite) or the resize fields
  kResizeNearest,   // inputs: x, size [2]; attrs: the resize fields and nearest_rounding
  kReshape,
  kConcatenation,
  kDepthToSpace,
  kDequantize,
  kDensify,
  // Ops the ONNX importer needs beyond TFLite's set.
  kSub,
  kDiv,
  kPRelu,      // inputs: x, slope (broadcast)
  kClamp,      // attrs.clamp_min/clamp_max
  kLeakyRelu,  // attrs.alpha
  kHardSigmoid,  // max(0, min(1, alpha*x + beta))
  kSilu,       // x * logistic(x) (made by the optimizer from MUL(x, LOGISTIC(x)))
  kSoftmax,    // attrs.axis
  kTranspose,  // attrs.perm
  // Strided slice, any rank <= 6: attrs.slice_start/end/step per axis
  // (ONNX Slice's values, resolved against the input's dims by
  // ir::SliceAxis, so a resized input slices the same way).
  kSlice,
  kResizeBicubic,  // inputs: x, size [2]; attrs: the resize fields, cubic_coeff_a, exclude_outside, antialias
  // Made by the optimizer (optimize::FuseDepthwiseBlocks), never read from a
  // file: [1x1 expand conv ->] depthwise conv -> 1x1 project conv [+ residual]
  // run band by band so the intermediate tensors stay in cache. Inputs: x,
  // expand filter [Ce,1,1,Cin] and bias (both -1 without an expand),
  // depthwise filter [1,kh,kw,Ce] and bias, project filter [Cout,1,1,Ce] and
  // bias, residual (or -1), and the slope of a fused PRELU (optional, one
  // per output channel, after everything else). attrs: the depthwise conv's
  // window, strides and padding; expand_activation, depthwise_activation, and
  // activation (after the project conv and the residual).
  kDepthwiseBlock,
  // Not an op: ops registered outside this list (op_registry.h) get ids
  // above it.
  kRegisteredOp = 1000,
};

// The registered descriptor's name ("CONV_2D"), "UNKNOWN" for none.
const char* OpTypeName(OpType type);

// Attributes of an op as a struct of its own (ops registered outside the
// built-in list; built-in ops still read OpAttrs): subclass and set
// Node::typed_attrs, read with Node::attrs_as<T>().
struct TypedAttrs {
  virtual ~TypedAttrs() = default;
};

// Activation fused into an op's output.
enum class Activation { kNone, kRelu, kReluN1To1, kRelu6, kTanh };

// kExplicit uses OpAttrs::pad_* (ONNX pads); SAME/VALID compute them.
enum class Padding { kSame, kValid, kExplicit };

// Attributes of all ops in one flat struct: each op reads the fields it
// documents in shape_inference.cc; the rest stay at their defaults.
// RESIZE_*: how an output index maps to a source coordinate. kTflite:
// TFLite's align_corners / half_pixel_centers (the scale, in/out,
// multiplied); the others are ONNX Resize's coordinate_transformation_mode,
// computed as ONNX Runtime computes them (the scale, out/in or the model's,
// divided by). kTfCropAndResize reads OpAttrs::roi_* and writes
// extrapolation_value where the source lies outside the input.
enum class ResizeCoordinate {
  kTflite,
  kAsymmetric,
  kHalfPixel,
  kPytorchHalfPixel,
  kAlignCorners,
  kTfHalfPixelForNn,
  kTfCropAndResize,
  kHalfPixelSymmetric,
};
// ONNX Resize's nearest_mode; kSimple is opset < 11 (Upsample, Resize-10):
// floor when enlarging, ceil when shrinking.
enum class NearestRounding { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct OpAttrs {
  Padding padding = Padding::kValid;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int kernel_h = 0, kernel_w = 0;  // pools
  int depth_multiplier = 1;
  Activation activation = Activation::kNone;
  int axis = 0;                     // concatenation
  bool keep_dims = false;           // mean
  bool keep_num_dims = false;       // fully connected
  bool align_corners = false;       // resize (kTflite)
  bool half_pixel_centers = false;  // resize (kTflite)
  // Resize (the three RESIZE_* ops): the coordinate transform; the model's
  // scales (0: out / in); for kTfCropAndResize the crop box (normalized
  // start and end along H and W) and the value of outputs outside it.
  ResizeCoordinate resize_coordinate = ResizeCoordinate::kTflite;
  float scale_h = 0.0f, scale_w = 0.0f;
  // Resize whose output size follows its input's (ONNX scales): the size
  // input holds the import-time size; at every plan it is
  // int(scale * input size) in float, as ONNX Runtime computes it.
  bool resize_from_scales = false;
  // Resize from sizes with keep_aspect_ratio_policy (resize_geometry.h): the
  // requested sizes (NCHW, 0 for axes not named); the output size and the
  // coordinate scale are recomputed from the input at every plan.
  ResizeAspectPolicy resize_aspect = ResizeAspectPolicy::kStretch;
  int64_t resize_sizes[4] = {0, 0, 0, 0};
  float roi_start_h = 0.0f, roi_start_w = 0.0f, roi_end_h = 1.0f, roi_end_w = 1.0f;
  float extrapolation_value = 0.0f;
  NearestRounding nearest_rounding = NearestRounding::kRoundPreferFloor;  // resize nearest (ONNX)
  float cubic_coeff_a = -0.75f;     // resize bicubic (and antialiased bicubic)
  // ONNX Resize: taps outside the input get weight 0 and the rest are
  // renormalized (bicubic; bilinear only with antialias).
  bool exclude_outside = false;
  // ONNX Resize antialias=1 (bilinear, bicubic): the filter is stretched by
  // max(1, 1 / scale), as ONNX Runtime's (Pillow's) antialiased resampling.
  bool antialias = false;
  int block_size = 0;               // depth-to-space
  std::vector<int> new_shape;       // reshape (when not given as an input)
  // Reshape that inserts or drops axes of size 1 (ONNX Unsqueeze / Squeeze)
  // of a tensor with sizes known only at run time: output dim d is the
  // input's dim new_shape_from[d], or new_shape[d] where that is -1.
  std::vector<int> new_shape_from;
  // Reshape as ONNX Flatten of a tensor with sizes known only at run time:
  // [prod(dims before), prod(dims from)] this axis (-1: not a flatten).
  int flatten_axis = -1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;  // Padding::kExplicit
  bool ceil_mode = false;           // pools with explicit padding
  float clamp_min = 0.0f, clamp_max = 0.0f;
  float alpha = 0.0f, beta = 0.0f;
  std::vector<int> perm;            // transpose
  std::vector<long long> slice_start, slice_end;  // slice, one per axis
  std::vector<int> slice_step;
  // Slice with starts (input 1) and / or ends (input 2) computed at run time:
  // the axes their values are for, in order (they replace slice_start /
  // slice_end there; a missing input leaves those).
  std::vector<int> slice_runtime_axes;
  Activation expand_activation = Activation::kNone;     // depthwise block
  Activation depthwise_activation = Activation::kNone;  // depthwise block
};

// TFLite-style block-sparse storage of a constant (DENSIFY's input).
struct SparsityInfo {
  struct Dim {
    bool sparse = false;
    int dense_size = 0;
    std::vector<int> segments;
    std::vector<int> indices;
  };
  std::vector<int> traversal_order;
  std::vector<int> block_map;
  std::vector<Dim> dims;
};

struct TensorInfo {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  // Constants point into memory the graph keeps alive (the model file's bytes
  // or a folded result); activations have data == nullptr.
  const uint8_t* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<const SparsityInfo> sparsity;
  // A run-time shape operand's values as far as they are known before the
  // run (a Shape of [count, 256, 7, 7]: {kDynamicDim, 256, 7, 7}); empty:
  // none known. Shape functions that read a shape operand keep its known
  // dims (ShapeContext::ShapeOperandDims).
  Shape plan_values;

  bool is_constant() const { return data != nullptr; }
};

// A condition on a node's running: tensor `tensor` (a run-time boolean,
// 0 / 1 in float) must be non-zero (`when` true) or zero. The branches of an
// ONNX If whose condition is known only at run time are its nodes, guarded;
// the IF op after them picks the taken branch's value.
struct Guard {
  int tensor = -1;
  bool when = true;
};

struct Node {
  std::string name;  // the node's first output tensor's name
  OpType type = OpType::kAdd;
  std::vector<int> inputs;   // tensor ids; -1 for an absent optional input
  std::vector<int> outputs;  // tensor ids
  // The node runs only when every guard holds, checked in order (an inner
  // If's condition comes after the outer one's, and is read only when that
  // holds). Guarded nodes are in the dynamic region.
  std::vector<Guard> guards;
  OpAttrs attrs;
  std::shared_ptr<const TypedAttrs> typed_attrs;
  // The typed attributes as T, or nullptr when they are not a T.
  template <class T>
  const T* attrs_as() const {
    return dynamic_cast<const T*>(typed_attrs.get());
  }
};

class Graph {
 public:
  std::string source;  // model file or buffer name, for messages
  std::vector<TensorInfo> tensors;
  std::vector<Node> nodes;  // in a valid execution order
  std::vector<int> inputs;
  std::vector<int> outputs;
  // Layout of 4-D activations (NHWC for TFLite).
  Layout layout = Layout::kNHWC;
  // The importer built the graph for the input shapes it was given (ONNX:
  // converters resolve Flatten's inner size, Squeeze / Unsqueeze / Reshape 0
  // targets, layout reshapes and folded Shape ops from the import-time
  // shapes), so it computes the model's function only at those shapes:
  // Session::Resize to others imports the model again at the new shapes
  // (Model::WithInputShapes) instead of re-planning this graph. False
  // (TFLite, whose files carry their reshape targets): any input shape the
  // ops accept is planned on this graph.
  bool specialized_to_input_shapes = false;
  // Nodes whose results the importer computed from the graph inputs' shapes
  // at load (an ONNX Shape folded into a constant), for messages; they make
  // the graph specialized_to_input_shapes.
  std::vector<std::string> shape_folds;
  // A symbolic dimension of a graph input (ONNX dim_param, or an unnamed
  // dynamic one: "?"), whether or not LoadOptions::input_shapes set it.
  struct SymbolicDim {
    int input = 0;     // index into `inputs`
    int axis = 0;      // in the model's own layout (NCHW for ONNX)
    std::string name;  // "batch", "height", "?"
  };
  std::vector<SymbolicDim> symbolic_dims;
  // Graph inputs whose symbolic dimensions (a dynamic batch, height, width)
  // the importer took as 1 because LoadOptions::input_shapes did not give
  // them, e.g. "input 'x' has symbolic dimensions batch, h, w". Tools say so:
  // a model with symbolic image sizes imported at 1x1 runs, but is useless.
  std::vector<std::string> symbolic_inputs;

  // Keeps memory alive that constants point into.
  void Retain(std::shared_ptr<const void> blob) { blobs_.push_back(std::move(blob)); }
  // Makes tensor `id` a constant owning a copy of `bytes`.
  void SetConstant(int id, DataType dtype, const Shape& shape, std::vector<uint8_t> bytes);

  // "model.tflite: node 'conv1' (CONV_2D): " for messages.
  std::string NodeContext(const Node& node) const;

  // Nodes that graph output `output` (an index into outputs) needs and no
  // other output does: that output's head in a multi-task model, what a
  // placement puts on a backend of its own.
  std::vector<bool> HeadOf(int output) const;

  // Checks references are in range, every activation is produced before it is
  // used and produced once, constants' sizes match their shapes.
  Status Validate() const;

  // Shapes of all tensors as stored: inputs and constants filled in,
  // activations as the model file declares them (may be empty).
  std::vector<Shape> InitialShapes() const;
  // Infers shapes of all activations from the shapes of graph inputs and
  // constants already in `shapes` (indexed by tensor id). Sizes that depend
  // on data are kDynamicDim; `dynamic` (optional) gets, per node, whether it
  // is in the dynamic region: an input or output has a kDynamicDim, or its
  // shape depends on the values of a run-time tensor.
  Status InferShapes(std::vector<Shape>* shapes, std::vector<bool>* dynamic = nullptr) const;
  // The same for one node (importers infer as they build). A node whose
  // inputs hold kDynamicDim is inferred at two sample sizes for those dims:
  // output dims that differ (or that the op marks) are kDynamicDim.
  Status InferNodeShapes(const Node& node, std::vector<Shape>* shapes, bool* dynamic = nullptr) const;
  // Run-time inference of a node of the dynamic region: `shapes` holds its
  // inputs' actual shapes, `values` (by tensor id) the host address of every
  // run-time input's float32 values (shape operands, K, sizes); output dims
  // may be 0. `inputs_read` (optional): which inputs' run-time values the
  // shape function read (ShapeContext::run_time_inputs_read), so that the
  // shapes can be reused while those values and every input shape repeat.
  Status InferNodeShapesAtRun(const Node& node, std::vector<Shape>* shapes, const std::vector<const void*>& values,
                              uint64_t* inputs_read = nullptr) const;

 private:
  std::vector<std::shared_ptr<const void>> blobs_;
};

// Reads a constant int32 tensor's values (shape operands of RESHAPE, PAD,
// MEAN, RESIZE). Errors, naming the node, if it is not a constant int32.
Status ReadConstInts(const Graph& g, const Node& node, int input_index, std::vector<int>* values);

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_GRAPH_H_
