// PreviousLoopbackCalculator pairs each MAIN packet with the LOOP value that
// the graph produced for the previous MAIN packet: the LOOP input is a back
// edge from further down the graph, and PREV_LOOP carries, at the timestamp
// of MAIN packet n, the LOOP packet at the timestamp of MAIN packet n-1.
//
//   node {
//     calculator: "PreviousLoopbackCalculator"
//     input_stream: "MAIN:image"
//     input_stream: "LOOP:rects_from_landmarks"
//     input_stream_info: { tag_index: "LOOP" back_edge: true }
//     output_stream: "PREV_LOOP:prev_rects_from_landmarks"
//   }
//
// When there is no previous value (the first MAIN packet, or LOOP produced
// nothing at the previous MAIN timestamp) PREV_LOOP gets no packet, only its
// timestamp bound moves past the MAIN timestamp, which downstream nodes see
// as an empty input at that timestamp (a GateCalculator with
// empty_packets_as_allow, say, lets the frame through to detection). A MAIN
// timestamp bound that moves without a packet moves PREV_LOOP's bound too.
//
// The node runs under the ImmediateInputStreamHandler with
// SetProcessTimestampBounds, so that it is called for LOOP's bound changes as
// well as for packets; it closes PREV_LOOP once MAIN has ended and every MAIN
// timestamp has been answered, which lets the loop behind LOOP end.
#include <deque>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kMainTag[] = "MAIN";
constexpr char kLoopTag[] = "LOOP";
constexpr char kPrevLoopTag[] = "PREV_LOOP";

// The timestamp a stream's input stands for in this call: its packet's, or,
// with no packet, the last timestamp it has settled (`next` being the
// smallest it may still deliver). A finished stream stands at Max.
Timestamp InputPosition(const InputStreamShard& in) {
  if (!in.IsEmpty()) return in.Value().Timestamp();
  const Timestamp next = in.NextTimestampBound();
  if (in.IsDone() || next >= Timestamp::PostStream()) return Timestamp::Max();
  if (next.IsRangeValue() && next > Timestamp::Min()) return next - 1;
  if (next == Timestamp::Min()) return Timestamp::PreStream();
  return Timestamp::Unstarted();
}

class PreviousLoopbackCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kMainTag) || !cc->Inputs().HasTag(kLoopTag) ||
        !cc->Outputs().HasTag(kPrevLoopTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "PreviousLoopbackCalculator node \"", cc->GetNodeName(),
          "\" needs MAIN and LOOP input streams (LOOP a back edge: "
          "input_stream_info { tag_index: \"LOOP\" back_edge: true }) and a "
          "PREV_LOOP output stream"));
    }
    cc->Inputs().Tag(kMainTag).SetAny();
    cc->Inputs().Tag(kLoopTag).SetAny();
    cc->Outputs().Tag(kPrevLoopTag).SetSameAs(cc->Inputs().Tag(kLoopTag));
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    // Each stream's packets and bound changes come in increasing order;
    // only positions past the last one seen are new.
    const InputStreamShard& main = cc->Inputs().Tag(kMainTag);
    const Timestamp main_ts = InputPosition(main);
    if (main_ts > last_main_ts_) {
      // An empty MAIN position (a bound change) only moves PREV_LOOP's
      // bound: it is paired with no LOOP timestamp (Unset).
      Timestamp wanted = Timestamp::Unset();
      if (!main.IsEmpty()) {
        wanted = last_nonempty_main_ts_;
        last_nonempty_main_ts_ = main_ts;
      }
      pending_main_.push_back({main_ts, wanted});
      last_main_ts_ = main_ts;
    }
    const InputStreamShard& loop = cc->Inputs().Tag(kLoopTag);
    const Timestamp loop_ts = InputPosition(loop);
    // Unset start, so that the very first (empty, Unstarted) LOOP position
    // is kept: it answers the first MAIN packet, which wants Unstarted.
    if (loop_ts > last_loop_ts_) {
      loop_values_.push_back(loop.Value().IsEmpty()
                                 ? LoopValue{loop_ts, {}}
                                 : LoopValue{loop_ts, loop.Value()});
      last_loop_ts_ = loop_ts;
    }

    OutputStreamShard& out = cc->Outputs().Tag(kPrevLoopTag);
    while (!pending_main_.empty() && !loop_values_.empty()) {
      const MainEntry entry = pending_main_.front();
      const LoopValue& candidate = loop_values_.front();
      if (entry.wanted_loop_ts < candidate.ts) {
        // LOOP is past the wanted timestamp: nothing will pair with it.
        out.SetNextTimestampBound(entry.ts.NextAllowedInStream());
        pending_main_.pop_front();
      } else if (entry.wanted_loop_ts > candidate.ts) {
        loop_values_.pop_front();  // no MAIN packet wants this one
      } else {
        if (candidate.packet.IsEmpty()) {
          out.SetNextTimestampBound(entry.ts.NextAllowedInStream());
        } else if (!out.IsClosed()) {
          out.AddPacket(candidate.packet.At(entry.ts));
        }
        loop_values_.pop_front();
        pending_main_.pop_front();
      }
      // MAIN has ended and its last position is answered.
      if (entry.ts == Timestamp::Max()) out.Close();
    }
    // MAIN's end (at Max, wanting no LOOP value) is all that is left: close
    // now rather than on the next LOOP change, which may only come once
    // the nodes behind LOOP see PREV_LOOP end.
    if (pending_main_.size() == 1 &&
        pending_main_.front().ts == Timestamp::Max()) {
      pending_main_.clear();
      out.Close();
    }
    return absl::OkStatus();
  }

 private:
  struct MainEntry {
    Timestamp ts;
    // The LOOP timestamp whose value answers this MAIN position.
    Timestamp wanted_loop_ts;
  };
  struct LoopValue {
    Timestamp ts;
    Packet packet;  // empty where LOOP only moved its bound
  };

  std::deque<MainEntry> pending_main_;
  Timestamp last_main_ts_ = Timestamp::Unstarted();
  Timestamp last_nonempty_main_ts_ = Timestamp::Unstarted();
  std::deque<LoopValue> loop_values_;
  Timestamp last_loop_ts_ = Timestamp::Unset();
};

}  // namespace

REGISTER_CALCULATOR(PreviousLoopbackCalculator);

}  // namespace rill
