// CollectionHasMinSizeCalculator<IterableT> tells whether a collection has
// at least min_size elements (MediaPipe's calculator family): ITERABLE in,
// one untagged bool out at the same timestamp. An optional int input side
// packet overrides min_size. Registered per type in
// collection_has_min_size_calculator.cc.
//
//   node {
//     calculator: "NormalizedRectVectorHasMinSizeCalculator"
//     input_stream: "ITERABLE:hand_rects"
//     output_stream: "enough_hands"
//     options { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] {
//       min_size: 2 } }
//   }
#ifndef RILL_CALCULATORS_UTIL_COLLECTION_HAS_MIN_SIZE_CALCULATOR_H_
#define RILL_CALCULATORS_UTIL_COLLECTION_HAS_MIN_SIZE_CALCULATOR_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/util/collection_has_min_size_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {

template <typename IterableT>
class CollectionHasMinSizeCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string where =
        absl::StrCat(cc->GetNodeConfig().calculator(), " node \"",
                     cc->GetNodeName(), "\"");
    if (!cc->Inputs().HasTag("ITERABLE") || cc->Inputs().NumEntries() != 1 ||
        cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " needs one ITERABLE input stream and one output stream"));
    }
    const int min =
        cc->Options<CollectionHasMinSizeCalculatorOptions>().min_size();
    if (min < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": min_size must be >= 0, is ", min));
    }
    cc->Inputs().Tag("ITERABLE").Set<IterableT>();
    cc->Outputs().Index(0).Set<bool>();
    if (cc->InputSidePackets().NumEntries() > 0) {
      cc->InputSidePackets().Index(0).Set<int>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    min_size_ =
        cc->Options<CollectionHasMinSizeCalculatorOptions>().min_size();
    if (cc->InputSidePackets().NumEntries() > 0 &&
        !cc->InputSidePackets().Index(0).IsEmpty()) {
      min_size_ = cc->InputSidePackets().Index(0).Get<int>();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag("ITERABLE");
    if (in.IsEmpty()) return absl::OkStatus();
    const bool has_min_size =
        static_cast<int64_t>(in.Get<IterableT>().size()) >= min_size_;
    cc->Outputs().Index(0).AddPacket(
        MakePacket<bool>(has_min_size).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  int64_t min_size_ = 0;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_UTIL_COLLECTION_HAS_MIN_SIZE_CALCULATOR_H_
