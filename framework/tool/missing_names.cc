#include "framework/tool/missing_names.h"

#include <algorithm>
#include <utility>

namespace rill {
namespace {

// Appends `name` unless empty or already there.
void AddOnce(std::string name, std::vector<std::string>* names) {
  if (name.empty()) return;
  if (std::find(names->begin(), names->end(), name) != names->end()) return;
  names->push_back(std::move(name));
}

// Every quoted string that directly follows `before` and is directly
// followed by `after` in `text`, with its position.
std::vector<std::pair<size_t, std::string>> QuotedBetween(
    absl::string_view text, absl::string_view before, absl::string_view after) {
  std::vector<std::pair<size_t, std::string>> found;
  size_t pos = 0;
  while ((pos = text.find(before, pos)) != absl::string_view::npos) {
    const size_t start = pos + before.size();
    pos = start;
    const size_t end = text.find('"', start);
    if (end == absl::string_view::npos) break;
    if (text.substr(end + 1, after.size()) != after) continue;
    found.emplace_back(start, std::string(text.substr(start, end - start)));
  }
  return found;
}

// "type.googleapis.com/mediapipe.X" -> "mediapipe.X".
std::string TypeOfUrl(absl::string_view url) {
  const size_t slash = url.rfind('/');
  return std::string(slash == absl::string_view::npos ? url
                                                      : url.substr(slash + 1));
}

// "mediapipe.X.ext" -> "mediapipe.X": the message that declares the
// extension field (MediaPipe's options all name theirs `ext`).
std::string TypeOfExtension(absl::string_view extension) {
  const size_t dot = extension.rfind('.');
  return std::string(dot == absl::string_view::npos ? extension
                                                    : extension.substr(0, dot));
}

}  // namespace

MissingNames FindMissingNames(absl::string_view error_message) {
  MissingNames names;
  for (auto& found : QuotedBetween(error_message, "no calculator named \"",
                                   " is registered")) {
    AddOnce(std::move(found.second), &names.calculators);
  }
  // The three texts may interleave in one message; keep their order of
  // appearance by collecting (position, type) pairs first.
  std::vector<std::pair<size_t, std::string>> types;
  struct Pattern {
    absl::string_view before;
    absl::string_view after;
    bool extension;
  };
  const Pattern patterns[] = {
      {"Extension \"", " is not defined or is not an extension of", true},
      {"Could not find type \"", " stored in google.protobuf.Any", false},
      {"options type \"", " is not a known message", false},
  };
  for (const Pattern& p : patterns) {
    for (const auto& [at, quoted] :
         QuotedBetween(error_message, p.before, p.after)) {
      types.emplace_back(at, p.extension ? TypeOfExtension(quoted)
                                         : TypeOfUrl(quoted));
    }
  }
  std::stable_sort(
      types.begin(), types.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& found : types) {
    AddOnce(std::move(found.second), &names.options_types);
  }
  return names;
}

}  // namespace rill
