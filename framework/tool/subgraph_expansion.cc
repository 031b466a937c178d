#include "framework/tool/subgraph_expansion.h"

#include <dirent.h>

#include <algorithm>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/calculator_registry.h"
#include "framework/options.h"
#include "framework/status_util.h"
#include "framework/tag_map.h"
#include "framework/tool/config_loader.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace rill {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MessageFactory;
using google::protobuf::Reflection;

constexpr int kMaxExpansionDepth = 32;

struct SearchState {
  std::mutex mu;
  std::vector<std::string> dirs;
  std::set<std::string> scanned;
  std::map<std::string, std::string> type_to_file;
  // Types whose file on the path failed to load, with why.
  std::map<std::string, absl::Status> load_errors;
};

SearchState& Search() {
  static auto* s = new SearchState;
  return *s;
}

// The `type: "X"` of a .pbtxt file, found without a full parse (a file may
// use option types of calculators not linked into this binary).
std::string ScanType(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::StartsWith(line, "type:")) continue;
    line = absl::StripAsciiWhitespace(line.substr(5));
    if (line.size() >= 2 && line.front() == '"') {
      const size_t end = line.find('"', 1);
      if (end != absl::string_view::npos) {
        return std::string(line.substr(1, end - 1));
      }
    }
  }
  return "";
}

// "FaceDetectionShortRangeCpu" -> "face_detection_short_range_cpu.pbtxt".
std::string FileNameForType(const std::string& type) {
  std::string out;
  for (size_t i = 0; i < type.size(); ++i) {
    const char c = type[i];
    if (absl::ascii_isupper(c)) {
      if (i > 0) out.push_back('_');
      out.push_back(absl::ascii_tolower(c));
    } else {
      out.push_back(c);
    }
  }
  return out + ".pbtxt";
}

// Files of `dir` by the type they declare. Earlier folders win. Within a
// folder, where several files declare one type (MediaPipe's
// face_detection_short_range_image.pbtxt also says FaceDetectionShortRangeCpu),
// the file named after the type wins, else the first by name: never the
// order the file system lists them in.
void ScanDirLocked(SearchState& s, const std::string& dir) {
  if (!s.scanned.insert(dir).second) return;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (absl::EndsWith(name, ".pbtxt")) names.push_back(std::move(name));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  std::map<std::string, std::string> chosen;  // type -> file name
  for (const std::string& name : names) {
    absl::StatusOr<std::string> text = ReadFileToString(dir + "/" + name);
    if (!text.ok()) continue;
    const std::string type = ScanType(*text);
    if (type.empty()) continue;
    auto it = chosen.find(type);
    if (it == chosen.end()) {
      chosen[type] = name;
    } else if (name == FileNameForType(type)) {
      it->second = name;
    }
  }
  for (const auto& [type, name] : chosen) {
    if (!s.type_to_file.count(type)) s.type_to_file[type] = dir + "/" + name;
  }
}

// Loads `name` from the search path into the registry, if a file has it.
bool FindOnSearchPath(const std::string& name) {
  std::string file;
  {
    SearchState& s = Search();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const std::string& dir : s.dirs) ScanDirLocked(s, dir);
    auto it = s.type_to_file.find(UnqualifiedName(name));
    if (it == s.type_to_file.end()) return false;
    file = it->second;
  }
  absl::Status loaded = RegisterSubgraphFile(file);
  if (!loaded.ok()) {
    SearchState& s = Search();
    std::lock_guard<std::mutex> lock(s.mu);
    s.load_errors[UnqualifiedName(name)] = AnnotateStatus(
        loaded, absl::StrCat("subgraph file ", file, " (type ",
                             UnqualifiedName(name), ") failed to load: "));
  }
  return loaded.ok();
}

// Why the search path's file for `name` failed to load; OK if none did.
absl::Status SearchPathLoadError(const std::string& name) {
  SearchState& s = Search();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.load_errors.find(UnqualifiedName(name));
  return it == s.load_errors.end() ? absl::OkStatus() : it->second;
}

