// SwitchContainer: a subgraph that runs one of several contained nodes,
// chosen by a SELECT (int) or ENABLE (bool) input side packet, a SELECT or
// ENABLE input stream (per timestamp), or the options' select / enable, as
// MediaPipe's SwitchContainer:
//
//   node {
//     calculator: "SwitchContainer"
//     input_side_packet: "SELECT:model_complexity"
//     output_side_packet: "PACKET:model_path"
//     options { [mediapipe.SwitchContainerOptions.ext] {
//       select: 1
//       contained_node { calculator: "ConstantSidePacketCalculator" ... }
//       contained_node { calculator: "ConstantSidePacketCalculator" ... }
//     } }
//   }
//
// It expands to
//
//   SwitchDemuxCalculator -> contained_node[0..n-1] -> SwitchMuxCalculator
//
// (with a SELECT/ENABLE stream, one demux and one mux for all streams;
// otherwise one per stream, which passes each stream's timestamp bounds on
// by itself, and one of each for the side packets).
//
// Every port of the container except SELECT/ENABLE is given to each
// contained node under the same tag and index; the demux carries channel c's
// copy as "C<c>__TAG" (so contained node c reads stream "c<c>__..." through
// its own TAG) and the mux joins them back. Side packets reach every
// contained node (so each one opens); the mux passes on those of the
// selected node. Stream packets go only to the node selected at their
// timestamp. Contained nodes keep their options (and may be subgraphs
// themselves, expanded next).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "framework/options.h"
#include "framework/proto/switch_container.pb.h"
#include "framework/tag_map.h"
#include "framework/tool/container_util.h"
#include "framework/tool/subgraph_expansion.h"

