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

}  // namespace rill::inference::gpu

#endif  // RILL_INFERENCE_BACKEND_GPU_WEIGHTS_H_
