// Denormal (subnormal) floats make x86 and ARM arithmetic up to 100x slower,
// and real images drive a network's small activations into that range: the
// face detector ran 3x slower on video frames than on synthetic input. Like
// other inference engines, the engine flushes denormals to zero while it
// runs: ScopedFlushDenormals sets FTZ/DAZ (x86 MXCSR) or FZ (AArch64 FPCR)
// for the calling thread and restores the previous mode on exit, so callers'
// own floating-point code is unaffected.
#ifndef RILL_INFERENCE_RUNTIME_DENORMALS_H_
#define RILL_INFERENCE_RUNTIME_DENORMALS_H_

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#include <cstdint>

namespace rill::inference {

class ScopedFlushDenormals {
 public:
  ScopedFlushDenormals() {
#if defined(__x86_64__) || defined(__i386__)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | kFtz | kDaz);
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    saved_ = fpcr;
    fpcr |= (uint64_t{1} << 24);  // FZ
    __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
#endif
  }
  ~ScopedFlushDenormals() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
#if defined(__x86_64__) || defined(__i386__)
  static constexpr unsigned kFtz = 0x8000;  // flush results to zero
  static constexpr unsigned kDaz = 0x0040;  // treat denormal inputs as zero
#endif
  uint64_t saved_ = 0;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_DENORMALS_H_
