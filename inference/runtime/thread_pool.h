// A fixed pool of worker threads for a session's kernels. Workers sleep on a
// condition variable between runs (no spinning while idle); the calling
// thread takes part in every parallel loop. Dispatch passes a function
// pointer and a context pointer, so a parallel loop allocates nothing.
#ifndef RILL_INFERENCE_RUNTIME_THREAD_POOL_H_
#define RILL_INFERENCE_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace rill::inference {

class ThreadPool {
 public:
  // `num_threads` counts the caller: 1 means no workers.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(ctx, task, thread) for every task in [0, tasks), spread over the
  // threads (thread in [0, num_threads())), and returns when all are done.
  void Run(int tasks, void (*fn)(void* ctx, int task, int thread), void* ctx);

  // f(task, thread) for every task; f is called concurrently.
  template <typename F>
  void ParallelFor(int tasks, F& f) {
    Run(tasks, [](void* c, int task, int thread) { (*static_cast<F*>(c))(task, thread); }, &f);
  }

 private:
  void WorkerLoop(int thread);
  void Drain(int thread);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  uint64_t generation_ = 0;
  int busy_workers_ = 0;
  bool stop_ = false;
  int tasks_ = 0;
  std::atomic<int> next_task_{0};
  void (*fn_)(void*, int, int) = nullptr;
  void* ctx_ = nullptr;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_THREAD_POOL_H_
