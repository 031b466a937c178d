// ClipVectorSizeCalculator<T> keeps the first max_vec_size elements of a
// std::vector<T> (MediaPipe's ClipVectorSizeCalculator family). One untagged
// input and output; an optional int input side packet overrides
// max_vec_size. Every input packet gives an output packet (an empty vector
// stays empty). Registered per element type in clip_vector_size_calculator.cc.
//
//   node {
//     calculator: "ClipNormalizedRectVectorSizeCalculator"
//     input_stream: "rects"
//     output_stream: "first_two_rects"
//     options { [mediapipe.ClipVectorSizeCalculatorOptions.ext] {
//       max_vec_size: 2 } }
//   }
#ifndef RILL_CALCULATORS_UTIL_CLIP_VECTOR_SIZE_CALCULATOR_H_
#define RILL_CALCULATORS_UTIL_CLIP_VECTOR_SIZE_CALCULATOR_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/util/clip_vector_size_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {

template <typename T>
class ClipVectorSizeCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string where =
        absl::StrCat(cc->GetNodeConfig().calculator(), " node \"",
                     cc->GetNodeName(), "\"");
    if (cc->Inputs().NumEntries() != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " needs exactly one input stream and one output stream"));
    }
    const int max = cc->Options<ClipVectorSizeCalculatorOptions>()
                        .max_vec_size();
    if (max < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": max_vec_size must be at least 1, is ", max));
    }
    cc->Inputs().Index(0).Set<std::vector<T>>();
    cc->Outputs().Index(0).Set<std::vector<T>>();
    if (cc->InputSidePackets().NumEntries() > 0) {
      cc->InputSidePackets().Index(0).Set<int>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    max_ = cc->Options<ClipVectorSizeCalculatorOptions>().max_vec_size();
    if (cc->InputSidePackets().NumEntries() > 0 &&
        !cc->InputSidePackets().Index(0).IsEmpty()) {
      max_ = cc->InputSidePackets().Index(0).Get<int>();
    }
    if (max_ < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          cc->CalculatorType(), " node \"", cc->NodeName(),
          "\": max_vec_size (from the side packet) must be at least 1, is ",
          max_));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Index(0);
    if (in.IsEmpty()) return absl::OkStatus();
    const auto& input = in.Get<std::vector<T>>();
    const size_t n = std::min(input.size(), static_cast<size_t>(max_));
    cc->Outputs().Index(0).AddPacket(
        MakePacket<std::vector<T>>(input.begin(), input.begin() + n)
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  int max_ = 1;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_UTIL_CLIP_VECTOR_SIZE_CALCULATOR_H_
