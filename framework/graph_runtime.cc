// GraphRuntime, the scheduler: see graph_runtime.h.
#include "framework/graph_runtime.h"

#include <algorithm>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/graph_output.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/proto/thread_pool_executor.pb.h"
#include "framework/status_util.h"
#include "framework/validated_graph.h"

namespace rill {
namespace {

// A cheap timer for the scheduler's cost estimates (not the profiler's).
inline uint64_t CycleCount() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// A node whose calls average fewer cycles than this (about 3 µs) runs on the
// worker that made it ready instead of waking another worker.
constexpr int64_t kHandOffCycles = 10000;

std::string NodeDesc(const CalculatorNode& n) {
  return absl::StrCat("node \"", n.name(), "\" (", n.calculator_type(), ")");
}

}  // namespace

absl::Status GraphRuntime::Setup(
    std::vector<GraphObserver>* observers,
    const std::map<std::string, std::shared_ptr<Executor>>& custom_executors) {
  const CalculatorGraphConfig& config = validated_->Config();
  max_queue_size_ =
      config.max_queue_size() == 0 ? 100 : config.max_queue_size();
  report_deadlock_ = config.report_deadlock();

  // Executors: the default one first.
  std::map<std::string, int> executor_index;
  auto add_executor = [&](const std::string& name,
                          std::shared_ptr<Executor> e) {
    executor_index[name] = static_cast<int>(executors_.size());
    ExecutorState st;
    st.max_drainers = std::max(1, e->NumThreads());
    if (e->RunsOnApplicationThread()) {
      st.max_drainers = 1;
      app_executor_ = e.get();
    }
    st.executor = std::move(e);
    executors_.push_back(std::move(st));
  };
  std::map<std::string, const ExecutorConfig*> declared;
  for (const ExecutorConfig& e : config.executor()) declared[e.name()] = &e;
  auto make = [&](const std::string& name) -> absl::Status {
    auto custom = custom_executors.find(name);
    if (custom != custom_executors.end()) {
      add_executor(name, custom->second);
      return absl::OkStatus();
    }
    auto it = declared.find(name);
    if (it == declared.end() || it->second->type().empty()) {
      if (name.empty()) {
        int threads = config.num_threads() > 0 ? config.num_threads()
                                               : DefaultNumThreads();
        if (it != declared.end()) {
          threads = it->second->options()
                        .GetExtension(ThreadPoolExecutorOptions::ext)
                        .num_threads();
          if (threads <= 0) threads = DefaultNumThreads();
        }
        add_executor("", std::make_shared<ThreadPoolExecutor>(threads));
        return absl::OkStatus();
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "executor \"", name,
          "\" has no `type:` in the graph config and none was given with "
          "CalculatorGraph::SetExecutor"));
    }
    auto factory = ExecutorRegistry().Lookup(it->second->type());
    if (!factory.ok()) return factory.status();
    auto e = (*factory)(it->second->options());
    if (!e.ok()) return e.status();
    add_executor(name, *e);
    return absl::OkStatus();
  };
  RILL_RETURN_IF_ERROR(make(""));
  for (const auto& [name, e] : declared) {
    if (!name.empty()) RILL_RETURN_IF_ERROR(make(name));
  }

  // Nodes.
  std::vector<NodeSpec>& specs = validated_->Nodes();
  for (NodeSpec& spec : specs) {
    auto node = std::make_unique<CalculatorNode>(
        static_cast<int>(nodes_.size()), &spec, spec.entry.create());
    node->resources = resources_;
    RILL_RETURN_IF_ERROR(node->Prepare());
    node_executor_.push_back(executor_index[spec.executor]);
    nodes_.push_back(std::move(node));
  }
  const auto& streams = validated_->Streams();
  for (auto& node : nodes_) {
    // Check packets against each stream's type as resolved across the graph
    // (a pass-through's output has its input stream's type).
    for (size_t out = 0; out < node->output_specs.size(); ++out) {
      const int s = node->spec().output_streams[out];
      if (s >= 0 && streams[s].type != nullptr) {
        node->output_specs[out].resolved_type = streams[s].type;
      }
    }
  }
  consumers_.assign(streams.size(), {});
  for (size_t s = 0; s < streams.size(); ++s)
    consumers_[s] = streams[s].consumers;

  // Internal sinks for observers and pollers.
  int max_priority = 0;
  for (const NodeSpec& spec : specs)
    max_priority = std::max(max_priority, spec.priority);
  for (GraphObserver& o : *observers) {
    ResetPollerForRun(&o);
    const int stream = validated_->StreamIndex(o.stream);
    if (stream < 0) {
      return absl::NotFoundError(
          absl::StrCat("cannot observe stream \"", o.stream,
                       "\": no such stream in the graph"));
    }
    RILL_RETURN_IF_ERROR(BuildSinkSpec(stream, max_priority + 1, &o));
    auto node = std::make_unique<CalculatorNode>(
        static_cast<int>(nodes_.size()), o.spec.get(), MakeGraphOutputSink(o));
    RILL_RETURN_IF_ERROR(node->Prepare());
    consumers_[stream].emplace_back(node->index(), 0);
    node_executor_.push_back(0);
    nodes_.push_back(std::move(node));
  }

