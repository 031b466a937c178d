#include "calculators/landmarks/filters.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace rill {
namespace filtering {
namespace {

constexpr double kNanosecondsToSeconds = 1e-9;
constexpr double kPi = 3.14159265358979323846;

}  // namespace

void LowPassFilter::SetAlpha(float alpha) {
  if (alpha < 0.f || alpha > 1.f) return;
  alpha_ = alpha;
}

float LowPassFilter::Apply(float value) {
  float result = value;
  if (initialized_) {
    // The blend is computed in double and stored as float, as MediaPipe
    // does, so results match it bit for bit.
    result =
        static_cast<float>(alpha_ * value + (1.0 - alpha_) * stored_value_);
  }
  initialized_ = true;
  raw_value_ = value;
  stored_value_ = result;
  return result;
}

float RelativeVelocityFilter::Apply(int64_t timestamp_us, float value,
                                    float value_scale) {
  const int64_t now_ns = timestamp_us * 1000;
  if (now_ns <= last_timestamp_ns_) return value;

  float alpha = 1.f;
  if (last_timestamp_ns_ != -1) {
    const float distance =
        value * value_scale - last_value_ * last_value_scale_;
    const int64_t duration_ns = now_ns - last_timestamp_ns_;
    float summed_distance = distance;
    int64_t summed_duration_ns = duration_ns;
    // Older changes count while the summed span stays within what
    // 1 + window entries take at 30 frames per second.
    constexpr int64_t kFrameAt30FpsNs = 1000000000 / 30;
    const int64_t max_span_ns =
        static_cast<int64_t>(1 + window_.size()) * kFrameAt30FpsNs;
    for (const Change& c : window_) {
      if (summed_duration_ns + c.duration_ns > max_span_ns) break;
      summed_distance += c.distance;
      summed_duration_ns += c.duration_ns;
    }
    const float velocity = static_cast<float>(
        summed_distance / (summed_duration_ns * kNanosecondsToSeconds));
    alpha = 1.f - 1.f / (1.f + velocity_scale_ * std::abs(velocity));
    window_.push_front({distance, duration_ns});
    if (window_.size() > max_window_size_) window_.pop_back();
  }
  last_value_ = value;
  last_value_scale_ = value_scale;
  last_timestamp_ns_ = now_ns;
  return low_pass_.ApplyWithAlpha(value, alpha);
}

absl::StatusOr<OneEuroFilter> OneEuroFilter::Create(double frequency,
                                                    double min_cutoff,
                                                    double beta,
                                                    double derivate_cutoff) {
  constexpr double kEpsilon = 1e-6;
  if (frequency <= kEpsilon) {
    return absl::InvalidArgumentError(
        absl::StrCat("one_euro_filter.frequency must be > 0, got ", frequency));
  }
  if (min_cutoff <= kEpsilon) {
    return absl::InvalidArgumentError(absl::StrCat(
        "one_euro_filter.min_cutoff must be > 0, got ", min_cutoff));
  }
  if (derivate_cutoff <= kEpsilon) {
    return absl::InvalidArgumentError(absl::StrCat(
        "one_euro_filter.derivate_cutoff must be > 0, got ", derivate_cutoff));
  }
  return OneEuroFilter(frequency, min_cutoff, beta, derivate_cutoff);
}

OneEuroFilter::OneEuroFilter(double frequency, double min_cutoff, double beta,
                             double derivate_cutoff)
    : frequency_(frequency),
      min_cutoff_(min_cutoff),
      beta_(beta),
      derivate_cutoff_(derivate_cutoff),
      x_(static_cast<float>(Alpha(min_cutoff))),
      dx_(static_cast<float>(Alpha(derivate_cutoff))) {}

double OneEuroFilter::Alpha(double cutoff) const {
  const double te = 1.0 / frequency_;
  const double tau = 1.0 / (2 * kPi * cutoff);
  return 1.0 / (1.0 + tau / te);
}

double OneEuroFilter::Apply(int64_t timestamp_us, double value,
                            double value_scale, double beta_scale) {
  const int64_t now_ns = timestamp_us * 1000;
  if (now_ns <= last_timestamp_ns_) return value;
  // MediaPipe's rule: measure the rate only between two non-zero
  // timestamps (the very first call measures against -1 ns, a value the
  // next call replaces before it is used).
  if (last_timestamp_ns_ != 0 && now_ns != 0) {
    frequency_ = 1.0 / ((now_ns - last_timestamp_ns_) * kNanosecondsToSeconds);
  }
  last_timestamp_ns_ = now_ns;

  double derivative = 0.0;
  if (x_.HasLastRawValue()) {
    derivative = (value - x_.LastRawValue()) * value_scale * frequency_;
  }
  const double smoothed_derivative =
      dx_.ApplyWithAlpha(static_cast<float>(derivative),
                         static_cast<float>(Alpha(derivate_cutoff_)));
  const double cutoff =
      min_cutoff_ + beta_scale * beta_ * std::fabs(smoothed_derivative);
  return x_.ApplyWithAlpha(static_cast<float>(value),
                           static_cast<float>(Alpha(cutoff)));
}

}  // namespace filtering
}  // namespace rill
