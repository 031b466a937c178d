// An input stream handler decides when a node is ready to run and which
// queued packets make up one invocation. The built-in handlers (one per file
// in stream_handler/) are Default, Immediate, SyncSet, FixedSize, Barrier and
// Mux, with MediaPipe's names and semantics. Handlers run under the graph's
// scheduling lock and must not block.
#ifndef RILL_FRAMEWORK_INPUT_STREAM_HANDLER_H_
#define RILL_FRAMEWORK_INPUT_STREAM_HANDLER_H_

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "framework/packet.h"
#include "framework/proto/mediapipe_options.pb.h"
#include "framework/registry.h"
#include "framework/tag_map.h"
#include "framework/timestamp.h"

namespace rill {

// The queue of one input stream of a node.
struct InputQueue {
  std::deque<Packet> packets;
  // No packet below this timestamp will arrive any more.
  Timestamp bound = Timestamp::PreStream();
  bool back_edge = false;

  bool IsDone() const {
    return packets.empty() && bound == Timestamp::Done();
  }
  // The smallest timestamp this stream may still deliver.
  Timestamp Next() const {
    return packets.empty() ? bound : packets.front().Timestamp();
  }
};

class InputStreamHandler {
 public:
  enum class State { kNotReady, kReadyForProcess, kReadyForClose };

  virtual ~InputStreamHandler() = default;

  // `process_bounds`: the calculator asked for Process() calls on bound
  // changes alone (CalculatorContract::SetProcessTimestampBounds).
  virtual absl::Status Initialize(const TagMap& inputs,
                                  const MediaPipeOptions& options,
                                  bool process_bounds) {
    process_bounds_ = process_bounds;
    return absl::OkStatus();
  }

  // When ready for Process, moves this invocation's packets out of `queues`
  // into `out` (one slot per input; empty slots stay empty) and sets *ts.
  // `last` is the timestamp of the previous invocation.
  virtual State Fill(std::vector<InputQueue>& queues, Timestamp last,
                     std::vector<Packet>* out, Timestamp* ts) = 0;

 protected:
  // The default policy over a subset of inputs: the smallest queued
  // timestamp runs once every other input of the subset is known to have
  // no packet below or at it. Helpers shared by several handlers.
  State SyncFill(std::vector<InputQueue>& queues, const std::vector<int>& ids,
                 Timestamp last, std::vector<Packet>* out, Timestamp* ts) const;
  static bool AllDone(const std::vector<InputQueue>& queues,
                      const std::vector<int>& ids);
  bool process_bounds_ = false;
};

using InputStreamHandlerFactory =
    std::function<std::unique_ptr<InputStreamHandler>()>;
Registry<InputStreamHandlerFactory>& InputStreamHandlerRegistry();

template <typename T>
bool RegisterInputStreamHandler(const std::string& name, const char* file = "") {
  return InputStreamHandlerRegistry().Register(
      name, [] { return std::unique_ptr<InputStreamHandler>(new T()); }, file);
}

}  // namespace rill

#define REGISTER_INPUT_STREAM_HANDLER(Class)                          \
  static const bool RILL_REGISTER_ISH_##Class [[maybe_unused]] =      \
      ::rill::RegisterInputStreamHandler<Class>(#Class, __FILE__)

#endif  // RILL_FRAMEWORK_INPUT_STREAM_HANDLER_H_
