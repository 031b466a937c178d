#include "framework/packet_type.h"

#include "absl/strings/str_cat.h"

namespace rill {

const std::type_info* PacketType::ResolvedType() const {
  const PacketType* p = this;
  for (int hops = 0; hops < 64 && p != nullptr; ++hops) {
    switch (p->kind_) {
      case Kind::kType:
        return p->type_;
      case Kind::kSameAs:
        p = p->same_as_;
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

std::string PacketType::DebugTypeName() const {
  switch (kind_) {
    case Kind::kUnset:
      return "(unset)";
    case Kind::kAny:
      return "Any";
    case Kind::kType:
      return DemangleTypeName(*type_);
    case Kind::kSameAs: {
      const std::type_info* t = ResolvedType();
      return t ? DemangleTypeName(*t) : "Any";
    }
  }
  return "?";
}

absl::Status PacketType::Validate(const Packet& packet) const {
  const std::type_info* t = ResolvedType();
  if (t == nullptr || packet.IsEmpty()) return absl::OkStatus();
  return packet.ValidateAsType(*t);
}

}  // namespace rill
