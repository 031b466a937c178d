// VisibilityCopyCalculator copies visibility and presence from one landmark
// list onto another, landmark by landmark (pose world landmarks get the
// visibility the image landmarks were predicted with). The lists may be
// normalized or not, independently; the output has the type of the TO list.
//
//   node {
//     calculator: "VisibilityCopyCalculator"
//     input_stream: "NORM_LANDMARKS_FROM:pose_landmarks"  # or LANDMARKS_FROM:
//     input_stream: "LANDMARKS_TO:pose_world_landmarks"  # or NORM_...
//     output_stream: "LANDMARKS_TO:world_landmarks_with_visibility"
//     options { [mediapipe.VisibilityCopyCalculatorOptions.ext] {
//       copy_visibility: true copy_presence: true } }
//   }
//
// The output holds the TO list's first n landmarks, n being the FROM list's
// size; nothing is emitted unless both lists are present.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/landmarks/visibility_copy_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"

namespace rill {
namespace {

constexpr char kLandmarksFromTag[] = "LANDMARKS_FROM";
constexpr char kNormLandmarksFromTag[] = "NORM_LANDMARKS_FROM";
constexpr char kLandmarksToTag[] = "LANDMARKS_TO";
constexpr char kNormLandmarksToTag[] = "NORM_LANDMARKS_TO";

class VisibilityCopyCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string where = absl::StrCat("VisibilityCopyCalculator node \"",
                                           cc->GetNodeName(), "\" ");
    const bool from_norm = cc->Inputs().HasTag(kNormLandmarksFromTag);
    if (from_norm == cc->Inputs().HasTag(kLandmarksFromTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          "needs exactly one of LANDMARKS_FROM and NORM_LANDMARKS_FROM"));
    }
    const bool to_norm = cc->Inputs().HasTag(kNormLandmarksToTag);
    if (to_norm == cc->Inputs().HasTag(kLandmarksToTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          "needs exactly one of LANDMARKS_TO and NORM_LANDMARKS_TO inputs"));
    }
    const char* to_tag = to_norm ? kNormLandmarksToTag : kLandmarksToTag;
    if (cc->Outputs().NumEntries() != 1 || !cc->Outputs().HasTag(to_tag)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "needs one output stream tagged ", to_tag,
                       ", like its input to copy to"));
    }
    if (from_norm) {
      cc->Inputs().Tag(kNormLandmarksFromTag).Set<NormalizedLandmarkList>();
    } else {
      cc->Inputs().Tag(kLandmarksFromTag).Set<LandmarkList>();
    }
    if (to_norm) {
      cc->Inputs().Tag(kNormLandmarksToTag).Set<NormalizedLandmarkList>();
      cc->Outputs().Tag(kNormLandmarksToTag).Set<NormalizedLandmarkList>();
    } else {
      cc->Inputs().Tag(kLandmarksToTag).Set<LandmarkList>();
      cc->Outputs().Tag(kLandmarksToTag).Set<LandmarkList>();
    }
    cc->UseOptions<VisibilityCopyCalculatorOptions>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<VisibilityCopyCalculatorOptions>();
    copy_visibility_ = options.copy_visibility();
    copy_presence_ = options.copy_presence();
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const bool from_norm = cc->Inputs().HasTag(kNormLandmarksFromTag);
    const InputStreamShard& from =
        cc->Inputs().Tag(from_norm ? kNormLandmarksFromTag : kLandmarksFromTag);
    if (cc->Inputs().HasTag(kNormLandmarksToTag)) {
      const InputStreamShard& to = cc->Inputs().Tag(kNormLandmarksToTag);
      if (from.IsEmpty() || to.IsEmpty()) return absl::OkStatus();
      return from_norm ? Copy<NormalizedLandmarkList, NormalizedLandmarkList>(
                             cc, from, to, kNormLandmarksToTag)
                       : Copy<LandmarkList, NormalizedLandmarkList>(
                             cc, from, to, kNormLandmarksToTag);
    }
    const InputStreamShard& to = cc->Inputs().Tag(kLandmarksToTag);
    if (from.IsEmpty() || to.IsEmpty()) return absl::OkStatus();
    return from_norm ? Copy<NormalizedLandmarkList, LandmarkList>(
                           cc, from, to, kLandmarksToTag)
                     : Copy<LandmarkList, LandmarkList>(cc, from, to,
                                                        kLandmarksToTag);
  }

 private:
  template <typename FromT, typename ToT>
  absl::Status Copy(CalculatorContext* cc, const InputStreamShard& from_in,
                    const InputStreamShard& to_in, const char* out_tag) {
    const FromT& from = from_in.Get<FromT>();
    const ToT& to = to_in.Get<ToT>();
    if (to.landmark_size() < from.landmark_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "VisibilityCopyCalculator node \"", cc->NodeName(), "\": at ",
          cc->InputTimestamp().DebugString(), " the list to copy from has ",
          from.landmark_size(), " landmarks but the list to copy to only ",
          to.landmark_size()));
    }
    auto out = std::make_unique<ToT>();
    for (int i = 0; i < from.landmark_size(); ++i) {
      auto* l = out->add_landmark();
      *l = to.landmark(i);
      if (copy_visibility_) l->set_visibility(from.landmark(i).visibility());
      if (copy_presence_) l->set_presence(from.landmark(i).presence());
    }
    cc->Outputs().Tag(out_tag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

  bool copy_visibility_ = true;
  bool copy_presence_ = true;
};

}  // namespace

REGISTER_CALCULATOR(VisibilityCopyCalculator);

}  // namespace rill
