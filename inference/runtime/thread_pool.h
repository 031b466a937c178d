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
  // `simulate`: see Simulation (default: whether RILL_POOL_SIMULATE is set).
  explicit ThreadPool(int num_threads, int spin_micros = -1, bool simulate = SimulateByDefault());
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const {
    return simulated_threads_ > 0 ? simulated_threads_ : static_cast<int>(workers_.size()) + 1;
  }

  // How a model's loops would split over the threads, measured without the
  // cores to run them (a machine shared with other work, where timing two
  // threads measures the other work): a simulating pool starts no workers;
  // each loop runs its tasks on the caller in order, each with the thread id
  // of the range Run would deal it to, times each on the caller's CPU clock,
  // and adds up the time the loop would take on num_threads() threads dealt
  // and taking tasks as Run's (ScheduleTime). The caller's CPU time between
  // loops (ops that do not split, the executor) counts as serial, so
  // (task_ms + between_ms) / (schedule_ms + between_ms) is the speedup the
  // splits allow; what it leaves out: waking and joining the threads, and
  // their contention for caches and memory. An experiment override like
  // RILL_POOL_SPIN_US: the totals are printed to stderr when the pool is
  // destroyed.
  struct Simulation {
    uint64_t loops = 0;
    double task_ms = 0;      // the tasks' CPU time, all threads together
    double schedule_ms = 0;  // the loops' time on num_threads() threads
    double between_ms = 0;   // the caller's CPU time between loops
  };
  // Null unless simulating.
  const Simulation* simulation() const { return simulated_threads_ > 0 ? &simulation_ : nullptr; }
  // The time tasks of these costs take on `threads` threads when thread t
  // first runs tasks [t * n / threads, (t + 1) * n / threads) and then takes
  // what is left of the others' ranges, in turn from its own (Run's dealing).
  static double ScheduleTime(const std::vector<double>& costs, int threads);
  static bool SimulateByDefault();

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
  void RunSimulated(int tasks, void (*fn)(void* ctx, int task, int thread), void* ctx);
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

  int simulated_threads_ = 0;  // > 0: simulating this many threads
  Simulation simulation_;
  std::vector<double> task_costs_;  // the current simulated loop's
  double last_loop_end_ = -1;       // the caller's CPU clock after the last loop
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_THREAD_POOL_H_
