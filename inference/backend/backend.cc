// Defaults of the backend interface: host memory and memcpy transfers.
#include "inference/backend/backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace rill::inference {
namespace {

constexpr size_t kBufferAlignment = 64;

class HostBuffer : public Buffer {
 public:
  HostBuffer(uint8_t* data, size_t size) : data_(data), size_(size) {}
  ~HostBuffer() override { std::free(data_); }
  size_t size() const override { return size_; }
  void* At(size_t offset) override { return data_ + offset; }

 private:
  uint8_t* data_;
  size_t size_;
};

}  // namespace

const char* BackendKindName(BackendKind kind) {
  switch (kind) {
    case BackendKind::kCpu: return "cpu";
    case BackendKind::kCpuDevice: return "cpu_device";
  }
  return "unknown";
}

std::unique_ptr<Buffer> AllocateHostBuffer(size_t bytes) {
  const size_t rounded = (std::max<size_t>(bytes, 1) + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (rounded < bytes) return nullptr;  // overflow
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded));
  if (p == nullptr) return nullptr;
  return std::make_unique<HostBuffer>(p, bytes);
}

std::unique_ptr<Buffer> Backend::AllocateBuffer(size_t bytes) { return AllocateHostBuffer(bytes); }

void Backend::CopyToHost(const TensorBinding& device, void* host, size_t bytes) {
  std::memcpy(host, device.data, bytes);
}

void Backend::CopyFromHost(const void* host, const TensorBinding& device, size_t bytes) {
  std::memcpy(device.data, host, bytes);
}

}  // namespace rill::inference
