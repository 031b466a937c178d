// Replaces the global operator new/delete of a test binary with versions that
// count the heap allocations made while counting is on (Session::Run must
// make none).
//
// Include this header from exactly ONE .cc file of a test binary, listed in
// that test's own `srcs`: the replacement has to be defined in the binary's
// own object files. Put in a library, the sanitizer runtime's operator new
// wins under --config=asan and nothing is counted.
#ifndef RILL_TESTS_INFERENCE_COUNTING_NEW_H_
#define RILL_TESTS_INFERENCE_COUNTING_NEW_H_

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace rill::testing {

inline std::atomic<bool> g_counting_allocations{false};
inline std::atomic<long> g_counted_allocations{0};

// Counts from now on, from zero.
inline void StartCountingAllocations() {
  g_counted_allocations = 0;
  g_counting_allocations = true;
}
// Stops counting; the allocations made since StartCountingAllocations().
inline long StopCountingAllocations() {
  g_counting_allocations = false;
  return g_counted_allocations.load();
}

inline void* CountedAlloc(std::size_t size, std::size_t align) {
  if (g_counting_allocations.load(std::memory_order_relaxed)) {
    g_counted_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (size == 0) size = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (size + align - 1) / align * align)
                                               : std::malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

inline void* CountedAllocNoThrow(std::size_t size) noexcept {
  try {
    return CountedAlloc(size, 0);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace rill::testing

// Replacement functions may not be inline: one definition per binary, here.
void* operator new(std::size_t size) { return rill::testing::CountedAlloc(size, 0); }
void* operator new[](std::size_t size) { return rill::testing::CountedAlloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) {
  return rill::testing::CountedAlloc(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return rill::testing::CountedAlloc(size, static_cast<std::size_t>(a));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return rill::testing::CountedAllocNoThrow(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return rill::testing::CountedAllocNoThrow(size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

#endif  // RILL_TESTS_INFERENCE_COUNTING_NEW_H_
