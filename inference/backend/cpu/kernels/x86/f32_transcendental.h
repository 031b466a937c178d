// LOGISTIC, SOFTMAX and tanh on float arrays with the vector exp of
// f32_math.h (AVX2 8 lanes / AVX-512 16 lanes; tails through masked loads
// and stores, so every element takes the same vector path). Per-element
// results are the same on either ISA and for any split of the work; only
// SOFTMAX's sums (lane order) differ between the two ISAs.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_TRANSCENDENTAL_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_TRANSCENDENTAL_H_

namespace rill::inference::cpu::x86 {

// LOGISTIC: out[i] = 1 / (1 + exp(-in[i])), in == out allowed. <= 3 ulp from
// the exact value; 0 (not NaN) for x < -88.7, 1 for x > 16.6.
void LogisticAvx2(long long n, const float* in, float* out);
void LogisticAvx512(long long n, const float* in, float* out);

// SILU: out[i] = in[i] * sigmoid(in[i]) with LOGISTIC's sigmoid (the same
// bits as LOGISTIC followed by MUL), in == out allowed.
void SiluAvx2(long long n, const float* in, float* out);
void SiluAvx512(long long n, const float* in, float* out);

// x[i] = tanh(x[i]) for i < n (the fused kTanh activation on a row a kernel
// has just written). <= 2 ulp.
void TanhInPlaceAvx2(float* x, long long n);
void TanhInPlaceAvx512(float* x, long long n);

// GELU, erf form: out[i] = 0.5 x (1 + erf(x / sqrt(2))), in == out allowed,
// with the rational erf of math_loops.cc's FastErf (the same coefficients,
// evaluated with FMA: within a few ulp of the scalar loop). NaN stays NaN.
void GeluAvx2(long long n, const float* in, float* out);
void GeluAvx512(long long n, const float* in, float* out);

// SOFTMAX along the middle axis of a tensor viewed as [outer, axis_size,
// inner] (SoftmaxRef's view), for the softmax vectors [begin, end) of the
// outer * inner (vector j = o * inner + i reads in[(o * axis_size + a) *
// inner + i], a < axis_size). inner == 1 (the last axis): one contiguous row
// per vector, max / exp-and-sum / divide each vectorized along the row.
// inner > 1: vectors side by side in the lanes (consecutive i), every load
// contiguous. Writes only the elements of vectors [begin, end).
void SoftmaxAvx2(long long outer, int axis_size, long long inner, const float* in, float* out, long long begin,
                 long long end);
void SoftmaxAvx512(long long outer, int axis_size, long long inner, const float* in, float* out, long long begin,
                   long long end);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_TRANSCENDENTAL_H_
