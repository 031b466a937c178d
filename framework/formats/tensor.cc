#include "framework/formats/tensor.h"

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"

namespace rill {
namespace {

constexpr size_t kAlignment = 64;

std::shared_ptr<void> Allocate(size_t bytes) {
  void* p = nullptr;
  // Round up: aligned_alloc wants a multiple of the alignment; never zero.
  const size_t size = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  CHECK_EQ(posix_memalign(&p, kAlignment, size ? size : kAlignment), 0)
      << "out of memory allocating a tensor of " << bytes << " bytes";
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

int Tensor::Shape::num_elements() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::string Tensor::Shape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

int Tensor::ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kNone:
      return 0;
    case ElementType::kFloat16:
      return 2;
    case ElementType::kFloat32:
    case ElementType::kInt32:
      return 4;
    case ElementType::kUInt8:
    case ElementType::kInt8:
    case ElementType::kChar:
    case ElementType::kBool:
      return 1;
    case ElementType::kInt64:
      return 8;
  }
  return 0;
}

const char* Tensor::ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kNone:
      return "none";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kFloat32:
      return "float32";
    case ElementType::kUInt8:
      return "uint8";
    case ElementType::kInt8:
      return "int8";
    case ElementType::kInt32:
      return "int32";
    case ElementType::kChar:
      return "char";
    case ElementType::kBool:
      return "bool";
    case ElementType::kInt64:
      return "int64";
  }
  return "?";
}

Tensor::Tensor(ElementType element_type, Shape shape,
               QuantizationParameters quantization)
    : element_type_(element_type),
      shape_(std::move(shape)),
      quantization_(quantization) {
  for (int d : shape_.dims) {
    CHECK_GE(d, 0) << "negative dimension in tensor shape "
                   << shape_.DebugString();
  }
  storage_ = Allocate(bytes());
  data_ = storage_.get();
}

Tensor Tensor::Wrap(ElementType element_type, Shape shape, void* data,
                    std::shared_ptr<void> owner,
                    QuantizationParameters quantization) {
  Tensor t;
  t.element_type_ = element_type;
  t.shape_ = std::move(shape);
  t.quantization_ = quantization;
  t.storage_ = std::move(owner);
  t.data_ = data;
  return t;
}

Tensor::Tensor(Tensor&& other) noexcept { *this = std::move(other); }

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    element_type_ = other.element_type_;
    shape_ = std::move(other.shape_);
    quantization_ = other.quantization_;
    storage_ = std::move(other.storage_);
    data_ = other.data_;
    other.data_ = nullptr;
    other.element_type_ = ElementType::kNone;
    other.shape_.dims.clear();
  }
  return *this;
}

Tensor::Tensor(const Tensor& other) { *this = other; }

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  element_type_ = other.element_type_;
  shape_ = other.shape_;
  quantization_ = other.quantization_;
  if (other.data_ == nullptr) {
    storage_.reset();
    data_ = nullptr;
    return *this;
  }
  storage_ = Allocate(other.bytes());
  data_ = storage_.get();
  std::memcpy(data_, other.data_, other.bytes());
  return *this;
}

void Tensor::CheckType(ElementType wanted) const {
  CHECK(wanted == element_type_)
      << "Tensor holds " << ElementTypeName(element_type_) << " "
      << shape_.DebugString() << ", asked for " << ElementTypeName(wanted);
}

std::string Tensor::DebugString() const {
  return absl::StrCat("Tensor(", ElementTypeName(element_type_), " ",
                      shape_.DebugString(), ")");
}

}  // namespace rill
