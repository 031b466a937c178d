// Transposed 2-D convolution (TRANSPOSE_CONV_2D, ONNX ConvTranspose, TFLite's
// Convolution2DTransposeBias) for NHWC as a GEMM per input row plus a
// scatter: an input row of in_w pixels times the packed weights
// [kh * kw * out_c / groups, in_c / groups] gives every pixel's contribution
// to every tap, which is added into the output pixels the taps land on
// (col2im). Work splits into bands of output rows: a band computes the input
// rows whose taps reach it and adds only into its own rows, so threads never
// write the same output, and each output sums its contributions in the same
// order (input rows ascending) whatever the split: results do not depend on
// the number of threads. Any stride, padding (negative end padding from
// output_padding included) and channel groups; no dilation.
//
// Where the taps tile the output exactly (stride == kernel, no padding, one
// group: the 2x2/2 upsampling of segmentation decoders) each output row is
// one GEMM of its input row with the weights of its kernel row, written in
// place with the bias and activation in the epilogue: no scratch, no
// scatter.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_TRANSPOSE_CONV2D_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_TRANSPOSE_CONV2D_H_

#include <cstddef>
#include <vector>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"

namespace rill::inference::cpu::x86 {

// Packs the OHWI filter [out_c][kh][kw][in_c / groups] for `gemm` (the
// AVX-512 GEMM when `avx512`, else the AVX2 one), one matrix per group.
// `bias` (may be null) joins the packing in the tiling case.
void PackTransposeConvWeights(const ConvParams& p, const float* filter, const float* bias, bool avx512,
                              std::vector<float>* packed);

// Whether the taps tile the output exactly (the direct case above).
bool TransposeConvTiles(const ConvParams& p);

// Scratch floats one band needs (one input row's contributions).
size_t TransposeConvScratchFloats(const ConvParams& p);

// Output rows [row_begin, row_end) of batch * out_h rows: bias, the
// contributions of every input row reaching them, then the activation.
void TransposeConv2DRows(const ConvParams& p, const float* input, const float* packed, const float* bias,
                         GemmFn gemm, float* scratch, float* output, int row_begin, int row_end);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_TRANSPOSE_CONV2D_H_
