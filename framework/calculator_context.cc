#include "framework/calculator_context.h"

#include "absl/strings/str_cat.h"

namespace rill {

const std::string InputStreamShard::kNoName = "";

void CalculatorContext::SetReport(std::string text) {
  if (report_ == nullptr) return;
  std::lock_guard<std::mutex> lock(report_->mu);
  report_->text = std::move(text);
}

absl::StatusOr<std::string> CalculatorContext::ResourcePath(
    const std::string& path, const std::string& what) const {
  // The framework prefixes a failing Open/Process with the node's name.
  static const Resources* const kWorkingDirectory = new Resources();
  return (resources_ != nullptr ? *resources_ : *kWorkingDirectory).Resolve(path, what);
}

Timestamp OutputStreamShard::NextTimestampBound() const {
  Timestamp b = committed_bound_;
  if (!packets_.empty()) {
    b = std::max(b, packets_.back().Timestamp().NextAllowedInStream());
  }
  return std::max(b, bound_);
}

const std::string& OutputStreamShard::Name() const {
  static const std::string kUnconnected = "(unconnected)";
  return spec_ ? spec_->name : kUnconnected;
}

void OutputStreamShard::Check(const Packet& packet) {
  if (!error_.empty()) return;
  const Timestamp ts = packet.Timestamp();
  if (!ts.IsAllowedInStream()) {
    error_ = absl::StrCat("packet at ", ts.DebugString(),
                          " is not allowed in a stream");
  } else if (ts < NextTimestampBound()) {
    error_ = absl::StrCat("packet at ", ts.DebugString(),
                          " is below the stream's bound ",
                          NextTimestampBound().DebugString(),
                          " (timestamps must increase)");
  } else if (IsClosed()) {
    error_ = absl::StrCat("packet at ", ts.DebugString(),
                          " added after the stream was closed");
  } else if (packet.IsEmpty()) {
    error_ = absl::StrCat("empty packet added at ", ts.DebugString());
  } else if (spec_ != nullptr && spec_->resolved_type != nullptr &&
             packet.GetTypeInfo() != spec_->resolved_type &&
             *packet.GetTypeInfo() != *spec_->resolved_type) {
    error_ = std::string(packet.ValidateAsType(*spec_->resolved_type).message());
  }
}

}  // namespace rill
