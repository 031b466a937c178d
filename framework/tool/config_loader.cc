#include "framework/tool/config_loader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/options.h"
#include "framework/plugin/plugin_loader.h"
#include "framework/status_util.h"
#include "framework/tool/subgraph_expansion.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace rill {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Resolves `[mediapipe.X.ext]` and `[type.googleapis.com/mediapipe.X]` to
// the rill.X messages.
class RillFinder : public google::protobuf::TextFormat::Finder {
 public:
  const FieldDescriptor* FindExtension(Message* message,
                                       const std::string& name) const override {
    const FieldDescriptor* f =
        DescriptorPool::generated_pool()->FindExtensionByName(
            ResolveProtoTypeName(name));
    if (f == nullptr || f->containing_type() != message->GetDescriptor()) {
      return nullptr;
    }
    return f;
  }
  const Descriptor* FindAnyType(const Message& message,
                                const std::string& prefix,
                                const std::string& name) const override {
    return DescriptorPool::generated_pool()->FindMessageTypeByName(
        ResolveProtoTypeName(name));
  }
};

class Collector : public google::protobuf::io::ErrorCollector {
 public:
  explicit Collector(absl::string_view source) : source_(source) {}
  void AddError(int line, int column, const std::string& message) override {
    errors_.push_back(
        absl::StrCat(source_, ":", line + 1, ":", column + 1, ": ", message));
  }
  void AddWarning(int line, int column, const std::string& message) override {}
  std::string Joined() const { return absl::StrJoin(errors_, "\n"); }

 private:
  std::string source_;
  std::vector<std::string> errors_;
};

}  // namespace

absl::Status ParseTextProto(absl::string_view text,
                            absl::string_view source_name, Message* message) {
  google::protobuf::TextFormat::Parser parser;
  RillFinder finder;
  Collector collector(source_name);
  parser.SetFinder(&finder);
  parser.RecordErrorsTo(&collector);
  if (!parser.ParseFromString(std::string(text), message)) {
    std::string errors = collector.Joined();
    if (errors.empty()) errors = absl::StrCat(source_name, ": parse error");
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed ", message->GetDescriptor()->name(), " in ", errors));
  }
  return absl::OkStatus();
}

absl::StatusOr<CalculatorGraphConfig> ParseGraphConfigText(
    absl::string_view text, absl::string_view source_name) {
  CalculatorGraphConfig config;
  absl::Status s = ParseTextProto(text, source_name, &config);
  if (!s.ok()) return s;
  return config;
}

absl::Status CheckRegularFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return absl::NotFoundError(
        absl::StrCat("cannot open \"", path, "\": ", std::strerror(err)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", path, "\" is a directory, not a file"));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? " (a FIFO)"
                       : S_ISCHR(st.st_mode)  ? " (a character device)"
                       : S_ISBLK(st.st_mode)  ? " (a block device)"
                       : S_ISSOCK(st.st_mode) ? " (a socket)"
                                              : "";
    return absl::InvalidArgumentError(
        absl::StrCat("\"", path, "\" is not a regular file", kind));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  // stat first: opening a FIFO would block, and a directory opens as a
  // stream that fails on the first read.
  absl::Status regular = CheckRegularFile(path);
  if (!regular.ok()) return regular;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open \"", path, "\": ", std::strerror(errno)));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("cannot read \"", path, "\""));
  }
  return ss.str();
}

absl::StatusOr<CalculatorGraphConfig> LoadGraphConfigFile(
    const std::string& path) {
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  if (!contents.ok()) return contents.status();
  if (contents->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", path, "\" is empty, not a graph"));
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  AddSubgraphSearchPath(dir);
  // `# rill:subgraph_path DIR` lines (DIR relative to the file's folder) and
  // $RILL_SUBGRAPH_PATH (':'-separated) name more folders of subgraphs.
  for (absl::string_view line : absl::StrSplit(*contents, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    constexpr absl::string_view kDirective = "# rill:subgraph_path ";
    if (!absl::StartsWith(line, kDirective)) continue;
    const std::string sub(absl::StripAsciiWhitespace(line.substr(kDirective.size())));
    if (!sub.empty()) AddSubgraphSearchPath(sub[0] == '/' ? sub : dir + "/" + sub);
  }
  if (const char* env = std::getenv("RILL_SUBGRAPH_PATH")) {
    for (absl::string_view d : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      AddSubgraphSearchPath(std::string(d));
    }
  }
  // `# rill:plugin LIB.so` lines: load the calculators (and their option
  // messages) before parsing, so the graph may use them.
  for (const std::string& plugin : PluginsNamedInGraphText(*contents, dir)) {
    absl::Status s = LoadPlugin(plugin);
    if (!s.ok()) return AnnotateStatus(s, absl::StrCat(path, ": "));
  }
  CalculatorGraphConfig config;
  if (absl::EndsWith(path, ".binarypb") || absl::EndsWith(path, ".pb")) {
    if (!config.ParseFromString(*contents)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", path, "\" is not a valid binary CalculatorGraphConfig"));
    }
    return config;
  }
  return ParseGraphConfigText(*contents, path);
}

}  // namespace rill
