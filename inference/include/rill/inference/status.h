// The engine's own small error type. The engine depends on the C++ standard
// library only, so it cannot use absl::Status; this has the same shape (a code
// and a message) so the inference calculator can translate it one to one.
// Messages name the model file, node and op at fault.
#ifndef RILL_INFERENCE_STATUS_H_
#define RILL_INFERENCE_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace rill::inference {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kUnimplemented,
  kDataLoss,
  kFailedPrecondition,
  kOutOfRange,
  kInternal,
  kUnavailable,  // a device or driver the request needs is not there
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const {
    if (ok()) return "OK";
    return std::string(StatusCodeName(code_)) + ": " + message_;
  }

  // Returns a copy whose message is prefixed with `context` ("file.tflite: ").
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case StatusCode::kDataLoss: return "DATA_LOSS";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
  }
  return "UNKNOWN";
}

inline Status InvalidArgumentError(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status NotFoundError(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status UnimplementedError(std::string m) { return Status(StatusCode::kUnimplemented, std::move(m)); }
inline Status DataLossError(std::string m) { return Status(StatusCode::kDataLoss, std::move(m)); }
inline Status FailedPreconditionError(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status OutOfRangeError(std::string m) { return Status(StatusCode::kOutOfRange, std::move(m)); }
inline Status InternalError(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
inline Status UnavailableError(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }

// Either a value or a non-OK Status.
template <typename T>
class StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = InternalError("StatusOr built from an OK status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace rill::inference

#define RILL_INF_CONCAT_INNER(a, b) a##b
#define RILL_INF_CONCAT(a, b) RILL_INF_CONCAT_INNER(a, b)

#define RILL_INF_RETURN_IF_ERROR(expr)                          \
  do {                                                          \
    ::rill::inference::Status rill_inf_status_ = (expr);        \
    if (!rill_inf_status_.ok()) return rill_inf_status_;        \
  } while (0)

#define RILL_INF_ASSIGN_OR_RETURN(lhs, expr)                                  \
  auto RILL_INF_CONCAT(rill_inf_statusor_, __LINE__) = (expr);                \
  if (!RILL_INF_CONCAT(rill_inf_statusor_, __LINE__).ok())                    \
    return RILL_INF_CONCAT(rill_inf_statusor_, __LINE__).status();            \
  lhs = std::move(RILL_INF_CONCAT(rill_inf_statusor_, __LINE__)).value()

#endif  // RILL_INFERENCE_STATUS_H_
