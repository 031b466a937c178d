// Counts heap allocations in a test binary that links //tests/inference:
// allocation_counter (it replaces the global operator new and delete): while
// g_counting is set, every operator new adds one to g_allocations. How the
// zero-allocation tests check that Session::Run allocates nothing.
#ifndef RILL_TESTS_INFERENCE_ALLOCATION_COUNTER_H_
#define RILL_TESTS_INFERENCE_ALLOCATION_COUNTER_H_

#include <atomic>

namespace rill::inference::testing {

extern std::atomic<bool> g_counting;
extern std::atomic<long> g_allocations;

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_ALLOCATION_COUNTER_H_
