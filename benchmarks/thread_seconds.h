// The calling thread's CPU time in seconds: the kernel micro-benchmarks'
// clock (another process on the other core changes it little).
#ifndef RILL_BENCHMARKS_THREAD_SECONDS_H_
#define RILL_BENCHMARKS_THREAD_SECONDS_H_

#include <time.h>

namespace rill::benchmarks {

inline double ThreadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace rill::benchmarks

#endif  // RILL_BENCHMARKS_THREAD_SECONDS_H_