  // Graph inputs and their queue limits.
  for (int s : validated_->GraphInputStreams()) {
    GraphInput in;
    in.stream = s;
    for (const auto& [n, i] : consumers_[s]) {
      const PacketType& t = nodes_[n]->spec().contract->Inputs().Get(i);
      if (t.ResolvedType() != nullptr) in.type = &t;
    }
    input_by_name_[streams[s].name] = static_cast<int>(inputs_.size());
    inputs_.push_back(in);
  }
  for (auto& node : nodes_) {
    for (int64_t& limit : node->queue_limits) limit = max_queue_size_;
  }

  std::vector<std::string> names, calcs;
  std::vector<std::vector<std::string>> input_names;
  for (auto& node : nodes_) {
    names.push_back(node->name());
    calcs.push_back(node->calculator_type());
    input_names.push_back(node->spec().contract->Inputs().GetTagMap()->Names());
  }
  profiler_->Initialize(config.profiler_config(), names, calcs, input_names);
  return absl::OkStatus();
}

bool GraphRuntime::SidePacketsReadyLocked(const CalculatorNode& node) const {
  for (const std::string& name : node.spec().input_side_packets) {
    if (!side_packets_.count(name)) return false;
  }
  return true;
}

absl::Status GraphRuntime::Start(
    const std::map<std::string, Packet>& side_packets) {
  std::unique_lock<AdaptiveMutex> lock(mu_);
  side_packets_ = side_packets;
  // Every consumed side packet must be given or produced.
  std::vector<std::string> errors;
  for (const auto& [name, producer] : validated_->SidePacketProducers()) {
    if (producer >= 0) continue;
    auto it = side_packets_.find(name);
    if (it == side_packets_.end()) {
      // As in MediaPipe, a side packet that every consumer declares
      // Optional may be left out: they open with an empty packet.
      std::vector<std::string> required_by;
      for (const auto& node : nodes_) {
        const auto& names = node->spec().input_side_packets;
        for (size_t id = 0; id < names.size(); ++id) {
          if (names[id] == name &&
              !node->spec()
                   .contract->InputSidePackets()
                   .Get(static_cast<CollectionItemId>(id))
                   .IsOptional()) {
            required_by.push_back(NodeDesc(*node));
          }
        }
      }
      if (required_by.empty()) {
        side_packets_[name] = Packet();
        continue;
      }
      for (const std::string& node : required_by) {
        errors.push_back(absl::StrCat(
            node, " needs input side packet \"", name,
            "\", which was not given to StartRun and no node produces"));
      }
      continue;
    }
    auto type = validated_->SidePacketTypes().find(name);
    if (type != validated_->SidePacketTypes().end()) {
      absl::Status s = type->second->Validate(it->second);
      if (!s.ok()) {
        errors.push_back(
            absl::StrCat("side packet \"", name, "\": ", s.message()));
      }
    }
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  }
  running_ = true;
  // Open nodes in topological order on this thread, so Open errors come
  // back from StartRun. Nodes waiting for side packets produced by other
  // nodes open later, from the scheduler.
  std::vector<CalculatorNode*> order;
  for (auto& n : nodes_) order.push_back(n.get());
  std::stable_sort(order.begin(), order.end(),
                   [](CalculatorNode* a, CalculatorNode* b) {
                     return a->spec().priority < b->spec().priority;
                   });
  for (CalculatorNode* node : order) {
    if (!SidePacketsReadyLocked(*node)) continue;
    Invocation* inv = PrepareLocked(node);
    if (inv == nullptr) continue;
    lock.unlock();
    const int64_t t0 = profiler_->Enabled() ? profiler_->NowNs() : 0;
    inv->status = node->Call(inv);
    if (profiler_->Enabled()) {
      profiler_->RecordInvocation(node->index(), TraceEvent::kOpen, t0,
                                  profiler_->NowNs(), Timestamp::Unstarted());
    }
    lock.lock();
    FinishLocked(node, inv);
    if (!status_.ok()) {
      absl::Status s = status_;
      lock.unlock();
      // Let the scheduler close what was opened; report the Open failure.
      return s;
    }
  }
  for (auto& node : nodes_) MaybeScheduleLocked(node.get());
  return absl::OkStatus();
}

