#include "framework/packet.h"

#include <cxxabi.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"

namespace rill {

std::string DemangleTypeName(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = (status == 0 && demangled) ? demangled : type.name();
  std::free(demangled);
  // Strings are the most common payload; spell them as users write them.
  if (name.find("std::__cxx11::basic_string<char") == 0) return "std::string";
  return name;
}

namespace packet_internal {

void FailWrongType(const std::type_info* held, const std::type_info& wanted,
                   Timestamp timestamp) {
  LOG(FATAL) << "Packet::Get<" << DemangleTypeName(wanted)
             << ">() on a packet at " << timestamp.DebugString()
             << " that holds "
             << (held ? DemangleTypeName(*held) : std::string("nothing"));
  abort();
}

}  // namespace packet_internal

absl::Status Packet::ValidateAsType(const std::type_info& type) const {
  if (holder_ == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a packet of type ", DemangleTypeName(type),
                     " but the packet is empty"));
  }
  if (holder_->type() != type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the packet holds ", DemangleTypeName(holder_->type()),
        " but type ", DemangleTypeName(type), " was expected"));
  }
  return absl::OkStatus();
}

std::string Packet::DebugTypeName() const {
  return holder_ ? DemangleTypeName(holder_->type()) : "(empty)";
}

std::string Packet::DebugString() const {
  return absl::StrCat("Packet(type=", DebugTypeName(),
                      ", timestamp=", timestamp_.DebugString(), ")");
}

}  // namespace rill
