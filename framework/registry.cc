#include "framework/registry.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace rill {
namespace {

int EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int sub = absl::ascii_tolower(a[i - 1]) ==
                              absl::ascii_tolower(b[j - 1])
                          ? 0
                          : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string UnqualifiedName(absl::string_view name) {
  for (absl::string_view prefix : {"mediapipe.", "rill.", "::mediapipe::",
                                   "mediapipe::", "::rill::", "rill::"}) {
    if (absl::StartsWith(name, prefix)) return std::string(name.substr(prefix.size()));
  }
  return std::string(name);
}

std::vector<std::string> ClosestNames(absl::string_view name,
                                      const std::vector<std::string>& names,
                                      int max) {
  const std::string wanted = UnqualifiedName(name);
  std::vector<std::pair<int, std::string>> scored;
  const int limit = std::max<int>(3, static_cast<int>(wanted.size()) / 3);
  for (const std::string& n : names) {
    int d = EditDistance(wanted, n);
    const std::string ln = absl::AsciiStrToLower(n);
    const std::string lw = absl::AsciiStrToLower(wanted);
    if (!lw.empty() && (absl::StrContains(ln, lw) || absl::StrContains(lw, ln))) {
      d = std::min(d, 1);
    }
    if (d <= limit) scored.emplace_back(d, n);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && static_cast<int>(i) < max; ++i) {
    out.push_back(scored[i].second);
  }
  return out;
}

}  // namespace rill
