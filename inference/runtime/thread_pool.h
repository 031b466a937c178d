// A fixed pool of worker threads for a session's kernels. The calling thread
// takes part in every parallel loop. Dispatch passes a function pointer and a
// context pointer, so a parallel loop allocates nothing.
//
// Waking a sleeping thread costs tens of microseconds, more than many layers
// of a small model take, so after a loop a worker keeps polling for the next
// one for a short, bounded time (kSpinMicros) and only then sleeps on a
// condition variable: back-to-back layers of one run find it awake, and an
// idle pool (between runs) sleeps instead of spinning. The caller waits only
// for the workers that joined the loop, never for one still asleep.
//
// Tasks are dealt in contiguous ranges, one per thread (thread t first runs
// tasks [t * n / T, (t + 1) * n / T)), and a thread that finishes its own
// range takes the remaining tasks of the others. Kernels number their tasks
// in output order, so consecutive layers find most of their input in the
// cache of the core that wrote it (a shared counter dealt tasks to whichever
// thread came first, and 1x1 convs of ResNet-50 ran 1.5x slower at 2 threads
// inside the model than alone).
#ifndef RILL_INFERENCE_RUNTIME_THREAD_POOL_H_
#define RILL_INFERENCE_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rill::inference {

class ThreadPool {
 public:
  // How long a worker polls for the next loop before it sleeps.
  static constexpr int kSpinMicros = 20;

  // `num_threads` counts the caller: 1 means no workers.
  // `spin_micros`: how long an idle worker polls before it sleeps (< 0: the
  // default, kSpinMicros unless RILL_POOL_SPIN_US says otherwise).
  explicit ThreadPool(int num_threads, int spin_micros = -1);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(ctx, task, thread) for every task in [0, tasks), spread over the
  // threads (thread in [0, num_threads())), and returns when all are done.
  // Not reentrant: one loop at a time, from one calling thread.
  void Run(int tasks, void (*fn)(void* ctx, int task, int thread), void* ctx);

  // f(task, thread) for every task; f is called concurrently.
  template <typename F>
  void ParallelFor(int tasks, F& f) {
    Run(tasks, [](void* c, int task, int thread) { (*static_cast<F*>(c))(task, thread); }, &f);
  }

  // How many times a worker went to sleep (for tests: an idle pool sleeps).
  uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

 private:
  // state_: bits 32..62 the loop's epoch, bit 63 "closed" (no more workers may
  // join), bits 0..31 the number of workers that joined.
  static constexpr uint64_t kClosed = uint64_t{1} << 63;
  static constexpr uint64_t kJoinedMask = 0xFFFFFFFFu;
  static uint64_t Epoch(uint64_t state) { return (state & ~kClosed) >> 32; }

  void WorkerLoop(int thread);
  // Joins loop `epoch` if it is still open; returns whether it did.
  bool TryJoin(uint64_t epoch);
  void Drain(int thread);

  // The tasks dealt to one thread; others take from its front when done.
  struct alignas(64) Range {
    std::atomic<int> next{0};
    std::atomic<int> end{0};
  };

  std::vector<std::thread> workers_;
  std::atomic<uint64_t> state_{kClosed};
  const int spin_micros_;
  std::unique_ptr<Range[]> ranges_;  // one per thread
  std::atomic<int> finished_workers_{0};
  // The current loop; written by the caller before the epoch is published,
  // read by workers only after they joined it.
  std::atomic<void (*)(void*, int, int)> fn_{nullptr};
  std::atomic<void*> ctx_{nullptr};

  std::mutex mu_;
  std::condition_variable wake_cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> sleeps_{0};
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_THREAD_POOL_H_
