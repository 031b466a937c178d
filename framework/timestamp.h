// Timestamps order packets within a stream. Besides ordinary values (in
// microseconds by convention) there are special values that mark the
// boundaries of a stream, with the same ordering and meaning as MediaPipe:
//   Unset < Unstarted < PreStream < Min <= values <= Max < PostStream
//   < OneOverPostStream < Done.
// Arithmetic on range values saturates at Min/Max instead of overflowing;
// arithmetic on special values is a programming error and aborts with a
// message naming the value.
#ifndef RILL_FRAMEWORK_TIMESTAMP_H_
#define RILL_FRAMEWORK_TIMESTAMP_H_

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace rill {

class TimestampDiff;

class Timestamp {
 public:
  constexpr Timestamp() : value_(kUnsetValue) {}
  constexpr explicit Timestamp(int64_t value) : value_(value) {}

  constexpr int64_t Value() const { return value_; }
  double Seconds() const { return static_cast<double>(value_) / 1e6; }
  int64_t Microseconds() const { return value_; }
  static Timestamp FromSeconds(double seconds);

  static constexpr Timestamp Unset() { return Timestamp(kUnsetValue); }
  static constexpr Timestamp Unstarted() { return Timestamp(kUnsetValue + 1); }
  static constexpr Timestamp PreStream() { return Timestamp(kUnsetValue + 2); }
  static constexpr Timestamp Min() { return Timestamp(kUnsetValue + 3); }
  static constexpr Timestamp Max() { return Timestamp(kDoneValue - 3); }
  static constexpr Timestamp PostStream() { return Timestamp(kDoneValue - 2); }
  static constexpr Timestamp OneOverPostStream() {
    return Timestamp(kDoneValue - 1);
  }
  static constexpr Timestamp Done() { return Timestamp(kDoneValue); }

  // A range value is an ordinary timestamp in [Min, Max].
  constexpr bool IsRangeValue() const {
    return value_ >= Min().value_ && value_ <= Max().value_;
  }
  constexpr bool IsSpecialValue() const { return !IsRangeValue(); }
  // Packets may carry range values, PreStream or PostStream.
  constexpr bool IsAllowedInStream() const {
    return IsRangeValue() || *this == PreStream() || *this == PostStream();
  }

  // The smallest timestamp a later packet of the same stream may carry.
  Timestamp NextAllowedInStream() const {
    if (value_ >= Min().value_ && value_ < Max().value_) {
      return Timestamp(value_ + 1);  // the common case, kept inline
    }
    return NextAllowedInStreamSlow();
  }
  // True when no packet may follow this one in a stream.
  bool HasNoAllowedNext() const { return NextAllowedInStream() == Done(); }

  std::string DebugString() const;

  constexpr bool operator==(Timestamp o) const { return value_ == o.value_; }
  constexpr bool operator!=(Timestamp o) const { return value_ != o.value_; }
  constexpr bool operator<(Timestamp o) const { return value_ < o.value_; }
  constexpr bool operator<=(Timestamp o) const { return value_ <= o.value_; }
  constexpr bool operator>(Timestamp o) const { return value_ > o.value_; }
  constexpr bool operator>=(Timestamp o) const { return value_ >= o.value_; }

  inline Timestamp operator+(TimestampDiff d) const;
  Timestamp operator-(TimestampDiff d) const;
  TimestampDiff operator-(Timestamp o) const;
  Timestamp operator+(int64_t d) const;
  Timestamp operator-(int64_t d) const;
  Timestamp& operator+=(TimestampDiff d);
  Timestamp& operator-=(TimestampDiff d);
  Timestamp& operator++() { return *this = *this + 1; }
  Timestamp operator++(int) {
    Timestamp old = *this;
    ++*this;
    return old;
  }

 private:
  Timestamp NextAllowedInStreamSlow() const;
  Timestamp AddSlow(int64_t d) const;
  static constexpr int64_t kUnsetValue = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kDoneValue = std::numeric_limits<int64_t>::max();
  int64_t value_;
};

// A difference between two range timestamps. Arithmetic saturates.
class TimestampDiff {
 public:
  constexpr TimestampDiff() : value_(0) {}
  constexpr explicit TimestampDiff(int64_t value) : value_(value) {}
  constexpr int64_t Value() const { return value_; }
  double Seconds() const { return static_cast<double>(value_) / 1e6; }
  static TimestampDiff Unset() {
    return TimestampDiff(std::numeric_limits<int64_t>::min());
  }
  TimestampDiff operator+(TimestampDiff o) const;
  TimestampDiff operator-(TimestampDiff o) const;
  TimestampDiff operator-() const;
  constexpr bool operator==(TimestampDiff o) const { return value_ == o.value_; }
  constexpr bool operator!=(TimestampDiff o) const { return value_ != o.value_; }
  constexpr bool operator<(TimestampDiff o) const { return value_ < o.value_; }
  constexpr bool operator>(TimestampDiff o) const { return value_ > o.value_; }
  constexpr bool operator<=(TimestampDiff o) const { return value_ <= o.value_; }
  constexpr bool operator>=(TimestampDiff o) const { return value_ >= o.value_; }
  std::string DebugString() const;

 private:
  int64_t value_;
};

inline Timestamp Timestamp::operator+(TimestampDiff d) const {
  // Fast path: both small enough that the sum cannot leave the range.
  constexpr int64_t kSafe = int64_t{1} << 60;
  if (value_ > -kSafe && value_ < kSafe && d.Value() > -kSafe &&
      d.Value() < kSafe) {
    return Timestamp(value_ + d.Value());
  }
  return AddSlow(d.Value());
}

inline Timestamp& Timestamp::operator+=(TimestampDiff d) {
  return *this = *this + d;
}
inline Timestamp& Timestamp::operator-=(TimestampDiff d) {
  return *this = *this - d;
}

std::ostream& operator<<(std::ostream& os, Timestamp t);
std::ostream& operator<<(std::ostream& os, TimestampDiff d);

}  // namespace rill

#endif  // RILL_FRAMEWORK_TIMESTAMP_H_
