#include "tools/graph_tools.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <iterator>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/calculator_contract.h"
#include "framework/calculator_registry.h"
#include "framework/packet_type.h"
#include "framework/tag_map.h"

namespace rill {
namespace tools {
namespace {

// One parsed "TAG:index:name" entry; tolerant of malformed text (DOT export
// must draw broken graphs too, so the reader can see what is wrong).
struct Port {
  std::string tag;
  int index = 0;
  std::string name;
};

std::vector<Port> ParsePorts(
    const google::protobuf::RepeatedPtrField<std::string>& entries) {
  std::vector<Port> ports;
  std::map<std::string, int> next_index;
  for (const std::string& entry : entries) {
    TagIndexName parsed;
    bool explicit_index = false;
    Port port;
    if (ParseTagIndexName(entry, &parsed, &explicit_index).ok()) {
      port.tag = parsed.tag;
      port.name = parsed.name;
      port.index = explicit_index ? parsed.index : next_index[parsed.tag];
    } else {
      port.name = entry;
      port.index = next_index[""];
    }
    next_index[port.tag] = std::max(next_index[port.tag], port.index + 1);
    ports.push_back(port);
  }
  return ports;
}

std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

std::string NodeDisplayName(const CalculatorGraphConfig::Node& node, int i) {
  if (!node.name().empty()) return node.name();
  if (!node.calculator().empty()) return node.calculator();
  return absl::StrCat("node", i);
}

}  // namespace

std::string GraphToDot(const CalculatorGraphConfig& config,
                       const std::string& graph_name) {
  std::string out;
  absl::StrAppend(&out, "digraph ", Quote(graph_name), " {\n");
  absl::StrAppend(&out, "  rankdir=TB;\n");
  absl::StrAppend(&out, "  node [fontname=\"Helvetica\", fontsize=11];\n");
  absl::StrAppend(&out, "  edge [fontname=\"Helvetica\", fontsize=9];\n");

  // Producers of each stream: DOT node id.
  std::map<std::string, std::string> producer;
  std::set<std::string> consumed;
  const std::vector<Port> inputs = ParsePorts(config.input_stream());
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    const std::vector<Port>& ports = inputs;
    const std::string id = absl::StrCat("graph_in", i);
    absl::StrAppend(&out, "  ", id, " [shape=invhouse, style=filled, ",
                    "fillcolor=\"#d8ecff\", label=", Quote(ports[i].name),
                    "];\n");
    producer[ports[i].name] = id;
  }

  // Nodes, with unique display names. Nodes that came from one subgraph
  // (expansion names them "<node>__<inner>") are drawn in a dashed cluster.
  std::map<std::string, int> name_uses;
  std::map<std::string, std::vector<std::string>> clusters;
  std::vector<std::string> top_level;
  for (int i = 0; i < config.node_size(); ++i) {
    const auto& node = config.node(i);
    std::string name = NodeDisplayName(node, i);
    if (name_uses[name]++ > 0) name = absl::StrCat(name, "_", name_uses[name]);
    std::string label = name;
    if (!node.calculator().empty() && node.calculator() != name) {
      label = absl::StrCat(name, "\n", node.calculator());
    }
    if (!node.executor().empty()) {
      absl::StrAppend(&label, "\n[executor: ", node.executor(), "]");
    }
    const std::string line =
        absl::StrCat("n", i, " [shape=box, style=rounded, label=",
                     Quote(label), "];\n");
    const size_t sep = node.name().find("__");
    if (sep != std::string::npos && sep > 0) {
      clusters[node.name().substr(0, sep)].push_back(line);
    } else {
      top_level.push_back(line);
    }
    for (const Port& port : ParsePorts(node.output_stream())) {
      producer.emplace(port.name, absl::StrCat("n", i));
    }
  }
  for (const std::string& line : top_level) absl::StrAppend(&out, "  ", line);
  int cluster_id = 0;
  for (const auto& [prefix, lines] : clusters) {
    absl::StrAppend(&out, "  subgraph cluster_", cluster_id++,
                    " {\n    label=", Quote(prefix),
                    "; style=dashed; color=gray50;\n");
    for (const std::string& line : lines) absl::StrAppend(&out, "    ", line);
    absl::StrAppend(&out, "  }\n");
  }

