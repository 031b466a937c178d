#include "inference/runtime/thread_pool.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "inference/runtime/denormals.h"

// The spin-wait hint by compiler builtin: no intrinsics header outside
// kernels/x86.
#if defined(__x86_64__) || defined(__i386__)
#define RILL_CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define RILL_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define RILL_CPU_RELAX() \
  do {                   \
  } while (0)
#endif

namespace rill::inference {

namespace {
// The environment variable RILL_POOL_SPIN_US overrides the default spin,
// for measuring the trade-off; SessionConfig::pool_spin_us is the setting.
int DefaultSpinMicros() {
  static const int spin = [] {
    const char* env = std::getenv("RILL_POOL_SPIN_US");
    return env ? std::atoi(env) : ThreadPool::kSpinMicros;
  }();
  return spin;
}

// The calling thread's CPU time in seconds (the simulation's clock: it does
// not run while the thread waits for a core).
double ThreadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace

bool ThreadPool::SimulateByDefault() {
  static const bool simulate = std::getenv("RILL_POOL_SIMULATE") != nullptr;
  return simulate;
}

ThreadPool::ThreadPool(int num_threads, int spin_micros, bool simulate)
    : spin_micros_(spin_micros >= 0 ? spin_micros : DefaultSpinMicros()),
      ranges_(new Range[num_threads > 1 ? num_threads : 1]) {
  if (simulate) {
    simulated_threads_ = num_threads > 1 ? num_threads : 1;
    return;
  }
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  if (simulated_threads_ > 0) {
    std::fprintf(stderr, "pool_simulate threads %d loops %llu task_ms %.3f schedule_ms %.3f between_ms %.3f\n",
                 simulated_threads_, static_cast<unsigned long long>(simulation_.loops), simulation_.task_ms,
                 simulation_.schedule_ms, simulation_.between_ms);
  }
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lock(mu_);
  }
  wake_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Drain(int thread) {
  void (*fn)(void*, int, int) = fn_.load(std::memory_order_relaxed);
  void* ctx = ctx_.load(std::memory_order_relaxed);
  const int threads = num_threads();
  // Its own range first, then what is left of the others', in turn.
  for (int i = 0; i < threads; ++i) {
    Range& r = ranges_[(thread + i) % threads];
    const int end = r.end.load(std::memory_order_relaxed);
    for (;;) {
      const int task = r.next.fetch_add(1, std::memory_order_relaxed);
      if (task >= end) break;
      fn(ctx, task, thread);
    }
  }
}

bool ThreadPool::TryJoin(uint64_t epoch) {
  uint64_t s = state_.load(std::memory_order_acquire);
  for (;;) {
    if ((s & kClosed) != 0 || Epoch(s) != epoch) return false;
    if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  }
}

void ThreadPool::WorkerLoop(int thread) {
  // Engine-owned threads run kernels only: flush denormals for good.
  ScopedFlushDenormals flush;
  uint64_t seen = 0;
  for (;;) {
    // Poll for the next loop for a little while, then sleep until woken.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_micros_);
    uint64_t s = 0;
    for (int spins = 0;; ++spins) {
      if (stop_.load(std::memory_order_relaxed)) return;
      s = state_.load(std::memory_order_acquire);
      if (Epoch(s) != seen) break;
      if ((spins & 63) == 63 && std::chrono::steady_clock::now() > deadline) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1);
        while (!stop_.load() && Epoch(state_.load()) == seen) {
          sleeps_.fetch_add(1, std::memory_order_relaxed);
          wake_cv_.wait(lock);
        }
        sleepers_.fetch_sub(1);
        deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_micros_);
        continue;
      }
      RILL_CPU_RELAX();
    }
    seen = Epoch(s);
    if (TryJoin(seen)) {
      Drain(thread);
      finished_workers_.fetch_add(1, std::memory_order_release);
    }
  }
}

