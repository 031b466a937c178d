// The one error an importer returns for every node it could not convert, so
// that a user sees at once all that a model needs (not one node per try).
#ifndef RILL_INFERENCE_IMPORT_UNSUPPORTED_NODES_H_
#define RILL_INFERENCE_IMPORT_UNSUPPORTED_NODES_H_

#include <string>
#include <vector>

#include "rill/inference/status.h"

namespace rill::inference {

// `nodes`: one line per node, "node 'NAME' (OP)[, attribute 'A']: WHAT".
// For one node the message is "<source>: <line>", as import errors always
// were; for several, "<source>: N unsupported nodes:" and a line each. `note`
// (may be empty) ends the message.
inline Status UnsupportedNodesError(const std::string& source, const std::vector<std::string>& nodes,
                                    const std::string& note = "") {
  std::string message;
  if (nodes.size() == 1) {
    message = source + ": " + nodes[0];
  } else {
    // A corrupt file can make every node fail: list enough to act on.
    constexpr size_t kMaxListed = 64;
    message = source + ": " + std::to_string(nodes.size()) + " unsupported nodes:";
    for (size_t i = 0; i < nodes.size() && i < kMaxListed; ++i) message += "\n  " + nodes[i];
    if (nodes.size() > kMaxListed) message += "\n  ... and " + std::to_string(nodes.size() - kMaxListed) + " more";
  }
  if (!note.empty()) message += "\n  " + note;
  return UnimplementedError(message);
}

}  // namespace rill::inference

#endif  // RILL_INFERENCE_IMPORT_UNSUPPORTED_NODES_H_