  // Stream edges into nodes.
  int missing = 0;
  for (int i = 0; i < config.node_size(); ++i) {
    const auto& node = config.node(i);
    std::set<std::pair<std::string, int>> back_edges;
    for (const auto& info : node.input_stream_info()) {
      if (!info.back_edge()) continue;
      std::string tag;
      int index = 0;
      if (ParseTagIndex(info.tag_index(), &tag, &index).ok()) {
        back_edges.emplace(tag, index);
      }
    }
    for (const Port& port : ParsePorts(node.input_stream())) {
      consumed.insert(port.name);
      auto it = producer.find(port.name);
      std::string from;
      if (it == producer.end()) {
        from = absl::StrCat("missing", missing++);
        absl::StrAppend(&out, "  ", from,
                        " [shape=plaintext, fontcolor=red, label=",
                        Quote(absl::StrCat("no producer: ", port.name)),
                        "];\n");
      } else {
        from = it->second;
      }
      const bool back = back_edges.count({port.tag, port.index}) > 0;
      absl::StrAppend(&out, "  ", from, " -> n", i, " [label=",
                      Quote(port.name), back ? ", style=dashed" : "",
                      back ? ", constraint=false" : "", "];\n");
    }
  }

  // Graph outputs.
  const std::vector<Port> outputs = ParsePorts(config.output_stream());
  for (int i = 0; i < static_cast<int>(outputs.size()); ++i) {
    const std::string id = absl::StrCat("graph_out", i);
    consumed.insert(outputs[i].name);
    absl::StrAppend(&out, "  ", id, " [shape=house, style=filled, ",
                    "fillcolor=\"#d8f5d0\", label=", Quote(outputs[i].name),
                    "];\n");
    auto it = producer.find(outputs[i].name);
    if (it != producer.end()) {
      absl::StrAppend(&out, "  ", it->second, " -> ", id, " [label=",
                      Quote(outputs[i].name), "];\n");
    }
  }

  // Streams nobody reads end in a point, so they stay visible.
  int dangling = 0;
  for (int i = 0; i < config.node_size(); ++i) {
    for (const Port& port : ParsePorts(config.node(i).output_stream())) {
      if (consumed.count(port.name)) continue;
      const std::string id = absl::StrCat("unused", dangling++);
      absl::StrAppend(&out, "  ", id, " [shape=point];\n");
      absl::StrAppend(&out, "  n", i, " -> ", id, " [label=",
                      Quote(port.name), "];\n");
    }
  }