// --- options plumbing -------------------------------------------------------

std::unique_ptr<Message> NewMessage(const Descriptor* type) {
  return std::unique_ptr<Message>(
      MessageFactory::generated_factory()->GetPrototype(type)->New());
}

// All options messages of a node or graph, as (owned copy, where it came from).
struct OptionsEntry {
  std::unique_ptr<Message> message;
  const FieldDescriptor* extension = nullptr;  // set: from `options`
  int any_index = -1;                          // set: from node_options
};

template <typename OptionsProto>
std::vector<OptionsEntry> CollectOptions(
    const OptionsProto* options,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys) {
  std::vector<OptionsEntry> out;
  if (options != nullptr) {
    std::vector<const FieldDescriptor*> fields;
    options->GetReflection()->ListFields(*options, &fields);
    for (const FieldDescriptor* f : fields) {
      if (!f->is_extension() || f->type() != FieldDescriptor::TYPE_MESSAGE ||
          f->is_repeated()) {
        continue;
      }
      OptionsEntry e;
      e.message = NewMessage(f->message_type());
      e.message->CopyFrom(options->GetReflection()->GetMessage(*options, f));
      e.extension = f;
      out.push_back(std::move(e));
    }
  }
  for (int i = 0; i < anys.size(); ++i) {
    const Descriptor* type = FindAnyType(anys[i].type_url());
    if (type == nullptr) continue;
    OptionsEntry e;
    e.message = NewMessage(type);
    if (!e.message->ParseFromString(anys[i].value())) continue;
    e.any_index = i;
    out.push_back(std::move(e));
  }
  return out;
}

void StoreOptions(const OptionsEntry& e, CalculatorGraphConfig::Node* node) {
  if (e.extension != nullptr) {
    CalculatorOptions* options = node->mutable_options();
    options->GetReflection()
        ->MutableMessage(options, e.extension)
        ->CopyFrom(*e.message);
  } else if (e.any_index >= 0) {
    node->mutable_node_options(e.any_index)->PackFrom(*e.message);
  } else {
    node->add_node_options()->PackFrom(*e.message);
  }
}

// Walks `path` ("a/b/c") in `message`; returns the last field and its parent.
absl::Status WalkPath(Message* message, const std::vector<std::string>& path,
                      bool create, Message** parent,
                      const FieldDescriptor** field) {
  Message* m = message;
  for (size_t i = 0; i < path.size(); ++i) {
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(path[i]);
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no field \"", path[i], "\" in ",
                       m->GetDescriptor()->full_name()));
    }
    if (i + 1 == path.size()) {
      *parent = m;
      *field = f;
      return absl::OkStatus();
    }
    if (f->type() != FieldDescriptor::TYPE_MESSAGE || f->is_repeated()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", path[i], "\" of ", m->GetDescriptor()->full_name(),
          " is not a singular message"));
    }
    if (!create && !m->GetReflection()->HasField(*m, f)) {
      *parent = nullptr;
      *field = nullptr;
      return absl::OkStatus();
    }
    m = m->GetReflection()->MutableMessage(m, f);
  }
  return absl::InvalidArgumentError("empty option path");
}

bool IsNumeric(FieldDescriptor::CppType t) {
  switch (t) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return true;
    default:
      return false;
  }
}

double GetNumber(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case FieldDescriptor::CPPTYPE_INT64:
      return rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case FieldDescriptor::CPPTYPE_UINT32:
      return rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64:
      return rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
    default:
      return 0;
  }
}

