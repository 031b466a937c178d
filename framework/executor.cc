#include "framework/executor.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "framework/proto/thread_pool_executor.pb.h"

namespace rill {

int DefaultNumThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPoolExecutor::ThreadPoolExecutor(int num_threads,
                                       std::string thread_name_prefix,
                                       int nice_priority_level)
    : prefix_(std::move(thread_name_prefix)), nice_(nice_priority_level) {
  if (num_threads <= 0) num_threads = DefaultNumThreads();
  for (int i = 0; i < num_threads; ++i) {
    threads_.emplace_back([this, i] { WorkerLoop(i); });
  }
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPoolExecutor::Schedule(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPoolExecutor::WorkerLoop(int index) {
  const std::string name = absl::StrCat(prefix_, "/", index).substr(0, 15);
  pthread_setname_np(pthread_self(), name.c_str());
  if (nice_ != 0) {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice_);
  }
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Idle workers sleep on the condition variable; they never spin.
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stop_ and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void ApplicationThreadExecutor::Schedule(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back(std::move(task));
}

int ApplicationThreadExecutor::RunPendingTasks() {
  int ran = 0;
  for (;;) {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (tasks_.empty()) return ran;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
    ++ran;
  }
}

Registry<ExecutorFactory>& ExecutorRegistry() {
  static auto* registry = [] {
    auto* r = new Registry<ExecutorFactory>("executor type");
    r->Register("ThreadPoolExecutor",
                [](const MediaPipeOptions& options)
                    -> absl::StatusOr<std::shared_ptr<Executor>> {
                  const auto& o =
                      options.GetExtension(ThreadPoolExecutorOptions::ext);
                  return std::shared_ptr<Executor>(new ThreadPoolExecutor(
                      o.num_threads(),
                      o.thread_name_prefix().empty() ? "rill"
                                                     : o.thread_name_prefix(),
                      o.nice_priority_level()));
                });
    r->Register("ApplicationThreadExecutor",
                [](const MediaPipeOptions&)
                    -> absl::StatusOr<std::shared_ptr<Executor>> {
                  return std::shared_ptr<Executor>(
                      new ApplicationThreadExecutor());
                });
    return r;
  }();
  return *registry;
}

}  // namespace rill
