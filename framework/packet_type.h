// The declared type of a port (stream or side packet) in a calculator's
// contract: one C++ type, any type, or "the same as that other port".
// Declared types are checked across every stream when the graph is built.
#ifndef RILL_FRAMEWORK_PACKET_TYPE_H_
#define RILL_FRAMEWORK_PACKET_TYPE_H_

#include <string>
#include <typeinfo>

#include "absl/status/status.h"
#include "framework/collection.h"
#include "framework/packet.h"

namespace rill {

class PacketType {
 public:
  template <typename T>
  PacketType& Set() {
    kind_ = Kind::kType;
    type_ = &typeid(T);
    return *this;
  }
  PacketType& SetAny() {
    kind_ = Kind::kAny;
    type_ = nullptr;
    return *this;
  }
  // The type is whatever `other` (a port of the same node) resolves to.
  PacketType& SetSameAs(const PacketType* other) {
    kind_ = Kind::kSameAs;
    same_as_ = other;
    return *this;
  }
  PacketType& SetSameAs(const PacketType& other) { return SetSameAs(&other); }
  // The port may be left unconnected in the node config.
  PacketType& Optional() {
    optional_ = true;
    return *this;
  }

  bool IsInitialized() const { return kind_ != Kind::kUnset; }
  bool IsAny() const { return kind_ == Kind::kAny; }
  bool IsOptional() const { return optional_; }
  bool IsSameAs() const { return kind_ == Kind::kSameAs; }
  const PacketType* SameAs() const { return same_as_; }
  // Follows SameAs links; nullptr for Any/unset/cycles.
  const std::type_info* ResolvedType() const;
  const std::type_info* Type() const { return type_; }
  std::string DebugTypeName() const;

  // OK when `packet` may travel on this port.
  absl::Status Validate(const Packet& packet) const;

 private:
  enum class Kind { kUnset, kAny, kType, kSameAs };
  Kind kind_ = Kind::kUnset;
  const std::type_info* type_ = nullptr;
  const PacketType* same_as_ = nullptr;
  bool optional_ = false;
};

using PacketTypeSet = Collection<PacketType>;

}  // namespace rill

#endif  // RILL_FRAMEWORK_PACKET_TYPE_H_
