// CalculatorGraph, the public facade (graph.h): it owns the validated config,
// the registered observers and executors, and one GraphRuntime per run
// (graph_runtime.h), and checks the call order the API documents before
// forwarding to the runtime.
#include "framework/graph.h"

#include "absl/strings/str_cat.h"
#include "framework/graph_output.h"
#include "framework/graph_runtime.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/status_util.h"
#include "framework/tool/config_loader.h"
#include "framework/validated_graph.h"

namespace rill {

CalculatorGraph::CalculatorGraph()
    : profiler_(std::make_unique<GraphProfiler>()) {}

CalculatorGraph::~CalculatorGraph() { runtime_.reset(); }

absl::Status CalculatorGraph::Initialize(
    const CalculatorGraphConfig& config,
    const std::map<std::string, Packet>& side_packets) {
  if (validated_ != nullptr) {
    return absl::FailedPreconditionError("the graph is already initialized");
  }
  auto validated = ValidatedGraph::Create(config);
  if (!validated.ok()) return validated.status();
  validated_ = std::move(*validated);
  initial_side_packets_ = side_packets;
  return absl::OkStatus();
}

absl::Status CalculatorGraph::InitializeFromFile(const std::string& path) {
  auto config = LoadGraphConfigFile(path);
  if (!config.ok()) return config.status();
  if (!resource_roots_set_) resources_ = Resources::ForGraphFile(path);
  return AnnotateStatus(Initialize(*config), absl::StrCat(path, ": "));
}

std::vector<std::string> CalculatorGraph::ValidationWarnings() const {
  return validated_ ? validated_->Warnings() : std::vector<std::string>();
}

const CalculatorGraphConfig& CalculatorGraph::Config() const {
  static const auto* empty = new CalculatorGraphConfig();
  return validated_ ? validated_->Config() : *empty;
}

absl::Status CalculatorGraph::AddObserver(
    const char* what, const std::string& stream, bool observe_timestamp_bounds,
    std::function<absl::Status(const Packet&)> callback,
    std::shared_ptr<PollerQueue> poller) {
  if (!validated_) return absl::FailedPreconditionError("Initialize first");
  if (runtime_ && runtime_->IsRunning()) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " must be called before StartRun"));
  }
  if (validated_->StreamIndex(stream) < 0) {
    return absl::NotFoundError(
        absl::StrCat(what, ": no stream \"", stream, "\" in the graph"));
  }
  GraphObserver o;
  o.stream = stream;
  o.observe_bounds = observe_timestamp_bounds;
  o.callback = std::move(callback);
  o.poller = std::move(poller);
  observers_.push_back(std::move(o));
  return absl::OkStatus();
}

absl::Status CalculatorGraph::ObserveOutputStream(
    const std::string& stream,
    std::function<absl::Status(const Packet&)> callback,
    bool observe_timestamp_bounds) {
  return AddObserver("ObserveOutputStream", stream, observe_timestamp_bounds,
                     std::move(callback), nullptr);
}

absl::StatusOr<OutputStreamPoller> CalculatorGraph::AddOutputStreamPoller(
    const std::string& stream, bool observe_timestamp_bounds) {
  auto queue = std::make_shared<PollerQueue>();
  RILL_RETURN_IF_ERROR(AddObserver("AddOutputStreamPoller", stream,
                                   observe_timestamp_bounds, nullptr, queue));
  return OutputStreamPoller(queue);
}

absl::Status CalculatorGraph::SetExecutor(const std::string& name,
                                          std::shared_ptr<Executor> executor) {
  if (runtime_ && runtime_->IsRunning()) {
    return absl::FailedPreconditionError("SetExecutor must precede StartRun");
  }
  if (executor == nullptr) return absl::InvalidArgumentError("null executor");
  custom_executors_[name] = std::move(executor);
  return absl::OkStatus();
}

absl::Status CalculatorGraph::StartRun(
    const std::map<std::string, Packet>& side_packets) {
  if (!validated_) return absl::FailedPreconditionError("Initialize first");
  if (runtime_) {
    runtime_->Shutdown();
    runtime_.reset();
  }
  // Each run gets fresh calculators and queues.
  runtime_ = std::make_unique<GraphRuntime>(validated_.get(), profiler_.get(),
                                            &resources_);
  if (error_callback_) runtime_->SetErrorCallback(error_callback_);
  absl::Status s = runtime_->Setup(&observers_, custom_executors_);
  if (s.ok()) {
    std::map<std::string, Packet> all = initial_side_packets_;
    for (const auto& [k, v] : side_packets) all[k] = v;
    s = runtime_->Start(all);
  }
  if (!s.ok()) {
    // Close whatever opened; the graph can be configured and started again.
    runtime_->Shutdown();
    runtime_.reset();
  }
  return s;
}

absl::Status CalculatorGraph::Run(
    const std::map<std::string, Packet>& side_packets) {
  RILL_RETURN_IF_ERROR(StartRun(side_packets));
  RILL_RETURN_IF_ERROR(CloseAllInputStreams());
  return WaitUntilDone();
}

void CalculatorGraph::SetGraphInputStreamAddMode(GraphInputStreamAddMode mode) {
  add_mode_ = mode;
}

absl::Status CalculatorGraph::AddPacketToInputStream(const std::string& stream,
                                                     const Packet& packet) {
  return AddPacketToInputStream(stream, Packet(packet));
}

absl::Status CalculatorGraph::AddPacketToInputStream(const std::string& stream,
                                                     Packet&& packet) {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->AddPacket(
      stream, std::move(packet),
      add_mode_ == GraphInputStreamAddMode::kWaitTillNotFull);
}

absl::Status CalculatorGraph::SetInputStreamTimestampBound(
    const std::string& stream, Timestamp bound) {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->SetInputBound(stream, bound);
}

absl::Status CalculatorGraph::CloseInputStream(const std::string& stream) {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->CloseInput(stream);
}

absl::Status CalculatorGraph::CloseAllInputStreams() {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->CloseAllInputs();
}

void CalculatorGraph::Cancel() {
  if (runtime_) runtime_->Cancel();
}

absl::Status CalculatorGraph::WaitUntilIdle() {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->WaitUntilIdle();
}

absl::Status CalculatorGraph::WaitUntilDone() {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->WaitUntilDone();
}

bool CalculatorGraph::HasError() const {
  return runtime_ != nullptr && runtime_->HasError();
}

void CalculatorGraph::SetErrorCallback(
    std::function<void(const absl::Status&)> callback) {
  error_callback_ = std::move(callback);
  if (runtime_) runtime_->SetErrorCallback(error_callback_);
}

absl::StatusOr<Packet> CalculatorGraph::GetOutputSidePacket(
    const std::string& name) const {
  if (!runtime_) return absl::FailedPreconditionError("StartRun first");
  return runtime_->GetSidePacket(name);
}

GraphProfiler* CalculatorGraph::Profiler() { return profiler_.get(); }

std::vector<std::pair<std::string, std::string>> CalculatorGraph::NodeReports() const {
  return runtime_ ? runtime_->NodeReports() : std::vector<std::pair<std::string, std::string>>();
}

std::string CalculatorGraph::DebugWaitReport() const {
  return runtime_ ? runtime_->WaitReport() : std::string();
}

}  // namespace rill
