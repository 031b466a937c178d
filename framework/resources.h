// Where a graph's calculators find the files their options name (models,
// label maps): MediaPipe's resource root, with the places looked in reported.
//
// A relative path is tried against each root in order and the first that
// exists wins; an absolute path is used as given. With no roots a relative
// path resolves against the working directory. CalculatorGraph sets the
// default roots when it loads a graph file: the repository that holds the
// file (the nearest folder above it with a WORKSPACE, WORKSPACE.bazel,
// MODULE.bazel or .git), then the working directory. `rill run
// --resource_root=DIR` (repeatable) and CalculatorGraph::SetResourceRoots
// replace them.
#ifndef RILL_FRAMEWORK_RESOURCES_H_
#define RILL_FRAMEWORK_RESOURCES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rill {

class Resources {
 public:
  Resources() = default;
  explicit Resources(std::vector<std::string> roots);

  // The default roots for a graph loaded from `graph_file`.
  static Resources ForGraphFile(const std::string& graph_file);

  const std::vector<std::string>& roots() const { return roots_; }

  // The path to open for `path`. NotFound names every place looked in and
  // how to change them; `what` says what the file is ("model file").
  absl::StatusOr<std::string> Resolve(const std::string& path,
                                      const std::string& what) const;

 private:
  std::vector<std::string> roots_;
};

// The nearest folder at or above `dir` that holds a WORKSPACE,
// WORKSPACE.bazel, MODULE.bazel or .git; empty if none.
std::string RepositoryRootOf(const std::string& dir);

}  // namespace rill

#endif  // RILL_FRAMEWORK_RESOURCES_H_
