#include "framework/validated_graph.h"

#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/executor.h"
#include "framework/proto/thread_pool_executor.pb.h"
#include "framework/input_stream_handler.h"
#include "framework/options.h"
#include "framework/registry.h"
#include "framework/status_util.h"
#include "framework/tool/subgraph_expansion.h"

namespace rill {
namespace {

constexpr char kPluginHint[] =
    "(If the calculator lives in a plugin library, load it first: "
    "`rill run --plugin=path/libmy_calculators.so GRAPH`, or "
    "rill::LoadPlugin(path) before building the graph.)";

std::string NodeDesc(const NodeSpec& n, const CalculatorGraphConfig::Node& c) {
  return absl::StrCat("node \"", n.name, "\" (", c.calculator(), ")");
}

std::string Port(const PacketTypeSet& set, int id) {
  return set.GetTagMap()->Canonical(id);
}

// Missing ports a contract asked for.
void ReportMisses(const PacketTypeSet& set, const char* what,
                  const std::string& desc, const std::string& calculator,
                  std::vector<std::string>* errors) {
  if (set.Misses().empty()) return;
  const PacketTypeSet& s = set;
  // The placeholder carries Optional() when the contract marked it so.
  const PacketType& placeholder = const_cast<PacketTypeSet&>(s).Placeholder();
  if (placeholder.IsOptional()) return;
  std::set<std::string> seen;
  for (const auto& [tag, index] : set.Misses()) {
    const std::string port =
        tag.empty() ? absl::StrCat("index ", index)
                    : absl::StrCat("\"", tag,
                                   index ? absl::StrCat(":", index) : "", "\"");
    if (!seen.insert(port).second) continue;
    errors->push_back(absl::StrCat(desc, ": calculator ", calculator, " needs ",
                                   what, " ", port,
                                   ", which the node does not connect"));
  }
}

void ReportUndeclared(const PacketTypeSet& set, const char* what,
                      const std::string& desc, const std::string& calculator,
                      std::vector<std::string>* errors) {
  for (int id = 0; id < set.NumEntries(); ++id) {
    if (!set.Get(id).IsInitialized()) {
      errors->push_back(absl::StrCat(
          desc, ": ", what, " \"", Port(set, id), "\" is connected but ",
          calculator, " does not use it (its contract declares no such port)"));
    }
  }
}

}  // namespace

int ValidatedGraph::StreamIndex(const std::string& name) const {
  auto it = stream_index_.find(name);
  return it == stream_index_.end() ? -1 : it->second;
}

absl::Status CheckRegistrations() {
  std::vector<std::string> messages;
  for (const absl::Status& s :
       {CalculatorRegistry().ConflictStatus(),
        SubgraphRegistry().ConflictStatus(),
        InputStreamHandlerRegistry().ConflictStatus(),
        ExecutorRegistry().ConflictStatus()}) {
    if (!s.ok()) messages.emplace_back(s.message());
  }
  if (messages.empty()) return absl::OkStatus();
  return absl::AlreadyExistsError(absl::StrJoin(messages, "; "));
}

absl::StatusOr<std::unique_ptr<ValidatedGraph>> ValidatedGraph::Create(
    CalculatorGraphConfig config) {
  RILL_RETURN_IF_ERROR(CheckRegistrations());
  absl::Status s = ExpandSubgraphs(&config);
  if (!s.ok()) return s;
  auto graph = std::unique_ptr<ValidatedGraph>(new ValidatedGraph());
  graph->config_ = std::move(config);
  s = graph->Build();
  if (!s.ok()) return s;
  return graph;
}

// Build keeps going after most errors so that one call reports every problem
// in the config; it stops only where a later pass would read state that an
// earlier error left incomplete.
struct ValidatedGraph::BuildState {
  std::vector<std::string> errors;
  // Declared executor names; "" (the default executor) is always declared.
  std::set<std::string> executors = {""};
  // Per node id: calculator and contract checked out. Only these nodes get
  // their inputs connected, since the others have no usable contract.
  std::vector<bool> node_ok;