void AddNumber(Message* m, const FieldDescriptor* f, double v) {
  const Reflection* r = m->GetReflection();
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      rep ? r->AddInt32(m, f, static_cast<int32_t>(v))
          : r->SetInt32(m, f, static_cast<int32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      rep ? r->AddInt64(m, f, static_cast<int64_t>(v))
          : r->SetInt64(m, f, static_cast<int64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      rep ? r->AddUInt32(m, f, static_cast<uint32_t>(v))
          : r->SetUInt32(m, f, static_cast<uint32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      rep ? r->AddUInt64(m, f, static_cast<uint64_t>(v))
          : r->SetUInt64(m, f, static_cast<uint64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      rep ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      rep ? r->AddFloat(m, f, static_cast<float>(v))
          : r->SetFloat(m, f, static_cast<float>(v));
      break;
    default:
      break;
  }
}

// Copies field `sf` of `src` into field `df` of `dst` (same shape; numeric
// types convert).
absl::Status CopyField(const Message& src, const FieldDescriptor* sf,
                       Message* dst, const FieldDescriptor* df) {
  if (sf->is_repeated() != df->is_repeated()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot copy ", sf->full_name(), " into ",
                     df->full_name(), ": one is repeated, the other not"));
  }
  const bool same = sf->cpp_type() == df->cpp_type() &&
                    (sf->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
                     sf->message_type() == df->message_type()) &&
                    (sf->cpp_type() != FieldDescriptor::CPPTYPE_ENUM ||
                     sf->enum_type()->full_name() ==
                         df->enum_type()->full_name());
  if (!same && !(IsNumeric(sf->cpp_type()) && IsNumeric(df->cpp_type()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot copy ", sf->full_name(), " (", sf->type_name(),
                     ") into ", df->full_name(), " (", df->type_name(), ")"));
  }
  const Reflection* sr = src.GetReflection();
  const Reflection* dr = dst->GetReflection();
  if (same) {
    dr->ClearField(dst, df);
    const int n = sf->is_repeated() ? sr->FieldSize(src, sf) : 1;
    for (int i = 0; i < n; ++i) {
      const bool rep = sf->is_repeated();
      switch (sf->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING: {
          std::string v = rep ? sr->GetRepeatedString(src, sf, i)
                              : sr->GetString(src, sf);
          rep ? dr->AddString(dst, df, v) : dr->SetString(dst, df, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_BOOL: {
          bool v = rep ? sr->GetRepeatedBool(src, sf, i) : sr->GetBool(src, sf);
          rep ? dr->AddBool(dst, df, v) : dr->SetBool(dst, df, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_ENUM: {
          int v = rep ? sr->GetRepeatedEnumValue(src, sf, i)
                      : sr->GetEnumValue(src, sf);
          rep ? dr->AddEnumValue(dst, df, v) : dr->SetEnumValue(dst, df, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_MESSAGE: {
          const Message& v = rep ? sr->GetRepeatedMessage(src, sf, i)
                                 : sr->GetMessage(src, sf);
          (rep ? dr->AddMessage(dst, df) : dr->MutableMessage(dst, df))
              ->CopyFrom(v);
          break;
        }
        default:
          AddNumber(dst, df, GetNumber(src, sf, i));
      }
    }
    return absl::OkStatus();
  }
  dr->ClearField(dst, df);
  const int n = sf->is_repeated() ? sr->FieldSize(src, sf) : 1;
  for (int i = 0; i < n; ++i) AddNumber(dst, df, GetNumber(src, sf, i));
  return absl::OkStatus();
}

bool FieldIsSet(const Message& m, const FieldDescriptor* f) {
  return f->is_repeated() ? m.GetReflection()->FieldSize(m, f) > 0
                          : m.GetReflection()->HasField(m, f);
}

std::vector<std::string> SplitPath(absl::string_view path) {
  std::vector<std::string> parts;
  for (absl::string_view p : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    parts.emplace_back(p);
  }
  return parts;
}

}  // namespace

absl::Status ApplyOptionValue(const std::string& spec,
                              const std::vector<const Message*>& graph_options,
                              CalculatorGraphConfig::Node* node);

namespace {

absl::Status ApplyNestedOptionValues(
    const std::vector<const Message*>& graph_options,
    CalculatorGraphConfig::Node* node, bool* changed);

// Applies the option_value bindings of the nodes held in the fields of
// `message` (SwitchContainerOptions.contained_node), and theirs in turn.
absl::Status ApplyOptionValuesInMessage(
    const std::vector<const Message*>& graph_options, Message* message,
    bool* changed) {
  const Descriptor* node_type = CalculatorGraphConfig::Node::descriptor();
  const Reflection* r = message->GetReflection();
  const Descriptor* d = message->GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
        f->message_type() != node_type) {
      continue;
    }
    std::vector<Message*> nodes;
    if (f->is_repeated()) {
      for (int k = 0; k < r->FieldSize(*message, f); ++k) {
        nodes.push_back(r->MutableRepeatedMessage(message, f, k));
      }
    } else if (r->HasField(*message, f)) {
      nodes.push_back(r->MutableMessage(message, f));
    }
    for (Message* m : nodes) {
      auto* node = dynamic_cast<CalculatorGraphConfig::Node*>(m);
      if (node == nullptr) continue;
      for (const std::string& spec : node->option_value()) {
        RILL_RETURN_IF_ERROR(ApplyOptionValue(spec, graph_options, node));
        *changed = true;
      }
      node->clear_option_value();
      RILL_RETURN_IF_ERROR(
          ApplyNestedOptionValues(graph_options, node, changed));
    }
  }
  return absl::OkStatus();
}

// Nodes held in a node's options (the contained nodes of a SwitchContainer)
// take their option_value bindings from the same enclosing graph options as
// the node itself: once the container expands, those options are gone.
absl::Status ApplyNestedOptionValues(
    const std::vector<const Message*>& graph_options,
    CalculatorGraphConfig::Node* node, bool* changed) {
  std::vector<OptionsEntry> entries = CollectOptions(
      node->has_options() ? &node->options() : nullptr, node->node_options());
  for (OptionsEntry& e : entries) {
    bool entry_changed = false;
    RILL_RETURN_IF_ERROR(ApplyOptionValuesInMessage(
        graph_options, e.message.get(), &entry_changed));
    if (entry_changed) {
      StoreOptions(e, node);
      *changed = true;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyOptionValue(const std::string& spec,
                              const std::vector<const Message*>& graph_options,
                              CalculatorGraphConfig::Node* node) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option_value \"", spec, "\" is not NODE_FIELD:GRAPH_FIELD"));
  }
  const std::string lhs = spec.substr(0, colon);
  std::string rhs = spec.substr(colon + 1);
  if (rhs == "options") rhs.clear();
  if (absl::StartsWith(rhs, "options/")) rhs = rhs.substr(8);
  if (graph_options.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option_value \"", spec,
        "\" but the enclosing graph declares no graph_options"));
  }
  std::vector<OptionsEntry> node_opts = CollectOptions(
      node->has_options() ? &node->options() : nullptr, node->node_options());

  // The whole graph options message into the node's message of that type.
  if (rhs.empty() || lhs == "OPTIONS" || lhs == "options") {
    const Message* src = graph_options[0];
    for (OptionsEntry& e : node_opts) {
      if (e.message->GetDescriptor() == src->GetDescriptor()) {
        e.message->MergeFrom(*src);
        StoreOptions(e, node);
        return absl::OkStatus();
      }
    }
    OptionsEntry e;
    e.message = NewMessage(src->GetDescriptor());
    e.message->CopyFrom(*src);
    StoreOptions(e, node);
    return absl::OkStatus();
  }

  const std::vector<std::string> src_path = SplitPath(rhs);
  const std::vector<std::string> dst_path = SplitPath(lhs);
  for (const Message* g : graph_options) {
    Message* parent = nullptr;
    const FieldDescriptor* f = nullptr;
    // WalkPath needs a mutable message; work on a copy.
    std::unique_ptr<Message> copy(g->New());
    copy->CopyFrom(*g);
    if (!WalkPath(copy.get(), src_path, false, &parent, &f).ok()) continue;
    if (f == nullptr) return absl::OkStatus();  // Parent message unset.
    if (!FieldIsSet(*parent, f)) return absl::OkStatus();
    // Copy the value into the node's options.
    if (node_opts.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option_value \"", spec, "\": node \"", node->name(),
                       "\" (", node->calculator(), ") has no options to set"));
    }
    for (OptionsEntry& e : node_opts) {
      Message* dparent = nullptr;
      const FieldDescriptor* df = nullptr;
      if (!WalkPath(e.message.get(), dst_path, true, &dparent, &df).ok()) {
        continue;
      }
      RILL_RETURN_IF_ERROR(AnnotateStatus(
          CopyField(*parent, f, dparent, df),
          absl::StrCat("option_value \"", spec, "\": ")));
      StoreOptions(e, node);
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "option_value \"", spec, "\": no field \"", lhs,
        "\" in the options of node \"", node->name(), "\" (",
        node->calculator(), ")"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("option_value \"", spec, "\": no field \"", rhs,
                   "\" in the graph options (", 
                   graph_options[0]->GetDescriptor()->full_name(), ")"));
}

Registry<SubgraphFactory>& SubgraphRegistry() {
  static auto* registry = new Registry<SubgraphFactory>("subgraph");
  return *registry;
}

absl::Status RegisterSubgraphConfig(const CalculatorGraphConfig& config) {
  if (config.type().empty()) {
    return absl::InvalidArgumentError(
        "a subgraph config needs a `type:` to be registered under");
  }
  SubgraphRegistry().Register(
      UnqualifiedName(config.type()),
      [config](const SubgraphOptions&) -> absl::StatusOr<CalculatorGraphConfig> {
        return config;
      });
  return absl::OkStatus();
}

absl::Status RegisterSubgraphFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<CalculatorGraphConfig> config =
      ParseGraphConfigText(*text, path);
  if (!config.ok()) return config.status();
  if (config->type().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a subgraph file needs a `type:`"));
  }
  return RegisterSubgraphConfig(*config);
}

void AddSubgraphSearchPath(const std::string& dir) {
  SearchState& s = Search();
  std::lock_guard<std::mutex> lock(s.mu);
  for (const std::string& d : s.dirs) {
    if (d == dir) return;
  }
  s.dirs.push_back(dir);
}

bool IsSubgraph(const std::string& name) {
  if (SubgraphRegistry().IsRegistered(name)) return true;
  if (CalculatorRegistry().IsRegistered(name)) return false;
  return FindOnSearchPath(name);
}

namespace {

// Renames the streams of a subgraph's node list into the parent graph.
class Renamer {
 public:
  Renamer(std::string prefix) : prefix_(std::move(prefix)) {}
  void Bind(const std::string& inner, const std::string& outer) {
    bound_[inner] = outer;
  }
  std::string Map(const std::string& inner) const {
    auto it = bound_.find(inner);
    return it != bound_.end() ? it->second : prefix_ + "__" + inner;
  }
  // Marks a subgraph input the invoking node leaves unconnected.
  void Unconnected(const std::string& inner) { unconnected_.insert(inner); }

  // Rewrites "TAG:index:name" entries. Entries naming an unconnected
  // subgraph input are dropped (their "TAG:index" goes to `dropped`), so the
  // inner calculator sees an absent optional port, as in MediaPipe.
  absl::Status MapList(google::protobuf::RepeatedPtrField<std::string>* list,
                       std::set<std::string>* dropped = nullptr) {
    google::protobuf::RepeatedPtrField<std::string> kept;
    for (std::string& entry : *list) {
      TagIndexName tin;
      bool explicit_index = false;
      RILL_RETURN_IF_ERROR(ParseTagIndexName(entry, &tin, &explicit_index));
      if (dropped != nullptr && unconnected_.count(tin.name)) {
        dropped->insert(tin.tag);
        dropped->insert(absl::StrCat(tin.tag, ":", tin.index));
        continue;
      }
      const std::string name = Map(tin.name);
      if (tin.tag.empty()) {
        entry = name;
      } else if (explicit_index) {
        entry = absl::StrCat(tin.tag, ":", tin.index, ":", name);
      } else {
        entry = absl::StrCat(tin.tag, ":", name);
      }
      *kept.Add() = entry;
    }
    list->Swap(&kept);
    return absl::OkStatus();
  }

 private:
  std::string prefix_;
  std::map<std::string, std::string> bound_;
  std::set<std::string> unconnected_;
};

// Binds the subgraph's declared ports (by tag and index) to the node's.
absl::Status BindPorts(
    const google::protobuf::RepeatedPtrField<std::string>& subgraph_ports,
    const google::protobuf::RepeatedPtrField<std::string>& node_ports,
    const char* what, const std::string& node_desc, Renamer* renamer,
    bool optional_inputs = false) {
  auto inner = TagMap::Create(subgraph_ports);
  if (!inner.ok()) {
    return AnnotateStatus(inner.status(),
                          absl::StrCat(node_desc, ": subgraph ", what, " "));
  }
  auto outer = TagMap::Create(node_ports);
  if (!outer.ok()) {
    return AnnotateStatus(outer.status(), absl::StrCat(node_desc, ": ", what, " "));
  }
  for (int id = 0; id < (*outer)->NumEntries(); ++id) {
    const int inner_id = (*inner)->GetId((*outer)->Tag(id), (*outer)->Index(id));
    if (inner_id < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          node_desc, ": ", what, " \"", (*outer)->Canonical(id),
          "\" is not declared by the subgraph (it declares: ",
          absl::StrJoin((*inner)->Names(), ", "), ")"));
    }
    renamer->Bind((*inner)->Name(inner_id), (*outer)->Name(id));
  }
  if (optional_inputs) {
    for (int id = 0; id < (*inner)->NumEntries(); ++id) {
      if ((*outer)->GetId((*inner)->Tag(id), (*inner)->Index(id)) < 0) {
        renamer->Unconnected((*inner)->Name(id));
      }
    }
  }
  return absl::OkStatus();
}

