// SidePacketToStreamCalculator: emits input side packets as stream packets.
// The output tag says when (as in MediaPipe):
//   AT_PRESTREAM, AT_ZERO, AT_POSTSTREAM   once, at that timestamp;
//   AT_TIMESTAMP                           once, at the int64 side packet
//                                          TIMESTAMP;
//   AT_TICK / AT_FIRST_TICK                at every / the first packet of the
//                                          TICK input stream.
// Output i carries input side packet i.
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr const char* kOnceTags[] = {"AT_PRESTREAM", "AT_ZERO", "AT_POSTSTREAM",
                                     "AT_TIMESTAMP"};
constexpr const char* kTickTags[] = {"AT_TICK", "AT_FIRST_TICK"};

}  // namespace

class SidePacketToStreamCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    std::string tag;
    int tags = 0;
    for (const char* t : kOnceTags) {
      if (cc->Outputs().HasTag(t)) tag = t, ++tags;
    }
    for (const char* t : kTickTags) {
      if (cc->Outputs().HasTag(t)) tag = t, ++tags;
    }
    if (tags != 1 || cc->Outputs().NumEntries(tag) != cc->Outputs().NumEntries()) {
      return absl::InvalidArgumentError(
          "needs outputs under exactly one of the tags AT_PRESTREAM, AT_ZERO, "
          "AT_POSTSTREAM, AT_TIMESTAMP, AT_TICK, AT_FIRST_TICK");
    }
    const bool tick = tag == "AT_TICK" || tag == "AT_FIRST_TICK";
    if (tick != cc->Inputs().HasTag("TICK")) {
      return absl::InvalidArgumentError(
          tick ? absl::StrCat(tag, " needs a TICK input stream")
               : absl::StrCat("a TICK input goes with AT_TICK or AT_FIRST_TICK, not ", tag));
    }
    if (tick) cc->Inputs().Tag("TICK").SetAny();
    const bool at_timestamp = tag == "AT_TIMESTAMP";
    if (at_timestamp != cc->InputSidePackets().HasTag("TIMESTAMP")) {
      return absl::InvalidArgumentError(
          "AT_TIMESTAMP and the TIMESTAMP side packet go together");
    }
    if (at_timestamp) cc->InputSidePackets().Tag("TIMESTAMP").Set<int64_t>();
    const int n = cc->Outputs().NumEntries(tag);
    if (cc->InputSidePackets().NumEntries("") != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "has ", n, " outputs but ", cc->InputSidePackets().NumEntries(""),
          " untagged input side packets; they must match one to one"));
    }
    for (int i = 0; i < n; ++i) {
      cc->InputSidePackets().Index(i).SetAny();
      cc->Outputs().Get(tag, i).SetSameAs(&cc->InputSidePackets().Index(i));
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    for (const char* t : kOnceTags) {
      if (cc->Outputs().HasTag(t)) tag_ = t;
    }
    for (const char* t : kTickTags) {
      if (cc->Outputs().HasTag(t)) tag_ = t;
    }
    // With TICK, the outputs follow TICK's timestamp bound: a timestamp
    // without a tick settles them too, so a node joining them with other
    // streams does not wait (MediaPipe's HandWristForPose, frames without a
    // hand).
    if (cc->Inputs().HasTag("TICK")) cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (tag_ == "AT_TICK" || tag_ == "AT_FIRST_TICK") {
      if (tag_ == "AT_FIRST_TICK" && emitted_) return absl::OkStatus();
      Emit(cc, cc->InputTimestamp());
      return absl::OkStatus();
    }
    Timestamp ts = Timestamp(0);
    if (tag_ == "AT_PRESTREAM") ts = Timestamp::PreStream();
    if (tag_ == "AT_POSTSTREAM") ts = Timestamp::PostStream();
    if (tag_ == "AT_TIMESTAMP") {
      ts = Timestamp(cc->InputSidePackets().Tag("TIMESTAMP").Get<int64_t>());
      if (!ts.IsAllowedInStream()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TIMESTAMP side packet ", ts.DebugString(), " is not allowed in a stream"));
      }
    }
    Emit(cc, ts);
    return StatusStop();
  }

 private:
  void Emit(CalculatorContext* cc, Timestamp ts) {
    for (int i = 0; i < cc->Outputs().NumEntries(tag_); ++i) {
      cc->Outputs().Get(tag_, i).AddPacket(cc->InputSidePackets().Index(i).At(ts));
    }
    emitted_ = true;
  }

  std::string tag_;
  bool emitted_ = false;
};
REGISTER_CALCULATOR(SidePacketToStreamCalculator);

}  // namespace rill
