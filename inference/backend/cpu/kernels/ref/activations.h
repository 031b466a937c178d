// Reference unary activations (RELU, RELU6, HARD_SWISH, LOGISTIC, CLAMP,
// LEAKY_RELU, HARD_SIGMOID, SILU). Each has
// its own .cc; they share this header because they share a signature.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ACTIVATIONS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ACTIVATIONS_H_

namespace rill::inference::cpu {

void ReluRef(long long n, const float* in, float* out);
void Relu6Ref(long long n, const float* in, float* out);
// x * relu6(x + 3) / 6
void HardSwishRef(long long n, const float* in, float* out);
// 1 / (1 + exp(-x))
void LogisticRef(long long n, const float* in, float* out);
// min(max(x, lo), hi)
void ClampRef(long long n, float lo, float hi, const float* in, float* out);
// x >= 0 ? x : alpha * x
void LeakyReluRef(long long n, float alpha, const float* in, float* out);
// max(0, min(1, alpha * x + beta))
void HardSigmoidRef(long long n, float alpha, float beta, const float* in, float* out);
// x * (1 / (1 + exp(-x))): LOGISTIC then MUL, the same operations
void SiluRef(long long n, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ACTIVATIONS_H_
