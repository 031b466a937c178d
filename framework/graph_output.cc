// The graph's output sink calculator and the node spec it runs under (see
// graph_output.h for why observers and pollers are sink nodes).
#include "framework/graph_output.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace rill {
namespace {

class GraphOutputSink : public CalculatorBase {
 public:
  GraphOutputSink(std::function<absl::Status(const Packet&)> callback,
                  std::shared_ptr<PollerQueue> poller)
      : callback_(std::move(callback)), poller_(std::move(poller)) {}

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& p = cc->Inputs().Index(0).Value();
    // A bound-only invocation reports "nothing at this timestamp".
    Packet out = p.IsEmpty() ? Packet().At(cc->InputTimestamp()) : p;
    if (callback_) return callback_(out);
    {
      std::lock_guard<std::mutex> lock(poller_->mu);
      poller_->packets.push_back(std::move(out));
      if (poller_->max_size > 0 &&
          static_cast<int>(poller_->packets.size()) > poller_->max_size) {
        poller_->packets.pop_front();
      }
    }
    poller_->cv.notify_all();
    return absl::OkStatus();
  }
  absl::Status Close(CalculatorContext* cc) override {
    if (poller_) {
      {
        std::lock_guard<std::mutex> lock(poller_->mu);
        poller_->done = true;
      }
      poller_->cv.notify_all();
    }
    return absl::OkStatus();
  }

 private:
  std::function<absl::Status(const Packet&)> callback_;
  std::shared_ptr<PollerQueue> poller_;
};

}  // namespace

void ResetPollerForRun(GraphObserver* observer) {
  if (!observer->poller) return;
  std::lock_guard<std::mutex> lock(observer->poller->mu);
  observer->poller->packets.clear();
  observer->poller->done = false;
}

absl::Status BuildSinkSpec(int stream, int priority, GraphObserver* observer) {
  GraphObserver& o = *observer;
  o.config = std::make_unique<CalculatorGraphConfig::Node>();
  o.config->set_calculator(o.poller ? "(OutputStreamPoller)"
                                    : "(ObserveOutputStream)");
  o.config->add_input_stream(o.stream);
  o.spec = std::make_unique<NodeSpec>();
  o.spec->id = -1;
  o.spec->name = absl::StrCat("__sink_", o.stream);
  o.spec->contract = std::make_unique<CalculatorContract>();
  RILL_RETURN_IF_ERROR(o.spec->contract->Initialize(*o.config, o.spec->name));
  o.spec->contract->Inputs().Index(0).SetAny();
  o.spec->contract->SetProcessTimestampBounds(o.observe_bounds);
  o.spec->input_streams = {stream};
  o.spec->back_edge = {false};
  o.spec->handler = "DefaultInputStreamHandler";
  o.spec->priority = priority;
  return absl::OkStatus();
}

std::unique_ptr<CalculatorBase> MakeGraphOutputSink(
    const GraphObserver& observer) {
  return std::make_unique<GraphOutputSink>(observer.callback, observer.poller);
}

}  // namespace rill
