#include "framework/status_util.h"

#include "absl/strings/str_cat.h"

namespace rill {

namespace {
constexpr absl::string_view kStopMessage = "source calculator stopped";
}

absl::Status StatusStop() { return absl::OutOfRangeError(kStopMessage); }

bool IsStatusStop(const absl::Status& status) {
  return status.code() == absl::StatusCode::kOutOfRange &&
         status.message() == kStopMessage;
}

absl::Status AnnotateStatus(const absl::Status& status,
                            absl::string_view prefix) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

}  // namespace rill
