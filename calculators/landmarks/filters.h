// One-dimensional smoothing filters for landmark coordinates and
// visibilities, with MediaPipe's semantics (mediapipe/util/filtering): a
// low-pass filter, the relative velocity filter behind
// LandmarksSmoothingCalculator's velocity_filter, and the 1€ filter behind
// its one_euro_filter (Casiez et al., CHI 2012). Timestamps are
// microseconds, as in packets. Each filter is one value's state; a landmark
// list uses one per coordinate.
#ifndef RILL_CALCULATORS_LANDMARKS_FILTERS_H_
#define RILL_CALCULATORS_LANDMARKS_FILTERS_H_

#include <cstddef>
#include <cstdint>
#include <deque>

#include "absl/status/statusor.h"

namespace rill {
namespace filtering {

// Exponential smoothing: out = alpha * value + (1 - alpha) * previous out.
// The first value passes unchanged. An alpha outside [0, 1] is ignored (the
// previous alpha stays), as in MediaPipe.
class LowPassFilter {
 public:
  explicit LowPassFilter(float alpha) { SetAlpha(alpha); }

  float Apply(float value);
  float ApplyWithAlpha(float value, float alpha) {
    SetAlpha(alpha);
    return Apply(value);
  }
  bool HasLastRawValue() const { return initialized_; }
  float LastRawValue() const { return raw_value_; }
  float LastValue() const { return stored_value_; }

 private:
  void SetAlpha(float alpha);

  float alpha_ = 0.f;
  bool initialized_ = false;
  float raw_value_ = 0.f;
  float stored_value_ = 0.f;
};

// Smooths a value with a low-pass filter whose alpha grows with the value's
// speed over a window of recent changes:
//   alpha = 1 - 1 / (1 + velocity_scale * |velocity|)
// where velocity is the summed change (each change taken in scaled units:
// value * value_scale - last value * last value_scale) over the summed
// duration in seconds of the newest changes, stopping before the summed
// duration would exceed (1 + window_size) / 30 s. Slow values are smoothed
// hard, fast ones barely. As in MediaPipe, the window starts out holding
// window_size zero-length, zero-distance changes, which add nothing to the
// sums but fix the span limit from the first frame on.
class RelativeVelocityFilter {
 public:
  RelativeVelocityFilter(size_t window_size, float velocity_scale)
      : max_window_size_(window_size),
        velocity_scale_(velocity_scale),
        window_(window_size, Change{0.f, 0}) {}

  // A timestamp not after the last one returns `value` unchanged and leaves
  // the state alone.
  float Apply(int64_t timestamp_us, float value, float value_scale);

 private:
  struct Change {
    float distance;
    int64_t duration_ns;
  };

  size_t max_window_size_;
  float velocity_scale_;
  float last_value_ = 0.f;
  float last_value_scale_ = 1.f;
  int64_t last_timestamp_ns_ = -1;
  std::deque<Change> window_;  // newest first
  LowPassFilter low_pass_{1.f};
};

// The 1€ filter: a low-pass filter whose cutoff frequency rises with the
// value's (smoothed) speed: cutoff = min_cutoff + beta * |d|, where d is the
// scaled derivative (value - last raw value) * value_scale * frequency,
// low-passed at derivate_cutoff; alpha(cutoff) = 1 / (1 + tau / te) with
// tau = 1 / (2 pi cutoff) and te = 1 / frequency. The frequency is measured
// from consecutive timestamps; `frequency` is the starting guess, which
// stays in use for the second value when the first came at timestamp 0
// (MediaPipe measures only between two non-zero timestamps).
class OneEuroFilter {
 public:
  // frequency, min_cutoff and derivate_cutoff must be > 0.
  static absl::StatusOr<OneEuroFilter> Create(double frequency,
                                              double min_cutoff, double beta,
                                              double derivate_cutoff);

  // A timestamp not after the last one returns `value` unchanged.
  double Apply(int64_t timestamp_us, double value, double value_scale,
               double beta_scale = 1.0);

 private:
  OneEuroFilter(double frequency, double min_cutoff, double beta,
                double derivate_cutoff);
  double Alpha(double cutoff) const;

  double frequency_;
  double min_cutoff_;
  double beta_;
  double derivate_cutoff_;
  LowPassFilter x_;
  LowPassFilter dx_;
  int64_t last_timestamp_ns_ = -1;
};

}  // namespace filtering
}  // namespace rill

#endif  // RILL_CALCULATORS_LANDMARKS_FILTERS_H_
