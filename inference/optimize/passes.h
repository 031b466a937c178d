// Graph rewrites run once when a model loads, before any session plans it.
// Each pass keeps the graph's semantics up to float rounding; tests compare
// optimized and unoptimized graphs on every real model.
#ifndef RILL_INFERENCE_OPTIMIZE_PASSES_H_
#define RILL_INFERENCE_OPTIMIZE_PASSES_H_

#include "inference/ir/graph.h"
#include "rill/inference/status.h"

namespace rill::inference::optimize {

// Zero PAD of height/width in front of a convolution becomes the conv's own
// (explicit) padding.
int FoldPadIntoConv(ir::Graph* g);
// Kernel rows and columns of a conv (CONV_2D, DEPTHWISE_CONV_2D) that read
// only padding at every output position (DeepLabV3's ASPP convs, dilated 36
// on a 32x32 map: all taps but the centre) are cropped from its constant
// filter, the padding shrunk to match: the same outputs (those taps only
// ever multiplied zeros) for fewer multiply-adds (the ASPP conv becomes a
// pointwise one, 9x fewer). Needs the input's size at load, so only for a
// graph specialized to its input shapes (ONNX; a TFLite graph, which
// Session::Resize re-plans at other sizes, is left alone).
int CropDeadConvTaps(ir::Graph* g);
// A stride-1 CONV_2D whose taps read only padding at part of its outputs
// (DeepLabV3's ASPP convs dilated 12 and 24 on a 32x32 map: the outer taps
// live only near the borders) is split into regions of outputs that read
// the same taps: each region a conv of the filter cropped to its live taps
// over the input window they read (a SLICE; padded where a window reaches
// past the input), the regions joined by CONCATENATIONs along W and H into
// the conv's output. The split is along both axes, along H only or along W
// only, whichever costs least when small regions are priced at their
// GEMMs' lower rate (SplitCost), and only where that is at most 0.8 of the
// whole conv and the conv has 20M MACs or more. The same sums (the dropped
// products were all of zeros). Needs the input's size at load: only for a
// graph specialized to its input shapes, as CropDeadConvTaps.
int SplitConvIntoTapBands(ir::Graph* g);
// A per-channel MUL and then ADD by constants after a conv (batch norm, as
// the ONNX importer writes it) are folded into the conv's weights and bias.
int FoldAffineIntoConv(ir::Graph* g);
// RELU / RELU6 / clamps to [0,6] or [-1,1] after an op with a fused
// activation slot become that slot.
int FuseActivations(ir::Graph* g);
// Self-gated activations, when the gate's only reader is the MUL:
// MUL(x, HARD_SIGMOID(x)) with alpha 1/6 and beta 1/2 (how PyTorch exports
// Hardswish before opset 14) becomes HARD_SWISH(x); MUL(x, LOGISTIC(x))
// (SiLU / Swish: EfficientNet) becomes SILU(x), one pass over the tensor
// instead of two and the same bits.
int FuseGatedActivations(ir::Graph* g);
// conv -> ADD(skip) [-> activation] becomes one CONV_2D whose fourth input is
// the skip (added in the conv's epilogue, before its activation); a skip that
// is a zero PAD of the channel axis alone (BlazeFace) is read unpadded. The
// conv must be the ADD's only reader and have no activation of its own.
int FuseResidualAdd(ir::Graph* g);
// conv -> PRELU, where the PRELU is the conv's only reader, the slope a
// constant with one value per channel ([C], [1, 1, C]) and the conv (CONV_2D
// with or without a fused residual, DEPTHWISE_CONV_2D) has no activation of
// its own, becomes the conv with the slope as its fifth input: every conv
// path applies it to each piece of output it has just written.
int FusePRelu(ir::Graph* g);
// [1x1 expand conv ->] depthwise conv -> 1x1 project conv (MobileNetV2's
// inverted residual; the project conv may carry a fused residual and a fused
// PRELU) becomes one DEPTHWISE_BLOCK node, which runs band by band so that
// the expanded and the depthwise tensors never leave the cache. Only where
// those intermediate tensors hold at least kMinDepthwiseBlockBytes per image
// (below that they stay in cache anyway, and the separate convs split their
// work better over threads); the depthwise conv has depth multiplier 1 and
// dilation 1.
constexpr long long kMinDepthwiseBlockBytes = 512 * 1024;
int FuseDepthwiseBlocks(ir::Graph* g);
// TRANSPOSE(p2) of TRANSPOSE(p1) of x where p2 undoes p1 (ConvNeXt's
// LayerNorm2d: the importer's transpose back to NCHW, then the model's own
// Transpose(0,2,3,1)) reads x directly: its readers are pointed at x, and the
// first transpose goes too when nothing else reads it. Not where the second
// transpose's output is a graph output.
int CancelTransposes(ir::Graph* g);
// ConvNeXt's block tail: TRANSPOSE(y, (0,3,1,2)) -> MUL by a per-channel
// constant ([C, 1, 1], the layer scale) -> ADD(., r), with r's NHWC form at
// hand (r itself a TRANSPOSE(., (0,3,1,2)), or r read by a TRANSPOSE(.,
// (0,2,3,1))), each intermediate read only by the next node, becomes MUL(y,
// [C]) -> ADD(., r_nhwc) -> TRANSPOSE(., (0,3,1,2)): the MUL and the ADD run
// on the NHWC tensors, and the one transpose left after them cancels
// against the next block's (CancelTransposes) or is read by the next
// block's tail, which this pass rewrites the same way. Where the MUL is read
// only by a TRANSPOSE(., (0,2,3,1)) instead (the residual already NHWC), the
// MUL reads y with [C] and both transposes go.
int SinkTransposeThroughScaleAdd(ir::Graph* g);
// FULLY_CONNECTED without bias or activation -> ADD of a float constant with
// one value per output unit ([N], or [1, ..., 1, N]), where the ADD is the
// FC's only reader and keeps its shape (MatMul + Add, as PyTorch exports
// nn.Linear on 3-D activations), becomes the FC with that bias: added in the
// GEMM's epilogue instead of one more pass over the output.
int FuseFullyConnectedBias(ir::Graph* g);
// Rows computed only to be dropped: a SLICE that keeps a range of at most
// half of one axis (all of the others), or a GATHER of one constant index,
// whose input's producer computes each index of that axis on its own is
// moved above that producer, which then computes only those rows; it moves
// again from there, as long as the tensor it slices has no other reader
// (identical slices count as one). The ops it moves through: elementwise
// ops (broadcast operands are sliced where they span the axis), LAYER_NORM
// and SOFTMAX over other axes, FULLY_CONNECTED's rows, TRANSPOSE, RESHAPE
// where the axis is one of its input's, a SLICE or CONCATENATION of other
// axes, ATTENTION's query rows (keys and values stay whole). A ViT's
// classifier reads the class token alone (GATHER of token 0 after the last
// LayerNorm): its last block's out-projection, MLP and norms then run for
// one row instead of 197, and its attention for one query. The same values
// (every op computes a row as before). Only for a graph specialized to its
// input shapes (the slices hold the import-time sizes).
int ComputeOnlyReadRows(ir::Graph* g);
// Nodes whose outputs nobody reads are dropped.
int RemoveDeadNodes(ir::Graph* g);

// All of the above, to a fixed point.
Status Optimize(ir::Graph* g);

}  // namespace rill::inference::optimize

#endif  // RILL_INFERENCE_OPTIMIZE_PASSES_H_
