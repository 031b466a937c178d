#include "inference/runtime/thread_pool.h"

#include <atomic>
#include <vector>

#include "gtest/gtest.h"

namespace rill::inference {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskOnceOnValidThreads) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int round = 0; round < 50; ++round) {
      const int tasks = 1 + (round * 7) % 23;
      std::vector<std::atomic<int>> hits(tasks);
      std::atomic<bool> bad_thread{false};
      auto body = [&](int task, int thread) {
        hits[task].fetch_add(1);
        if (thread < 0 || thread >= threads) bad_thread = true;
      };
      pool.ParallelFor(tasks, body);
      for (int t = 0; t < tasks; ++t) ASSERT_EQ(hits[t].load(), 1);
      EXPECT_FALSE(bad_thread.load());
    }
  }
}

TEST(ThreadPoolTest, ZeroTasksAndDestructionWhileIdle) {
  ThreadPool pool(3);
  int calls = 0;
  auto body = [&](int, int) { ++calls; };
  pool.ParallelFor(0, body);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace rill::inference
