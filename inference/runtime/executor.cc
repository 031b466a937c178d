#include "inference/runtime/executor.h"

#include <chrono>
#include <utility>

#include "inference/runtime/denormals.h"

namespace rill::inference {

namespace {
int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Executor::Executor(ExecutionPlan* plan) : plan_(*plan) {
  const int streams = static_cast<int>(plan_.stream_tasks.size());
  task_done_.assign(plan_.tasks.size(), 0);
  times_.assign(plan_.tasks.size(), TaskTime{});
  stream_done_.assign(streams, 0);
  stream_status_.assign(streams, Status::Ok());
  for (int s = 1; s < streams; ++s) threads_.emplace_back([this, s] { StreamLoop(s); });
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

Status Executor::RunTask(int index, Backend* backend) {
  Task& task = plan_.tasks[index];
  if (task.begins_backend) RILL_INF_RETURN_IF_ERROR(backend->BeginRun());
  if (tracing_) times_[index].start = NowNs() - run_start_;
  if (!task.elided) RILL_INF_RETURN_IF_ERROR(task.exec->Run());
  if (tracing_) times_[index].finish = times_[index].end = NowNs() - run_start_;
  // Another lane of this backend reads what the task wrote: its queued work
  // must be done before the other lane's stream is told.
  if (task.sync_lane && !task.ends_backend) RILL_INF_RETURN_IF_ERROR(backend->SyncLane());
  if (task.ends_backend) RILL_INF_RETURN_IF_ERROR(backend->EndRun());
  if (tracing_ && task.ends_backend) times_[index].finish = NowNs() - run_start_;
  return Status::Ok();
}

Status Executor::Run() {
  if (tracing_) run_start_ = NowNs();
  if (threads_.empty()) return RunStream(0, 0);
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mu_);
    generation = ++generation_;
  }
  cv_.notify_all();
  Status status = RunStream(0, generation);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] {
    for (size_t s = 1; s < stream_done_.size(); ++s) {
      if (stream_done_[s] != generation) return false;
    }
    return true;
  });
  for (size_t s = 1; s < stream_status_.size() && status.ok(); ++s) status = stream_status_[s];
  return status;
}

// Each task between its backend's BeginRun and EndRun, so that a device's
// queued work is finished inside the task's time: a node's time is its
// launch plus its execution on the device.
Status Executor::RunProfiled(std::vector<double>* node_ms) {
  ScopedFlushDenormals flush;
  double pending = 0;
  for (Task& task : plan_.tasks) {
    Backend* backend = plan_.backends[task.backend].backend.get();
    const auto start = std::chrono::steady_clock::now();
    RILL_INF_RETURN_IF_ERROR(backend->BeginRun());
    if (!task.elided) RILL_INF_RETURN_IF_ERROR(task.exec->Run());
    RILL_INF_RETURN_IF_ERROR(backend->EndRun());
    pending += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (task.node >= 0) {
      (*node_ms)[task.node] += pending;
      pending = 0;
    }
  }
  if (!node_ms->empty()) node_ms->back() += pending;
  return Status::Ok();
}

void Executor::StreamLoop(int s) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    Status status = RunStream(s, seen);
    {
      std::lock_guard<std::mutex> lock(mu_);
      stream_status_[s] = std::move(status);
      stream_done_[s] = seen;
    }
    cv_.notify_all();
  }
}

// After a failed task the stream skips its remaining tasks but still signals
// them, so that no other stream waits forever.
Status Executor::RunStream(int s, uint64_t generation) {
  ScopedFlushDenormals flush;
  Status status;
  // A stream thread of a backend's lane: the backend's work from this
  // thread goes to that lane.
  if (s > 0) {
    const auto [backend, lane] = plan_.stream_lane[s];
    plan_.backends[backend].backend->UseLane(lane);
  }
  for (int i : plan_.stream_tasks[s]) {
    Task& task = plan_.tasks[i];
    if (!task.waits.empty()) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] {
        for (int w : task.waits) {
          if (task_done_[w] != generation) return false;
        }
        return true;
      });
    }
    if (status.ok()) status = RunTask(i, plan_.backends[task.backend].backend.get());
    if (task.signals) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        task_done_[i] = generation;
      }
      cv_.notify_all();
    }
  }
  return status;
}

}  // namespace rill::inference