// Decides what `node` can do now and claims an invocation for it.
Invocation* GraphRuntime::PrepareLocked(CalculatorNode* node) {
  using State = CalculatorNode::State;
  if (node->state == State::kClosed || node->close_started) return nullptr;
  if (node->state == State::kNotOpened) {
    // Its Open is running: it closes after that commits (marking it closed
    // now would count it twice, and the run would never be done).
    if (node->in_flight > 0) return nullptr;
    if (shutting_down_) {
      node->state = State::kClosed;
      ++closed_nodes_;
      cv_.notify_all();
      return nullptr;
    }
    if (!SidePacketsReadyLocked(*node)) return nullptr;
    Invocation* inv = node->AcquireInvocation(Invocation::kOpen);
    for (int id = 0; id < node->side_inputs.NumEntries(); ++id) {
      node->side_inputs.Get(id) =
          side_packets_[node->spec().input_side_packets[id]];
    }
    inv->timestamp = Timestamp::Unstarted();
    node->LoadInputs(inv);
    ++node->in_flight;
    ++in_flight_;
    node->commit_order.push_back(inv);
    return inv;
  }
  // Opened.
  bool close = false;
  Invocation* inv = nullptr;
  if (shutting_down_) {
    close = true;
  } else if (node->spec().IsSource()) {
    if (node->source_stopped || node->spec().output_streams.empty()) {
      // Stopped, or a node of side packets only: it closes after Open.
      close = true;
    } else if (node->in_flight == 0) {
      // source_layer: a source waits until every source of a lower layer
      // has closed (MediaPipe's semantics).
      const int layer = node->spec().contract->GetNodeConfig().source_layer();
      if (layer > 0) {
        for (const auto& other : nodes_) {
          if (other->spec().IsSource() &&
              other->state != CalculatorNode::State::kClosed &&
              other->spec().contract->GetNodeConfig().source_layer() < layer) {
            return nullptr;  // rescheduled when that source closes
          }
        }
      }
      if (ThrottledLocked(*node)) {
        if (!node->throttled) ++num_throttled_;
        node->throttled = true;
        return nullptr;
      }
      if (node->throttled) --num_throttled_;
      node->throttled = false;
      inv = node->AcquireInvocation(Invocation::kProcess);
      inv->timestamp = Timestamp::Unset();
    }
  } else if (node->in_flight < node->max_in_flight) {
    Invocation* candidate = node->AcquireInvocation(Invocation::kProcess);
    if (candidate != nullptr) {
      Timestamp ts;
      auto st = node->handler->Fill(node->queues, node->last_timestamp,
                                    &candidate->slots, &ts);
      if (st == InputStreamHandler::State::kReadyForProcess) {
        inv = candidate;
        inv->timestamp = ts;
        node->last_timestamp = ts;
        if (num_throttled_ > 0 || waiting_adders_ > 0) RecheckThrottledLocked();
      } else {
        node->ReleaseInvocation(candidate);
        close = st == InputStreamHandler::State::kReadyForClose;
      }
    }
  }
  if (close) {
    if (node->in_flight > 0) return nullptr;  // close after the last call
    node->close_started = true;
    inv = node->AcquireInvocation(Invocation::kClose);
    inv->timestamp = Timestamp::Done();
    for (InputQueue& q : node->queues) q.packets.clear();
  }
  if (inv == nullptr) return nullptr;
  node->LoadInputs(inv);
  ++node->in_flight;
  ++in_flight_;
  node->commit_order.push_back(inv);
  return inv;
}

void GraphRuntime::MaybeScheduleLocked(CalculatorNode* node) {
  if (node->in_ready_set || node->state == CalculatorNode::State::kClosed ||
      node->close_started) {
    return;
  }
  ExecutorState& ex = executors_[node_executor_[node->index()]];
  node->in_ready_set = true;
  ex.ready.emplace(node->spec().priority, node->index());
  // Wake another worker only when there is more ready work than drainers
  // free to take it, and then only if the work is worth a hand-off: when a
  // free drainer exists (the one that just committed will pop the next node
  // itself), a cheap node is left to it, because moving a calculator of a
  // few hundred nanoseconds to another core costs more than running it. When
  // every drainer is busy inside a calculator, any ready work wakes one.
  const int free_drainers = ex.drainers - ex.busy;
  if (ex.drainers<ex.max_drainers&& static_cast<int>(ex.ready.size())>
          free_drainers &&
      (free_drainers == 0 || node->avg_cycles >= kHandOffCycles)) {
    ++ex.drainers;
    const int index = node_executor_[node->index()];
    ex.executor->Schedule([this, index] { Drain(index); });
  }
}

// True when `node` may have something to do after an invocation: queued
// packets, a source that has not stopped, or inputs that are all done.
bool GraphRuntime::MightBeReadyLocked(const CalculatorNode& node) const {
  if (node.state != CalculatorNode::State::kOpened || shutting_down_)
    return true;
  if (node.spec().IsSource()) return true;
  bool all_done = true;
  for (const InputQueue& q : node.queues) {
    if (!q.packets.empty()) return true;
    if (!q.back_edge && q.bound != Timestamp::Done()) all_done = false;
  }
  return all_done;
}

