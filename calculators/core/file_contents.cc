#include "calculators/core/file_contents.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace rill {

absl::StatusOr<std::string> ReadResourceFile(const CalculatorContext& cc,
                                             const std::string& path,
                                             const std::string& what) {
  absl::StatusOr<std::string> resolved = cc.ResourcePath(path, what);
  if (!resolved.ok()) return resolved.status();
  // Opening a FIFO would block, and a directory opens but fails to read.
  struct stat st;
  if (::stat(resolved->c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " \"", *resolved, "\" is not a regular file"));
  }
  std::ifstream in(*resolved, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", what, " \"",
                                            *resolved,
                                            "\": ", std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(
        absl::StrCat("cannot read ", what, " \"", *resolved, "\""));
  }
  return contents.str();
}

}  // namespace rill
