// Status helpers shared by the framework and calculators.
#ifndef RILL_FRAMEWORK_STATUS_UTIL_H_
#define RILL_FRAMEWORK_STATUS_UTIL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace rill {

// Returned by a source calculator's Process() to say it has no more data.
absl::Status StatusStop();
bool IsStatusStop(const absl::Status& status);

// The same error code with `prefix` in front of the message.
absl::Status AnnotateStatus(const absl::Status& status,
                            absl::string_view prefix);

}  // namespace rill

#define RILL_RETURN_IF_ERROR(expr)                   \
  do {                                               \
    const absl::Status _rill_status = (expr);        \
    if (!_rill_status.ok()) return _rill_status;     \
  } while (0)

#define RILL_CONCAT_INNER(a, b) a##b
#define RILL_CONCAT(a, b) RILL_CONCAT_INNER(a, b)
#define RILL_ASSIGN_OR_RETURN(lhs, expr) \
  RILL_ASSIGN_OR_RETURN_IMPL(RILL_CONCAT(_rill_statusor_, __LINE__), lhs, expr)
#define RILL_ASSIGN_OR_RETURN_IMPL(var, lhs, expr) \
  auto var = (expr);                               \
  if (!var.ok()) return var.status();              \
  lhs = std::move(*var)

#endif  // RILL_FRAMEWORK_STATUS_UTIL_H_
