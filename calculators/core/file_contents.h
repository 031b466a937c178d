// Reads a file that a node's side packet or options name, found under the
// graph's resource roots (CalculatorContext::ResourcePath), for the
// calculators that load files into side packets (LocalFileContents,
// ResourceProvider).
#ifndef RILL_CALCULATORS_CORE_FILE_CONTENTS_H_
#define RILL_CALCULATORS_CORE_FILE_CONTENTS_H_

#include <string>

#include "absl/status/statusor.h"
#include "framework/calculator_context.h"

namespace rill {

// The bytes of `path` (a missing file is NotFound naming every place
// looked in; the framework adds the node's name).
absl::StatusOr<std::string> ReadResourceFile(const CalculatorContext& cc,
                                             const std::string& path,
                                             const std::string& what);

}  // namespace rill

#endif  // RILL_CALCULATORS_CORE_FILE_CONTENTS_H_
