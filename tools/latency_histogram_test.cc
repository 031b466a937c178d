#include "tools/latency_histogram.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace rill {
namespace {

// Percentiles within 1% of the exact ones (sorted samples) over four
// decades, the mean and maximum exact, and the memory fixed however many
// samples come in.
TEST(LatencyHistogramTest, PercentilesWithinOnePercent) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> dist(2.0, 1.2);  // ms, median ~7 ms
  LatencyHistogram h;
  std::vector<double> all;
  double sum = 0;
  for (int i = 0; i < 200000; ++i) {
    const double v = dist(rng);
    h.Add(v);
    all.push_back(v);
    sum += v;
  }
  std::sort(all.begin(), all.end());
  for (double q : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    const double exact = all[static_cast<size_t>(q * (all.size() - 1) + 0.5)];
    EXPECT_NEAR(h.Percentile(q), exact, 0.01 * exact) << q;
  }
  EXPECT_DOUBLE_EQ(h.max(), all.back());
  EXPECT_NEAR(h.mean(), sum / all.size(), 1e-9 * sum);
  EXPECT_EQ(h.count(), 200000);
  EXPECT_EQ(sizeof(h), sizeof(LatencyHistogram));  // no per-sample storage
}

TEST(LatencyHistogramTest, EmptyAndExtremes) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(0.5), 0.0);
  EXPECT_EQ(h.mean(), 0.0);
  h.Add(0.0);
  h.Add(5e6);  // beyond the last bucket: the maximum still exact
  EXPECT_EQ(h.Percentile(0.0), 1e-3);
  EXPECT_EQ(h.Percentile(1.0), 5e6);
}

}  // namespace
}  // namespace rill
