// The filters against sequences worked out by hand from their definitions
// (filters.h), computed here in double precision; the filters keep floats,
// hence the tolerances.
#include "calculators/landmarks/filters.h"

#include <cmath>

#include "gtest/gtest.h"

namespace rill {
namespace filtering {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(LowPassFilterTest, BlendsWithThePreviousOutput) {
  LowPassFilter f(0.5f);
  EXPECT_FALSE(f.HasLastRawValue());
  EXPECT_FLOAT_EQ(f.Apply(1.f), 1.f);  // the first value passes
  EXPECT_FLOAT_EQ(f.Apply(0.f), 0.5f);
  EXPECT_FLOAT_EQ(f.Apply(0.f), 0.25f);
  EXPECT_FLOAT_EQ(f.LastRawValue(), 0.f);
  EXPECT_FLOAT_EQ(f.LastValue(), 0.25f);
  // 0.25 * 4 + 0.75 * 0.25 = 1.1875.
  EXPECT_FLOAT_EQ(f.ApplyWithAlpha(4.f, 0.25f), 1.1875f);
  // Alpha out of [0, 1] keeps the last one (0.25): 0.25 * 0 + 0.75 * 1.1875.
  EXPECT_FLOAT_EQ(f.ApplyWithAlpha(0.f, 2.f), 0.890625f);
}

TEST(RelativeVelocityFilterTest, StepAt30Fps) {
  RelativeVelocityFilter f(/*window_size=*/5, /*velocity_scale=*/10.f);
  const int64_t frame_us = 33333;
  EXPECT_FLOAT_EQ(f.Apply(0, 0.f, 1.f), 0.f);
  // One change of 1 over 33.333 ms: velocity 1 / 0.033333 s.
  const double v1 = 1.0 / 0.033333;
  const double a1 = 1.0 - 1.0 / (1.0 + 10.0 * v1);
  const double y1 = a1;
  EXPECT_NEAR(f.Apply(frame_us, 1.f, 1.f), y1, 1e-6);
  // No change now, but the window still holds the step: (0 + 1) over
  // 66.666 ms, within the (1 + 5) / 30 s span limit.
  const double v2 = 1.0 / 0.066666;
  const double a2 = 1.0 - 1.0 / (1.0 + 10.0 * v2);
  const double y2 = a2 * 1.0 + (1.0 - a2) * y1;
  EXPECT_NEAR(f.Apply(2 * frame_us, 1.f, 1.f), y2, 1e-6);
  // The step converges: each output is closer to 1 than the last.
  double last = y2;
  for (int i = 3; i < 30; ++i) {
    const double y = f.Apply(i * frame_us, 1.f, 1.f);
    EXPECT_GE(y, last - 1e-7);
    EXPECT_LE(y, 1.0 + 1e-7);
    last = y;
  }
  EXPECT_NEAR(last, 1.0, 1e-3);
}

TEST(RelativeVelocityFilterTest, OldChangesBeyondTheSpanLimitAreIgnored) {
  RelativeVelocityFilter f(/*window_size=*/5, /*velocity_scale=*/10.f);
  f.Apply(0, 0.f, 1.f);
  // 10 fps: velocity 1 / 0.1 s = 10, alpha 1 - 1 / 101.
  const double y1 = 1.0 - 1.0 / 101.0;
  EXPECT_NEAR(f.Apply(100000, 1.f, 1.f), y1, 1e-6);
  // 0.1 s + 0.1 s exceeds the span limit (1 + 5) * 33333333 ns, so the step
  // drops out: velocity 0, alpha 0, the output holds.
  EXPECT_NEAR(f.Apply(200000, 1.f, 1.f), y1, 1e-6);
}

TEST(RelativeVelocityFilterTest, ScalesDistancesAndIgnoresOldTimestamps) {
  RelativeVelocityFilter f(5, 10.f);
  f.Apply(0, 0.f, 0.5f);
  // distance = 2 * 0.5 - 0 * 0.5 = 1 over 0.1 s: same as the unscaled 1.
  const double y1 = (1.0 - 1.0 / 101.0) * 2.0;
  EXPECT_NEAR(f.Apply(100000, 2.f, 0.5f), y1, 1e-5);
  // Not after the last timestamp: the value comes back as is.
  EXPECT_EQ(f.Apply(100000, 7.f, 0.5f), 7.f);
}

double Alpha(double frequency, double cutoff) {
  const double te = 1.0 / frequency;
  const double tau = 1.0 / (2 * kPi * cutoff);
  return 1.0 / (1.0 + tau / te);
}

TEST(OneEuroFilterTest, ZeroBetaIsALowPassAtMinCutoff) {
  auto f = OneEuroFilter::Create(/*frequency=*/30, /*min_cutoff=*/1,
                                 /*beta=*/0, /*derivate_cutoff=*/1);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->Apply(0, 0.0, 1.0), 0.0);
  // The first value came at 0, so the second still uses 30 Hz.
  const double a30 = Alpha(30.0, 1.0);  // 1 / (1 + 30 / (2 pi))
  EXPECT_NEAR(a30, 0.1731707, 1e-6);
  const double y1 = a30;
  EXPECT_NEAR(f->Apply(33333, 1.0, 1.0), y1, 1e-6);
  // From here the rate is measured: 1 / 33.333 ms.
  const double a = Alpha(1.0 / 0.033333, 1.0);
  const double y2 = a + (1 - a) * y1;
  EXPECT_NEAR(f->Apply(66666, 1.0, 1.0), y2, 1e-6);
  const double y3 = a + (1 - a) * y2;
  EXPECT_NEAR(f->Apply(99999, 1.0, 1.0), y3, 1e-6);
}

TEST(OneEuroFilterTest, BetaRaisesTheCutoffWithSpeed) {
  auto f = OneEuroFilter::Create(30, 1, /*beta=*/0.5, 1);
  ASSERT_TRUE(f.ok());
  f->Apply(0, 0.0, 1.0);  // the derivative filter starts at 0
  // Still 30 Hz (the first value came at 0). Derivative (1 - 0) * value
  // scale 2 * 30 Hz = 60, smoothed at 1 Hz: d1 = alpha(30, 1) * 60; the
  // cutoff is 1 + 0.5 * d1.
  const double d1 = Alpha(30.0, 1.0) * 60.0;
  const double y1 = Alpha(30.0, 1.0 + 0.5 * d1);
  EXPECT_NEAR(f->Apply(33333, 1.0, 2.0), y1, 1e-6);
  // No change now: the derivative 0 is blended in at the measured rate.
  const double rate = 1.0 / 0.033333;
  const double ad = Alpha(rate, 1.0);
  const double d2 = (1 - ad) * d1;
  const double a = Alpha(rate, 1.0 + 0.5 * d2);
  EXPECT_NEAR(f->Apply(66666, 1.0, 2.0), a + (1 - a) * y1, 1e-5);
  // Against beta 0 the raised cutoff follows the step faster.
  EXPECT_GT(y1, Alpha(30.0, 1.0));
}

TEST(OneEuroFilterTest, RejectsNonPositiveParameters) {
  EXPECT_FALSE(OneEuroFilter::Create(0, 1, 0, 1).ok());
  EXPECT_FALSE(OneEuroFilter::Create(30, 0, 0, 1).ok());
  EXPECT_FALSE(OneEuroFilter::Create(30, 1, 0, -1).ok());
}

}  // namespace
}  // namespace filtering
}  // namespace rill
