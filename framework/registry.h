// Name -> factory registries for calculators, subgraphs, input stream
// handlers and executors. Registration happens at static-initialisation time
// (the REGISTER_* macros) or when a plugin library is loaded. An unknown name
// is an error that lists the closest registered names.
#ifndef RILL_FRAMEWORK_REGISTRY_H_
#define RILL_FRAMEWORK_REGISTRY_H_

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rill {

// Up to `max` registered names closest to `name` (edit distance, case-blind).
std::vector<std::string> ClosestNames(absl::string_view name,
                                      const std::vector<std::string>& names,
                                      int max = 3);

// Strips a "mediapipe." / "rill." / "::"-qualified prefix from a type name.
std::string UnqualifiedName(absl::string_view name);

template <typename Entry>
class Registry {
 public:
  // `kind` names what is registered ("calculator", "subgraph", ...), for
  // error messages.
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  bool Register(const std::string& name, Entry entry) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[name] = std::move(entry);
    return true;
  }
  bool IsRegistered(absl::string_view name) const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.count(UnqualifiedName(name)) > 0;
  }
  // The entry, or NotFound listing close names. `hint` is appended.
  absl::StatusOr<Entry> Lookup(absl::string_view name,
                               absl::string_view hint = "") const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(UnqualifiedName(name));
    if (it != entries_.end()) return it->second;
    std::vector<std::string> names;
    for (const auto& [n, e] : entries_) names.push_back(n);
    std::string message = "no " + kind_ + " named \"" + std::string(name) +
                          "\" is registered";
    std::vector<std::string> close = ClosestNames(name, names);
    if (!close.empty()) {
      message += "; did you mean ";
      for (size_t i = 0; i < close.size(); ++i) {
        message += (i ? ", " : "") + std::string("\"") + close[i] + "\"";
      }
      message += "?";
    }
    if (!hint.empty()) message += std::string(" ") + std::string(hint);
    return absl::NotFoundError(message);
  }
  std::vector<std::string> Names() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> names;
    for (const auto& [n, e] : entries_) names.push_back(n);
    return names;
  }

 private:
  std::string kind_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_REGISTRY_H_
