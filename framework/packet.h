// A Packet is the unit of data that flows through a graph: an immutable,
// reference-counted payload of any C++ type plus a Timestamp. Copying a Packet
// copies a pointer, never the payload. Retrieving the payload as the wrong
// type is an error that names both the held and the requested type.
#ifndef RILL_FRAMEWORK_PACKET_H_
#define RILL_FRAMEWORK_PACKET_H_

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/timestamp.h"

namespace rill {

// Human-readable (demangled) name of a C++ type.
std::string DemangleTypeName(const std::type_info& type);
template <typename T>
std::string TypeName() {
  return DemangleTypeName(typeid(T));
}

namespace packet_internal {

class HolderBase {
 public:
  virtual ~HolderBase() = default;
  virtual const std::type_info& type() const = 0;
  virtual const void* payload() const = 0;
};

template <typename T>
class Holder final : public HolderBase {
 public:
  template <typename... Args>
  explicit Holder(Args&&... args) : value_(std::forward<Args>(args)...) {}
  const std::type_info& type() const override { return typeid(T); }
  const void* payload() const override { return &value_; }

 private:
  const T value_;
};

// Holds a payload the caller allocated (Adopt): deleted with the last packet.
template <typename T>
class AdoptedHolder final : public HolderBase {
 public:
  explicit AdoptedHolder(const T* ptr) : ptr_(ptr) {}
  const std::type_info& type() const override { return typeid(T); }
  const void* payload() const override { return ptr_.get(); }

 private:
  std::unique_ptr<const T> ptr_;
};

[[noreturn]] void FailWrongType(const std::type_info* held,
                                const std::type_info& wanted,
                                Timestamp timestamp);

}  // namespace packet_internal

class Packet {
 public:
  Packet() = default;

  bool IsEmpty() const { return holder_ == nullptr; }
  ::rill::Timestamp Timestamp() const { return timestamp_; }

  // The same payload at another timestamp.
  Packet At(::rill::Timestamp timestamp) const& {
    Packet p(*this);
    p.timestamp_ = timestamp;
    return p;
  }
  Packet At(::rill::Timestamp timestamp) && {
    timestamp_ = timestamp;
    return std::move(*this);
  }

  // The held type, or nullptr for an empty packet.
  const std::type_info* GetTypeInfo() const {
    return holder_ ? &holder_->type() : nullptr;
  }
  template <typename T>
  bool Holds() const {
    return holder_ != nullptr && holder_->type() == typeid(T);
  }
  // Aborts with a message naming both types when the packet holds another
  // type (use ValidateAsType or TryGet on values that come from outside).
  template <typename T>
  const T& Get() const {
    if (!Holds<T>()) {
      packet_internal::FailWrongType(GetTypeInfo(), typeid(T), timestamp_);
    }
    return Value<T>();
  }
  template <typename T>
  absl::StatusOr<const T*> TryGet() const {
    absl::Status status = ValidateAsType<T>();
    if (!status.ok()) return status;
    return &Value<T>();
  }
  template <typename T>
  absl::Status ValidateAsType() const {
    return ValidateAsType(typeid(T));
  }
  absl::Status ValidateAsType(const std::type_info& type) const;

  std::string DebugTypeName() const;
  std::string DebugString() const;

  // Identity of the payload (two packets share a payload when equal).
  const void* PayloadId() const { return holder_.get(); }

 private:
  template <typename T, typename... Args>
  friend Packet MakePacket(Args&&... args);
  template <typename T>
  friend Packet Adopt(const T* ptr);

  template <typename T>
  const T& Value() const {
    return *static_cast<const T*>(holder_->payload());
  }

  std::shared_ptr<const packet_internal::HolderBase> holder_;
  ::rill::Timestamp timestamp_;
};

// Constructs a T in place inside a new packet (timestamp Unset).
template <typename T, typename... Args>
Packet MakePacket(Args&&... args) {
  Packet p;
  p.holder_ = std::make_shared<packet_internal::Holder<T>>(
      std::forward<Args>(args)...);
  return p;
}

// Takes ownership of a heap object.
template <typename T>
Packet Adopt(const T* ptr) {
  Packet p;
  p.holder_ = std::make_shared<packet_internal::AdoptedHolder<T>>(ptr);
  return p;
}

}  // namespace rill

#endif  // RILL_FRAMEWORK_PACKET_H_