void GraphRuntime::Drain(int executor) {
  std::unique_lock<AdaptiveMutex> lock(mu_);
  ExecutorState& ex = executors_[executor];
  for (;;) {
    while (!ex.ready.empty()) {
      CalculatorNode* node = nodes_[ex.ready.top().second].get();
      ex.ready.pop();
      node->in_ready_set = false;
      Invocation* inv = PrepareLocked(node);
      if (inv == nullptr) continue;
      // More concurrent work for this node (max_in_flight > 1)?
      if (node->max_in_flight > 1 && !node->spec().IsSource()) {
        MaybeScheduleLocked(node);
      }
      ++ex.busy;
      lock.unlock();
      const bool timing = profiler_->Enabled();
      if (timing) inv->start_ns = profiler_->NowNs();
      const uint64_t c0 = CycleCount();
      inv->status = node->Call(inv);
      const uint64_t cycles = CycleCount() - c0;
      if (timing) {
        inv->end_ns = profiler_->NowNs();
        profiler_->RecordInvocation(
            node->index(),
            inv->kind == Invocation::kOpen    ? TraceEvent::kOpen
            : inv->kind == Invocation::kClose ? TraceEvent::kClose
                                              : TraceEvent::kProcess,
            inv->start_ns, inv->end_ns, inv->timestamp);
      }
      node->ClearInputs(inv);
      lock.lock();
      --ex.busy;
      // Running average of the calculator's cost (decides hand-offs).
      node->avg_cycles += (static_cast<int64_t>(cycles) - node->avg_cycles) / 8;
      FinishLocked(node, inv);
    }
    // Deliver error callbacks while still counted as a drainer, so that
    // WaitUntilDone returns only after they ran. The lock is released
    // meanwhile, and work made ready then (by Cancel, a graph input, another
    // drainer) may have counted on this drainer, which MaybeScheduleLocked
    // saw as free: look at the ready set again before leaving.
    if (pending_callbacks_.empty()) break;
    std::vector<absl::Status> callbacks;
    callbacks.swap(pending_callbacks_);
    std::function<void(const absl::Status&)> callback = error_callback_;
    lock.unlock();
    if (callback) {
      for (const absl::Status& s : callbacks) callback(s);
    }
    lock.lock();
  }
  --ex.drainers;
  if (IdleLocked()) {
    OnIdleLocked();  // notifies waiters
  } else if (ex.drainers == 0) {
    cv_.notify_all();  // Shutdown waits for drainers to leave
  }
}

void GraphRuntime::FinishLocked(CalculatorNode* node, Invocation* inv) {
  inv->done = true;
  // Commit in the order invocations started (in-order output when
  // max_in_flight > 1).
  bool opened = false;
  while (!node->commit_order.empty() && node->commit_order.front()->done) {
    Invocation* next = node->commit_order.front();
    node->commit_order.pop_front();
    opened = opened || next->kind == Invocation::kOpen;
    CommitLocked(node, next);
    --node->in_flight;
    --in_flight_;
    node->ReleaseInvocation(next);
  }
  PropagateOffsetBoundsLocked(node);
  // A node that opened late (it waited for side packets) may find its
  // inputs' bounds already moved without packets: look at it once, so a
  // bound-processing node runs and a plain one passes the bounds on.
  if (opened || MightBeReadyLocked(*node)) MaybeScheduleLocked(node);
  // Waiters (WaitUntilIdle/Done, blocked adders) are woken where their
  // condition can change: node closed, idle, queue space, failure.
}