namespace rill {
namespace tool {
namespace {

constexpr char kSelectTag[] = "SELECT";
constexpr char kEnableTag[] = "ENABLE";

struct Port {
  std::string tag;
  int index = 0;
  std::string name;  // inside the container's config
};

bool IsSelection(const std::string& tag) {
  return tag == kSelectTag || tag == kEnableTag;
}

// "TAG:index:name", or the bare name for an untagged port.
std::string Entry(const std::string& tag, int index, const std::string& name) {
  return tag.empty() ? name : absl::StrCat(tag, ":", index, ":", name);
}

// The container's ports of one kind, minus SELECT/ENABLE, named
// `<kind>_<tag>_<index>` inside the container. Untagged ports stay
// untagged (their channel copies are tagged "C<c>__").
absl::StatusOr<std::vector<Port>> DataPorts(
    const google::protobuf::RepeatedPtrField<std::string>& entries,
    const std::string& kind, const std::string& node_desc) {
  auto map = TagMap::Create(entries);
  if (!map.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(node_desc, ": ", map.status().message()));
  }
  std::vector<Port> ports;
  for (int id = 0; id < (*map)->NumEntries(); ++id) {
    const std::string& tag = (*map)->Tag(id);
    if (IsSelection(tag)) continue;
    Port p;
    p.tag = tag;
    p.index = (*map)->Index(id);
    p.name = absl::StrCat(kind, "_", absl::AsciiStrToLower(tag), "_", p.index);
    ports.push_back(std::move(p));
  }
  return ports;
}

int CountTag(const google::protobuf::RepeatedPtrField<std::string>& entries,
             const std::string& tag) {
  int n = 0;
  for (const std::string& e : entries) {
    TagIndexName tin;
    if (ParseTagIndexName(e, &tin).ok() && tin.tag == tag) ++n;
  }
  return n;
}

// The container's options for its demux and mux: everything but the
// contained nodes, which the subgraph consumes.
void CopyContainerOptions(const CalculatorGraphConfig::Node& from,
                          CalculatorGraphConfig::Node* to) {
  if (from.has_options()) {
    *to->mutable_options() = from.options();
    if (to->options().HasExtension(SwitchContainerOptions::ext)) {
      to->mutable_options()
          ->MutableExtension(SwitchContainerOptions::ext)
          ->clear_contained_node();
    }
  }
  for (const google::protobuf::Any& any : from.node_options()) {
    google::protobuf::Any* copy = to->add_node_options();
    *copy = any;
    if (FindAnyType(any.type_url()) == SwitchContainerOptions::descriptor()) {
      SwitchContainerOptions o;
      if (o.ParseFromString(any.value())) {
        o.clear_contained_node();
        copy->PackFrom(o);
      }
    }
  }
}

}  // namespace

class SwitchContainer : public Subgraph {
 public:
  absl::StatusOr<CalculatorGraphConfig> GetConfig(
      const SubgraphOptions& node) override;
};

absl::StatusOr<CalculatorGraphConfig> SwitchContainer::GetConfig(
    const SubgraphOptions& node) {
  const std::string desc =
      absl::StrCat("SwitchContainer node \"", node.name(), "\"");
  std::unique_ptr<google::protobuf::Message> storage;
  const auto* found = static_cast<const SwitchContainerOptions*>(FindOptions(
      node.has_options() ? &node.options() : nullptr, node.node_options(),
      SwitchContainerOptions::descriptor(), &storage));
  if (found == nullptr || found->contained_node_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        desc, " has no contained_node in its SwitchContainerOptions"));
  }
  const SwitchContainerOptions& options = *found;
  const int num_channels = options.contained_node_size();
  if (options.has_select() && options.has_enable()) {
    return absl::InvalidArgumentError(absl::StrCat(
        desc, ": set one of the options 'select' and 'enable', not both"));
  }
  if (options.has_select() &&
      (options.select() < 0 || options.select() >= num_channels)) {
    return absl::InvalidArgumentError(absl::StrCat(
        desc, ": option select ", options.select(), " is out of range: it has ",
        num_channels, " contained node", num_channels == 1 ? "" : "s",
        " (channels 0..", num_channels - 1, ")"));
  }
  const int stream_selectors = CountTag(node.input_stream(), kSelectTag) +
                               CountTag(node.input_stream(), kEnableTag);
  const int side_selectors = CountTag(node.input_side_packet(), kSelectTag) +
                             CountTag(node.input_side_packet(), kEnableTag);
  if (stream_selectors > 1 || side_selectors > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        desc, ": connect one of the inputs SELECT and ENABLE, not both"));
  }

  auto inputs = DataPorts(node.input_stream(), "in", desc);
  if (!inputs.ok()) return inputs.status();
  auto outputs = DataPorts(node.output_stream(), "out", desc);
  if (!outputs.ok()) return outputs.status();
  auto side_inputs = DataPorts(node.input_side_packet(), "side_in", desc);
  if (!side_inputs.ok()) return side_inputs.status();
  auto side_outputs = DataPorts(node.output_side_packet(), "side_out", desc);
  if (!side_outputs.ok()) return side_outputs.status();

  CalculatorGraphConfig config;
  // The selection inputs the container node connects, for demux and mux.
  std::vector<std::string> select_streams, select_sides;
  for (const char* tag : {kSelectTag, kEnableTag}) {
    const std::string lower = absl::AsciiStrToLower(tag);
    if (CountTag(node.input_stream(), tag) > 0) {
      config.add_input_stream(absl::StrCat(tag, ":", lower));
      select_streams.push_back(absl::StrCat(tag, ":", lower));
    }
    if (CountTag(node.input_side_packet(), tag) > 0) {
      config.add_input_side_packet(absl::StrCat(tag, ":side_", lower));
      select_sides.push_back(absl::StrCat(tag, ":side_", lower));
    }
  }

  // The demux and mux nodes. With a SELECT/ENABLE stream one demux takes
  // every input stream with the selection (synchronized) and one mux joins
  // every output. Without one the channel is fixed for the run, and each
  // input stream gets a demux and each output a mux of its own, so that a
  // stream's timestamp bounds pass on without waiting for the others'.
  // Side packets go through a demux and a mux of their own.
  const bool stream_selection = !select_streams.empty();
  auto add_node = [&](const std::string& name, const std::string& calculator,
                      bool with_stream_selection) {
    CalculatorGraphConfig::Node* n = config.add_node();
    n->set_name(name);
    n->set_calculator(calculator);
    CopyContainerOptions(node, n);
    if (with_stream_selection) {
      for (const std::string& s : select_streams) n->add_input_stream(s);
    }
    for (const std::string& s : select_sides) n->add_input_side_packet(s);
    return n;
  };
  CalculatorGraphConfig::Node* shared_demux =
      stream_selection && !inputs->empty()
          ? add_node("switch_demux", "SwitchDemuxCalculator", true)
          : nullptr;
  CalculatorGraphConfig::Node* side_demux =
      !side_inputs->empty()
          ? add_node("switch_demux_side", "SwitchDemuxCalculator", false)
          : nullptr;
  std::vector<CalculatorGraphConfig::Node*> contained;
  for (int c = 0; c < num_channels; ++c) {
    CalculatorGraphConfig::Node* n = config.add_node();
    *n = options.contained_node(c);
    contained.push_back(n);
  }
  CalculatorGraphConfig::Node* shared_mux =
      stream_selection && !outputs->empty()
          ? add_node("switch_mux", "SwitchMuxCalculator", true)
          : nullptr;
  CalculatorGraphConfig::Node* side_mux =
      !side_outputs->empty()
          ? add_node("switch_mux_side", "SwitchMuxCalculator", false)
          : nullptr;
  if (inputs->empty() && side_inputs->empty() && outputs->empty() &&
      side_outputs->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        desc, " connects no streams or side packets besides SELECT/ENABLE"));
  }

  // Each port: the container's, the demux's or mux's end, and one copy per
  // channel. The contained node sees its channel's copy under the
  // container's tag and index.
  for (const Port& p : *inputs) {
    CalculatorGraphConfig::Node* demux =
        shared_demux != nullptr
            ? shared_demux
            : add_node(absl::StrCat("switch_demux_", p.name),
                       "SwitchDemuxCalculator", false);
    // A demux of its own carries this one port, at index 0.
    const int at = shared_demux != nullptr ? p.index : 0;
    config.add_input_stream(Entry(p.tag, p.index, p.name));
    demux->add_input_stream(Entry(p.tag, at, p.name));
    for (int c = 0; c < num_channels; ++c) {
      const std::string name = absl::StrCat("c", c, "__", p.name);
      demux->add_output_stream(Entry(ChannelTag(p.tag, c), at, name));
      contained[c]->add_input_stream(Entry(p.tag, p.index, name));
    }
  }
  for (const Port& p : *side_inputs) {
    config.add_input_side_packet(Entry(p.tag, p.index, p.name));
    side_demux->add_input_side_packet(Entry(p.tag, p.index, p.name));
    for (int c = 0; c < num_channels; ++c) {
      const std::string name = absl::StrCat("c", c, "__", p.name);
      side_demux->add_output_side_packet(
          Entry(ChannelTag(p.tag, c), p.index, name));
      contained[c]->add_input_side_packet(Entry(p.tag, p.index, name));
    }
  }
  for (const Port& p : *outputs) {
    CalculatorGraphConfig::Node* mux =
        shared_mux != nullptr
            ? shared_mux
            : add_node(absl::StrCat("switch_mux_", p.name),
                       "SwitchMuxCalculator", false);
    // A mux of its own carries this one port, at index 0.
    const int at = shared_mux != nullptr ? p.index : 0;
    config.add_output_stream(Entry(p.tag, p.index, p.name));
    mux->add_output_stream(Entry(p.tag, at, p.name));
    for (int c = 0; c < num_channels; ++c) {
      const std::string name = absl::StrCat("c", c, "__", p.name);
      contained[c]->add_output_stream(Entry(p.tag, p.index, name));
      mux->add_input_stream(Entry(ChannelTag(p.tag, c), at, name));
    }
  }
  for (const Port& p : *side_outputs) {
    config.add_output_side_packet(Entry(p.tag, p.index, p.name));
    side_mux->add_output_side_packet(Entry(p.tag, p.index, p.name));
    for (int c = 0; c < num_channels; ++c) {
      const std::string name = absl::StrCat("c", c, "__", p.name);
      contained[c]->add_output_side_packet(Entry(p.tag, p.index, name));
      side_mux->add_input_side_packet(
          Entry(ChannelTag(p.tag, c), p.index, name));
    }
  }
  return config;
}

REGISTER_SUBGRAPH(SwitchContainer);

}  // namespace tool
}  // namespace rill
