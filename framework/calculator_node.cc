#include "framework/calculator_node.h"

#include "absl/strings/str_cat.h"

namespace rill {

CalculatorNode::CalculatorNode(int index, const NodeSpec* spec,
                               std::unique_ptr<CalculatorBase> calculator)
    : index_(index), spec_(spec), calculator_(std::move(calculator)) {
  calculator_type_ = spec->contract->GetNodeConfig().calculator();
}

absl::Status CalculatorNode::Prepare() {
  CalculatorContract& c = *spec_->contract;
  auto factory = InputStreamHandlerRegistry().Lookup(spec_->handler);
  if (!factory.ok()) return factory.status();
  handler = (*factory)();
  absl::Status s = handler->Initialize(*c.Inputs().GetTagMap(),
                                       spec_->handler_options,
                                       c.GetProcessTimestampBounds());
  if (!s.ok()) {
    return AnnotateStatus(s, absl::StrCat("node \"", name(), "\" (",
                                          calculator_type_, "): "));
  }
  const int num_inputs = c.Inputs().NumEntries();
  queues.assign(num_inputs, InputQueue());
  for (int i = 0; i < num_inputs; ++i) queues[i].back_edge = spec_->back_edge[i];
  queue_limits.assign(num_inputs, -1);
  const int num_outputs = c.Outputs().NumEntries();
  output_specs.resize(num_outputs);
  for (int i = 0; i < num_outputs; ++i) {
    output_specs[i].name = c.Outputs().GetTagMap()->Name(i);
    output_specs[i].type = &c.Outputs().Get(i);
    output_specs[i].resolved_type = c.Outputs().Get(i).ResolvedType();
    output_specs[i].offset = c.GetTimestampOffset();
  }
  output_bounds.assign(num_outputs, Timestamp::PreStream());
  side_inputs = PacketSet(c.InputSidePackets().GetTagMap());
  side_outputs = OutputSidePacketSet(c.OutputSidePackets().GetTagMap());
  side_output_published.assign(c.OutputSidePackets().NumEntries(), false);
  max_in_flight = std::max(1, spec_->max_in_flight);
  // One context per concurrent invocation plus one for Open/Close.
  for (int i = 0; i < max_in_flight + 1; ++i) {
    auto inv = std::make_unique<Invocation>();
    CalculatorContext& ctx = inv->context;
    ctx.inputs_ = InputStreamShardSet(c.Inputs().GetTagMap());
    for (int in = 0; in < num_inputs; ++in) {
      ctx.inputs_.Get(in).name_ = &c.Inputs().GetTagMap()->Name(in);
    }
    ctx.outputs_ = OutputStreamShardSet(c.Outputs().GetTagMap());
    for (int out = 0; out < num_outputs; ++out) {
      ctx.outputs_.Get(out).spec_ = &output_specs[out];
      ctx.outputs_.Get(out).packets_.reserve(4);
    }
    ctx.input_side_packets_ = &side_inputs;
    ctx.output_side_packets_ = &side_outputs;
    ctx.options_ = &c.GetNodeOptions();
    ctx.node_name_ = &spec_->name;
    ctx.calculator_type_ = &calculator_type_;
    ctx.resources_ = resources;
    ctx.report_ = &report;
    inv->slots.resize(num_inputs);
    free_invocations_.push_back(inv.get());
    all_invocations_.push_back(std::move(inv));
  }
  state = State::kNotOpened;
  last_timestamp = Timestamp::Unstarted();
  in_flight = 0;
  in_ready_set = false;
  source_stopped = false;
  close_started = false;
  throttled = false;
  commit_order.clear();
  return absl::OkStatus();
}

Invocation* CalculatorNode::AcquireInvocation(Invocation::Kind kind) {
  if (free_invocations_.empty()) return nullptr;
  Invocation* inv = free_invocations_.back();
  free_invocations_.pop_back();
  inv->kind = kind;
  inv->done = false;
  inv->status = absl::OkStatus();
  return inv;
}

void CalculatorNode::ReleaseInvocation(Invocation* inv) {
  free_invocations_.push_back(inv);
}

void CalculatorNode::LoadInputs(Invocation* inv) {
  inv->context.input_timestamp_ = inv->timestamp;
  for (size_t i = 0; i < inv->slots.size(); ++i) {
    InputStreamShard& shard = inv->context.inputs_.Get(static_cast<int>(i));
    shard.packet_ = std::move(inv->slots[i]);
    inv->slots[i] = Packet();
    shard.done_ = queues[i].IsDone();
    shard.bound_ = queues[i].Next();
  }
  for (int out = 0; out < static_cast<int>(output_bounds.size()); ++out) {
    OutputStreamShard& shard = inv->context.outputs_.Get(out);
    shard.committed_bound_ = output_bounds[out];
    shard.closed_before_ = output_bounds[out] == Timestamp::Done();
  }
}

void CalculatorNode::ClearInputs(Invocation* inv) {
  for (auto& shard : inv->context.inputs_) shard.packet_ = Packet();
}

absl::Status CalculatorNode::Call(Invocation* inv) {
  CalculatorContext* cc = &inv->context;
  switch (inv->kind) {
    case Invocation::kOpen:
      return calculator_->Open(cc);
    case Invocation::kProcess:
      return calculator_->Process(cc);
    case Invocation::kClose:
      return calculator_->Close(cc);
  }
  return absl::OkStatus();
}

void CalculatorNode::ResetShard(Invocation* inv, int output,
                                Timestamp committed, bool closed) {
  OutputStreamShard& shard = inv->context.outputs_.Get(output);
  shard.packets_.clear();
  shard.bound_ = Timestamp::Unset();
  shard.close_ = false;
  shard.error_.clear();
  shard.committed_bound_ = committed;
  shard.closed_before_ = closed;
}

}  // namespace rill
