// Loads graph configs from text (.pbtxt) or binary (.binarypb) files.
// Errors name the file, line and column. Option and Any type names in the
// `mediapipe.` package resolve to Rill's `rill.` messages, so MediaPipe's
// graph files load unchanged.
#ifndef RILL_FRAMEWORK_TOOL_CONFIG_LOADER_H_
#define RILL_FRAMEWORK_TOOL_CONFIG_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "framework/proto/calculator.pb.h"

namespace rill {

// Parses text format. `source_name` (a file name) prefixes error messages.
absl::StatusOr<CalculatorGraphConfig> ParseGraphConfigText(
    absl::string_view text, absl::string_view source_name = "<graph>");

// Reads a .pbtxt (text) or .binarypb/.pb (binary) file. The file's folder is
// added to the subgraph search path, so subgraph .pbtxt files beside it are
// found by their `type:`. A path that is not a regular file (a directory, a
// FIFO, a device such as /dev/null) or an empty file is an error naming it;
// a FIFO is refused without being opened, so this never blocks. A file that
// parses to a graph without nodes is not an error here (see
// CalculatorGraphConfig::node_size()).
absl::StatusOr<CalculatorGraphConfig> LoadGraphConfigFile(
    const std::string& path);

// Parses any text-format message with Rill's type-name resolution.
absl::Status ParseTextProto(absl::string_view text,
                            absl::string_view source_name,
                            google::protobuf::Message* message);

// OK when `path` names a regular file (following symlinks); else
// NotFound (missing) or InvalidArgument ("is a directory", "is not a regular
// file (a FIFO)"), naming the path. Does not open the file.
absl::Status CheckRegularFile(const std::string& path);

// Reads a whole regular file (CheckRegularFile first, so a FIFO never blocks).
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

}  // namespace rill

#endif  // RILL_FRAMEWORK_TOOL_CONFIG_LOADER_H_