  absl::Status Result() const {
    if (errors.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  }
};

absl::Status ValidatedGraph::Build() {
  BuildState state;
  CanonicalizeNodes(&state);
  CheckExecutors(&state);
  AddGraphPorts(&state);
  ParseNodes(&state);
  ConnectInputs(&state);
  CheckGraphOutputs(&state);
  // Type resolution follows every node's contract and input streams.
  RILL_RETURN_IF_ERROR(state.Result());
  ResolveStreamTypes();
  CheckStreamTypes(&state);
  CheckSidePacketTypes(&state);
  RILL_RETURN_IF_ERROR(state.Result());
  return ComputeTopologicalOrder();
}

// Naming first lets every later message name its node, even one the config
// left unnamed.
void ValidatedGraph::CanonicalizeNodes(BuildState* state) {
  std::map<std::string, int> name_uses;
  for (auto& node : *config_.mutable_node()) {
    for (const std::string& e : node.external_input()) {
      node.add_input_side_packet(e);
    }
    node.clear_external_input();
    if (!node.name().empty() && name_uses[node.name()]++ > 0) {
      state->errors.push_back(
          absl::StrCat("two nodes are named \"", node.name(), "\""));
    }
  }
  std::map<std::string, int> auto_names;
  for (int i = 0; i < config_.node_size(); ++i) {
    const auto& node = config_.node(i);
    NodeSpec spec;
    spec.id = i;
    if (!node.name().empty()) {
      spec.name = node.name();
    } else {
      std::string base = UnqualifiedName(node.calculator());
      if (base.empty()) base = "node";
      const int n = auto_names[base]++;
      spec.name =
          n == 0 && !name_uses.count(base) ? base : absl::StrCat(base, "_", n);
    }
    nodes_.push_back(std::move(spec));
  }
}

void ValidatedGraph::CheckExecutors(BuildState* state) {
  std::vector<std::string>& errors = state->errors;
  // A graph file may come from anywhere: thread and in-flight counts that
  // would exhaust the machine are errors, not attempts.
  if (config_.num_threads() > kMaxGraphThreads) {
    errors.push_back(absl::StrCat("num_threads ", config_.num_threads(),
                                  " is more than the ", kMaxGraphThreads,
                                  " threads a graph may ask for"));
  }
  for (const ExecutorConfig& e : config_.executor()) {
    if (!state->executors.insert(e.name()).second && !e.name().empty()) {
      errors.push_back(
          absl::StrCat("executor \"", e.name(), "\" is declared twice"));
    }
    if (e.name() == "default" || e.name() == "gpu") {
      errors.push_back(
          absl::StrCat("executor name \"", e.name(), "\" is reserved"));
    }
    if (!e.type().empty()) {
      auto f = ExecutorRegistry().Lookup(e.type());
      if (!f.ok()) {
        errors.push_back(absl::StrCat("executor \"", e.name(),
                                      "\": ", f.status().message()));
      }
    }
    if (e.has_options() &&
        e.options().HasExtension(ThreadPoolExecutorOptions::ext) &&
        e.options().GetExtension(ThreadPoolExecutorOptions::ext).num_threads() >
            kMaxGraphThreads) {
      errors.push_back(absl::StrCat(
          "executor \"", e.name(), "\": num_threads ",
          e.options().GetExtension(ThreadPoolExecutorOptions::ext).num_threads(),
          " is more than the ", kMaxGraphThreads, " threads an executor may have"));
    }
    if (e.name().empty() && config_.num_threads() > 0) {
      errors.push_back(
          "num_threads and a config for the default executor are both set; "
          "set num_threads in the executor's ThreadPoolExecutorOptions only");
    }
  }
}

// Graph inputs are registered before any node output, so a node that also
// produces one is reported as the second producer.
void ValidatedGraph::AddGraphPorts(BuildState* state) {
  auto graph_inputs = TagMap::Create(config_.input_stream());
  if (!graph_inputs.ok()) {
    state->errors.push_back(
        absl::StrCat("graph input_stream ", graph_inputs.status().message()));
  } else {
    for (const std::string& name : (*graph_inputs)->Names()) {
      if (AddStream(name, -1, -1, state)) {
        graph_inputs_.push_back(stream_index_[name]);
      }
    }
  }
  for (const auto* list :
       {&config_.output_stream(), &config_.input_side_packet(),
        &config_.output_side_packet()}) {
    auto map = TagMap::Create(*list);
    if (!map.ok()) {
      state->errors.push_back(
          absl::StrCat("graph ports: ", map.status().message()));
    }
  }
}

// Each node is checked to the end before the next starts, so a node's
// messages stay together and precede those of later nodes.
void ValidatedGraph::ParseNodes(BuildState* state) {
  state->node_ok.assign(nodes_.size(), false);
  for (NodeSpec& spec : nodes_) {
    if (!LoadContract(&spec, state) || !CheckContractPorts(spec, state)) {
      continue;
    }
    ConfigureNode(&spec, state);
    AddNodeOutputs(&spec, state);
    WarnAboutUnreadOptions(spec);
    state->node_ok[spec.id] = true;
  }
}

// Options blocks the calculator's contract never asked for: not an error
// (a calculator may read options only in Open), but usually a block meant
// for another calculator, or one put on the wrong node. Calculators in this
// tree read their options in GetContract, so for them the warning is exact.
void ValidatedGraph::WarnAboutUnreadOptions(const NodeSpec& spec) {
  for (const std::string& type : spec.contract->GetNodeOptions().UnrequestedTypes()) {
    warnings_.push_back(absl::StrCat(
        "node \"", spec.name, "\" (",
        config_.node(spec.id).calculator(), "): options ", type,
        " are not read by this calculator; they have no effect"));
  }
}

// A pass of its own, after ParseNodes, so that a node may consume the output
// of a node listed after it.
void ValidatedGraph::ConnectInputs(BuildState* state) {
  for (NodeSpec& spec : nodes_) {
    if (!state->node_ok[spec.id]) continue;
    const auto& node = config_.node(spec.id);
    CalculatorContract& c = *spec.contract;
    for (int id = 0; id < c.Inputs().NumEntries(); ++id) {
      const std::string& name = c.Inputs().GetTagMap()->Name(id);
      const int index = StreamIndex(name);
      if (index < 0) {
        state->errors.push_back(absl::StrCat(
            NodeDesc(spec, node), ": input stream \"", Port(c.Inputs(), id),
            "\" is not connected: no node outputs \"", name,
            "\" and it is not a graph input_stream"));
        spec.input_streams.push_back(-1);
        continue;
      }
      streams_[index].consumers.emplace_back(spec.id, id);
      spec.input_streams.push_back(index);
    }
    for (int id = 0; id < c.InputSidePackets().NumEntries(); ++id) {
      const std::string& name = c.InputSidePackets().GetTagMap()->Name(id);
      spec.input_side_packets.push_back(name);
      if (!side_producers_.count(name)) side_producers_[name] = -1;
      const PacketType* t = &c.InputSidePackets().Get(id);
      auto it = side_types_.find(name);
      if (it == side_types_.end() || it->second->ResolvedType() == nullptr) {
        side_types_[name] = t;
      } else if (t->ResolvedType() != nullptr &&
                 *t->ResolvedType() != *it->second->ResolvedType()) {
        state->errors.push_back(absl::StrCat(
            NodeDesc(spec, node), ": input side packet \"",
            Port(c.InputSidePackets(), id), "\" expects ", t->DebugTypeName(),
            " but another node expects ", it->second->DebugTypeName(),
            " for the same side packet"));
      }
    }
  }
}

void ValidatedGraph::CheckGraphOutputs(BuildState* state) {
  for (const std::string& entry : config_.output_stream()) {
    TagIndexName tin;
    if (!ParseTagIndexName(entry, &tin).ok() || StreamIndex(tin.name) < 0) {
      state->errors.push_back(absl::StrCat("graph output_stream \"", entry,
                                           "\" is not produced by any node"));
    }
  }
}

// A port's type may be "same as" one of the node's inputs, so a chain of
// pass-throughs settles one hop per round: iterate until nothing changes.
void ValidatedGraph::ResolveStreamTypes() {
  for (size_t round = 0; round <= nodes_.size() + 1; ++round) {
    bool changed = false;
    for (StreamSpec& st : streams_) {
      if (st.producer < 0) continue;
      const NodeSpec& n = nodes_[st.producer];
      const std::type_info* t =
          ResolveType(n, &n.contract->Outputs().Get(st.producer_output));
      if (t != st.type) {
        st.type = t;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

void ValidatedGraph::CheckStreamTypes(BuildState* state) {
  for (const StreamSpec& st : streams_) {
    for (const auto& [consumer, input] : st.consumers) {
      const NodeSpec& n = nodes_[consumer];
      const std::type_info* want =
          ResolveType(n, &n.contract->Inputs().Get(input));
      if (want != nullptr && st.type != nullptr && *want != *st.type) {
        state->errors.push_back(absl::StrCat(
            "type mismatch on stream \"", st.name, "\": ",
            st.producer < 0
                ? std::string("the graph input")
                : NodeDesc(nodes_[st.producer], config_.node(st.producer)),
            " produces ", DemangleTypeName(*st.type), " but ",
            NodeDesc(n, config_.node(consumer)), " input \"",
            Port(n.contract->Inputs(), input), "\" expects ",
            DemangleTypeName(*want)));
      }
    }
  }
}

void ValidatedGraph::CheckSidePacketTypes(BuildState* state) {
  for (const auto& [name, producer] : side_producers_) {
    if (producer < 0 || !side_types_.count(name)) continue;
    const NodeSpec& n = nodes_[producer];
    for (int id = 0; id < n.contract->OutputSidePackets().NumEntries(); ++id) {
      if (n.output_side_packets[id] != name) continue;
      const std::type_info* have =
          n.contract->OutputSidePackets().Get(id).ResolvedType();
      const std::type_info* want = side_types_[name]->ResolvedType();
      if (have && want && *have != *want) {
        state->errors.push_back(
            absl::StrCat("type mismatch on side packet \"", name,
                         "\": ", NodeDesc(n, config_.node(producer)),
                         " produces ", DemangleTypeName(*have),
                         " but a consumer expects ", DemangleTypeName(*want)));
      }
    }
  }
}

// Priorities follow a topological order over forward edges, so the scheduler
// prefers nodes nearer the sinks and drains the graph before taking input.
absl::Status ValidatedGraph::ComputeTopologicalOrder() {
  const int n = static_cast<int>(nodes_.size());
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indegree(n, 0);
  for (const NodeSpec& spec : nodes_) {
    for (size_t id = 0; id < spec.input_streams.size(); ++id) {
      const int p = streams_[spec.input_streams[id]].producer;
      if (p < 0 || spec.back_edge[id]) continue;
      succ[p].push_back(spec.id);
      ++indegree[spec.id];
    }
  }
  std::vector<int> order;
  std::vector<int> ready;
  for (int i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    order.push_back(v);
    for (int w : succ[v]) {
      if (--indegree[w] == 0) ready.push_back(w);
    }
  }
  if (static_cast<int>(order.size()) < n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the graph has a cycle without a back edge: ", DescribeCycle(indegree),
        ". Mark the input that closes the loop with input_stream_info { "
        "tag_index: \"TAG:index\" back_edge: true }"));
  }
  for (size_t i = 0; i < order.size(); ++i) {
    nodes_[order[i]].priority = static_cast<int>(i) + 1;
  }
  return absl::OkStatus();
}

bool ValidatedGraph::LoadContract(NodeSpec* spec, BuildState* state) {
  std::vector<std::string>& errors = state->errors;
  const auto& node = config_.node(spec->id);
  const std::string desc = NodeDesc(*spec, node);
  if (node.calculator().empty()) {
    errors.push_back(absl::StrCat(desc, ": no `calculator:` given"));
    return false;
  }
  auto entry = CalculatorRegistry().Lookup(node.calculator(), kPluginHint);
  if (!entry.ok()) {
    errors.push_back(absl::StrCat(desc, ": ", entry.status().message()));
    return false;
  }
  spec->entry = *entry;
  spec->contract = std::make_unique<CalculatorContract>();
  absl::Status cs = spec->contract->Initialize(node, spec->name);
  if (!cs.ok()) {
    errors.push_back(std::string(cs.message()));
    return false;
  }
  cs = ValidateAnyOptions(node.node_options());
  if (!cs.ok()) {
    errors.push_back(absl::StrCat(desc, ": node_options: ", cs.message()));
    return false;
  }
  cs = spec->entry.get_contract(spec->contract.get());
  if (!cs.ok()) {
    errors.push_back(absl::StrCat(desc, ": ", cs.message()));
    return false;
  }
  return true;
}

// All eight port lists are reported before the node is given up.
bool ValidatedGraph::CheckContractPorts(const NodeSpec& spec,
                                        BuildState* state) {
  std::vector<std::string>* errors = &state->errors;
  const auto& node = config_.node(spec.id);
  const std::string desc = NodeDesc(spec, node);
  const std::string& calc = node.calculator();
  const CalculatorContract& c = *spec.contract;
  const size_t before = errors->size();
  ReportMisses(c.Inputs(), "input stream", desc, calc, errors);
  ReportMisses(c.Outputs(), "output stream", desc, calc, errors);
  ReportMisses(c.InputSidePackets(), "input side packet", desc, calc, errors);
  ReportMisses(c.OutputSidePackets(), "output side packet", desc, calc, errors);
  ReportUndeclared(c.Inputs(), "input_stream", desc, calc, errors);
  ReportUndeclared(c.Outputs(), "output_stream", desc, calc, errors);
  ReportUndeclared(c.InputSidePackets(), "input_side_packet", desc, calc,
                   errors);
  ReportUndeclared(c.OutputSidePackets(), "output_side_packet", desc, calc,
                   errors);
  return errors->size() == before;
}

// Errors here leave the node usable, so its connections are still checked.
void ValidatedGraph::ConfigureNode(NodeSpec* spec, BuildState* state) {
  std::vector<std::string>& errors = state->errors;
  const auto& node = config_.node(spec->id);
  const std::string desc = NodeDesc(*spec, node);
  const CalculatorContract& c = *spec->contract;

  spec->back_edge.assign(c.Inputs().NumEntries(), false);
  for (const InputStreamInfo& info : node.input_stream_info()) {
    std::string tag;
    int index = 0;
    absl::Status ts = ParseTagIndex(info.tag_index(), &tag, &index);
    const int id = ts.ok() ? c.Inputs().GetId(tag, index) : -1;
    if (!ts.ok() || id < 0) {
      errors.push_back(absl::StrCat(
          desc, ": input_stream_info tag_index \"", info.tag_index(),
          "\" does not name an input stream of the node"));
      continue;
    }
    spec->back_edge[id] = info.back_edge();
  }

  // Handler: node config, else the contract's wish, else graph, else
  // default.
  const std::string graph_handler =
      config_.has_input_stream_handler()
          ? config_.input_stream_handler().input_stream_handler()
          : "";
  if (node.has_input_stream_handler()) {
    spec->handler = node.input_stream_handler().input_stream_handler();
    spec->handler_options = node.input_stream_handler().options();
  } else if (!c.GetInputStreamHandler().empty()) {
    spec->handler = c.GetInputStreamHandler();
    spec->handler_options = c.GetInputStreamHandlerOptions();
  } else if (!graph_handler.empty()) {
    spec->handler = graph_handler;
    spec->handler_options = config_.input_stream_handler().options();
  } else {
    spec->handler = "DefaultInputStreamHandler";
  }
  auto h = InputStreamHandlerRegistry().Lookup(spec->handler);
  if (!h.ok()) {
    errors.push_back(absl::StrCat(desc, ": ", h.status().message()));
  }

  spec->executor = node.executor();
  if (!state->executors.count(spec->executor)) {
    std::vector<std::string> declared(state->executors.begin(),
                                      state->executors.end());
    declared.erase(declared.begin());  // ""
    errors.push_back(absl::StrCat(
        desc, ": executor \"", spec->executor,
        "\" is not declared in the graph's `executor` list (declared: ",
        declared.empty() ? "none" : absl::StrJoin(declared, ", "), ")"));
  }
  spec->max_in_flight =
      node.max_in_flight() > 0 ? node.max_in_flight() : c.GetMaxInFlight();
  if (spec->max_in_flight > kMaxInFlight) {
    state->errors.push_back(absl::StrCat(
        desc, ": max_in_flight ", spec->max_in_flight, " is more than ",
        kMaxInFlight, " (each in-flight call keeps a context of its own)"));
    spec->max_in_flight = kMaxInFlight;
  }
}

void ValidatedGraph::AddNodeOutputs(NodeSpec* spec, BuildState* state) {
  const CalculatorContract& c = *spec->contract;
  for (int id = 0; id < c.Outputs().NumEntries(); ++id) {
    const std::string& name = c.Outputs().GetTagMap()->Name(id);
    AddStream(name, spec->id, id, state);
    spec->output_streams.push_back(
        stream_index_.count(name) ? stream_index_[name] : -1);
  }
  for (int id = 0; id < c.OutputSidePackets().NumEntries(); ++id) {
    const std::string& name = c.OutputSidePackets().GetTagMap()->Name(id);
    auto it = side_producers_.find(name);
    if (it != side_producers_.end() && it->second >= 0) {
      state->errors.push_back(
          absl::StrCat("side packet \"", name, "\" has two producers: ",
                       NodeDesc(nodes_[it->second], config_.node(it->second)),
                       " and ", NodeDesc(*spec, config_.node(spec->id))));
    }
    side_producers_[name] = spec->id;
    spec->output_side_packets.push_back(name);
  }
}

// Registers stream `name` with its producer (-1: the graph's input); false,
// with an error, when the stream already has one.
bool ValidatedGraph::AddStream(const std::string& name, int producer,
                               int output, BuildState* state) {
  auto it = stream_index_.find(name);
  if (it != stream_index_.end()) {
    const StreamSpec& old = streams_[it->second];
    auto who = [&](int p) {
      return p < 0 ? std::string("the graph's input_stream")
                   : NodeDesc(nodes_[p], config_.node(p));
    };
    state->errors.push_back(absl::StrCat(
        "stream \"", name, "\" has two producers: ", who(old.producer), " and ",
        who(producer)));
    return false;
  }
  stream_index_[name] = static_cast<int>(streams_.size());
  StreamSpec st;
  st.name = name;
  st.producer = producer;
  st.producer_output = output;
  streams_.push_back(std::move(st));
  return true;
}

// The concrete type behind port type `t` of node `n`, following "same as"
// links to the node's inputs; nullptr when any type goes (or the chain is
// too long to be anything but a mistake).
const std::type_info* ValidatedGraph::ResolveType(const NodeSpec& n,
                                                  const PacketType* t) const {
  for (int hops = 0; hops < 64 && t != nullptr; ++hops) {
    if (!t->IsSameAs()) return t->IsAny() ? nullptr : t->Type();
    const PacketType* target = t->SameAs();
    const PacketTypeSet& in = n.contract->Inputs();
    for (int id = 0; id < in.NumEntries(); ++id) {
      if (&in.Get(id) == target) {
        const int s = n.input_streams[id];
        return s >= 0 ? streams_[s].type : nullptr;
      }
    }
    t = target;
  }
  return nullptr;
}

// "a" -> "b" -> "a" for one cycle among the nodes ComputeTopologicalOrder
// could not order (those left with a positive indegree).
std::string ValidatedGraph::DescribeCycle(
    const std::vector<int>& indegree) const {
  const int n = static_cast<int>(nodes_.size());
  // Walk backwards from a node left over until a node repeats.
  int v = -1;
  for (int i = 0; i < n; ++i) {
    if (indegree[i] > 0) v = i;
  }
  std::vector<int> path;
  std::vector<int> pos(n, -1);
  while (pos[v] < 0) {
    pos[v] = static_cast<int>(path.size());
    path.push_back(v);
    const NodeSpec& spec = nodes_[v];
    for (size_t id = 0; id < spec.input_streams.size(); ++id) {
      const int p = streams_[spec.input_streams[id]].producer;
      if (p >= 0 && !spec.back_edge[id] && indegree[p] > 0) {
        v = p;
        break;
      }
    }
  }
  std::vector<std::string> names;
  for (size_t i = path.size(); i-- > static_cast<size_t>(pos[v]);) {
    names.push_back(absl::StrCat("\"", nodes_[path[i]].name, "\""));
  }
  names.push_back(absl::StrCat("\"", nodes_[path.back()].name, "\""));
  return absl::StrJoin(names, " -> ");
}

}  // namespace rill
