// rill::Tensor is the tensor exchanged between calculators, in streams of
// std::vector<rill::Tensor> (TENSORS tags, as in MediaPipe): an element type
// (float32, int32, uint8, ...), a shape and one contiguous, 64-byte aligned
// buffer in row-major order. Moving is cheap (pointer move); copying copies
// the data, so a copy never aliases another tensor's buffer.
//
//   Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 128, 128, 3});
//   float* x = t.mutable_data<float>();
//   ...
//   const float* y = t.data<float>();   // t.shape().dims == {1,128,128,3}
//
// MediaPipe-style access also works: t.GetCpuReadView().buffer<float>(),
// t.GetCpuWriteView().buffer<float>().
//
// Not to be confused with rill::inference::Tensor, the engine's own tensor;
// the inference calculator converts (or wraps, see Wrap) between the two.
#ifndef RILL_FRAMEWORK_FORMATS_TENSOR_H_
#define RILL_FRAMEWORK_FORMATS_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace rill {

// real = scale * (quantized - zero_point), for kUInt8/kInt8 data.
struct TensorQuantizationParameters {
  float scale = 1.f;
  int zero_point = 0;
};

class Tensor {
 public:
  enum class ElementType {
    kNone,
    kFloat16,
    kFloat32,
    kUInt8,
    kInt8,
    kInt32,
    kChar,
    kBool,
    kInt64,
  };

  struct Shape {
    Shape() = default;
    Shape(std::initializer_list<int> d) : dims(d) {}
    explicit Shape(std::vector<int> d) : dims(std::move(d)) {}
    // Product of dims (1 for a scalar, i.e. no dims).
    int num_elements() const;
    bool operator==(const Shape& o) const { return dims == o.dims; }
    bool operator!=(const Shape& o) const { return dims != o.dims; }
    std::string DebugString() const;  // "[1,128,128,3]"
    std::vector<int> dims;
  };

  using QuantizationParameters = TensorQuantizationParameters;

  Tensor() = default;
  // Allocates an uninitialized buffer for `shape`.
  Tensor(ElementType element_type, Shape shape,
         QuantizationParameters quantization = {});
  // A tensor over memory owned elsewhere (zero-copy): `data` must stay valid
  // while `owner` is held; the tensor holds `owner`.
  static Tensor Wrap(ElementType element_type, Shape shape, void* data,
                     std::shared_ptr<void> owner,
                     QuantizationParameters quantization = {});

  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  ~Tensor() = default;

  ElementType element_type() const { return element_type_; }
  const Shape& shape() const { return shape_; }
  const QuantizationParameters& quantization_parameters() const {
    return quantization_;
  }
  int num_elements() const { return shape_.num_elements(); }
  int element_size() const { return ElementSize(element_type_); }
  size_t bytes() const {
    return static_cast<size_t>(num_elements()) * element_size();
  }
  bool empty() const { return data_ == nullptr; }

  // Typed access; aborts when T does not match the element type (raw bytes:
  // use raw_data()).
  template <typename T>
  const T* data() const {
    CheckType(TypeOf<T>());
    return static_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data() {
    CheckType(TypeOf<T>());
    return static_cast<T*>(data_);
  }
  const void* raw_data() const { return data_; }
  void* mutable_raw_data() { return data_; }

  // MediaPipe-style views.
  class CpuReadView {
   public:
    template <typename T>
    const T* buffer() const {
      return t_->data<T>();
    }

   private:
    friend class Tensor;
    explicit CpuReadView(const Tensor* t) : t_(t) {}
    const Tensor* t_;
  };
  class CpuWriteView {
   public:
    template <typename T>
    T* buffer() const {
      return t_->mutable_data<T>();
    }

   private:
    friend class Tensor;
    explicit CpuWriteView(Tensor* t) : t_(t) {}
    Tensor* t_;
  };
  CpuReadView GetCpuReadView() const { return CpuReadView(this); }
  CpuWriteView GetCpuWriteView() { return CpuWriteView(this); }

  std::string DebugString() const;  // "Tensor(float32 [1,896,16])"

  static int ElementSize(ElementType type);
  static const char* ElementTypeName(ElementType type);

  template <typename T>
  static constexpr ElementType TypeOf();

 private:
  void CheckType(ElementType wanted) const;

  ElementType element_type_ = ElementType::kNone;
  Shape shape_;
  QuantizationParameters quantization_;
  std::shared_ptr<void> storage_;  // owns data_ (or the wrapped owner)
  void* data_ = nullptr;
};

template <typename T>
constexpr Tensor::ElementType Tensor::TypeOf() {
  if constexpr (std::is_same_v<T, float>) {
    return ElementType::kFloat32;
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return ElementType::kUInt8;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return ElementType::kInt8;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return ElementType::kInt32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return ElementType::kInt64;
  } else if constexpr (std::is_same_v<T, char>) {
    return ElementType::kChar;
  } else if constexpr (std::is_same_v<T, bool>) {
    return ElementType::kBool;
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return ElementType::kFloat16;  // raw half-precision bits
  } else {
    static_assert(sizeof(T) == 0, "no Tensor element type for T");
    return ElementType::kNone;
  }
}

}  // namespace rill

#endif  // RILL_FRAMEWORK_FORMATS_TENSOR_H_