void GraphRuntime::CommitLocked(CalculatorNode* node, Invocation* inv) {
  using State = CalculatorNode::State;
  absl::Status status = inv->status;
  bool stop = false;
  if (!status.ok() && IsStatusStop(status)) {
    stop = true;
    status = absl::OkStatus();
  }
  if (!status.ok()) {
    const char* phase = inv->kind == Invocation::kOpen    ? "Open"
                        : inv->kind == Invocation::kClose ? "Close"
                                                          : "Process";
    FailLocked(AnnotateStatus(
        status, absl::StrCat(NodeDesc(*node), " failed in ", phase,
                             inv->kind == Invocation::kProcess
                                 ? absl::StrCat(" at timestamp ",
                                                inv->timestamp.DebugString())
                                 : "",
                             ": ")));
  }
  const int num_outputs = static_cast<int>(node->output_bounds.size());
  for (int out = 0; out < num_outputs && status_.ok(); ++out) {
    const std::string& err = node->ShardError(inv, out);
    if (!err.empty()) {
      FailLocked(absl::InvalidArgumentError(
          absl::StrCat(NodeDesc(*node), " output stream \"",
                       node->output_specs[out].name, "\": ", err)));
    }
  }
  const bool closing = inv->kind == Invocation::kClose;
  if (!status_.ok()) {
    for (int out = 0; out < num_outputs; ++out) {
      node->ResetShard(inv, out, node->output_bounds[out], true);
    }
  } else {
    const Timestamp t = inv->timestamp;
    for (int out = 0; out < num_outputs; ++out) {
      std::vector<Packet>& packets = node->ShardPackets(inv, out);
      Timestamp bound = node->output_bounds[out];
      if (!packets.empty()) {
        bound =
            std::max(bound, packets.back().Timestamp().NextAllowedInStream());
      }
      bound = std::max(bound, node->ShardBound(inv, out));
      const TimestampDiff offset = node->output_specs[out].offset;
      if (offset != TimestampDiff::Unset() && t.IsRangeValue() &&
          inv->kind == Invocation::kProcess) {
        bound = std::max(bound, (t + offset).NextAllowedInStream());
      }
      if (closing || stop || node->ShardClose(inv, out))
        bound = Timestamp::Done();
      const int stream = node->spec().output_streams[out];
      if (stream >= 0 &&
          (!packets.empty() || bound > node->output_bounds[out])) {
        PropagateLocked(stream, &packets, bound, true);
      }
      node->output_bounds[out] = bound;
      node->ResetShard(inv, out, bound, bound == Timestamp::Done());
    }
    PublishSidePacketsLocked(node);
  }
  if (inv->kind == Invocation::kOpen) {
    node->state = State::kOpened;
    node->last_timestamp = Timestamp::Unstarted();
  }
  if (stop) {
    if (node->spec().IsSource()) {
      node->source_stopped = true;
    } else {
      // A non-source that stops drops its remaining input and closes.
      for (InputQueue& q : node->queues) {
        q.packets.clear();
        q.bound = Timestamp::Done();
      }
    }
  }
  if (closing) {
    node->state = State::kClosed;
    ++closed_nodes_;
    RecheckThrottledLocked();  // its queues no longer count as full
    if (node->spec().IsSource()) {
      // Sources of higher layers may start now.
      for (auto& other : nodes_) {
        if (other->spec().IsSource() &&
            other->spec().contract->GetNodeConfig().source_layer() > 0) {
          MaybeScheduleLocked(other.get());
        }
      }
    }
    cv_.notify_all();
  }
}

void GraphRuntime::PropagateLocked(int stream, std::vector<Packet>* packets,
                                   Timestamp bound, bool may_move) {
  const auto& consumers = consumers_[stream];
  const bool stats = profiler_->StatsEnabled();
  for (size_t c = 0; c < consumers.size(); ++c) {
    CalculatorNode* node = nodes_[consumers[c].first].get();
    InputQueue& q = node->queues[consumers[c].second];
    if (node->state == CalculatorNode::State::kClosed || node->close_started) {
      continue;
    }
    const bool last = may_move && c + 1 == consumers.size();
    for (Packet& p : *packets) {
      if (p.Timestamp() < q.bound) continue;  // below a promised bound
      if (last) {
        q.packets.push_back(std::move(p));
      } else {
        q.packets.push_back(p);
      }
    }
    const bool bound_moved = bound > q.bound;
    if (bound_moved) q.bound = bound;
    if (stats) {
      profiler_->RecordQueueSize(node->index(), consumers[c].second,
                                 static_cast<int64_t>(q.packets.size()));
    }
    if (bound_moved) PropagateOffsetBoundsLocked(node);
    MaybeScheduleLocked(node);
  }
  packets->clear();
}

// A node whose outputs have a timestamp offset promises that input timestamp
// t yields output at t + offset, so once its inputs are settled below T its
// outputs are settled below T + offset, whether or not it runs. Passing that
// on lets downstream nodes proceed when a stream has no packet at some
// timestamp ("no face in this frame"), as in MediaPipe. Only while the node
// is idle with nothing queued: a running or pending call may still emit
// below the new bound, and its commit moves the bound anyway.
void GraphRuntime::PropagateOffsetBoundsLocked(CalculatorNode* node) {
  if (node->state != CalculatorNode::State::kOpened || node->in_flight > 0 ||
      node->close_started || node->queues.empty() ||
      node->spec().contract->GetProcessTimestampBounds()) {
    return;
  }
  Timestamp settled = Timestamp::Done();
  for (const InputQueue& q : node->queues) {
    if (q.back_edge) continue;
    if (!q.packets.empty()) return;
    settled = std::min(settled, q.bound);
  }
  if (!settled.IsRangeValue()) return;
  for (size_t out = 0; out < node->output_specs.size(); ++out) {
    const TimestampDiff offset = node->output_specs[out].offset;
    const int stream = node->spec().output_streams[out];
    if (offset == TimestampDiff::Unset() || stream < 0) continue;
    const Timestamp bound = settled + offset;
    if (bound > node->output_bounds[out]) {
      node->output_bounds[out] = bound;
      std::vector<Packet> none;
      PropagateLocked(stream, &none, bound, false);
    }
  }
}

