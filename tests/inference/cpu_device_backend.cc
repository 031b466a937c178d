#include "tests/inference/cpu_device_backend.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <sstream>

#include "inference/backend/cpu/cpu_backend.h"

namespace rill::inference::testing {
namespace {

constexpr size_t kPadding = 64;  // bytes after every tensor's own

std::atomic<long long> begin_resize{0}, end_resize{0}, begin_run{0}, end_run{0};
std::atomic<int> thread_budget{0};

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// Memory of its own, never the host arena: the session gets no host address
// for it (host_memory() is false); only this backend's executions and
// transfers reach the bytes.
class DeviceBuffer : public Buffer {
 public:
  explicit DeviceBuffer(std::unique_ptr<Buffer> memory) : memory_(std::move(memory)) {}
  size_t size() const override { return memory_->size(); }
  void* host_address(size_t offset) override { return memory_->host_address(offset); }

 private:
  std::unique_ptr<Buffer> memory_;
};

bool Named(const std::vector<std::string>& list, const std::string& op) {
  return std::find(list.begin(), list.end(), op) != list.end();
}

// Wraps a CPU execution to refuse its node in Prepare.
class RefusingExecution : public Execution {
 public:
  explicit RefusingExecution(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return "refused"; }
  Status Prepare() override { return UnimplementedError(op_ + " is in cpu_device.refuse_in_prepare"); }
  Status Run() override { return InternalError("a refused execution ran"); }

 private:
  std::string op_;
};

class CpuDeviceBackend : public cpu::CpuBackend {
 public:
  CpuDeviceBackend(const SessionConfig& config, std::vector<std::string> ops, std::vector<std::string> refuse)
      : CpuBackend(config), ops_(std::move(ops)), refuse_(std::move(refuse)) {}
  std::string name() const override { return kCpuDevice; }
  bool host_memory() const override { return false; }

  StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) override {
    const std::string op = ir::OpTypeName(args.node->type);
    if (!ops_.empty() && !Named(ops_, op)) {
      return UnimplementedError(args.graph->NodeContext(*args.node) + op + " is not in cpu_device.ops");
    }
    if (Named(refuse_, op)) return std::unique_ptr<Execution>(new RefusingExecution(op));
    return CpuBackend::CreateExecution(args);
  }

  TensorLayout StorageFor(const TensorDesc& desc) const override {
    TensorLayout layout;
    layout.bytes = desc.dense_bytes() + kPadding;
    return layout;
  }
  std::unique_ptr<Buffer> AllocateBuffer(size_t bytes, const TensorLayout*) override {
    std::unique_ptr<Buffer> memory = AllocateHostBuffer(bytes);
    if (!memory) return nullptr;
    return std::make_unique<DeviceBuffer>(std::move(memory));
  }
  Status CopyToHost(const TensorBinding& device, void* host) override {
    std::memcpy(host, device.memory.host(), device.dense_bytes());
    return Status::Ok();
  }
  Status CopyFromHost(const void* host, const TensorBinding& device) override {
    std::memcpy(device.memory.host(), host, device.dense_bytes());
    return Status::Ok();
  }
  void SetThreadBudget(int threads) override {
    thread_budget = threads;
    CpuBackend::SetThreadBudget(threads);
  }
  Status BeginResize() override {
    ++begin_resize;
    return Status::Ok();
  }
  Status EndResize() override {
    ++end_resize;
    return Status::Ok();
  }
  Status BeginRun() override {
    ++begin_run;
    return Status::Ok();
  }
  Status EndRun() override {
    ++end_run;
    return Status::Ok();
  }

 private:
  std::vector<std::string> ops_, refuse_;
};

StatusOr<std::unique_ptr<Backend>> Create(const BackendContext& context) {
  auto option = [&](const char* key) {
    auto it = context.options.find(key);
    return it == context.options.end() ? std::string() : it->second;
  };
  return std::unique_ptr<Backend>(
      new CpuDeviceBackend(*context.config, Split(option("ops")), Split(option("refuse_in_prepare"))));
}

const bool kRegistered = RegisterBackend(kCpuDevice, Create);

}  // namespace

void UseCpuDevice(SessionConfig* config, const std::vector<std::string>& ops) {
  (void)kRegistered;
  config->backend = kCpuDevice;
  std::string list;
  for (const std::string& op : ops) list += (list.empty() ? "" : ",") + op;
  config->backend_options[std::string(kCpuDevice) + ".ops"] = list;
}

CpuDeviceHookCounts CpuDeviceHooks() {
  return CpuDeviceHookCounts{begin_resize.load(), end_resize.load(), begin_run.load(), end_run.load(),
                             thread_budget.load()};
}

}  // namespace rill::inference::testing