std::string SnakeCase(absl::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (absl::ascii_isupper(c)) {
      if (i > 0) out.push_back('_');
      out.push_back(absl::ascii_tolower(c));
    } else if (absl::ascii_isalnum(c)) {
      out.push_back(c);
    } else {
      out.push_back('_');
    }
  }
  return out;
}

absl::Status ExpandNode(const CalculatorGraphConfig::Node& node,
                        const std::string& prefix,
                        std::vector<CalculatorGraphConfig::Node>* out) {
  const std::string desc =
      absl::StrCat("node \"", node.name().empty() ? prefix : node.name(),
                   "\" (subgraph ", node.calculator(), ")");
  absl::StatusOr<SubgraphFactory> factory =
      SubgraphRegistry().Lookup(node.calculator());
  if (!factory.ok()) return factory.status();
  absl::StatusOr<CalculatorGraphConfig> sub = (*factory)(node);
  if (!sub.ok()) return AnnotateStatus(sub.status(), desc + ": ");

  // Graph options: the subgraph's defaults, overridden by the node's.
  std::vector<OptionsEntry> defaults =
      CollectOptions(sub->has_options() ? &sub->options() : nullptr,
                     sub->graph_options());
  std::vector<OptionsEntry> given = CollectOptions(
      node.has_options() ? &node.options() : nullptr, node.node_options());
  for (OptionsEntry& d : defaults) {
    for (const OptionsEntry& g : given) {
      if (g.message->GetDescriptor() == d.message->GetDescriptor()) {
        d.message->MergeFrom(*g.message);
      }
    }
  }
  std::vector<const Message*> graph_options;
  for (const OptionsEntry& d : defaults) graph_options.push_back(d.message.get());

  Renamer renamer(prefix);
  RILL_RETURN_IF_ERROR(BindPorts(sub->input_stream(), node.input_stream(),
                                 "input_stream", desc, &renamer,
                                 /*optional_inputs=*/true));
  RILL_RETURN_IF_ERROR(BindPorts(sub->output_stream(), node.output_stream(),
                                 "output_stream", desc, &renamer));
  RILL_RETURN_IF_ERROR(BindPorts(sub->input_side_packet(),
                                 node.input_side_packet(), "input_side_packet",
                                 desc, &renamer, /*optional_inputs=*/true));
  RILL_RETURN_IF_ERROR(BindPorts(sub->output_side_packet(),
                                 node.output_side_packet(),
                                 "output_side_packet", desc, &renamer));

  std::map<std::string, int> name_counts;
  for (CalculatorGraphConfig::Node inner : sub->node()) {
    for (const std::string& spec : inner.option_value()) {
      RILL_RETURN_IF_ERROR(AnnotateStatus(
          ApplyOptionValue(spec, graph_options, &inner), desc + ": "));
    }
    inner.clear_option_value();
    bool nested_changed = false;
    RILL_RETURN_IF_ERROR(AnnotateStatus(
        ApplyNestedOptionValues(graph_options, &inner, &nested_changed),
        desc + ": "));
    std::string base = inner.name().empty() ? SnakeCase(inner.calculator())
                                            : inner.name();
    const int n = name_counts[base]++;
    if (n > 0) base = absl::StrCat(base, "_", n);
    inner.set_name(absl::StrCat(prefix, "__", base));
    for (std::string& e : *inner.mutable_external_input()) {
      inner.add_input_side_packet(e);
    }
    inner.clear_external_input();
    std::set<std::string> dropped;
    RILL_RETURN_IF_ERROR(renamer.MapList(inner.mutable_input_stream(), &dropped));
    // input_stream_info of a dropped input would name a missing port.
    google::protobuf::RepeatedPtrField<InputStreamInfo> infos;
    for (const InputStreamInfo& info : inner.input_stream_info()) {
      if (!dropped.count(info.tag_index())) *infos.Add() = info;
    }
    inner.mutable_input_stream_info()->Swap(&infos);
    RILL_RETURN_IF_ERROR(renamer.MapList(inner.mutable_output_stream()));
    RILL_RETURN_IF_ERROR(renamer.MapList(inner.mutable_input_side_packet(), &dropped));
    RILL_RETURN_IF_ERROR(renamer.MapList(inner.mutable_output_side_packet()));
    if (!inner.has_input_stream_handler() && sub->has_input_stream_handler()) {
      *inner.mutable_input_stream_handler() = sub->input_stream_handler();
    }
    out->push_back(std::move(inner));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ExpandSubgraphs(CalculatorGraphConfig* config) {
  std::set<std::string> used_prefixes;
  for (const auto& node : config->node()) used_prefixes.insert(node.name());
  for (int depth = 0;; ++depth) {
    bool expanded_any = false;
    std::vector<CalculatorGraphConfig::Node> nodes;
    for (const CalculatorGraphConfig::Node& node : config->node()) {
      if (!IsSubgraph(node.calculator())) {
        // A subgraph file declared this type but did not load: say so,
        // with the file's own error, instead of "no calculator named".
        if (!CalculatorRegistry().IsRegistered(node.calculator())) {
          absl::Status load = SearchPathLoadError(node.calculator());
          if (!load.ok()) {
            return AnnotateStatus(
                load, node.name().empty()
                          ? absl::StrCat("a ", node.calculator(), " node: ")
                          : absl::StrCat("node \"", node.name(), "\" (",
                                         node.calculator(), "): "));
          }
        }
        nodes.push_back(node);
        continue;
      }
      if (depth >= kMaxExpansionDepth) {
        return absl::InvalidArgumentError(absl::StrCat(
            "subgraph expansion deeper than ", kMaxExpansionDepth,
            " levels at node \"", node.name(), "\" (", node.calculator(),
            "): does a subgraph contain itself?"));
      }
      std::string prefix =
          node.name().empty() ? SnakeCase(UnqualifiedName(node.calculator()))
                              : node.name();
      std::string unique = prefix;
      for (int i = 1; used_prefixes.count(unique) && unique != node.name(); ++i) {
        unique = absl::StrCat(prefix, "_", i);
      }
      used_prefixes.insert(unique);
      RILL_RETURN_IF_ERROR(ExpandNode(node, unique, &nodes));
      expanded_any = true;
    }
    if (!expanded_any) break;
    config->clear_node();
    for (auto& n : nodes) *config->add_node() = std::move(n);
  }
  return absl::OkStatus();
}

}  // namespace rill
