// What a graph needs that this build lacks, read back from the error text
// that loading and validating the graph produced: calculators (or subgraph
// types) that no registry knows and options message types that no linked
// proto defines. `rill validate --report` counts these over a folder of
// MediaPipe graphs to show what a port has yet to provide.
//
// The texts recognised are those of
//   Registry::Lookup ("no calculator named \"X\" is registered"),
//   ValidateAnyOptions ("options type \"URL\" is not a known message"),
//   protobuf's text parser through ParseTextProto
//     ("Extension \"X.ext\" is not defined or is not an extension of ...",
//      "Could not find type \"URL\" stored in google.protobuf.Any.").
// missing_names_test produces each through the framework's real code paths,
// so a change of wording there fails that test.
#ifndef RILL_FRAMEWORK_TOOL_MISSING_NAMES_H_
#define RILL_FRAMEWORK_TOOL_MISSING_NAMES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rill {

struct MissingNames {
  // Calculator names as the graph spells them, each once, in the order the
  // error text first names them.
  std::vector<std::string> calculators;
  // Options message types by full name as the graph spells them
  // ("mediapipe.FooCalculatorOptions"): the `.ext` of `[X.ext]` and the
  // "type.googleapis.com/" of an Any's type URL are dropped. Each once, in
  // order of first mention.
  std::vector<std::string> options_types;

  bool empty() const { return calculators.empty() && options_types.empty(); }
};

// Scans the whole of `error_message` (every line; a cause nested in a
// subgraph file's load error counts too).
MissingNames FindMissingNames(absl::string_view error_message);

}  // namespace rill

#endif  // RILL_FRAMEWORK_TOOL_MISSING_NAMES_H_
