// What a calculator sees during Open(), Process() and Close(): this
// invocation's input packets (all at one timestamp), the output streams to
// add packets to, side packets and options.
#ifndef RILL_FRAMEWORK_CALCULATOR_CONTEXT_H_
#define RILL_FRAMEWORK_CALCULATOR_CONTEXT_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "framework/collection.h"
#include "framework/options.h"
#include "framework/resources.h"
#include "framework/packet.h"
#include "framework/packet_type.h"
#include "framework/timestamp.h"

namespace rill {

class CalculatorNode;

class InputStreamShard {
 public:
  const Packet& Value() const { return packet_; }
  bool IsEmpty() const { return packet_.IsEmpty(); }
  template <typename T>
  const T& Get() const {
    return packet_.Get<T>();
  }
  // No packet will ever arrive on this stream again.
  bool IsDone() const { return done_; }
  // No packet below this timestamp will arrive on this stream any more (as
  // of this invocation).
  Timestamp NextTimestampBound() const { return bound_; }
  const std::string& Name() const { return *name_; }

 private:
  friend class CalculatorNode;
  static const std::string kNoName;
  Packet packet_;
  bool done_ = false;
  Timestamp bound_ = Timestamp::PreStream();
  const std::string* name_ = &kNoName;
};

// Per-stream state that outlives one invocation (owned by the node).
struct OutputStreamSpec {
  std::string name;
  const PacketType* type = nullptr;
  // The stream's type as resolved across the graph (nullptr: any type).
  const std::type_info* resolved_type = nullptr;
  TimestampDiff offset = TimestampDiff::Unset();
};

class OutputStreamShard {
 public:
  void AddPacket(const Packet& packet) { Check(packet), packets_.push_back(packet); }
  void AddPacket(Packet&& packet) {
    Check(packet);
    packets_.push_back(std::move(packet));
  }
  // Takes ownership of `ptr`.
  template <typename T>
  void Add(T* ptr, Timestamp timestamp) {
    AddPacket(Adopt(ptr).At(timestamp));
  }
  // Promises that no packet below `bound` will follow.
  void SetNextTimestampBound(Timestamp bound) {
    if (bound > bound_) bound_ = bound;
  }
  Timestamp NextTimestampBound() const;
  // No more packets on this stream.
  void Close() { close_ = true; }
  bool IsClosed() const { return close_ || closed_before_; }
  void SetOffset(TimestampDiff offset) {
    if (spec_) spec_->offset = offset;
  }
  const std::string& Name() const;

 private:
  friend class CalculatorNode;
  void Check(const Packet& packet);

  OutputStreamSpec* spec_ = nullptr;
  std::vector<Packet> packets_;
  Timestamp bound_ = Timestamp::Unset();  // requested this invocation
  Timestamp committed_bound_ = Timestamp::PreStream();
  bool close_ = false;
  bool closed_before_ = false;
  std::string error_;  // first misuse seen, reported after the call
};

class OutputSidePacket {
 public:
  void Set(const Packet& packet) {
    packet_ = packet;
    set_ = true;
  }
  const Packet& Get() const { return packet_; }
  bool IsSet() const { return set_; }

 private:
  Packet packet_;
  bool set_ = false;
};

using InputStreamShardSet = Collection<InputStreamShard>;
using OutputStreamShardSet = Collection<OutputStreamShard>;
using PacketSet = Collection<Packet>;
using OutputSidePacketSet = Collection<OutputSidePacket>;

// What CalculatorContext::SetReport writes (one per node).
struct NodeReport {
  std::mutex mu;
  std::string text;
};

class CalculatorContext {
 public:
  InputStreamShardSet& Inputs() { return inputs_; }
  const InputStreamShardSet& Inputs() const { return inputs_; }
  OutputStreamShardSet& Outputs() { return outputs_; }
  const PacketSet& InputSidePackets() const { return *input_side_packets_; }
  OutputSidePacketSet& OutputSidePackets() { return *output_side_packets_; }

  // The timestamp of this invocation's inputs (Unstarted in Open,
  // Done in Close).
  Timestamp InputTimestamp() const { return input_timestamp_; }

  template <typename T>
  const T& Options() const {
    return options_->Get<T>();
  }
  const std::string& NodeName() const { return *node_name_; }
  const std::string& CalculatorType() const { return *calculator_type_; }

  // The file to open for a path a node's options or side packets name
  // (a model, a label map), found under the graph's resource roots; the
  // error names every place looked in (and, returned from Open or Process,
  // gets the node's name from the framework).
  absl::StatusOr<std::string> ResourcePath(const std::string& path,
                                           const std::string& what) const;

  // A one-line account of how this node runs that the graph's user should
  // see (InferenceCalculator: the model and the backend of its layers).
  // `rill run` prints it in its summary; CalculatorGraph::NodeReports()
  // returns it. The last one set wins.
  void SetReport(std::string text);

  // Sets the timestamp offset of every output stream (see
  // CalculatorContract::SetTimestampOffset).
  void SetOffset(TimestampDiff offset) {
    for (auto& out : outputs_) out.SetOffset(offset);
  }

 private:
  friend class CalculatorNode;
  InputStreamShardSet inputs_;
  OutputStreamShardSet outputs_;
  const PacketSet* input_side_packets_ = nullptr;
  OutputSidePacketSet* output_side_packets_ = nullptr;
  Timestamp input_timestamp_ = Timestamp::Unstarted();
  const NodeOptions* options_ = nullptr;
  const std::string* node_name_ = nullptr;
  const std::string* calculator_type_ = nullptr;
  const Resources* resources_ = nullptr;
  NodeReport* report_ = nullptr;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_CALCULATOR_CONTEXT_H_