void GraphRuntime::PublishSidePacketsLocked(CalculatorNode* node) {
  if (node->side_outputs.NumEntries() == 0) return;
  bool any = false;
  for (int id = 0; id < node->side_outputs.NumEntries(); ++id) {
    if (node->side_output_published[id]) continue;
    const OutputSidePacket& sp = node->side_outputs.Get(id);
    if (!sp.IsSet()) continue;
    node->side_output_published[id] = true;
    side_packets_[node->spec().output_side_packets[id]] = sp.Get();
    any = true;
  }
  if (!any) return;
  for (auto& n : nodes_) {
    if (n->state == CalculatorNode::State::kNotOpened)
      MaybeScheduleLocked(n.get());
  }
}

bool GraphRuntime::StreamFullLocked(int stream) const {
  for (const auto& [n, i] : consumers_[stream]) {
    const CalculatorNode& node = *nodes_[n];
    const int64_t limit = node.queue_limits[i];
    if (limit >= 0 &&
        static_cast<int64_t>(node.queues[i].packets.size()) >= limit &&
        node.state != CalculatorNode::State::kClosed) {
      return true;
    }
  }
  return false;
}

bool GraphRuntime::ThrottledLocked(const CalculatorNode& node) const {
  if (max_queue_size_ < 0) return false;
  for (int s : node.spec().output_streams) {
    if (s >= 0 && StreamFullLocked(s)) return true;
  }
  return false;
}

void GraphRuntime::RecheckThrottledLocked() {
  if (num_throttled_ == 0) {
    if (waiting_adders_ > 0) cv_.notify_all();
    return;
  }
  for (auto& n : nodes_) {
    if (n->throttled && !ThrottledLocked(*n)) {
      n->throttled = false;
      --num_throttled_;
      MaybeScheduleLocked(n.get());
    }
  }
  if (waiting_adders_ > 0) cv_.notify_all();
}

bool GraphRuntime::IdleLocked() const {
  if (in_flight_ > 0) return false;
  for (const ExecutorState& ex : executors_) {
    if (ex.drainers > 0 || !ex.ready.empty()) return false;
  }
  return true;
}

// Nothing runs. If sources or graph inputs are blocked on full queues, that
// is a deadlock: fail (report_deadlock) or grow the full queues.
void GraphRuntime::OnIdleLocked() {
  bool blocked = waiting_adders_ > 0;
  for (auto& n : nodes_) blocked = blocked || n->throttled;
  if (blocked && status_.ok()) {
    if (report_deadlock_) {
      FailLocked(absl::UnavailableError(absl::StrCat(
          "deadlock: every input queue that could drain is waiting on a full "
          "queue (max_queue_size ",
          max_queue_size_, ").\n", WaitReportLocked())));
    } else {
      for (auto& n : nodes_) {
        for (size_t i = 0; i < n->queues.size(); ++i) {
          const int64_t size =
              static_cast<int64_t>(n->queues[i].packets.size());
          if (n->queue_limits[i] >= 0 && size >= n->queue_limits[i]) {
            n->queue_limits[i] = size + 1;
          }
        }
      }
      RecheckThrottledLocked();
    }
  }
  cv_.notify_all();
}

void GraphRuntime::FailLocked(absl::Status status) {
  if (status_.ok()) {
    status_ = status;
    pending_callbacks_.push_back(status);
  }
  EnterShutdownLocked();
}

void GraphRuntime::EnterShutdownLocked() {
  if (shutting_down_) return;
  shutting_down_ = true;
  for (GraphInput& in : inputs_) in.closed = true;
  for (auto& n : nodes_) {
    for (InputQueue& q : n->queues) q.packets.clear();
    MaybeScheduleLocked(n.get());
  }
  cv_.notify_all();
}

void GraphRuntime::RunAppTasks(std::unique_lock<AdaptiveMutex>& lock) {
  lock.unlock();
  app_executor_->RunPendingTasks();
  lock.lock();
}

absl::Status GraphRuntime::AddPacket(const std::string& stream, Packet packet,
                                     bool wait_if_full) {
  std::unique_lock<AdaptiveMutex> lock(mu_);
  auto it = input_by_name_.find(stream);
  if (it == input_by_name_.end()) {
    return absl::NotFoundError(
        absl::StrCat("\"", stream, "\" is not an input_stream of the graph"));
  }
  GraphInput& in = inputs_[it->second];
  if (!status_.ok()) return status_;
  if (!running_) {
    return absl::FailedPreconditionError(
        "AddPacketToInputStream before StartRun");
  }
  if (in.closed) {
    return absl::FailedPreconditionError(
        absl::StrCat("graph input stream \"", stream, "\" is already closed"));
  }
  const Timestamp ts = packet.Timestamp();
  if (!ts.IsAllowedInStream()) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph input stream \"", stream, "\": packet timestamp ",
                     ts.DebugString(), " is not allowed in a stream"));
  }
  if (ts < in.bound) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph input stream \"", stream, "\": packet timestamp ",
                     ts.DebugString(),
                     " is not above the previous one (the next allowed is ",
                     in.bound.DebugString(), ")"));
  }
  if (packet.IsEmpty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "graph input stream \"", stream, "\": the packet is empty"));
  }
  if (in.type != nullptr) {
    absl::Status s = in.type->Validate(packet);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph input stream \"", stream, "\": ", s.message()));
    }
  }
  while (StreamFullLocked(in.stream) && max_queue_size_ >= 0) {
    if (!wait_if_full) {
      return absl::UnavailableError(
          absl::StrCat("graph input stream \"", stream,
                       "\" is full (max_queue_size ", max_queue_size_, ")"));
    }
    ++waiting_adders_;
    if (IdleLocked()) OnIdleLocked();
    if (HasAppThreadExecutor() && StreamFullLocked(in.stream) && status_.ok()) {
      --waiting_adders_;
      RunAppTasks(lock);
      ++waiting_adders_;
    } else if (StreamFullLocked(in.stream) && status_.ok()) {
      cv_.wait(lock);
    }
    --waiting_adders_;
    if (!status_.ok()) return status_;
    if (in.closed) {
      return absl::FailedPreconditionError(absl::StrCat(
          "graph input stream \"", stream, "\" was closed while waiting"));
    }
  }
  in.bound = ts.NextAllowedInStream();
  std::vector<Packet> packets;
  packets.push_back(std::move(packet));
  PropagateLocked(in.stream, &packets, in.bound, true);
  return absl::OkStatus();
}

