// What the running CPU can do, read once by CPUID (through the compiler's
// cpu-model support), so one binary picks its kernels at run time.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_CPU_FEATURES_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_CPU_FEATURES_H_

namespace rill::inference::cpu::x86 {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bf16 = false;  // vdpbf16ps (Zen 4, Cooper Lake, Sapphire Rapids)
};

const CpuFeatures& GetCpuFeatures();
// Whether bf16 GEMMs (vdpbf16ps, two multiplies per lane) beat fp32 FMAs on
// this CPU: measured once per process (~1 ms: 12 independent chains of each
// instruction, interleaved, best of 5), true when vdpbf16ps does at least
// 1.3x the FMA's multiplies per second. AMD Zen 4 runs it at the FMA's
// instruction rate (2x the multiplies); Intel Sapphire Rapids at half its
// rate (0.43x the multiplies: there bf16 needs AMX). False without
// AVX512-BF16; RILL_BF16=0 / RILL_BF16=1 override the measurement.
bool Bf16GemmPays();
// One core's fp32 FMA rate in GMAC/s (one lane of one FMA = one MAC):
// `rounds` rounds of 12 independent chains of vector FMAs, AVX-512 where the
// CPU has it, else AVX2+FMA (-1 with neither). What no fp32 kernel can beat,
// unlike a nominal MAC/cycle (Zen 4 runs a 512-bit FMA as two halves).
double FmaChainGmacs(long rounds);
inline bool HasAvx2Fma() { return GetCpuFeatures().avx2 && GetCpuFeatures().fma; }

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_CPU_FEATURES_H_
