// PassThroughCalculator forwards every input stream to the output stream with
// the same tag and index (or, when the tags differ, to the output in the same
// position) and every input side packet to the matching output side packet.
// Useful for renaming streams and for giving subgraph boundaries a node.
//
//   node {
//     calculator: "PassThroughCalculator"
//     input_stream: "IMAGE:frame"  input_stream: "count"
//     output_stream: "IMAGE:frame_out"  output_stream: "count_out"
//   }
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

// For each id of `from`, the id of the matching entry of `to`: the same tag
// and index when every entry of `from` has one in `to`, else the same
// position. Fails when the two sides cannot be matched.
absl::Status MatchIds(const TagMap& from, const TagMap& to,
                      const std::string& node, const char* what,
                      std::vector<CollectionItemId>* ids) {
  ids->clear();
  if (from.NumEntries() != to.NumEntries()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PassThroughCalculator node \"", node, "\" has ", from.NumEntries(),
        " input ", what, "s but ", to.NumEntries(), " output ", what,
        "s; they must match one to one"));
  }
  bool same_tags = true;
  for (CollectionItemId id = 0; id < from.NumEntries(); ++id) {
    if (to.GetId(from.Tag(id), from.Index(id)) < 0) same_tags = false;
  }
  for (CollectionItemId id = 0; id < from.NumEntries(); ++id) {
    ids->push_back(same_tags ? to.GetId(from.Tag(id), from.Index(id)) : id);
  }
  return absl::OkStatus();
}

class PassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    std::vector<CollectionItemId> ids;
    RILL_RETURN_IF_ERROR(MatchIds(*cc->Inputs().GetTagMap(),
                                  *cc->Outputs().GetTagMap(),
                                  cc->GetNodeName(), "stream", &ids));
    for (CollectionItemId id = 0; id < cc->Inputs().NumEntries(); ++id) {
      cc->Inputs().Get(id).SetAny();
      cc->Outputs().Get(ids[id]).SetSameAs(&cc->Inputs().Get(id));
    }
    RILL_RETURN_IF_ERROR(MatchIds(*cc->InputSidePackets().GetTagMap(),
                                  *cc->OutputSidePackets().GetTagMap(),
                                  cc->GetNodeName(), "side packet", &ids));
    for (CollectionItemId id = 0; id < cc->InputSidePackets().NumEntries();
         ++id) {
      cc->InputSidePackets().Get(id).SetAny();
      cc->OutputSidePackets().Get(ids[id]).SetSameAs(
          &cc->InputSidePackets().Get(id));
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    // The contract already proved the maps match; only the ids are needed.
    std::vector<CollectionItemId> side_ids;
    RILL_RETURN_IF_ERROR(MatchIds(*cc->InputSidePackets().GetTagMap(),
                                  *cc->OutputSidePackets().GetTagMap(),
                                  cc->NodeName(), "side packet", &side_ids));
    for (CollectionItemId id = 0; id < cc->InputSidePackets().NumEntries();
         ++id) {
      cc->OutputSidePackets().Get(side_ids[id]).Set(
          cc->InputSidePackets().Get(id));
    }
    RILL_RETURN_IF_ERROR(MatchIds(*cc->Inputs().GetTagMap(),
                                  *cc->Outputs().GetTagMap(), cc->NodeName(),
                                  "stream", &output_ids_));
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    for (CollectionItemId id = 0; id < cc->Inputs().NumEntries(); ++id) {
      const InputStreamShard& in = cc->Inputs().Get(id);
      if (!in.IsEmpty()) cc->Outputs().Get(output_ids_[id]).AddPacket(in.Value());
    }
    return absl::OkStatus();
  }

 private:
  std::vector<CollectionItemId> output_ids_;
};

}  // namespace

REGISTER_CALCULATOR(PassThroughCalculator);

}  // namespace rill
