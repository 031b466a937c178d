#include "framework/plugin/plugin_loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace rill {
namespace {

struct PluginState {
  // Recursive: a plugin's initialisers may themselves load a plugin.
  std::recursive_mutex mu;
  std::vector<std::string> loaded;  // canonical paths, in load order
};

PluginState& State() {
  static auto* state = new PluginState();
  return *state;
}

// The canonical path of an existing file, or `path` unchanged when the file
// is to be found by the dynamic loader's search path (no '/').
std::string CanonicalPath(const std::string& path) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer) != nullptr) return buffer;
  return path;
}

}  // namespace

absl::Status LoadPlugin(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError("cannot load plugin: empty path");
  }
  // A path with a '/' names a file: say plainly when it is not there, rather
  // than leaving the reader to decode the loader's message.
  if (path.find('/') != std::string::npos) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      const int err = errno;
      return absl::NotFoundError(absl::StrCat("cannot load plugin \"", path,
                                              "\": ", std::strerror(err)));
    }
    if (S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load plugin \"", path, "\": it is a directory"));
    }
  }
  const std::string key = CanonicalPath(path);
  PluginState& state = State();
  std::lock_guard<std::recursive_mutex> lock(state.mu);
  for (const std::string& done : state.loaded) {
    if (done == key) return absl::OkStatus();
  }
  dlerror();  // clear any stale message
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    std::string message =
        absl::StrCat("cannot load plugin \"", path,
                     "\": ", why ? why : "unknown dynamic loader error");
    if (why != nullptr && absl::StrContains(why, "undefined symbol") &&
        absl::StrContains(why, "rill")) {
      absl::StrAppend(
          &message,
          " (a plugin takes the framework's symbols from the program that "
          "loads it: link that program with //framework/plugin:plugin_host, "
          "and build the plugin against //framework/plugin:plugin_api)");
    }
    return absl::FailedPreconditionError(message);
  }
  // The handle is kept open for the life of the process: the registry holds
  // factories whose code lives in the library.
  state.loaded.push_back(key);
  return absl::OkStatus();
}

absl::Status LoadPlugins(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    absl::Status status = LoadPlugin(path);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status LoadPluginsFromEnvironment() {
  const char* value = getenv("RILL_PLUGINS");
  if (value == nullptr) return absl::OkStatus();
  for (absl::string_view path : absl::StrSplit(value, ':', absl::SkipEmpty())) {
    absl::Status status = LoadPlugin(std::string(path));
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("RILL_PLUGINS: ",
                                                      status.message()));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> LoadedPlugins() {
  PluginState& state = State();
  std::lock_guard<std::recursive_mutex> lock(state.mu);
  return state.loaded;
}

std::vector<std::string> PluginsNamedInGraphText(absl::string_view text,
                                                 const std::string& graph_dir) {
  std::vector<std::string> paths;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripLeadingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "#")) continue;
    line = absl::StripLeadingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "rill:plugin")) continue;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::string path(line);
    if (path[0] != '/' && !graph_dir.empty()) {
      path = absl::StrCat(graph_dir, "/", path);
    }
    paths.push_back(path);
  }
  return paths;
}

absl::Status LoadPluginsNamedInGraphFile(const std::string& graph_path) {
  if (absl::EndsWith(graph_path, ".binarypb") ||
      absl::EndsWith(graph_path, ".pb")) {
    return absl::OkStatus();
  }
  // Only a regular file has graph text to scan (and opening a FIFO would
  // block). The config loader reports what is wrong with any other path.
  struct stat st;
  if (stat(graph_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read graph file \"", graph_path, "\": not a regular file"));
  }
  std::ifstream in(graph_path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read graph file \"", graph_path, "\""));
  }
  std::stringstream text;
  text << in.rdbuf();
  const size_t slash = graph_path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : graph_path.substr(0, slash);
  for (const std::string& plugin : PluginsNamedInGraphText(text.str(), dir)) {
    absl::Status status = LoadPlugin(plugin);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat(graph_path, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace rill