  // Side packets: one note per name, dotted edges.
  std::map<std::string, std::string> side_ids;
  auto side_id = [&](const std::string& name, const char* extra) {
    auto it = side_ids.find(name);
    if (it != side_ids.end()) return it->second;
    const std::string id = absl::StrCat("side", side_ids.size());
    side_ids[name] = id;
    absl::StrAppend(&out, "  ", id, " [shape=note, ", extra,
                    "label=", Quote(name), "];\n");
    return id;
  };
  for (const Port& port : ParsePorts(config.input_side_packet())) {
    side_id(port.name, "style=filled, fillcolor=\"#fff4c8\", ");
  }
  for (int i = 0; i < config.node_size(); ++i) {
    for (const Port& port :
         ParsePorts(config.node(i).output_side_packet())) {
      absl::StrAppend(&out, "  n", i, " -> ", side_id(port.name, ""),
                      " [style=dotted];\n");
    }
  }
  for (int i = 0; i < config.node_size(); ++i) {
    for (const Port& port : ParsePorts(config.node(i).input_side_packet())) {
      absl::StrAppend(&out, "  ", side_id(port.name, ""), " -> n", i,
                      " [style=dotted];\n");
    }
  }
  int side_outputs = 0;
  for (const Port& port : ParsePorts(config.output_side_packet())) {
    const std::string id = absl::StrCat("graph_side_out", side_outputs++);
    absl::StrAppend(&out, "  ", id, " [shape=note, peripheries=2, label=",
                    Quote(port.name), "];\n");
    absl::StrAppend(&out, "  ", side_id(port.name, ""), " -> ", id,
                    " [style=dotted];\n");
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

GraphCounts CountGraph(const CalculatorGraphConfig& config) {
  GraphCounts counts;
  counts.nodes = config.node_size();
  std::set<std::string> streams, sides;
  for (const Port& p : ParsePorts(config.input_stream())) streams.insert(p.name);
  for (const Port& p : ParsePorts(config.input_side_packet())) {
    sides.insert(p.name);
  }
  for (const auto& node : config.node()) {
    for (const Port& p : ParsePorts(node.output_stream())) {
      streams.insert(p.name);
    }
    for (const Port& p : ParsePorts(node.output_side_packet())) {
      sides.insert(p.name);
    }
  }
  counts.streams = static_cast<int>(streams.size());
  counts.side_packets = static_cast<int>(sides.size());
  counts.executors.push_back("default");
  for (const auto& executor : config.executor()) {
    if (executor.name().empty()) continue;  // configures the default one
    counts.executors.push_back(executor.name());
  }
  return counts;
}

std::string SummaryLine(const GraphCounts& counts) {
  auto plural = [](int n, const char* word) {
    return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
  };
  std::string line = absl::StrCat(
      plural(counts.nodes, "node"), ", ", plural(counts.streams, "stream"),
      ", ", plural(static_cast<int>(counts.executors.size()), "executor"),
      " (", absl::StrJoin(counts.executors, ", "), ")");
  if (counts.side_packets > 0) {
    absl::StrAppend(&line, ", ", plural(counts.side_packets, "side packet"));
  }
  return line;
}

namespace {

using PortKey = std::pair<std::string, int>;
using PortSet = std::set<PortKey>;

constexpr PortInfo::Kind kKinds[] = {
    PortInfo::Kind::kInput, PortInfo::Kind::kOutput,
    PortInfo::Kind::kInputSide, PortInfo::Kind::kOutputSide};

PacketTypeSet& SetOf(CalculatorContract& cc, PortInfo::Kind kind) {
  switch (kind) {
    case PortInfo::Kind::kInput:
      return cc.Inputs();
    case PortInfo::Kind::kOutput:
      return cc.Outputs();
    case PortInfo::Kind::kInputSide:
      return cc.InputSidePackets();
    case PortInfo::Kind::kOutputSide:
      break;
  }
  return cc.OutputSidePackets();
}

google::protobuf::RepeatedPtrField<std::string>* FieldOf(
    CalculatorGraphConfig::Node* node, PortInfo::Kind kind) {
  switch (kind) {
    case PortInfo::Kind::kInput:
      return node->mutable_input_stream();
    case PortInfo::Kind::kOutput:
      return node->mutable_output_stream();
    case PortInfo::Kind::kInputSide:
      return node->mutable_input_side_packet();
    case PortInfo::Kind::kOutputSide:
      break;
  }
  return node->mutable_output_side_packet();
}

// A node with every wanted port, indexes of each tag filled from 0 so that
// the port lists are well formed.
CalculatorGraphConfig::Node SyntheticNode(const std::string& calculator,
                                          const PortSet (&wanted)[4]) {
  CalculatorGraphConfig::Node node;
  node.set_calculator(calculator);
  const char* prefixes[] = {"in", "out", "side_in", "side_out"};
  for (int k = 0; k < 4; ++k) {
    std::map<std::string, int> max_index;
    for (const PortKey& key : wanted[k]) {
      max_index[key.first] = std::max(max_index[key.first], key.second);
    }
    for (const auto& [tag, max] : max_index) {
      for (int i = 0; i <= max; ++i) {
        const std::string name = absl::StrCat(
            prefixes[k], "_", absl::AsciiStrToLower(tag), tag.empty() ? "" : "_",
            i);
        FieldOf(&node, kKinds[k])
            ->Add()->assign(tag.empty() ? name : absl::StrCat(tag, ":", i, ":", name));
      }
    }
  }
  return node;
}

}  // namespace

namespace {

// Demangled names spelled as people write them: std::string, and containers
// without their default allocators.
std::string ShortTypeName(std::string name) {
  const std::string kString =
      "std::__cxx11::basic_string<char, std::char_traits<char>, "
      "std::allocator<char> >";
  for (size_t at; (at = name.find(kString)) != std::string::npos;) {
    name.replace(at, kString.size(), "std::string");
  }
  // Drop ", std::allocator<...>" (balanced) and the space before '>'.
  for (size_t at; (at = name.find(", std::allocator<")) != std::string::npos;) {
    size_t end = at + std::string(", std::allocator<").size();
    int depth = 1;
    while (end < name.size() && depth > 0) {
      if (name[end] == '<') ++depth;
      if (name[end] == '>') --depth;
      ++end;
    }
    name.erase(at, end - at);
  }
  for (size_t at; (at = name.find(" >")) != std::string::npos;) {
    name.erase(at, 1);
  }
  return name;
}

// Ports an error message asks for. Contracts that check the node config
// before declaring ports fail on an empty node with messages such as
// 'needs ITEM and BATCH_END input streams and an ITERABLE output stream' or
// 'needs at least one untagged input stream'. Each upper-case word (a tag)
// or "untagged" is paired with the first "input"/"output"/"side packet"
// after it.
std::vector<std::pair<int, std::string>> PortHints(absl::string_view message) {
  std::vector<std::pair<int, std::string>> hints;
  const std::string text(message);
  auto kind_after = [&](size_t pos) -> int {
    struct Word {
      const char* text;
      int kind;
    };
    const Word words[] = {{"input side packet", 2}, {"output side packet", 3},
                          {"side packet", 2},       {"input", 0},
                          {"output", 1}};
    size_t best = std::string::npos;
    int kind = -1;
    for (const Word& w : words) {
      const size_t at = text.find(w.text, pos);
      if (at != std::string::npos && (best == std::string::npos || at < best)) {
        best = at;
        kind = w.kind;
      }
    }
    return kind;
  };
  size_t i = 0;
  while (i < text.size()) {
    if (absl::ascii_isalpha(text[i]) || text[i] == '_') {
      size_t j = i;
      while (j < text.size() &&
             (absl::ascii_isalnum(text[j]) || text[j] == '_')) {
        ++j;
      }
      const std::string word = text.substr(i, j - i);
      const bool at_word_start = i == 0 || text[i - 1] == ' ' ||
                                 text[i - 1] == '"' || text[i - 1] == '(' ||
                                 text[i - 1] == ',';
      if (at_word_start && word.size() >= 2 && IsValidTag(word)) {
        const int kind = kind_after(j);
        if (kind >= 0) hints.emplace_back(kind, word);
      } else if (word == "untagged") {
        const int kind = kind_after(j);
        if (kind >= 0) hints.emplace_back(kind, "");
      }
      i = j;
    } else {
      ++i;
    }
  }
  return hints;
}

// Adds the ports `hints` name that `wanted` lacks; false when none is new.
bool AddHints(const std::vector<std::pair<int, std::string>>& hints,
              PortSet (&wanted)[4]) {
  bool grew = false;
  for (const auto& [kind, tag] : hints) {
    bool has_tag = false;
    for (const PortKey& key : wanted[kind]) has_tag |= key.first == tag;
    if (!has_tag) grew |= wanted[kind].insert({tag, 0}).second;
  }
  return grew;
}

}  // namespace

CalculatorInfo DescribeCalculator(const std::string& name) {
  CalculatorInfo info;
  info.name = name;
  auto entry = CalculatorRegistry().Lookup(name);
  if (!entry.ok()) {
    info.contract_status = entry.status();
    return info;
  }
  info.source_file = entry->source_file;
  PortSet wanted[4];
  // Generic guesses for contracts whose needs neither misses nor the error
  // message reveal: an untagged input and output, then an untagged input
  // side packet too.
  const std::vector<std::pair<int, std::string>> fallbacks[] = {
      {{0, ""}, {1, ""}}, {{2, ""}}};
  size_t next_fallback = 0;
  for (int round = 0; round < 16; ++round) {
    CalculatorGraphConfig::Node node = SyntheticNode(name, wanted);
    CalculatorContract contract;
    absl::Status status = contract.Initialize(node, "probe");
    if (status.ok()) status = entry->get_contract(&contract);
    bool grew = false;
    for (int k = 0; k < 4; ++k) {
      for (const auto& miss : SetOf(contract, kKinds[k]).Misses()) {
        grew |= wanted[k].insert(miss).second;
      }
    }
    if (grew) continue;
    const bool no_ports = node.input_stream_size() + node.output_stream_size() +
                              node.input_side_packet_size() +
                              node.output_side_packet_size() ==
                          0;
    if (!status.ok()) {
      if (AddHints(PortHints(status.message()), wanted)) {
        info.guessed = true;
        continue;
      }
      if (next_fallback < std::size(fallbacks) &&
          AddHints(fallbacks[next_fallback++], wanted)) {
        info.guessed = true;
        continue;
      }
      // Nothing accepted (the contract may need options): report what it
      // said last, about the most complete probe node.
      info.contract_status = status;
      info.ports.clear();
      return info;
    }
    if (no_ports && next_fallback == 0) {
      // Accepts an empty node: its ports follow the config. Show them for
      // one untagged input and output, if it takes those.
      info.variadic = true;
      PortSet trial[4];
      AddHints(fallbacks[0], trial);
      CalculatorGraphConfig::Node probe = SyntheticNode(name, trial);
      CalculatorContract trial_contract;
      if (!trial_contract.Initialize(probe, "probe").ok() ||
          !entry->get_contract(&trial_contract).ok()) {
        return info;
      }
      next_fallback = 1;
      for (int k = 0; k < 4; ++k) wanted[k] = trial[k];
      continue;
    }
    info.contract_status = absl::OkStatus();
    info.ports.clear();
    for (int k = 0; k < 4; ++k) {
      PacketTypeSet& set = SetOf(contract, kKinds[k]);
      const auto& tag_map = *set.GetTagMap();
      for (int id = 0; id < set.NumEntries(); ++id) {
        const PacketType& type = set.Get(id);
        // A port we added by guessing that the contract never declared is
        // not one of its ports.
        if (!type.IsInitialized() && (info.guessed || info.variadic)) continue;
        PortInfo port;
        port.kind = kKinds[k];
        port.tag = tag_map.Tag(id);
        port.index = tag_map.Index(id);
        port.type = type.IsInitialized() ? ShortTypeName(type.DebugTypeName())
                                         : std::string("(not declared)");
        port.optional = type.IsOptional();
        info.ports.push_back(port);
      }
    }
    return info;
  }
  info.contract_status = absl::InternalError(
      "the contract kept asking for new ports; stopped probing");
  return info;
}

std::vector<CalculatorInfo> DescribeCalculators(const std::string& filter) {
  std::vector<std::string> names = CalculatorRegistry().Names();
  std::sort(names.begin(), names.end());
  std::vector<CalculatorInfo> infos;
  for (const std::string& name : names) {
    if (!filter.empty() && !absl::StrContains(absl::AsciiStrToLower(name),
                                              absl::AsciiStrToLower(filter))) {
      continue;
    }
    infos.push_back(DescribeCalculator(name));
  }
  return infos;
}

std::string FormatCalculators(const std::vector<CalculatorInfo>& infos) {
  std::string out;
  const char* kind_names[] = {"input", "output", "side input", "side output"};
  for (const CalculatorInfo& info : infos) {
    absl::StrAppend(&out, info.name);
    if (!info.source_file.empty()) {
      absl::StrAppend(&out, "  (", info.source_file, ")");
    }
    absl::StrAppend(&out, "\n");
    for (const PortInfo& port : info.ports) {
      const std::string where =
          port.tag.empty() ? absl::StrCat("#", port.index)
                           : absl::StrCat(port.tag, ":", port.index);
      absl::StrAppend(
          &out, absl::StrFormat("  %-12s %-24s %s%s\n",
                                kind_names[static_cast<int>(port.kind)], where,
                                port.type, port.optional ? "  (optional)" : ""));
    }
    if (info.ports.empty() && info.contract_status.ok()) {
      absl::StrAppend(&out,
                      "  (asks for no fixed ports; its ports follow the node "
                      "config)\n");
    } else if (info.contract_status.ok() && (info.variadic || info.guessed)) {
      absl::StrAppend(&out,
                      "  (port counts follow the node config; shown for a "
                      "node the contract accepts)\n");
    }
    if (!info.contract_status.ok()) {
      absl::StrAppend(&out, "  note: no probe node satisfied the contract (it may need options); "
                      "it says: ",
                      info.contract_status.message(), "\n");
    }
  }
  return out;
}

absl::StatusOr<std::pair<std::string, Packet>> ParseSidePacketFlag(
    const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "side packet \"", text, "\" must be written name=value or ",
        "name:type=value"));
  }
  std::string name = text.substr(0, eq);
  std::string value = text.substr(eq + 1);
  std::string type;
  const size_t colon = name.find(':');
  if (colon != std::string::npos) {
    type = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "side packet name \"", name, "\" is not a valid name (lower-case ",
        "letters, digits and '_', not starting with a digit)"));
  }
  auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "side packet \"", name, "\": \"", value, "\" is not ", what));
  };
  int64_t i64 = 0;
  double f64 = 0;
  if (type.empty()) {
    if (absl::SimpleAtoi(value, &i64)) {
      type = (i64 >= std::numeric_limits<int>::min() &&
              i64 <= std::numeric_limits<int>::max())
                 ? "int"
                 : "int64";
    } else if (absl::SimpleAtod(value, &f64)) {
      type = "float";
    } else if (value == "true" || value == "false") {
      type = "bool";
    } else {
      type = "string";
    }
  }
  if (type == "int") {
    int32_t v = 0;
    if (!absl::SimpleAtoi(value, &v)) return bad("an int");
    return std::make_pair(name, MakePacket<int>(v));
  }
  if (type == "int64") {
    if (!absl::SimpleAtoi(value, &i64)) return bad("an int64");
    return std::make_pair(name, MakePacket<int64_t>(i64));
  }
  if (type == "float") {
    float v = 0;
    if (!absl::SimpleAtof(value, &v)) return bad("a float");
    return std::make_pair(name, MakePacket<float>(v));
  }
  if (type == "double") {
    if (!absl::SimpleAtod(value, &f64)) return bad("a double");
    return std::make_pair(name, MakePacket<double>(f64));
  }
  if (type == "bool") {
    bool v = false;
    if (!absl::SimpleAtob(value, &v)) return bad("a bool (true/false)");
    return std::make_pair(name, MakePacket<bool>(v));
  }
  if (type == "string") {
    if (value.size() >= 2 && (value[0] == '"' || value[0] == '\'') &&
        value.back() == value[0]) {
      value = value.substr(1, value.size() - 2);
    }
    return std::make_pair(name, MakePacket<std::string>(value));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("side packet \"", name, "\": unknown type \"", type,
                   "\" (int, int64, float, double, bool or string)"));
}

}  // namespace tools
}  // namespace rill
