// DetectionUniqueIdCalculator gives every detection a new detection_id
// (MediaPipe's calculator of the same name): 1, 2, 3, ... counted across
// all nodes of this calculator in the process, as in MediaPipe.
//
//   node {
//     calculator: "DetectionUniqueIdCalculator"
//     input_stream: "DETECTIONS:detections"      # std::vector<Detection>
//     output_stream: "DETECTIONS:detections_with_id"
//     # and/or DETECTION_LIST: (DetectionList) in and out
//   }
#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"

namespace rill {
namespace {

constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kDetectionListTag[] = "DETECTION_LIST";

int64_t NextDetectionId() {
  static std::atomic<int64_t> last{0};
  return ++last;
}

}  // namespace

class DetectionUniqueIdCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool list = cc->Inputs().HasTag(kDetectionListTag);
    const bool vec = cc->Inputs().HasTag(kDetectionsTag);
    if ((!list && !vec) || list != cc->Outputs().HasTag(kDetectionListTag) ||
        vec != cc->Outputs().HasTag(kDetectionsTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DetectionUniqueIdCalculator node \"", cc->GetNodeName(),
          "\" needs a DETECTIONS and/or DETECTION_LIST input stream, each "
          "with an output stream of the same tag"));
    }
    if (list) {
      cc->Inputs().Tag(kDetectionListTag).Set<DetectionList>();
      cc->Outputs().Tag(kDetectionListTag).Set<DetectionList>();
    }
    if (vec) {
      cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
      cc->Outputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp ts = cc->InputTimestamp();
    if (cc->Inputs().HasTag(kDetectionListTag) &&
        !cc->Inputs().Tag(kDetectionListTag).IsEmpty()) {
      DetectionList list =
          cc->Inputs().Tag(kDetectionListTag).Get<DetectionList>();
      for (Detection& d : *list.mutable_detection()) {
        d.set_detection_id(NextDetectionId());
      }
      cc->Outputs().Tag(kDetectionListTag).AddPacket(
          MakePacket<DetectionList>(std::move(list)).At(ts));
    }
    if (cc->Inputs().HasTag(kDetectionsTag) &&
        !cc->Inputs().Tag(kDetectionsTag).IsEmpty()) {
      std::vector<Detection> detections =
          cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>();
      for (Detection& d : detections) d.set_detection_id(NextDetectionId());
      cc->Outputs().Tag(kDetectionsTag).AddPacket(
          MakePacket<std::vector<Detection>>(std::move(detections)).At(ts));
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(DetectionUniqueIdCalculator);

}  // namespace rill
