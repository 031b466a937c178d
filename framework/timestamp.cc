#include "framework/timestamp.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"

namespace rill {
namespace {

// Saturating add of two int64 values, clamped into [lo, hi].
int64_t ClampedAdd(int64_t a, int64_t b, int64_t lo, int64_t hi) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? hi : lo;
  if (sum < lo) return lo;
  if (sum > hi) return hi;
  return sum;
}

}  // namespace

Timestamp Timestamp::FromSeconds(double seconds) {
  const double us = std::round(seconds * 1e6);
  if (us <= static_cast<double>(Min().Value())) return Min();
  if (us >= static_cast<double>(Max().Value())) return Max();
  return Timestamp(static_cast<int64_t>(us));
}

Timestamp Timestamp::NextAllowedInStreamSlow() const {
  if (*this == Unset() || *this == Unstarted()) return PreStream();
  if (*this == PreStream()) return Min();
  if (*this == Max() || *this >= PostStream()) {
    // After Max only PostStream may come; after PostStream nothing.
    return *this == Max() ? PostStream() : Done();
  }
  return Timestamp(value_ + 1);
}

std::string Timestamp::DebugString() const {
  if (*this == Unset()) return "Timestamp::Unset()";
  if (*this == Unstarted()) return "Timestamp::Unstarted()";
  if (*this == PreStream()) return "Timestamp::PreStream()";
  if (*this == Min()) return "Timestamp::Min()";
  if (*this == Max()) return "Timestamp::Max()";
  if (*this == PostStream()) return "Timestamp::PostStream()";
  if (*this == OneOverPostStream()) return "Timestamp::OneOverPostStream()";
  if (*this == Done()) return "Timestamp::Done()";
  return absl::StrCat(value_);
}

Timestamp Timestamp::AddSlow(int64_t d) const {
  CHECK(IsRangeValue()) << "Timestamp arithmetic on special value "
                        << DebugString();
  return Timestamp(ClampedAdd(value_, d, Min().Value(), Max().Value()));
}

Timestamp Timestamp::operator-(TimestampDiff d) const {
  return *this + (-d);
}

Timestamp Timestamp::operator+(int64_t d) const {
  return *this + TimestampDiff(d);
}

Timestamp Timestamp::operator-(int64_t d) const {
  return *this - TimestampDiff(d);
}

TimestampDiff Timestamp::operator-(Timestamp o) const {
  CHECK(IsRangeValue() && o.IsRangeValue())
      << "Timestamp difference of " << DebugString() << " and "
      << o.DebugString() << ": both must be range values";
  return TimestampDiff(value_ - o.value_);  // Range values cannot overflow.
}

TimestampDiff TimestampDiff::operator+(TimestampDiff o) const {
  int64_t sum;
  if (__builtin_add_overflow(value_, o.value_, &sum)) {
    sum = o.value_ > 0 ? std::numeric_limits<int64_t>::max()
                       : std::numeric_limits<int64_t>::min() + 1;
  }
  return TimestampDiff(sum);
}

TimestampDiff TimestampDiff::operator-(TimestampDiff o) const {
  return *this + (-o);
}

TimestampDiff TimestampDiff::operator-() const {
  if (value_ == std::numeric_limits<int64_t>::min()) {
    return TimestampDiff(std::numeric_limits<int64_t>::max());
  }
  return TimestampDiff(-value_);
}

std::string TimestampDiff::DebugString() const { return absl::StrCat(value_); }

std::ostream& operator<<(std::ostream& os, Timestamp t) {
  return os << t.DebugString();
}
std::ostream& operator<<(std::ostream& os, TimestampDiff d) {
  return os << d.DebugString();
}

}  // namespace rill
