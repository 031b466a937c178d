#include "calculators/core/file_contents.h"

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
