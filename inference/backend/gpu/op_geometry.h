// What the GPU backends (OpenCL, Vulkan, and any after them) compute on the
// host for an op before launching it: plain structs of the integers and
// floats its kernel reads, derived from the IR node's attributes and the
// tensors' shapes (NHWC), with no GPU API in sight. Each backend decides only
// how it hands them over (kernel arguments, push constants, uniform or
// storage buffers) and how many work items it launches.
#ifndef RILL_INFERENCE_BACKEND_GPU_OP_GEOMETRY_H_
#define RILL_INFERENCE_BACKEND_GPU_OP_GEOMETRY_H_

#include <cstddef>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/ir/graph.h"

namespace rill::inference::gpu {

// The execution families of the GPU backends: the ops one execution class
// (one kernel or a few) runs. kNone: no GPU backend has a kernel for the op.
enum class GpuOp {
  kNone,
  kConv2D,           // CONV_2D
  kDepthwiseConv2D,  // DEPTHWISE_CONV_2D
  kTransposeConv2D,  // TRANSPOSE_CONV
  kFullyConnected,   // FULLY_CONNECTED
  kDepthwiseBlock,   // the optimizer's DEPTHWISE_BLOCK
  kBinary,           // ADD, SUB, MUL, DIV, PRELU (broadcasting)
  kUnary,            // RELU, RELU6, HARD_SWISH, LOGISTIC, LEAKY_RELU, CLAMP, HARD_SIGMOID, SILU
  kPool,             // MAX_POOL_2D, AVERAGE_POOL_2D
  kMean,             // MEAN
  kView,             // TRANSPOSE, SLICE, PAD, RESHAPE (one strided gather)
  kConcatenation,    // CONCATENATION
  kSoftmax,          // SOFTMAX
  kResize,           // RESIZE_BILINEAR, RESIZE_BICUBIC, RESIZE_NEAREST_NEIGHBOR
  kDepthToSpace,     // DEPTH_TO_SPACE
};
GpuOp GpuOpOf(ir::OpType type);

// A fused activation as the kernels read it (ir::Activation's value).
inline int Act(ir::Activation a) { return static_cast<int>(a); }

// Row-major strides of a shape.
std::vector<int> Strides(const Shape& s);

// dims[6], then strides[6] for each operand: the rank padded in front to 6
// (dims 1, strides 0). The layout of the broadcast and reduction kernels'
// shape tables.
std::vector<int> Pad6(const int* dims, const std::vector<const int*>& strides, int rank);

// --- Convolutions and windows ---------------------------------------------

// A forward window (conv, depthwise, pool) of kh x kw over x -> y: sizes,
// strides, dilation, the fused activation and the padding before the first
// row and column (explicit, or SAME/VALID's).
cpu::ConvParams WindowGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& y, int kh, int kw);
// CONV_2D with filter w [out_c][kh][kw][in_c / groups]: the window and its groups.
cpu::ConvParams Conv2DGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& w, const Shape& y);
// DEPTHWISE_CONV_2D with filter w [1][kh][kw][out_c]: the window and its
// depth multiplier.
cpu::ConvParams DepthwiseGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& w, const Shape& y);
// TRANSPOSE_CONV with filter w [out_c][kh][kw][in_c / groups]: no dilation,
// groups, and the padding of the forward conv it inverts.
cpu::ConvParams TransposeConvGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& w, const Shape& y);
// MAX_POOL_2D / AVERAGE_POOL_2D: the attributes' kernel, no dilation.
cpu::ConvParams PoolGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& y);
// The pool kernels' kind: 1 max, 0 average.
inline int PoolKind(ir::OpType type) { return type == ir::OpType::kMaxPool2D ? 1 : 0; }
// A 1x1, stride 1 conv over batch x h x w x in_c -> out_c (DEPTHWISE_BLOCK's
// expand and project, FULLY_CONNECTED as a GEMM).
cpu::ConvParams PointwiseGeometry(int batch, int h, int w, int in_c, int out_c);

// A convolution run as an implicit GEMM (M = batch * out_h * out_w rows,
// out_c columns, K = kernel_h * kernel_w * in_c) where it has no groups, or
// by the direct kernel; a GEMM with fewer output tiles than the device has
// work for is split over K: `splits` partial sums of `k_chunk` each, then
// a reduction.
struct ConvPlan {
  cpu::ConvParams p;
  int act = 0;
  bool tiled = false;
  int splits = 1, k_chunk = 0;
  // Scratch floats for the split sums (0 unsplit).
  size_t partial_floats() const {
    return splits > 1 ? static_cast<size_t>(splits) * p.batch * p.out_h * p.out_w * p.out_c : 0;
  }
};

