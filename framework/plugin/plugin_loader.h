// Loads calculator plugins: shared libraries whose calculators register
// themselves (REGISTER_CALCULATOR) from static initialisers when the library
// is opened. The plugin must not carry its own copy of the framework: it is
// built against the framework's headers only (//framework/plugin:plugin_api)
// and resolves every framework symbol from the host process, which links the
// framework once with its symbols exported (//framework/plugin:plugin_host).
// That way a plugin's registrations land in the host's one registry.
//
//   RILL_RETURN_IF_ERROR(LoadPlugin("/opt/rill/libmy_calculators.so"));
//   // graphs may now name the plugin's calculators.
//
// Plugins can also be named
//   - in a graph file, by a comment line `# rill:plugin PATH` (PATH relative
//     to the graph file's folder), see PluginsNamedInGraphText();
//   - in the RILL_PLUGINS environment variable (paths separated by ':').
#ifndef RILL_FRAMEWORK_PLUGIN_PLUGIN_LOADER_H_
#define RILL_FRAMEWORK_PLUGIN_PLUGIN_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace rill {

// Opens the shared library at `path` (RTLD_NOW | RTLD_GLOBAL), which runs its
// registrations. Loading the same file again (by any path naming it) does
// nothing and returns OK. A missing file, a file that is not a loadable
// library, or a library with unresolved symbols gives an error naming the
// file and the dynamic loader's message.
absl::Status LoadPlugin(const std::string& path);

// Loads each of `paths` in order; stops at the first error.
absl::Status LoadPlugins(const std::vector<std::string>& paths);

// Loads the plugins listed in $RILL_PLUGINS (':'-separated); OK when unset.
absl::Status LoadPluginsFromEnvironment();

// The files loaded so far (canonical paths, in load order).
std::vector<std::string> LoadedPlugins();

// Paths named by `# rill:plugin PATH` comment lines of a graph's text.
// Relative paths are resolved against `graph_dir` (when not empty).
std::vector<std::string> PluginsNamedInGraphText(absl::string_view text,
                                                 const std::string& graph_dir);

// Loads the plugins a graph file names by `# rill:plugin PATH` lines (text
// graphs only; a .binarypb has no comments). Errors name the graph file.
// Programs call this before CalculatorGraph::Initialize on that file. A
// path that is missing or not a regular file gives NotFound (it is never
// opened, so a FIFO does not block).
absl::Status LoadPluginsNamedInGraphFile(const std::string& graph_path);

}  // namespace rill

#endif  // RILL_FRAMEWORK_PLUGIN_PLUGIN_LOADER_H_
