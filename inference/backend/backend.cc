// Defaults of the backend interface (dense host memory, memcpy transfers)
// and the registry of backends.
#include "inference/backend/backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace rill::inference {
namespace {

constexpr size_t kBufferAlignment = 64;

class HostBuffer : public Buffer {
 public:
  HostBuffer(uint8_t* data, size_t size) : data_(data), size_(size) {}
  ~HostBuffer() override { std::free(data_); }
  size_t size() const override { return size_; }
  void* host_address(size_t offset) override { return data_ + offset; }

 private:
  uint8_t* data_;
  size_t size_;
};

class HostView : public Buffer {
 public:
  HostView(uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t size() const override { return size_; }
  void* host_address(size_t offset) override { return data_ + offset; }

 private:
  uint8_t* data_;
  size_t size_;
};

struct Registry {
  std::mutex mu;
  std::map<std::string, BackendFactory> factories;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: static-init safe
  return *registry;
}

}  // namespace

std::unique_ptr<Buffer> AllocateHostBuffer(size_t bytes) {
  const size_t rounded = (std::max<size_t>(bytes, 1) + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (rounded < bytes) return nullptr;  // overflow
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded));
  if (p == nullptr) return nullptr;
  return std::make_unique<HostBuffer>(p, bytes);
}

std::unique_ptr<Buffer> WrapHostMemory(void* data, size_t bytes) {
  return std::make_unique<HostView>(static_cast<uint8_t*>(data), bytes);
}

TensorLayout Backend::StorageFor(const TensorDesc& desc) const {
  TensorLayout layout;
  layout.bytes = desc.dense_bytes();
  return layout;
}

std::unique_ptr<Buffer> Backend::AllocateBuffer(size_t bytes, const TensorLayout*) { return AllocateHostBuffer(bytes); }

Status Backend::CopyToHost(const TensorBinding& device, void* host) {
  const void* src = device.host();
  if (src == nullptr || !device.layout.dense()) {
    return UnimplementedError(name() + ": CopyToHost of a tensor the host cannot read in place");
  }
  std::memcpy(host, src, device.dense_bytes());
  return Status::Ok();
}

Status Backend::CopyFromHost(const void* host, const TensorBinding& device) {
  void* dst = device.host();
  if (dst == nullptr || !device.layout.dense()) {
    return UnimplementedError(name() + ": CopyFromHost to a tensor the host cannot write in place");
  }
  std::memcpy(dst, host, device.dense_bytes());
  return Status::Ok();
}

bool RegisterBackend(const std::string& name, BackendFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[name] = factory;
  return true;
}

std::vector<std::string> RegisteredBackends() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;
}

StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name, const SessionConfig& config) {
  BackendFactory factory = nullptr;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(name);
    if (it != r.factories.end()) factory = it->second;
  }
  if (factory == nullptr) {
    std::string known;
    for (const std::string& n : RegisteredBackends()) known += (known.empty() ? "" : ", ") + n;
    return NotFoundError("backend \"" + name + "\" is not built into this binary (built in: " + known + ")");
  }
  BackendContext context;
  context.config = &config;
  const std::string prefix = name + ".";
  for (const auto& [key, value] : config.backend_options) {
    if (key.compare(0, prefix.size(), prefix) == 0) context.options[key.substr(prefix.size())] = value;
  }
  return factory(context);
}

}  // namespace rill::inference
