// Kernel bodies written once over a lane type and instantiated for AVX-512
// (16 lanes), AVX2 (8 lanes) and scalar tails (float). The types are GCC
// vector extensions and the helpers carry no target attribute: they are
// always inlined into a target("avx2,fma") or target("avx512f") entry point
// and compiled with that entry point's ISA, so one body serves every width
// and the library still runs on CPUs without AVX2 (callers dispatch first).
// Include only from .cc files of kernels/x86.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_SIMD_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_SIMD_H_

#include <immintrin.h>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

// Passing 32/64-byte vectors by value from functions without AVX changes the
// ABI; every such helper is always_inline, so no call ever crosses it.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace rill::inference::cpu::x86::simd {

typedef float F8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef float F16 __attribute__((vector_size(64), aligned(4), may_alias));

template <class V>
constexpr int Lanes() {
  return static_cast<int>(sizeof(V) / sizeof(float));
}

#define RILL_SIMD_INLINE inline __attribute__((always_inline))

template <class V>
RILL_SIMD_INLINE V Load(const float* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof(V));
  return v;
}
template <class V>
RILL_SIMD_INLINE void Store(float* p, V v) {
  __builtin_memcpy(p, &v, sizeof(V));
}
template <class V>
RILL_SIMD_INLINE V Splat(float s) {
  return V{} + s;  // vbroadcastss (+ one vaddss: GCC keeps 0 + s for -0)
}
// One float from memory to every lane as a single vbroadcastss. Generic
// vector code (V{} + s) costs an extra vaddss + shuffle per broadcast, which
// competes with the FMAs for ports. The ISA overloads carry their target and
// are not always_inline: entry points that use Broadcast must be declared
// with __attribute__((flatten)) so they are inlined there, under the entry
// point's target.
__attribute__((target("avx512f"))) inline F16 BroadcastIsa(const float* p,
                                                           F16*) {
  return (F16)_mm512_set1_ps(*p);
}
__attribute__((target("avx2"))) inline F8 BroadcastIsa(const float* p, F8*) {
  return (F8)_mm256_broadcast_ss(p);
}
inline float BroadcastIsa(const float* p, float*) { return *p; }
template <class V>
inline V Broadcast(const float* p) {
  return BroadcastIsa(p, static_cast<V*>(nullptr));
}

template <class V>
RILL_SIMD_INLINE V Max(V a, V b) {
  return a > b ? a : b;
}
template <class V>
RILL_SIMD_INLINE V Min(V a, V b) {
  return a < b ? a : b;
}

// The AVX-512 mask of a 16-lane vector holding `valid` floats (<= 0: none,
// >= 16: all): the tail of a channel block, a GEMM panel, a row.
inline __mmask16 LaneMask(int valid) {
  const int lanes = valid < 0 ? 0 : valid > 16 ? 16 : valid;
  return static_cast<__mmask16>((1u << lanes) - 1u);
}

// The bounds of a clamp-type fused activation (RELU: [0, FLT_MAX], RELU6:
// [0, 6], RELU_N1_TO_1: [-1, 1]); false for the others, which clamp nothing.
inline bool ClampBounds(FusedActivation act, float* lo, float* hi) {
  *lo = act == FusedActivation::kReluN1To1 ? -1.0f : 0.0f;
  *hi = act == FusedActivation::kRelu6 ? 6.0f : act == FusedActivation::kReluN1To1 ? 1.0f : 3.402823466e38f;
  return act == FusedActivation::kRelu || act == FusedActivation::kRelu6 || act == FusedActivation::kReluN1To1;
}

// The clamp-type fused activations on a vector; kTanh is left to the caller
// (ApplyActivation on the stored values).
template <class V>
RILL_SIMD_INLINE V Clamp(V v, FusedActivation act) {
  switch (act) {
    case FusedActivation::kRelu:
      return Max(v, Splat<V>(0.0f));
    case FusedActivation::kRelu6:
      return Min(Max(v, Splat<V>(0.0f)), Splat<V>(6.0f));
    case FusedActivation::kReluN1To1:
      return Min(Max(v, Splat<V>(-1.0f)), Splat<V>(1.0f));
    default:
      return v;
  }
}

}  // namespace rill::inference::cpu::x86::simd

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_SIMD_H_
