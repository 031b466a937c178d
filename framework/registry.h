// Name -> factory registries for calculators, subgraphs, input stream
// handlers and executors. Registration happens at static-initialisation time
// (the REGISTER_* macros) or when a plugin library is loaded. An unknown name
// is an error that lists the closest registered names.
//
// Each registration may name where it comes from (the macros pass __FILE__).
// A second registration of a name from another place is a conflict, never a
// silent replacement: the first entry stays, the name is marked, and looking
// it up fails naming both places (ConflictStatus() reports every conflict,
// which `rill` checks at start-up and the plugin loader after each plugin).
// Registering again from the same place (or with no place, as subgraph
// configs registered at run time do) replaces the entry.
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

  bool Register(const std::string& name, Entry entry,
                std::string origin = "") {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = origins_.find(name);
    if (it != origins_.end() && !it->second.empty() && !origin.empty() &&
        it->second != origin) {
      conflicts_.push_back(Conflict{name, it->second, std::move(origin)});
      return false;
    }
    entries_[name] = std::move(entry);
    origins_[name] = std::move(origin);
    return true;
  }
  // A name registered from two places.
  struct Conflict {
    std::string name;
    std::string first;   // the place whose entry is kept
    std::string second;  // the place whose registration was refused
  };
  std::vector<Conflict> Conflicts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return conflicts_;
  }
  size_t NumConflicts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return conflicts_.size();
  }
  // OK, or one error naming every conflict from the `from`-th on.
  absl::Status ConflictStatus(size_t from = 0) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string message;
    for (size_t i = from; i < conflicts_.size(); ++i) {
      if (!message.empty()) message += "; ";
      message += ConflictMessage(conflicts_[i]);
    }
    if (message.empty()) return absl::OkStatus();
    return absl::AlreadyExistsError(message);
  }
  bool IsRegistered(absl::string_view name) const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.count(UnqualifiedName(name)) > 0;
  }
  // The entry, or NotFound listing close names. `hint` is appended.
  absl::StatusOr<Entry> Lookup(absl::string_view name,
                               absl::string_view hint = "") const {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = UnqualifiedName(name);
    for (const Conflict& c : conflicts_) {
      if (c.name == key) return absl::AlreadyExistsError(ConflictMessage(c));
    }
    auto it = entries_.find(key);
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
  std::string ConflictMessage(const Conflict& c) const {
    return kind_ + " \"" + c.name + "\" is registered twice, in " + c.first +
           " and in " + c.second + "; rename one of them";
  }

  std::string kind_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> origins_;
  std::vector<Conflict> conflicts_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_REGISTRY_H_
