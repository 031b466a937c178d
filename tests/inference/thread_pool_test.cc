#include "inference/runtime/thread_pool.h"

#include <atomic>
#include <chrono>
#include <thread>
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


TEST(ThreadPoolTest, IdleWorkersSleepAndWakeForTheNextLoop) {
  ThreadPool pool(3);
  std::atomic<int> sum{0};
  auto body = [&](int task, int) { sum.fetch_add(task + 1); };
  pool.ParallelFor(8, body);
  EXPECT_EQ(sum.load(), 36);
  // Idle far longer than the spin window: both workers must be asleep.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (pool.sleeps() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_GE(pool.sleeps(), 2u);
  // A sleeping pool still runs every task of the next loop exactly once.
  sum = 0;
  pool.ParallelFor(100, body);
  EXPECT_EQ(sum.load(), 5050);
}

// The spin window is a setting (SessionConfig::pool_spin_us): workers given
// a long one keep polling between loops instead of sleeping.
TEST(ThreadPoolTest, SpinWindowIsASetting) {
  ThreadPool spinning(2, /*spin_micros=*/2000000);
  std::atomic<int> sum{0};
  auto body = [&](int task, int) { sum.fetch_add(task + 1); };
  spinning.ParallelFor(8, body);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(spinning.sleeps(), 0u) << "a worker slept inside its 2 s spin window";
  ThreadPool sleeping(2, /*spin_micros=*/0);
  sleeping.ParallelFor(8, body);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (sleeping.sleeps() < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(sleeping.sleeps(), 1u);
  EXPECT_EQ(sum.load(), 72);
}

// Thread t starts on its own contiguous range of tasks, so consecutive loops
// over the same data find it in the cache of the core that last touched it.
TEST(ThreadPoolTest, EachThreadStartsOnItsOwnRange) {
  constexpr int kThreads = 3, kTasks = 12;  // ranges [0,4) [4,8) [8,12)
  ThreadPool pool(kThreads);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::atomic<int>> first(kThreads);
    for (auto& f : first) f = -1;
    std::vector<std::atomic<int>> hits(kTasks);
    std::atomic<int> started{0};
    auto body = [&](int task, int thread) {
      int none = -1;
      if (first[thread].compare_exchange_strong(none, task)) started.fetch_add(1);
      hits[task].fetch_add(1);
      // Hold every thread until all have started (or 2 s passed), so nobody
      // finishes its range and takes another's first task.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (started.load() < kThreads && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    };
    pool.ParallelFor(kTasks, body);
    for (int t = 0; t < kTasks; ++t) ASSERT_EQ(hits[t].load(), 1) << "task " << t;
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(first[t].load(), t * kTasks / kThreads) << "thread " << t;
  }
}

TEST(ThreadPoolTest, ManyBackToBackLoopsOfUnevenTasks) {
  ThreadPool pool(2);
  std::vector<int> out(64);
  long long total = 0;
  for (int round = 0; round < 20000; ++round) {
    const int tasks = 2 + round % 5;
    auto body = [&](int task, int) { out[task] = round + task; };
    pool.ParallelFor(tasks, body);
    for (int t = 0; t < tasks; ++t) total += out[t] - round - t;
    if (round % 5000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(total, 0);
}

// Run's dealing, as the simulation schedules it: equal tasks split evenly;
// a long first task leaves the rest of its range to the other thread; more
// threads than tasks; one thread runs everything in turn.
TEST(ThreadPoolTest, ScheduleTimeDealsAndTakesAsRun) {
  EXPECT_DOUBLE_EQ(ThreadPool::ScheduleTime({1, 1, 1, 1}, 2), 2.0);
  // Thread 0: task 0 (3); thread 1: tasks 2 and 3, then task 1 from 0's range.
  EXPECT_DOUBLE_EQ(ThreadPool::ScheduleTime({3, 1, 1, 1}, 2), 3.0);
  // Three tasks on two threads: 1 and 2, the second thread's last one the end.
  EXPECT_DOUBLE_EQ(ThreadPool::ScheduleTime({2, 2, 2}, 2), 4.0);
  EXPECT_DOUBLE_EQ(ThreadPool::ScheduleTime({2, 5}, 3), 5.0);
  EXPECT_DOUBLE_EQ(ThreadPool::ScheduleTime({1, 2, 3}, 1), 6.0);
  // 8 tasks, the last 4 twice as long: thread 0 takes one of thread 1's.
  EXPECT_DOUBLE_EQ(ThreadPool::ScheduleTime({1, 1, 1, 1, 2, 2, 2, 2}, 2), 6.0);
}

// A simulating pool runs every task once on the caller, with the thread id
// of the range Run deals it to, reports the threads it simulates, and adds up
// its loops.
TEST(ThreadPoolTest, SimulationRunsOnTheCallerAndCountsLoops) {
  ThreadPool pool(3, -1, /*simulate=*/true);
  ASSERT_NE(pool.simulation(), nullptr);
  EXPECT_EQ(pool.num_threads(), 3);
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<int> thread_of(10, -1);
  bool on_caller = true;
  auto f = [&](int task, int thread) {
    thread_of[task] = thread;
    on_caller = on_caller && std::this_thread::get_id() == caller;
  };
  pool.ParallelFor(10, f);
  // Tasks [0, 3) to thread 0, [3, 6) to 1, [6, 10) to 2.
  EXPECT_EQ(thread_of, (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}));
  pool.ParallelFor(1, f);  // one task: the last thread's range, as Run deals it
  EXPECT_EQ(thread_of[0], 2);
  EXPECT_TRUE(on_caller);
  EXPECT_EQ(pool.simulation()->loops, 2u);
  EXPECT_GE(pool.simulation()->task_ms, pool.simulation()->schedule_ms);
  EXPECT_EQ(ThreadPool(2, -1, false).simulation(), nullptr);
}

}  // namespace
}  // namespace rill::inference
