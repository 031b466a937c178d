// Execution: walks a prepared ExecutionPlan. Stream 0 runs on the calling
// thread; each other stream (a backend run concurrently) on a thread of its
// own that waits for the next run. A task waits only for the tasks of other
// streams whose outputs it reads; each backend's BeginRun / EndRun hooks run
// around its first and last task. Allocation-free, decision-free.
#ifndef RILL_INFERENCE_RUNTIME_EXECUTOR_H_
#define RILL_INFERENCE_RUNTIME_EXECUTOR_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "inference/runtime/execution_plan.h"

namespace rill::inference {

class Executor {
 public:
  // Starts the stream threads of `plan`, which must outlive the executor.
  explicit Executor(ExecutionPlan* plan);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // One run; the first error of any stream (its later tasks are skipped).
  Status Run();
  // Every task in order on the calling thread, each between its backend's
  // BeginRun and EndRun (a device finishes it before the next starts), with
  // each node's wall time in milliseconds (a transfer's time counts to the
  // node it feeds; the downloads of outputs to the last node).
  Status RunProfiled(std::vector<double>* node_ms);

  // Per-task times of the runs that follow (steady clock, ns since the run
  // began), or off.
  void set_tracing(bool on) { tracing_ = on; }
  bool tracing() const { return tracing_; }
  struct TaskTime {
    int64_t start = 0, end = 0, finish = 0;
  };
  const std::vector<TaskTime>& task_times() const { return times_; }

 private:
  void StreamLoop(int s);
  // Runs stream s's tasks for run `generation`; its first error.
  Status RunStream(int s, uint64_t generation);
  Status RunTask(int index, Backend* backend);

  ExecutionPlan& plan_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t generation_ = 0;
  std::vector<uint64_t> task_done_;
  std::vector<uint64_t> stream_done_;
  std::vector<Status> stream_status_;
  bool stop_ = false;
  bool tracing_ = false;
  int64_t run_start_ = 0;
  std::vector<TaskTime> times_;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_EXECUTOR_H_