// Channel-blocked (NC4HW4) storage: where it pays. Measured on an H200
// (//benchmarks/gpu:opencl_layout_bench, docs/benchmarks.md "OpenCL tensor
// layout, measured"): NC4HW4 kernels ran depthwise 3x3 layers 1.3-2.3x and
// 1x1 convs 1.6-1.9x faster than the NHWC kernels on maps of 28x28 and
// more (depthwise 9.3 -> 7.1 us at 28x28x192, 16.7 -> 7.2 at 112x112x32;
// pointwise 39.3 -> 22.0 at 28x28x192 -> 32), while on 14x14 and 7x7 the
// depthwise gained under 20% and the split-K GEMM beat NC4HW4 1.4-2.4x
// on the 1x1 convs. So: layers whose output map has at least this many
// pixels.
constexpr int kNc4MinPixels = 28 * 28;
// The NC4HW4 1x1 kernel loops over all input channels in each work item (no
// tiling in local memory): its time grew about linearly with in_c (8.3 us
// at 24, 8.7 at 32, 18.4 at 144, 22.0 at 192), while the tiled GEMM's grows
// with the MACs. It ran 1.6-1.9x faster up to in_c 192, the deepest of
// those shapes; deeper 1x1 convs (ResNet-50's 256 and 512) keep the GEMM.
constexpr int kNc4MaxPointwiseInC = 192;
// Each NC4HW4 1x1 work item computes 4 output channels of one pixel, so wide
// outputs multiply its passes over the input: on the H200 ResNet-50 ran
// 2.34 ms with its 56x56 64->256 and 28x28 128->512 1x1 convs on it against
// 2.21 ms on the GEMM, while MobileNetV2's large-map 1x1s (at most 192
// outputs) gained 1.23 -> 1.15 ms. So at most this many outputs.
constexpr int kNc4MaxPointwiseOutC = 192;
// A depthwise conv an NC4HW4 kernel runs: multiplier 1.
bool Nc4Depthwise(const cpu::ConvParams& p);
// A 1x1 conv: stride 1, no dilation, padding or groups.
bool Pointwise(const cpu::ConvParams& p);
// A conv the NC4HW4 pointwise kernel runs: a 1x1 conv of at most
// kNc4MaxPointwiseInC input and kNc4MaxPointwiseOutC output channels.
bool Nc4Pointwise(const cpu::ConvParams& p);

// A conv Winograd F(2x2, 3x3) runs: 3x3, stride 1, no dilation or groups.
bool Winograd23(const cpu::ConvParams& p);
// Measured per layer on the H200 (ResNet-18 and -50, GEMM ms -> Winograd
// ms): 56x56x64 0.055 -> 0.036 and 0.058 -> 0.040, 28x28x128 0.049 -> 0.042
// and 0.053 -> 0.045, but 14x14x256 0.054 -> 0.058 and 7x7x512 0.056 ->
// 0.096 (few tiles for 132 compute units, three launches instead of one).
// So Winograd where the output map has at least this many pixels.
constexpr int kWinogradMinPixels = 28 * 28;
// Winograd23(p) on a map of at least kWinogradMinPixels (option
// opencl.winograd=auto, the default).
bool WinogradPays(const cpu::ConvParams& p);

// Output tiles of p's GEMM in tile_m (rows) x tile_n (columns) tiles.
long GemmTiles(const cpu::ConvParams& p, int tile_m, int tile_n);

// Sets c's tiled (no groups), k_chunk and splits from c->p: a tiled conv
// with fewer tile_m x tile_n output tiles than twice the compute units, and
// K of `split_min_k` (default 256) or more, is split over K where
// `may_split` (chunks of at least 128, multiples of 16, at most 32 of them).
constexpr int kSplitMinK = 256;
void PlanConv(int tile_m, int tile_n, int compute_units, bool may_split, ConvPlan* c,
              int split_min_k = kSplitMinK);

// DEPTHWISE_BLOCK ([1x1 expand ->] depthwise -> 1x1 project [+ residual]):
// the three convs' geometry from x, the depthwise filter wd [1][kh][kw][mid],
// the project filter wp [out_c][1][1][mid] and y, and its scratch: the
// expanded tensor (if any) and the depthwise output, in elements.
struct DepthwiseBlockGeometry {
  ConvPlan expand, project;  // their p and act (PlanConv decides the rest)
  cpu::ConvParams depthwise;
  int depthwise_act = 0;
  size_t expand_elements = 0, mid_elements = 0;
  // Where the split convs' float sums start in the scratch: after the two
  // tensors (`elem` bytes each), 64-byte aligned.
  size_t partial_offset_bytes(size_t elem) const { return ((expand_elements + mid_elements) * elem + 63) / 64 * 64; }
};
DepthwiseBlockGeometry MakeDepthwiseBlockGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& wd,
                                                  const Shape& wp, const Shape& y, bool has_expand);

