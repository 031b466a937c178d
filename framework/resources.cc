#include "framework/resources.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rill {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string Absolute(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) != nullptr) return buf;
  return path;
}

std::string Join(const std::string& root, const std::string& path) {
  if (root.empty() || root == ".") return path;
  return root.back() == '/' ? root + path : root + "/" + path;
}

std::string CurrentDir() {
  char buf[PATH_MAX];
  if (::getcwd(buf, sizeof(buf)) != nullptr) return buf;
  return ".";
}

}  // namespace

Resources::Resources(std::vector<std::string> roots) {
  for (std::string& r : roots) {
    if (r.empty()) r = ".";
    bool seen = false;
    for (const std::string& have : roots_) seen |= Absolute(have) == Absolute(r);
    if (!seen) roots_.push_back(std::move(r));
  }
}

std::string RepositoryRootOf(const std::string& dir) {
  std::string d = Absolute(dir.empty() ? "." : dir);
  while (true) {
    for (const char* marker :
         {"WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", ".git"}) {
      if (Exists(Join(d, marker))) return d;
    }
    const size_t slash = d.find_last_of('/');
    if (slash == std::string::npos || d == "/") return "";
    d = slash == 0 ? "/" : d.substr(0, slash);
  }
}

Resources Resources::ForGraphFile(const std::string& graph_file) {
  const size_t slash = graph_file.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? "." : graph_file.substr(0, slash + 1);
  std::vector<std::string> roots;
  const std::string repo = RepositoryRootOf(dir);
  if (!repo.empty()) roots.push_back(repo);
  roots.push_back(CurrentDir());
  return Resources(std::move(roots));
}

absl::StatusOr<std::string> Resources::Resolve(const std::string& path,
                                               const std::string& what) const {
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": empty path"));
  }
  if (path.front() == '/' || roots_.empty()) {
    if (Exists(path)) return path;
    return absl::NotFoundError(absl::StrCat(
        what, " \"", path, "\" not found (looked in: ",
        path.front() == '/' ? path : Join(CurrentDir(), path),
        path.front() == '/'
            ? ")"
            : "; relative paths resolve against the resource root: "
              "rill run --resource_root=DIR)"));
  }
  std::vector<std::string> tried;
  for (const std::string& root : roots_) {
    const std::string candidate = Join(root, path);
    if (Exists(candidate)) return candidate;
    tried.push_back(Join(Absolute(root), path));
  }
  return absl::NotFoundError(absl::StrCat(
      what, " \"", path, "\" not found (looked in: ",
      absl::StrJoin(tried, ", "),
      "; set the resource root with rill run --resource_root=DIR)"));
}

}  // namespace rill
