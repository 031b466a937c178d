// Weights and constants as the GPU backends' kernels read them: IEEE half
// conversion (fp16 storage), the conv filters' packed layouts, a constant
// input's floats. API-neutral: the backends upload the result their way.
#ifndef RILL_INFERENCE_BACKEND_GPU_WEIGHTS_H_
#define RILL_INFERENCE_BACKEND_GPU_WEIGHTS_H_

#include <cstdint>
#include <vector>

#include "inference/backend/backend.h"

namespace rill::inference::gpu {

// IEEE half from float, rounded to nearest even (infinities and NaNs kept,
// overflow to infinity, subnormals rounded).
uint16_t ToHalf(float f);
// Float from IEEE half (exact).
float FromHalf(uint16_t h);
// The floats, each as a half.
std::vector<uint16_t> ToHalves(const std::vector<float>& values);

// A constant float input's values.
std::vector<float> ConstFloats(const TensorBinding* b);
// A conv's bias: the first n values of the constant `bias`, or n zeros
// where the node has none.
std::vector<float> BiasOrZeros(const TensorBinding* bias, int n);

// The direct conv kernels' filter: [out_c][kh][kw][icg] ->
// [ceil(out_c / 4)][kh][kw][icg][4], zero-padded.
std::vector<float> PackConvFilter(const float* w, int out_c, int kh, int kw, int icg);
// The GEMM kernels' filter: [out_c][K] -> [K][out_c].
std::vector<float> PackGemmFilter(const float* w, int out_c, int k);

// The channel-blocked (NC4HW4) kernels' weights, zero-padded to whole
// blocks of 4 channels:
// a depthwise filter (multiplier 1) [kh][kw][c] -> [ceil(c / 4)][kh][kw][4];
std::vector<float> PackDepthwiseFilterNc4(const float* w, int kh, int kw, int c);
// a 1x1 filter [out_c][in_c] -> [ceil(out_c / 4)][in_c rounded up to 4][4]
// (per input channel, its weights to four outputs);
std::vector<float> PackPointwiseFilterNc4(const float* w, int out_c, int in_c);
// per-channel values (a bias) to a whole number of blocks.
std::vector<float> PadToBlocks(std::vector<float> values);

// Winograd F(2x2, 3x3): a 3x3 filter [out_c][3][3][in_c] transformed (G g
// G^T per output and input channel) to [16][in_c][out_c], the 16 GEMMs'
// right-hand sides.
std::vector<float> WinogradFilter23(const float* w, int out_c, int in_c);

}  // namespace rill::inference::gpu

#endif  // RILL_INFERENCE_BACKEND_GPU_WEIGHTS_H_
