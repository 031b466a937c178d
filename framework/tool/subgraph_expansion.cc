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

// One step of an option path (MediaPipe's option_value syntax): a field
// name, or `Ext::pkg.Type` (the extension, or the options message, of that
// type), with an element index when a number follows a repeated field
// ("list/2").
struct PathStep {
  std::string field;     // empty: an Ext:: step
  std::string ext_type;  // set: an Ext:: step
  int index = -1;        // >= 0: one element of a repeated field
};

bool IsExtStep(absl::string_view s) {
  return absl::StartsWithIgnoreCase(s, "Ext::");
}

// Parses "a/Ext::pkg.T/b/3" into steps. A leading "OPTIONS" or "options"
// names the options message itself and is dropped.
absl::StatusOr<std::vector<PathStep>> ParsePath(absl::string_view path) {
  std::vector<PathStep> steps;
  std::vector<absl::string_view> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  size_t first = 0;
  if (!parts.empty() && (parts[0] == "OPTIONS" || parts[0] == "options")) first = 1;
  for (size_t i = first; i < parts.size(); ++i) {
    absl::string_view p = parts[i];
    int index = 0;
    if (absl::SimpleAtoi(p, &index)) {
      if (steps.empty() || steps.back().index >= 0 || index < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "index \"", p, "\" must follow the name of a repeated field"));
      }
      steps.back().index = index;
      continue;
    }
    PathStep step;
    if (IsExtStep(p)) {
      // MediaPipe's type names (mediapipe.X) name Rill's messages (rill.X).
      step.ext_type = ResolveProtoTypeName(p.substr(5));
    } else {
      step.field = std::string(p);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

// The field one step names in `m`: a field by name, or the extension of
// `m` whose message type is step.ext_type.
absl::StatusOr<const FieldDescriptor*> StepField(const Message& m,
                                                 const PathStep& step) {
  const Descriptor* d = m.GetDescriptor();
  if (step.ext_type.empty()) {
    const FieldDescriptor* f = d->FindFieldByName(step.field);
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no field \"", step.field, "\" in ", d->full_name()));
    }
    return f;
  }
  std::vector<const FieldDescriptor*> exts;
  d->file()->pool()->FindAllExtensions(d, &exts);
  if (d->file()->pool() != google::protobuf::DescriptorPool::generated_pool()) {
    google::protobuf::DescriptorPool::generated_pool()->FindAllExtensions(d, &exts);
  }
  for (const FieldDescriptor* f : exts) {
    if (f->message_type() != nullptr &&
        f->message_type()->full_name() == step.ext_type) {
      return f;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "no extension of type ", step.ext_type, " in ", d->full_name()));
}

// Where a path ends: `field` of `parent`, element `index` of it when the
// field is repeated and the path names one (-1: the whole field). `parent`
// is null when the path runs through a message that is not set (reading).
struct PathEnd {
  Message* parent = nullptr;
  const FieldDescriptor* field = nullptr;
  int index = -1;
};

// Walks `steps` in `message`. With `create`, unset messages on the way are
// made (an index one past a repeated message field's end appends one).
absl::StatusOr<PathEnd> WalkPath(Message* message,
                                 const std::vector<PathStep>& steps,
                                 bool create) {
  if (steps.empty()) return absl::InvalidArgumentError("empty option path");
  Message* m = message;
  for (size_t i = 0; i < steps.size(); ++i) {
    const PathStep& step = steps[i];
    absl::StatusOr<const FieldDescriptor*> field = StepField(*m, step);
    if (!field.ok()) return field.status();
    const FieldDescriptor* f = *field;
    if (step.index >= 0 && !f->is_repeated()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", f->name(), "\" of ", m->GetDescriptor()->full_name(),
          " is not repeated but the path gives it an index"));
    }
    if (i + 1 == steps.size()) return PathEnd{m, f, step.index};
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
        (f->is_repeated() && step.index < 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", f->name(), "\" of ", m->GetDescriptor()->full_name(),
          f->is_repeated() ? " is repeated: name an element (\"" + f->name() +
                                 "/0\")"
                           : " is not a message"));
    }
    const Reflection* r = m->GetReflection();
    if (f->is_repeated()) {
      const int size = r->FieldSize(*m, f);
      if (step.index < size) {
        m = r->MutableRepeatedMessage(m, f, step.index);
      } else if (create && step.index == size) {
        m = r->AddMessage(m, f);
      } else if (create) {
        return absl::InvalidArgumentError(absl::StrCat(
            "index ", step.index, " of \"", f->name(), "\" is past its end (",
            size, " elements)"));
      } else {
        return PathEnd{};
      }
    } else {
      if (!create && !r->HasField(*m, f)) return PathEnd{};
      m = r->MutableMessage(m, f);
    }
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