double ThreadPool::ScheduleTime(const std::vector<double>& costs, int threads) {
  const long long n = static_cast<long long>(costs.size());
  if (threads < 1) threads = 1;
  std::vector<long long> next(threads), end(threads);
  for (int t = 0; t < threads; ++t) {
    next[t] = n * t / threads;
    end[t] = n * (t + 1) / threads;
  }
  // Each thread, whenever it is the earliest to be free, takes the next task
  // of its own range, else of the others' in turn; the last to finish ends
  // the loop.
  std::vector<double> clock(threads, 0.0);
  std::vector<bool> done(threads, false);
  for (;;) {
    int t = -1;
    for (int i = 0; i < threads; ++i) {
      if (!done[i] && (t < 0 || clock[i] < clock[t])) t = i;
    }
    if (t < 0) break;
    long long task = -1;
    for (int i = 0; i < threads && task < 0; ++i) {
      const int r = (t + i) % threads;
      if (next[r] < end[r]) task = next[r]++;
    }
    if (task < 0) {
      done[t] = true;
    } else {
      clock[t] += costs[task];
    }
  }
  return *std::max_element(clock.begin(), clock.end());
}

void ThreadPool::RunSimulated(int tasks, void (*fn)(void*, int, int), void* ctx) {
  const double start = ThreadCpuSeconds();
  if (last_loop_end_ >= 0) simulation_.between_ms += (start - last_loop_end_) * 1e3;
  const int threads = simulated_threads_;
  task_costs_.assign(tasks, 0.0);
  double sum = 0;
  int owner = 0;
  for (int t = 0; t < tasks; ++t) {
    while (owner + 1 < threads && static_cast<long long>(tasks) * (owner + 1) / threads <= t) ++owner;
    const double begin = ThreadCpuSeconds();
    fn(ctx, t, owner);
    task_costs_[t] = (ThreadCpuSeconds() - begin) * 1e3;
    sum += task_costs_[t];
  }
  ++simulation_.loops;
  simulation_.task_ms += sum;
  simulation_.schedule_ms += ScheduleTime(task_costs_, threads);
  last_loop_end_ = ThreadCpuSeconds();
}

void ThreadPool::Run(int tasks, void (*fn)(void*, int, int), void* ctx) {
  if (tasks <= 0) return;
  if (simulated_threads_ > 0) {
    RunSimulated(tasks, fn, ctx);
    return;
  }
  if (workers_.empty() || tasks == 1) {
    for (int t = 0; t < tasks; ++t) fn(ctx, t, 0);
    return;
  }
  // Every worker of the previous loop has finished (Run waited for them), so
  // the loop's fields are free to rewrite.
  const uint64_t epoch = (Epoch(state_.load(std::memory_order_relaxed)) + 1) & 0x7FFFFFFFu;
  fn_.store(fn, std::memory_order_relaxed);
  ctx_.store(ctx, std::memory_order_relaxed);
  const int threads = num_threads();
  for (int t = 0; t < threads; ++t) {
    ranges_[t].next.store(static_cast<int>(static_cast<long long>(tasks) * t / threads), std::memory_order_relaxed);
    ranges_[t].end.store(static_cast<int>(static_cast<long long>(tasks) * (t + 1) / threads),
                         std::memory_order_relaxed);
  }
  finished_workers_.store(0, std::memory_order_relaxed);
  state_.store(epoch << 32);  // publishes the loop (seq_cst: pairs with sleepers_)
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(mu_); }
    wake_cv_.notify_all();
  }
  Drain(0);
  // No worker may join from now on; wait for those that did.
  const uint64_t joined = state_.fetch_or(kClosed, std::memory_order_acq_rel) & kJoinedMask;
  for (int spins = 0; static_cast<uint64_t>(finished_workers_.load(std::memory_order_acquire)) != joined; ++spins) {
    if (spins < 4096) {
      RILL_CPU_RELAX();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace rill::inference
