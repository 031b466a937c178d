// Executors run scheduler tasks. A graph has a default executor (a thread
// pool of num_threads threads) and may declare named ones; each node runs on
// the executor its config names. ApplicationThreadExecutor runs tasks on the
// thread that waits on the graph (WaitUntilIdle/WaitUntilDone), for
// deterministic single-threaded runs.
#ifndef RILL_FRAMEWORK_EXECUTOR_H_
#define RILL_FRAMEWORK_EXECUTOR_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/proto/mediapipe_options.pb.h"
#include "framework/registry.h"

namespace rill {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs `task` at some later time on one of the executor's threads.
  virtual void Schedule(std::function<void()> task) = 0;
  // Threads that may run tasks concurrently.
  virtual int NumThreads() const = 0;
  // True when tasks only run inside RunPendingTasks (on the caller).
  virtual bool RunsOnApplicationThread() const { return false; }
  // For application-thread executors: runs queued tasks; returns how many.
  virtual int RunPendingTasks() { return 0; }
};

class ThreadPoolExecutor : public Executor {
 public:
  explicit ThreadPoolExecutor(int num_threads,
                              std::string thread_name_prefix = "rill",
                              int nice_priority_level = 0);
  ~ThreadPoolExecutor() override;
  void Schedule(std::function<void()> task) override;
  int NumThreads() const override { return static_cast<int>(threads_.size()); }

 private:
  void WorkerLoop(int index);
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
  std::string prefix_;
  int nice_;
};

class ApplicationThreadExecutor : public Executor {
 public:
  void Schedule(std::function<void()> task) override;
  int NumThreads() const override { return 1; }
  bool RunsOnApplicationThread() const override { return true; }
  int RunPendingTasks() override;

 private:
  std::mutex mu_;
  std::deque<std::function<void()>> tasks_;
};

using ExecutorFactory = std::function<absl::StatusOr<std::shared_ptr<Executor>>(
    const MediaPipeOptions& options)>;
Registry<ExecutorFactory>& ExecutorRegistry();

// Processors available to this process.
int DefaultNumThreads();

}  // namespace rill

#endif  // RILL_FRAMEWORK_EXECUTOR_H_