// Writes a number into `f` of `m`: the singular value, element `index` of a
// repeated field, or (index == size) a new element.
void PutNumber(Message* m, const FieldDescriptor* f, int index, double v) {
  const Reflection* r = m->GetReflection();
  const bool add = f->is_repeated() && index >= r->FieldSize(*m, f);
  const bool set = f->is_repeated() && !add;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const auto x = static_cast<int32_t>(v);
      add ? r->AddInt32(m, f, x) : set ? r->SetRepeatedInt32(m, f, index, x) : r->SetInt32(m, f, x);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      const auto x = static_cast<int64_t>(v);
      add ? r->AddInt64(m, f, x) : set ? r->SetRepeatedInt64(m, f, index, x) : r->SetInt64(m, f, x);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      const auto x = static_cast<uint32_t>(v);
      add ? r->AddUInt32(m, f, x) : set ? r->SetRepeatedUInt32(m, f, index, x) : r->SetUInt32(m, f, x);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      const auto x = static_cast<uint64_t>(v);
      add ? r->AddUInt64(m, f, x) : set ? r->SetRepeatedUInt64(m, f, index, x) : r->SetUInt64(m, f, x);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
      add ? r->AddDouble(m, f, v) : set ? r->SetRepeatedDouble(m, f, index, v) : r->SetDouble(m, f, v);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT: {
      const auto x = static_cast<float>(v);
      add ? r->AddFloat(m, f, x) : set ? r->SetRepeatedFloat(m, f, index, x) : r->SetFloat(m, f, x);
      break;
    }
    default:
      break;
  }
}

// Copies one value: element `si` of `sf` (or its singular value, si < 0)
// into element `di` of `df` (its singular value, di < 0; a new element,
// di == size). The types are known to agree (or both to be numbers).
void CopyValue(const Message& src, const FieldDescriptor* sf, int si,
               Message* dst, const FieldDescriptor* df, int di) {
  const Reflection* sr = src.GetReflection();
  const Reflection* dr = dst->GetReflection();
  const bool srep = si >= 0;
  const bool add = df->is_repeated() && di >= dr->FieldSize(*dst, df);
  const bool set = df->is_repeated() && !add;
  if (sf->cpp_type() != df->cpp_type()) {
    PutNumber(dst, df, di, GetNumber(src, sf, si));
    return;
  }
  switch (sf->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string v = srep ? sr->GetRepeatedString(src, sf, si) : sr->GetString(src, sf);
      add ? dr->AddString(dst, df, v) : set ? dr->SetRepeatedString(dst, df, di, v) : dr->SetString(dst, df, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool v = srep ? sr->GetRepeatedBool(src, sf, si) : sr->GetBool(src, sf);
      add ? dr->AddBool(dst, df, v) : set ? dr->SetRepeatedBool(dst, df, di, v) : dr->SetBool(dst, df, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      int v = srep ? sr->GetRepeatedEnumValue(src, sf, si) : sr->GetEnumValue(src, sf);
      add ? dr->AddEnumValue(dst, df, v) : set ? dr->SetRepeatedEnumValue(dst, df, di, v) : dr->SetEnumValue(dst, df, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& v = srep ? sr->GetRepeatedMessage(src, sf, si) : sr->GetMessage(src, sf);
      (add ? dr->AddMessage(dst, df)
           : set ? dr->MutableRepeatedMessage(dst, df, di) : dr->MutableMessage(dst, df))
          ->CopyFrom(v);
      break;
    }
    default:
      PutNumber(dst, df, di, GetNumber(src, sf, si));
  }
}

// Copies what `s` names into what `d` names: a whole repeated field into a
// whole repeated field, or one value (a singular field or one element) into
// one value. Numeric types convert; anything else must match exactly.
absl::Status CopyField(const PathEnd& s, const PathEnd& d) {
  const FieldDescriptor* sf = s.field;
  const FieldDescriptor* df = d.field;
  const bool s_list = sf->is_repeated() && s.index < 0;
  const bool d_list = df->is_repeated() && d.index < 0;
  if (s_list != d_list) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot copy ", sf->full_name(), s.index >= 0 ? "[i]" : "", " into ",
        df->full_name(), d.index >= 0 ? "[i]" : "",
        ": one is a list, the other one value"));
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
  if (d.index >= 0 &&
      d.index > d.parent->GetReflection()->FieldSize(*d.parent, df)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index ", d.index, " of ", df->full_name(), " is past its end"));
  }
  if (!s_list) {
    CopyValue(*s.parent, sf, s.index, d.parent, df, d.index);
    return absl::OkStatus();
  }
  d.parent->GetReflection()->ClearField(d.parent, df);
  const int n = s.parent->GetReflection()->FieldSize(*s.parent, sf);
  for (int i = 0; i < n; ++i) CopyValue(*s.parent, sf, i, d.parent, df, i);
  return absl::OkStatus();
}

