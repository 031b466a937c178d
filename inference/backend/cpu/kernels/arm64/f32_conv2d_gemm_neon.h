// 2-D convolution as GEMM on the AArch64 8x12 microkernels: output pixels
// are GEMM rows, output channels GEMM columns. A 1x1/stride-1/unpadded conv
// reads its input directly; any other conv gathers tiles of rows (im2col)
// into scratch first. Filters (OHWI) are packed once into 12-column panels,
// one packed matrix per channel group (ConvGemmGroupStride apart). The work
// splits into tiles of rows x channels independent of the thread count.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV2D_GEMM_NEON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV2D_GEMM_NEON_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::arm64 {

size_t ConvGemmScratchFloats(const ConvParams& p);
int ConvGemmTiles(const ConvParams& p);
void ConvGemmTileWindow(const ConvParams& p, int tile, long long* row_begin, long long* row_end, int* col_begin,
                        int* col_end);
void PackConvGemm(const ConvParams& p, const float* filter, int nr, std::vector<float>* packed);
void PackConvGemmHalf(const ConvParams& p, const float* filter, std::vector<uint16_t>* packed);
// One tile on `gemm`'s fp32 kernel; `residual` needs gemm.gemm_residual
// (none here: the op adds it in a pass of its own).
void ConvGemmTile(const ConvParams& p, const GemmKernels& gemm, const float* input, const float* packed,
                  const float* bias, float* scratch, float* output, int tile, const float* residual, int res_c);
// One tile on the fp16-arithmetic GEMM over PackConvGemmHalf panels.
void ConvGemmTileF16(const ConvParams& p, const float* input, const uint16_t* packed, const float* bias,
                     float* scratch, float* output, int tile, const float* residual, int res_c);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV2D_GEMM_NEON_H_