// FULLY_CONNECTED with weights [units][in_dim]: rows of x times the weights.
struct FullyConnectedGeometry {
  int units = 0, in_dim = 0, rows = 0;
  // The same as a 1x1 conv over rows x 1 x 1 x in_dim.
  cpu::ConvParams AsConv() const { return PointwiseGeometry(rows, 1, 1, in_dim, units); }
};
FullyConnectedGeometry MakeFullyConnectedGeometry(const Shape& x, const Shape& w);

// --- Element-wise ------------------------------------------------------------

// The binary kernels' operation codes.
enum BinaryOp { kBinaryAdd = 0, kBinarySub = 1, kBinaryMul = 2, kBinaryDiv = 3, kBinaryPRelu = 4 };
int BinaryOpCode(ir::OpType type);

// Two operands broadcast to one output: its element count and the shape
// table (Pad6 of the output's dims and both operands' strides).
struct BroadcastGeometry {
  int count = 0;
  std::vector<int> shape;
};
// False where the shapes do not broadcast (or the rank is over 6).
bool MakeBroadcastGeometry(const Shape& a, const Shape& b, BroadcastGeometry* g);

// The unary kernels' operation code and parameters (alpha, beta; CLAMP's
// bounds) over `count` elements.
struct UnaryGeometry {
  int op = 0, count = 0;
  float alpha = 0.0f, beta = 0.0f;
};
UnaryGeometry MakeUnaryGeometry(ir::OpType type, const ir::OpAttrs& a, const Shape& y);

// --- Reductions, layout ----------------------------------------------------

// MEAN over `axes` of x (rank <= 6): the outputs, the elements each averages
// and the shape table: Pad6 of the kept dims and strides, then Pad6 of the
// reduced ones (24 ints).
struct MeanGeometry {
  int count = 0, reduced = 1;
  std::vector<int> shape;
};
MeanGeometry MakeMeanGeometry(const Shape& x, const std::vector<int>& axes, const Shape& y);

// TRANSPOSE, SLICE, PAD and RESHAPE as one strided gather from x (ranks <=
// 6): the kernel's name for the op, the first element read, whether it pads
// (and with what value; 0 unless the caller sets PAD's constant), and the
// shape table: dims[6], strides[6], pad-before[6], input dims[6], the rank
// padded in front (dims 1, strides and pads 0).
struct ViewGeometry {
  std::string name;
  int count = 0, start = 0, pad = 0;
  float value = 0.0f;
  std::vector<int> shape;
};
// Reads PAD's paddings (input 1) from the graph.
Status MakeViewGeometry(const ir::Graph& g, const ir::Node& node, const Shape& x, const Shape& y, ViewGeometry* v);

// CONCATENATION along `axis` as one strided copy per input: `outer` blocks,
// each input's `chunks[i]` elements of a block land at `offsets[i]` in the
// output's block of `stride` elements.
struct ConcatGeometry {
  int outer = 1, stride = 0;
  std::vector<int> chunks, offsets;
};
ConcatGeometry MakeConcatGeometry(int axis, const std::vector<Shape>& inputs, const Shape& y);

// SOFTMAX along `axis`: `count` rows of axis_size elements, `inner` apart.
struct SoftmaxGeometry {
  int axis_size = 1, inner = 1, count = 0;
};
SoftmaxGeometry MakeSoftmaxGeometry(int axis, const Shape& x);

// --- Resize ----------------------------------------------------------------

// A resize as tables of taps: for each output row (column) `taps`
// (`col_taps`) input rows (columns) and weights; a first index of -1 marks
// an output that is `outside` (tf_crop_and_resize's extrapolation value).
// The separable resizes also divide each row's sum by `divisor`.
struct ResizeTables {
  std::string name;  // the kernel's name for the op
  int taps = 1, col_taps = 1;
  float outside = 0.0f;
  std::vector<int> rows, cols;
  std::vector<float> row_weights, col_weights, divisor;
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
};
// RESIZE_BILINEAR (2 taps) and RESIZE_NEAREST_NEIGHBOR (1 tap).
ResizeTables MakeResizeTaps(ir::OpType type, const ir::OpAttrs& a, const Shape& x, const Shape& y);
// RESIZE_BICUBIC and antialiased resizes (the reference kernels' separable
// taps, ONNX Runtime's rules); needs an ONNX coordinate transform.
ResizeTables MakeSeparableResizeTaps(ir::OpType type, const ir::OpAttrs& a, const Shape& x, const Shape& y);

}  // namespace rill::inference::gpu

#endif  // RILL_INFERENCE_BACKEND_GPU_OP_GEOMETRY_H_
