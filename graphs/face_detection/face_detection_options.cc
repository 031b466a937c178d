// Links FaceDetectionOptions into every binary that runs the face detection
// graphs: nothing else refers to the message from C++, and graph files name
// it only through text (graph_options / node_options).
#include "graphs/face_detection/face_detection.pb.h"

namespace rill {
namespace {
[[maybe_unused]] const auto* const kFaceDetectionOptions =
    FaceDetectionOptions::descriptor();
}  // namespace
}  // namespace rill