// Whether what `e` names holds a value (a path through an unset message
// holds none).
bool IsSet(const PathEnd& e) {
  if (e.parent == nullptr) return false;
  const Reflection* r = e.parent->GetReflection();
  if (!e.field->is_repeated()) return r->HasField(*e.parent, e.field);
  const int size = r->FieldSize(*e.parent, e.field);
  return e.index < 0 ? size > 0 : e.index < size;
}

// Splits "LHS:RHS" at its single colon; "::" (inside Ext::pkg.Type) does
// not split.
bool SplitOptionValue(absl::string_view spec, std::string* lhs,
                      std::string* rhs) {
  for (size_t p = spec.find(':'); p != absl::string_view::npos;
       p = spec.find(':', p + 2)) {
    if (p + 1 < spec.size() && spec[p + 1] == ':') continue;
    *lhs = std::string(spec.substr(0, p));
    *rhs = std::string(spec.substr(p + 1));
    return true;
  }
  return false;
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
  std::string lhs, rhs;
  if (!SplitOptionValue(spec, &lhs, &rhs)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option_value \"", spec, "\" is not NODE_FIELD:GRAPH_FIELD"));
  }
  const std::string where = absl::StrCat("option_value \"", spec, "\": ");
  if (graph_options.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option_value \"", spec,
        "\" but the enclosing graph declares no graph_options"));
  }
  absl::StatusOr<std::vector<PathStep>> dst_steps = ParsePath(lhs);
  if (!dst_steps.ok()) return AnnotateStatus(dst_steps.status(), where);
  absl::StatusOr<std::vector<PathStep>> src_steps = ParsePath(rhs);
  if (!src_steps.ok()) return AnnotateStatus(src_steps.status(), where);
  // A leading Ext:: step picks the options message of that type: among the
  // graph's options (right side) or the node's (left side).
  auto take_type = [](std::vector<PathStep>* steps) {
    std::string type;
    if (!steps->empty() && !steps->front().ext_type.empty() &&
        steps->front().index < 0) {
      type = steps->front().ext_type;
      steps->erase(steps->begin());
    }
    return type;
  };
  const std::string src_type = take_type(&*src_steps);
  const std::string dst_type = take_type(&*dst_steps);

  std::vector<const Message*> sources;
  for (const Message* g : graph_options) {
    if (src_type.empty() || g->GetDescriptor()->full_name() == src_type) {
      sources.push_back(g);
    }
  }
  if (sources.empty()) {
    std::vector<std::string> held;
    for (const Message* g : graph_options) held.push_back(g->GetDescriptor()->full_name());
    return absl::InvalidArgumentError(absl::StrCat(
        where, "the graph options hold no ", src_type, " (they hold ",
        absl::StrJoin(held, ", "), ")"));
  }
  std::vector<OptionsEntry> node_opts = CollectOptions(
      node->has_options() ? &node->options() : nullptr, node->node_options());
  // The node's options message of `dst_type`, made when the node has none.
  auto entry_of_type = [&](const std::string& type) -> absl::StatusOr<OptionsEntry*> {
    for (OptionsEntry& e : node_opts) {
      if (e.message->GetDescriptor()->full_name() == type) return &e;
    }
    const Descriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(type);
    if (d == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, type, " is not a known message (is the calculator or plugin "
                       "that defines it linked?)"));
    }
    OptionsEntry e;
    e.message = NewMessage(d);
    node_opts.push_back(std::move(e));
    return &node_opts.back();
  };

  // The whole graph options message into the node's message of that type.
  if (src_steps->empty()) {
    if (!dst_steps->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "a whole options message goes only into a whole options "
                 "message (\"OPTIONS:options\")"));
    }
    const Message* src = sources[0];
    const std::string& type = src->GetDescriptor()->full_name();
    if (!dst_type.empty() && dst_type != type) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "cannot copy ", type, " into ", dst_type));
    }
    absl::StatusOr<OptionsEntry*> e = entry_of_type(type);
    if (!e.ok()) return e.status();
    (*e)->message->MergeFrom(*src);
    StoreOptions(**e, node);
    return absl::OkStatus();
  }
  if (dst_steps->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "one field cannot replace a whole options message"));
  }

  absl::Status src_error;
  for (const Message* g : sources) {
    // WalkPath needs a mutable message; work on a copy.
    std::unique_ptr<Message> copy(g->New());
    copy->CopyFrom(*g);
    absl::StatusOr<PathEnd> src = WalkPath(copy.get(), *src_steps, false);
    if (!src.ok()) {
      if (src_error.ok()) src_error = src.status();
      continue;  // The field may be in another of the graph's options.
    }
    // An unset field (or a path through an unset message) leaves the
    // node's own value.
    if (!IsSet(*src)) return absl::OkStatus();
    std::vector<OptionsEntry*> targets;
    if (!dst_type.empty()) {
      absl::StatusOr<OptionsEntry*> e = entry_of_type(dst_type);
      if (!e.ok()) return e.status();
      targets.push_back(*e);
    } else {
      for (OptionsEntry& e : node_opts) targets.push_back(&e);
    }
    if (targets.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "node \"", node->name(), "\" (",
                       node->calculator(), ") has no options to set"));
    }
    for (OptionsEntry* e : targets) {
      // Only a message that has the path's first field is a candidate.
      if (!StepField(*e->message, dst_steps->front()).ok()) continue;
      absl::StatusOr<PathEnd> dst = WalkPath(e->message.get(), *dst_steps, true);
      if (!dst.ok()) return AnnotateStatus(dst.status(), where);
      RILL_RETURN_IF_ERROR(AnnotateStatus(CopyField(*src, *dst), where));
      StoreOptions(*e, node);
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        where, "no field \"", dst_steps->front().field.empty()
                                  ? "Ext::" + dst_steps->front().ext_type
                                  : dst_steps->front().field,
        "\" in the options of node \"", node->name(), "\" (",
        node->calculator(), ")"));
  }
  if (!src_error.ok() && sources.size() == 1) {
    return AnnotateStatus(src_error, where + "graph options: ");
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where, "no field \"", rhs, "\" in the graph options (",
                   sources[0]->GetDescriptor()->full_name(), ")"));
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
  // A type the subgraph declares no defaults for still reaches its
  // option_value bindings (MediaPipe reads the node's options whole).
  for (OptionsEntry& g : given) {
    bool merged = false;
    for (OptionsEntry& d : defaults) {
      if (g.message->GetDescriptor() == d.message->GetDescriptor()) {
        d.message->MergeFrom(*g.message);
        merged = true;
      }
    }
    if (!merged) defaults.push_back(std::move(g));
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