absl::Status GraphRuntime::SetInputBound(const std::string& stream,
                                         Timestamp bound) {
  std::lock_guard<AdaptiveMutex> lock(mu_);
  auto it = input_by_name_.find(stream);
  if (it == input_by_name_.end()) {
    return absl::NotFoundError(
        absl::StrCat("\"", stream, "\" is not an input_stream of the graph"));
  }
  GraphInput& in = inputs_[it->second];
  if (in.closed) {
    return absl::FailedPreconditionError(
        absl::StrCat("graph input stream \"", stream, "\" is already closed"));
  }
  if (bound > in.bound) {
    in.bound = bound;
    std::vector<Packet> none;
    PropagateLocked(in.stream, &none, bound, false);
  }
  return absl::OkStatus();
}

absl::Status GraphRuntime::CloseInput(const std::string& stream) {
  std::lock_guard<AdaptiveMutex> lock(mu_);
  auto it = input_by_name_.find(stream);
  if (it == input_by_name_.end()) {
    return absl::NotFoundError(
        absl::StrCat("\"", stream, "\" is not an input_stream of the graph"));
  }
  GraphInput& in = inputs_[it->second];
  if (in.closed) return absl::OkStatus();
  in.closed = true;
  in.bound = Timestamp::Done();
  std::vector<Packet> none;
  PropagateLocked(in.stream, &none, Timestamp::Done(), false);
  cv_.notify_all();
  return absl::OkStatus();
}

absl::Status GraphRuntime::CloseAllInputs() {
  std::vector<std::string> names;
  {
    std::lock_guard<AdaptiveMutex> lock(mu_);
    for (const auto& [name, i] : input_by_name_) names.push_back(name);
  }
  for (const std::string& n : names) RILL_RETURN_IF_ERROR(CloseInput(n));
  return absl::OkStatus();
}

void GraphRuntime::Cancel() {
  std::lock_guard<AdaptiveMutex> lock(mu_);
  FailLocked(absl::CancelledError("the graph run was cancelled"));
}

absl::Status GraphRuntime::WaitUntilIdle() {
  std::unique_lock<AdaptiveMutex> lock(mu_);
  for (;;) {
    if (HasAppThreadExecutor()) RunAppTasks(lock);
    if (IdleLocked()) {
      bool blocked = false;
      for (auto& n : nodes_) blocked = blocked || n->throttled;
      if (!blocked) break;
      OnIdleLocked();
      if (!status_.ok()) break;
      continue;
    }
    if (!HasAppThreadExecutor()) cv_.wait(lock);
  }
  return status_;
}

absl::Status GraphRuntime::WaitUntilDone() {
  std::unique_lock<AdaptiveMutex> lock(mu_);
  if (!running_)
    return absl::FailedPreconditionError("the graph is not running");
  for (;;) {
    if (HasAppThreadExecutor()) RunAppTasks(lock);
    if (DoneLocked() && IdleLocked()) break;
    if (IdleLocked()) {
      bool inputs_open = false;
      for (const GraphInput& in : inputs_)
        inputs_open = inputs_open || !in.closed;
      bool throttled = false;
      for (auto& n : nodes_) throttled = throttled || n->throttled;
      if (throttled) {
        OnIdleLocked();
        continue;
      }
      if (!inputs_open && status_.ok()) {
        // Nothing can ever run again, yet nodes are open: a stall.
        FailLocked(absl::InternalError(absl::StrCat(
            "the graph stopped making progress before every node closed.\n",
            WaitReportLocked())));
        continue;
      }
      if (inputs_open && status_.ok()) {
        std::vector<std::string> open;
        for (const auto& [name, i] : input_by_name_) {
          if (!inputs_[i].closed) open.push_back(name);
        }
        FailLocked(absl::FailedPreconditionError(absl::StrCat(
            "WaitUntilDone would wait forever: graph input stream(s) ",
            absl::StrJoin(open, ", "),
            " are still open; call CloseInputStream/CloseAllInputStreams "
            "first.\n",
            WaitReportLocked())));
        continue;
      }
    }
    if (!HasAppThreadExecutor()) cv_.wait(lock);
  }
  running_ = false;
  std::vector<absl::Status> callbacks;
  callbacks.swap(pending_callbacks_);
  absl::Status s = status_;
  lock.unlock();
  if (error_callback_) {
    for (const absl::Status& c : callbacks) error_callback_(c);
  }
  return s;
}

