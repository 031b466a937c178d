#include "inference/backend/cpu/kernels/ref/unique.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
namespace {

// -1, 0, 1: a before, equal to, after b (NaN after every number, NaNs equal).
int Compare(float a, float b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

long long UniqueRef(const ir::UniqueAttrs& a, long long outer, long long n, long long inner, const float* x,
                    long long* scratch, float* y) {
  long long* order = scratch;           // slice indices, sorted
  long long* group_of = scratch + n;    // slice -> group (groups in sorted order)
  long long* first = scratch + 2 * n;   // group -> its first slice
  long long* counts = scratch + 3 * n;  // group -> slices in it
  long long* out_order = scratch + 4 * n;  // output position -> group
  long long* out_pos = scratch + 5 * n;    // group -> output position
  auto compare = [&](long long i, long long j) {
    for (long long o = 0; o < outer; ++o) {
      const float* si = x + (o * n + i) * inner;
      const float* sj = x + (o * n + j) * inner;
      for (long long k = 0; k < inner; ++k) {
        const int r = Compare(si[k], sj[k]);
        if (r != 0) return r;
      }
    }
    return 0;
  };
  for (long long i = 0; i < n; ++i) order[i] = i;
  // Ties broken by index: each group starts at its first occurrence.
  std::sort(order, order + n, [&](long long i, long long j) {
    const int r = compare(i, j);
    return r != 0 ? r < 0 : i < j;
  });
  long long count = 0;
  for (long long k = 0; k < n; ++k) {
    if (k == 0 || compare(order[k - 1], order[k]) != 0) {
      first[count] = order[k];
      counts[count] = 0;
      ++count;
    }
    group_of[order[k]] = count - 1;
    ++counts[count - 1];
  }
  for (long long g = 0; g < count; ++g) out_order[g] = g;
  if (!a.sorted) std::sort(out_order, out_order + count, [&](long long g, long long h) { return first[g] < first[h]; });
  for (long long p = 0; p < count; ++p) out_pos[out_order[p]] = p;
  switch (a.output) {
    case ir::UniqueAttrs::Output::kValues:
      for (long long o = 0; o < outer; ++o) {
        for (long long p = 0; p < count; ++p) {
          const float* src = x + (o * n + first[out_order[p]]) * inner;
          std::copy(src, src + inner, y + (o * count + p) * inner);
        }
      }
      break;
    case ir::UniqueAttrs::Output::kIndices:
      for (long long p = 0; p < count; ++p) y[p] = static_cast<float>(first[out_order[p]]);
      break;
    case ir::UniqueAttrs::Output::kInverse:
      for (long long i = 0; i < n; ++i) y[i] = static_cast<float>(out_pos[group_of[i]]);
      break;
    case ir::UniqueAttrs::Output::kCounts:
      for (long long p = 0; p < count; ++p) y[p] = static_cast<float>(counts[out_order[p]]);
      break;
  }
  return count;
}

}  // namespace rill::inference::cpu
