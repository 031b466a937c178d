// FlowLimiterCalculator keeps a slow part of a graph from falling behind a
// live source: it lets at most `max_in_flight` frames downstream at once and
// drops (or briefly queues, `max_in_queue`) the frames that arrive meanwhile.
// Downstream reports each finished frame on the FINISHED input, a back edge:
//
//   node {
//     calculator: "FlowLimiterCalculator"
//     input_stream: "input_video"
//     input_stream: "FINISHED:detections"
//     input_stream_info: { tag_index: "FINISHED" back_edge: true }
//     output_stream: "throttled_input_video"
//     output_stream: "ALLOW:allowed"          # optional
//     options { [rill.FlowLimiterCalculatorOptions.ext] { max_in_flight: 2 } }
//   }
//
// Any number of untagged input streams may be throttled together; a frame is
// the set of their packets at one timestamp, and output i carries input i.
// ALLOW (bool) says, at each frame's timestamp, whether it was let through.
// Options may also come from an OPTIONS side packet or an OPTIONS input stream
// (which changes them mid-run), and max_in_flight from a MAX_IN_FLIGHT side
// packet (the older form). The calculator runs under the
// ImmediateInputStreamHandler so that FINISHED is seen as soon as it arrives.
#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/flow_limiter_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kFinishedTag[] = "FINISHED";
constexpr char kAllowTag[] = "ALLOW";
constexpr char kOptionsTag[] = "OPTIONS";
constexpr char kMaxInFlightTag[] = "MAX_IN_FLIGHT";

absl::Status ValidateOptions(const FlowLimiterCalculatorOptions& options,
                             const std::string& node) {
  if (options.max_in_flight() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FlowLimiterCalculator node \"", node,
        "\": FlowLimiterCalculatorOptions.max_in_flight must be at least 1, "
        "got ",
        options.max_in_flight()));
  }
  if (options.in_flight_timeout() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FlowLimiterCalculator node \"", node,
        "\": FlowLimiterCalculatorOptions.in_flight_timeout must be >= 0 "
        "(0: no timeout), got ",
        options.in_flight_timeout()));
  }
  return absl::OkStatus();
}

class FlowLimiterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& node = cc->GetNodeName();
    const int n = cc->Inputs().NumEntries("");
    if (n < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FlowLimiterCalculator node \"", node,
          "\" needs at least one untagged input stream to throttle"));
    }
    if (cc->Outputs().NumEntries("") != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FlowLimiterCalculator node \"", node, "\" has ", n,
          " untagged input streams but ", cc->Outputs().NumEntries(""),
          " untagged output streams; they must match one to one"));
    }
    if (!cc->Inputs().HasTag(kFinishedTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FlowLimiterCalculator node \"", node,
          "\" needs a FINISHED input stream (a back edge from the end of the "
          "throttled part of the graph)"));
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("", i).SetAny();
      cc->Outputs().Get("", i).SetSameAs(&cc->Inputs().Get("", i));
    }
    cc->Inputs().Tag(kFinishedTag).SetAny();
    if (cc->Inputs().HasTag(kOptionsTag)) {
      cc->Inputs().Tag(kOptionsTag).Set<FlowLimiterCalculatorOptions>()
          .Optional();
    }
    if (cc->InputSidePackets().HasTag(kOptionsTag)) {
      cc->InputSidePackets().Tag(kOptionsTag)
          .Set<FlowLimiterCalculatorOptions>()
          .Optional();
    }
    if (cc->InputSidePackets().HasTag(kMaxInFlightTag)) {
      cc->InputSidePackets().Tag(kMaxInFlightTag).Set<int>().Optional();
    }
    if (cc->Outputs().HasTag(kAllowTag)) {
      cc->Outputs().Tag(kAllowTag).Set<bool>().Optional();
    }
    RILL_RETURN_IF_ERROR(ValidateOptions(
        cc->Options<FlowLimiterCalculatorOptions>(), node));
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<FlowLimiterCalculatorOptions>();
    const PacketSet& sides = cc->InputSidePackets();
    if (sides.HasTag(kOptionsTag) && !sides.Tag(kOptionsTag).IsEmpty()) {
      options_ = sides.Tag(kOptionsTag).Get<FlowLimiterCalculatorOptions>();
    }
    if (sides.HasTag(kMaxInFlightTag) &&
        !sides.Tag(kMaxInFlightTag).IsEmpty()) {
      options_.set_max_in_flight(sides.Tag(kMaxInFlightTag).Get<int>());
    }
    RILL_RETURN_IF_ERROR(ValidateOptions(options_, cc->NodeName()));
    num_streams_ = cc->Inputs().NumEntries("");
    last_seen_.assign(num_streams_, Timestamp::Unset());
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kOptionsTag) &&
        !cc->Inputs().Tag(kOptionsTag).IsEmpty()) {
      FlowLimiterCalculatorOptions updated =
          cc->Inputs().Tag(kOptionsTag).Get<FlowLimiterCalculatorOptions>();
      RILL_RETURN_IF_ERROR(ValidateOptions(updated, cc->NodeName()));
      options_ = updated;
    }

    // A frame came out of the throttled section: it is no longer in flight.
    const InputStreamShard& finished = cc->Inputs().Tag(kFinishedTag);
    if (!finished.IsEmpty()) MarkFinished(finished.Value().Timestamp());

    for (int i = 0; i < num_streams_; ++i) {
      const InputStreamShard& in = cc->Inputs().Get("", i);
      if (!in.IsEmpty()) Accept(cc, i, in.Value());
    }

    ExpireTimedOut();
    while (static_cast<int>(in_flight_.size()) < options_.max_in_flight() &&
           !queue_.empty()) {
      Release(cc);
    }
    while (options_.max_in_queue() >= 0 &&
           static_cast<int>(queue_.size()) > options_.max_in_queue()) {
      Drop(cc);
    }

    bool all_done = true;
    for (int i = 0; i < num_streams_; ++i) {
      if (!cc->Inputs().Get("", i).IsDone()) all_done = false;
    }
    if (all_done) {
      Finish(cc);
    } else {
      AdvanceBounds(cc);
    }
    return absl::OkStatus();
  }

  absl::Status Close(CalculatorContext* cc) override {
    Finish(cc);
    return absl::OkStatus();
  }

 private:
  struct Frame {
    Timestamp timestamp;
    std::vector<Packet> packets;  // one slot per throttled stream
  };

  void MarkFinished(Timestamp ts) {
    for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
      if (*it == ts) {
        in_flight_.erase(it);
        return;
      }
    }
    // Downstream may finish a frame at another timestamp (or report one
    // that already timed out); count it against the oldest.
    if (!in_flight_.empty()) in_flight_.pop_front();
  }

  void ExpireTimedOut() {
    const int64_t timeout = options_.in_flight_timeout();
    if (timeout <= 0 || !newest_.IsRangeValue()) return;
    while (!in_flight_.empty() && in_flight_.front().IsRangeValue() &&
           newest_.Value() - in_flight_.front().Value() > timeout) {
      in_flight_.pop_front();
    }
  }

  void Accept(CalculatorContext* cc, int stream, const Packet& packet) {
    const Timestamp ts = packet.Timestamp();
    if (last_seen_[stream] < ts) last_seen_[stream] = ts;
    if (newest_ < ts) newest_ = ts;
    // Another stream's packet of a frame that is still queued.
    for (Frame& frame : queue_) {
      if (frame.timestamp == ts) {
        frame.packets[stream] = packet;
        return;
      }
    }
    // Another stream's packet of a frame already decided.
    auto decided = decisions_.find(ts);
    if (decided != decisions_.end()) {
      if (decided->second) cc->Outputs().Get("", stream).AddPacket(packet);
      return;
    }
    Frame frame{ts, std::vector<Packet>(num_streams_)};
    frame.packets[stream] = packet;
    if (queue_.empty() || queue_.back().timestamp < ts) {
      queue_.push_back(std::move(frame));
      return;
    }
    // A frame older than one already queued (its streams arrived out of
    // step): decide at once rather than reorder the queue.
    const bool allow =
        static_cast<int>(in_flight_.size()) < options_.max_in_flight();
    Decide(cc, frame, allow);
  }

  void Release(CalculatorContext* cc) {
    Frame frame = std::move(queue_.front());
    queue_.pop_front();
    Decide(cc, frame, true);
  }

  void Drop(CalculatorContext* cc) {
    Frame frame = std::move(queue_.front());
    queue_.pop_front();
    Decide(cc, frame, false);
  }

  void Decide(CalculatorContext* cc, const Frame& frame, bool allow) {
    if (allow) {
      in_flight_.push_back(frame.timestamp);
      for (int i = 0; i < num_streams_; ++i) {
        if (!frame.packets[i].IsEmpty()) {
          cc->Outputs().Get("", i).AddPacket(frame.packets[i]);
        }
      }
    }
    if (cc->Outputs().HasTag(kAllowTag)) {
      OutputStreamShard& out = cc->Outputs().Tag(kAllowTag);
      if (!out.IsClosed() && frame.timestamp >= out.NextTimestampBound()) {
        out.AddPacket(MakePacket<bool>(allow).At(frame.timestamp));
      }
    }
    decisions_[frame.timestamp] = allow;
    // Only recent decisions can still be needed by a lagging stream.
    while (decisions_.size() > 64) decisions_.erase(decisions_.begin());
  }

  // Nothing below the oldest queued frame, nor at or below what a stream has
  // already delivered, will be emitted any more.
  void AdvanceBounds(CalculatorContext* cc) {
    const Timestamp ceiling = queue_.empty() ? Timestamp::OneOverPostStream()
                                             : queue_.front().timestamp;
    Timestamp allow_bound = ceiling;
    for (int i = 0; i < num_streams_; ++i) {
      if (!last_seen_[i].IsRangeValue()) {
        allow_bound = Timestamp::Unset();
        continue;
      }
      Timestamp b = std::min(last_seen_[i].NextAllowedInStream(), ceiling);
      OutputStreamShard& out = cc->Outputs().Get("", i);
      if (!out.IsClosed()) out.SetNextTimestampBound(b);
      allow_bound = std::min(allow_bound, b);
    }
    if (cc->Outputs().HasTag(kAllowTag) && allow_bound.IsRangeValue()) {
      OutputStreamShard& out = cc->Outputs().Tag(kAllowTag);
      if (!out.IsClosed()) out.SetNextTimestampBound(allow_bound);
    }
  }

  // The throttled inputs have ended: frames still queued will never be let
  // through (no input will push the timeout on), and closing the outputs lets
  // the downstream section, and with it the FINISHED back edge, close.
  void Finish(CalculatorContext* cc) {
    while (!queue_.empty()) Drop(cc);
    for (int i = 0; i < num_streams_; ++i) cc->Outputs().Get("", i).Close();
    if (cc->Outputs().HasTag(kAllowTag)) cc->Outputs().Tag(kAllowTag).Close();
  }

  FlowLimiterCalculatorOptions options_;
  int num_streams_ = 0;
  std::deque<Timestamp> in_flight_;
  std::deque<Frame> queue_;
  std::map<Timestamp, bool> decisions_;
  std::vector<Timestamp> last_seen_;
  Timestamp newest_ = Timestamp::Unset();
};

}  // namespace

REGISTER_CALCULATOR(FlowLimiterCalculator);

}  // namespace rill