absl::StatusOr<Packet> GraphRuntime::GetSidePacket(
    const std::string& name) const {
  std::lock_guard<AdaptiveMutex> lock(mu_);
  auto it = side_packets_.find(name);
  if (it == side_packets_.end() || it->second.IsEmpty()) {
    return absl::NotFoundError(
        absl::StrCat("no side packet named \"", name, "\" was produced"));
  }
  return it->second;
}

std::string GraphRuntime::WaitReport() const {
  std::lock_guard<AdaptiveMutex> lock(mu_);
  std::string out = WaitReportLocked();
  absl::StrAppend(&out, "  scheduler: ", in_flight_, " call(s) in flight, ",
                  closed_nodes_, " of ", nodes_.size(), " node(s) closed",
                  shutting_down_ ? ", shutting down" : "", "\n");
  for (size_t i = 0; i < executors_.size(); ++i) {
    const ExecutorState& ex = executors_[i];
    absl::StrAppend(&out, "  executor ", i, ": ", ex.ready.size(),
                    " node(s) ready, ", ex.drainers, " drain task(s) (",
                    ex.busy, " in a calculator, at most ", ex.max_drainers,
                    ")\n");
  }
  return out;
}

std::string GraphRuntime::WaitReportLocked() const {
  std::string out;
  const auto& streams = validated_->Streams();
  for (const auto& n : nodes_) {
    if (n->state == CalculatorNode::State::kClosed) continue;
    std::vector<std::string> waits;
    if (n->state == CalculatorNode::State::kNotOpened) {
      for (const std::string& sp : n->spec().input_side_packets) {
        if (!side_packets_.count(sp)) {
          waits.push_back(absl::StrCat("side packet \"", sp, "\""));
        }
      }
    }
    Timestamp min_packet = Timestamp::Done();
    for (const InputQueue& q : n->queues) {
      if (!q.packets.empty())
        min_packet = std::min(min_packet, q.packets.front().Timestamp());
    }
    for (size_t i = 0; i < n->queues.size(); ++i) {
      const InputQueue& q = n->queues[i];
      const int s = n->spec().input_streams[i];
      const std::string from =
          s < 0 ? ""
          : streams[s].producer < 0
              ? " (graph input)"
              : absl::StrCat(" from node \"",
                             nodes_[streams[s].producer]->name(), "\"");
      if (q.packets.empty() && q.bound <= min_packet && !q.IsDone()) {
        waits.push_back(absl::StrCat("stream \"", s < 0 ? "?" : streams[s].name,
                                     "\"", from, " (empty, bound ",
                                     q.bound.DebugString(),
                                     q.back_edge ? ", back edge" : "", ")"));
      } else if (!q.packets.empty()) {
        waits.push_back(absl::StrCat("has ", q.packets.size(), " queued on \"",
                                     s < 0 ? "?" : streams[s].name, "\"",
                                     from));
      }
    }
    if (n->throttled) waits.push_back("throttled: a downstream queue is full");
    if (n->in_flight > 0) waits.push_back("running");
    absl::StrAppend(&out, "  ", NodeDesc(*n), ": ",
                    waits.empty() ? "idle" : absl::StrJoin(waits, "; "), "\n");
  }
  return out;
}

void GraphRuntime::Shutdown() {
  {
    std::unique_lock<AdaptiveMutex> lock(mu_);
    if (running_) {
      EnterShutdownLocked();
      // Wait for every node to close so no thread touches us afterwards.
      while (!DoneLocked()) {
        if (HasAppThreadExecutor()) {
          RunAppTasks(lock);
          if (!DoneLocked() && IdleLocked()) break;
        } else {
          if (IdleLocked()) break;
          cv_.wait(lock);
        }
      }
      running_ = false;
    }
  }
  // Executors join their threads here; drainers hold no lock by then.
  for (ExecutorState& ex : executors_) {
    std::unique_lock<AdaptiveMutex> lock(mu_);
    while (ex.drainers > 0) {
      if (ex.executor->RunsOnApplicationThread()) {
        lock.unlock();
        ex.executor->RunPendingTasks();
        lock.lock();
      } else {
        cv_.wait(lock);
      }
    }
  }
  executors_.clear();
}

}  // namespace rill
