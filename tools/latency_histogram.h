// Latency percentiles in constant memory: a day-long camera run must not
// keep every frame's latency. Log-spaced buckets 1% wide from 1 us to 1000 s
// (about 2100 counters), exact count, sum (mean) and maximum; a percentile
// is its bucket's geometric midpoint, within 0.5% of the true value.
#ifndef RILL_TOOLS_LATENCY_HISTOGRAM_H_
#define RILL_TOOLS_LATENCY_HISTOGRAM_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace rill {

class LatencyHistogram {
 public:
  LatencyHistogram() : counts_(kBuckets, 0) {}

  void Add(double ms) {
    ++count_;
    sum_ += ms;
    max_ = std::max(max_, ms);
    counts_[Bucket(ms)] += 1;
  }

  int64_t count() const { return count_; }
  double mean() const { return count_ > 0 ? sum_ / count_ : 0.0; }
  double max() const { return max_; }
  // The q-quantile (0 <= q <= 1), by the nearest rank; 0 without samples.
  double Percentile(double q) const {
    if (count_ == 0) return 0.0;
    const int64_t rank = std::min<int64_t>(count_ - 1, static_cast<int64_t>(q * (count_ - 1) + 0.5));
    if (rank == count_ - 1) return max_;  // the largest sample is kept exactly
    int64_t seen = 0;
    for (int b = 0; b < kBuckets - 1; ++b) {
      seen += counts_[b];
      if (seen > rank) return std::min(max_, Midpoint(b));
    }
    return max_;  // the open-ended last bucket
  }

 private:
  static constexpr double kMinMs = 1e-3, kGrowth = 1.01;
  static constexpr int kBuckets = 2100;  // 1e-3 * 1.01^2100 > 1e6 ms
  static int Bucket(double ms) {
    if (!(ms > kMinMs)) return 0;
    const int b = 1 + static_cast<int>(std::log(ms / kMinMs) / std::log(kGrowth));
    return std::min(b, kBuckets - 1);
  }
  // Bucket b > 0 holds (kMinMs * g^(b-1), kMinMs * g^b].
  static double Midpoint(int b) { return b == 0 ? kMinMs : kMinMs * std::pow(kGrowth, b - 0.5); }

  std::vector<int64_t> counts_;
  int64_t count_ = 0;
  double sum_ = 0.0, max_ = 0.0;
};

}  // namespace rill

#endif  // RILL_TOOLS_LATENCY_HISTOGRAM_H_
