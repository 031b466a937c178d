#include "calculators/core/split_vector_calculator.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rill {

absl::Status ValidateSplitVectorOptions(
    const SplitVectorCalculatorOptions& options, int num_outputs,
    const std::string& calculator, const std::string& node) {
  const std::string where = absl::StrCat(calculator, " node \"", node, "\": ");
  if (options.ranges_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "SplitVectorCalculatorOptions.ranges is empty; give at least "
               "one range"));
  }
  if (options.element_only() && options.combine_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "SplitVectorCalculatorOptions.element_only and "
               "combine_outputs cannot both be set"));
  }
  for (int i = 0; i < options.ranges_size(); ++i) {
    const Range& r = options.ranges(i);
    if (r.begin() < 0 || r.end() <= r.begin()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "range ", i, " {begin: ", r.begin(), " end: ", r.end(),
          "} is invalid; need 0 <= begin < end"));
    }
    if (options.element_only() && r.end() - r.begin() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "element_only is set, so every range must hold one element, "
                 "but range ", i, " {begin: ", r.begin(), " end: ", r.end(),
          "} holds ", r.end() - r.begin()));
    }
  }
  if (options.combine_outputs()) {
    std::vector<std::pair<int, int>> sorted;
    for (const Range& r : options.ranges()) sorted.emplace_back(r.begin(), r.end());
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i].first < sorted[i - 1].second) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "with combine_outputs the ranges must not overlap, but [",
            sorted[i - 1].first, ", ", sorted[i - 1].second, ") and [",
            sorted[i].first, ", ", sorted[i].second, ") do"));
      }
    }
    if (num_outputs != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "combine_outputs is set, so the node needs exactly one "
                 "output stream, has ",
          num_outputs));
    }
  } else if (num_outputs != options.ranges_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "has ", num_outputs, " output streams but ",
        options.ranges_size(), " ranges; give one output stream per range"));
  }
  return absl::OkStatus();
}

using SplitFloatVectorCalculator = SplitVectorCalculator<float>;
REGISTER_CALCULATOR(SplitFloatVectorCalculator);

using SplitIntVectorCalculator = SplitVectorCalculator<int>;
REGISTER_CALCULATOR(SplitIntVectorCalculator);

using SplitUint64tVectorCalculator = SplitVectorCalculator<uint64_t>;
REGISTER_CALCULATOR(SplitUint64tVectorCalculator);

using SplitStringVectorCalculator = SplitVectorCalculator<std::string>;
REGISTER_CALCULATOR(SplitStringVectorCalculator);

}  // namespace rill
