// Tensors as the engine's users see them: a name, a shape, an element type, a
// memory layout and a pointer into memory the session owns (its arena). A
// Tensor is a view; it never owns or allocates its data, which is what lets a
// session run without touching the heap.
#ifndef RILL_INFERENCE_TENSOR_H_
#define RILL_INFERENCE_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rill::inference {

enum class DataType : uint8_t {
  kUnknown = 0,
  kFloat32,
  kFloat16,
  kInt32,
  kInt64,
  kUInt8,
  kInt8,
  kBool,
};

inline size_t DataTypeSize(DataType t) {
  switch (t) {
    case DataType::kFloat32: case DataType::kInt32: return 4;
    case DataType::kFloat16: return 2;
    case DataType::kInt64: return 8;
    case DataType::kUInt8: case DataType::kInt8: case DataType::kBool: return 1;
    case DataType::kUnknown: return 0;
  }
  return 0;
}

inline const char* DataTypeName(DataType t) {
  switch (t) {
    case DataType::kFloat32: return "float32";
    case DataType::kFloat16: return "float16";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt8: return "int8";
    case DataType::kBool: return "bool";
    case DataType::kUnknown: return "unknown";
  }
  return "unknown";
}

// How a 4-D tensor's elements are ordered in memory. TFLite models are NHWC;
// ONNX models are NCHW. Channel-blocked layouts are internal to backends and
// never seen at a session's inputs or outputs.
enum class Layout : uint8_t { kAny = 0, kNHWC, kNCHW };

inline const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kNHWC: return "NHWC";
    case Layout::kNCHW: return "NCHW";
    case Layout::kAny: return "any";
  }
  return "any";
}

using Shape = std::vector<int>;

inline int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  Tensor(std::string name, DataType dtype, Layout layout, Shape shape, void* data)
      : name_(std::move(name)), dtype_(dtype), layout_(layout),
        shape_(std::move(shape)), data_(data) {}

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  Layout layout() const { return layout_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int dim(int i) const { return shape_[i]; }
  int64_t num_elements() const { return NumElements(shape_); }
  size_t byte_size() const { return static_cast<size_t>(num_elements()) * DataTypeSize(dtype_); }

  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T> T* data_as() { return static_cast<T*>(data_); }
  template <typename T> const T* data_as() const { return static_cast<const T*>(data_); }

  // For the session only: a resize moves tensors inside the arena.
  void Rebind(Shape shape, void* data) { shape_ = std::move(shape); data_ = data; }

 private:
  std::string name_;
  DataType dtype_ = DataType::kUnknown;
  Layout layout_ = Layout::kAny;
  Shape shape_;
  void* data_ = nullptr;
};

inline std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace rill::inference

#endif  // RILL_INFERENCE_TENSOR_H_
