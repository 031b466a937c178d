// The `rill` command: check, draw, list and run graphs.
//
//   rill validate GRAPH...       exit 0 + one-line summary, or errors + exit 1
//   rill validate --report DIR_OR_GRAPH...   a verdict per graph and what
//                                the failing ones lack (MediaPipe ports)
//   rill dot GRAPH               Graphviz DOT of the expanded graph
//   rill calculators [FILTER]    registered calculators and their ports
//   rill run GRAPH [flags]       runs the graph to completion
//   rill model info|bench|compare MODEL   the inference engine's model tool
//   rill help [COMMAND]          help for every command above
//
// A GRAPH or MODEL that is not a regular, non-empty file (a directory, a
// FIFO, /dev/null) is one error naming it (the loaders check with stat before
// opening); a graph without nodes is an error unless --allow_empty.
//
// Exit status: 0 success, 1 the graph is invalid or its run failed, 2 the
// command line is wrong.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "framework/calculator_registry.h"
#include "framework/graph.h"
#include "framework/packet.h"
#include "framework/plugin/plugin_loader.h"
#include "inference/tools/model_tool.h"
#include "tools/media_run.h"
#include "framework/status_util.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/missing_names.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/validated_graph.h"
#include "tools/graph_tools.h"
#include "tools/trace_export.h"

namespace rill {
namespace tools {
namespace {

constexpr char kUsage[] = R"(usage: rill <command> [arguments]

Check, draw, list and run Rill / MediaPipe graphs (.pbtxt or .binarypb).

commands:
  validate GRAPH...      expand subgraphs and validate; prints a one-line
                         summary per graph and exits 0, or prints the errors
                         and exits 1 (--report DIR: every .pbtxt under DIR,
                         with a count of the missing calculators)
  dot GRAPH              prints the expanded graph as Graphviz DOT
                         (rill dot g.pbtxt | dot -Tsvg > g.svg)
  calculators [FILTER]   lists every registered calculator with its ports
  run GRAPH [flags]      runs the graph to completion, printing what reaches
                         its output streams and output side packets
  model info MODEL       a .tflite/.onnx model: ops, MACs, parameter bytes,
                         planned arena, per-layer algorithm (--json)
  model bench MODEL      median/min latency (--threads=N --runs=N
                         --pause_ms=N --profile --json)
  model compare MODEL    an .onnx model on the engine and on ONNX Runtime
                         1.30: per output max abs/rel error, PASS within
                         1e-4 of the output's range, else exit 1
                         (--threads=N --input=FILE.f32 --reference --json)
  model run MODEL --input=FILE --output_dir=DIR
                         runs MODEL on inputs from .npy or raw files and
                         writes every output as DIR/NAME.npy (or raw)
  model export MODEL.tflite --output=OUT.onnx
                         writes the model as ONNX (opset 17), for ONNX
                         Runtime or any ONNX consumer
  help [COMMAND]         shows help for a command (validate, dot,
                         calculators, run, model, help)

every command takes:
  --plugin=LIB.so        load calculators from a shared library first
                         (repeatable; also $RILL_PLUGINS=a.so:b.so and
                         "# rill:plugin LIB.so" lines in a graph file)
  --subgraph_path=DIR    DIR and every folder under it that holds .pbtxt
                         files are searched for subgraph types (repeatable;
                         also $RILL_SUBGRAPH_PATH=a:b, folders only), e.g. a
                         MediaPipe checkout's mediapipe/ for its modules

A GRAPH or MODEL must be a regular, non-empty file: a directory, a FIFO, a
device (/dev/null) or an empty file is an error naming it (exit 1).

exit status: 0 ok, 1 invalid graph or model or failed run, 2 bad command
line.
Run "rill help COMMAND" for a command's flags.
)";

constexpr char kHelpHelp[] = R"(usage: rill help [COMMAND]

Prints the overview of every command, or COMMAND's flags. "rill COMMAND
--help" does the same.
)";

constexpr char kModelHelp[] = R"(usage: rill model info MODEL [flags]
       rill model bench MODEL [flags]
       rill model compare MODEL.onnx [flags]
       rill model run MODEL --input=[NAME=]FILE... --output_dir=DIR [flags]

The inference engine alone on a .tflite or .onnx MODEL (told by its first
bytes). MODEL must be a regular, non-empty file.

  info      ops, MACs, parameter bytes, planned arena and the kernel chosen
            per layer
  bench     median and min latency after warm-up
  compare   the engine against ONNX Runtime 1.30 on the same input: per
            output max abs/rel error; PASS within 1e-4 of the output's range
            (1e-2 with fp16, 3e-2 with bf16), else exit 1; with
            --output_dir=DIR both engines' outputs are also written, as
            DIR/NAME.npy and DIR/NAME.onnxruntime.npy
  run       one inference on given inputs; every output is written to
            DIR/NAME.npy (NAME with characters other than letters, digits,
            -_. replaced by _), and its shape, dtype, layout and range are
            printed. Inputs: --input=FILE binds the model's inputs in order,
            --input=NAME=FILE by name; a .npy must hold the input's dtype and
            element count, any other file is raw little-endian data of the
            input's exact byte size. DIR is created if missing.

flags:
  --json                       one JSON object instead of text
  --threads=N                  worker threads (bench, compare; default 1)
  --runs=N                     timed runs (bench; default 20)
  --pause_ms=N                 idle time before each timed run (bench)
  --profile                    per-layer times (bench)
  --reference                  reference kernels only
  --tune[=CACHE_FILE]          time the candidate kernels per layer
  --precision=fp32|fp16|bf16   fp16 weights / bf16 GEMMs (default fp32)
  --input_shape=NAME:D,D,...   an ONNX input's shape (repeatable): sets its
                               symbolic dims (batch, height, width: `info`
                               lists them) or overrides fixed ones
  --backend=NAME               cpu (default), opencl or vulkan
  --backend_option=NAME.KEY=V  a backend's option (repeatable), e.g.
                               vulkan.gpu_profile=FILE: GPU time per dispatch
  --place=OUTPUT:BACKEND       that output's head on BACKEND (repeatable)
  --sequential                 run the backends one after another
  --no_branch_streams          one queue per backend (default: each branch
                               of a multi-output model on a GPU gets its own)
  --trace=FILE                 Chrome trace of the last run (bench)
  --input=FILE.f32             compare's input (raw float32); default
                               MODEL's .input.f32 beside it, else random
  --input=[NAME=]FILE          run's inputs (.npy or raw; repeatable)
  --output_dir=DIR             run: where the outputs go (required)
  --format=npy|raw             run: .npy files (default) or raw data
                               (.f32, .i32, .i64, ...)

exit status: 0 ok (compare: PASS), 1 the model does not load or run
(compare: FAIL), 2 bad command line.
)";

constexpr char kValidateHelp[] = R"(usage: rill validate [--plugin=LIB.so...] [--allow_empty] GRAPH...
       rill validate --report [--plugin=...] [--allow_empty] DIR_OR_GRAPH...

Loads each GRAPH, expands its subgraphs and validates it the way the runtime
does before a run (calculators registered, every input connected, one
producer per stream, types agree across streams, cycles marked back_edge,
executors declared, options of the right type).

Prints, per graph, either
  GRAPH: OK: 5 nodes, 7 streams, 1 executor (default)
followed by a line per warning (an options block the node's calculator does
not read, e.g. options meant for another calculator):
  GRAPH: warning: node "n" (PassThroughCalculator): options
  rill.ImageTransformationCalculatorOptions are not read by this calculator
and exits 0, or
  GRAPH: INVALID: <each error>
and exits 1. A GRAPH that is not a regular file (a directory, a FIFO,
/dev/null), an empty file, or a graph without nodes is INVALID.
  --allow_empty    accept a graph without nodes
  --report         a compatibility report, e.g. over a MediaPipe checkout:
                   rill validate --report mediapipe/

--report: a DIR argument stands for every *.pbtxt file under it (searched
recursively, sorted; hidden and symlinked folders are skipped; a DIR without
any is an error). Before any graph is loaded, the folder of each GRAPH
named, each DIR and every folder under it that holds .pbtxt files
joins the subgraph search path ($RILL_SUBGRAPH_PATH still applies), so a
graph finds subgraph types defined in other folders
(MediaPipe's mediapipe/modules/*, mediapipe/graphs/*/subgraphs) without
further setup.
Prints one line per graph,
  GRAPH: OK            or
  GRAPH: INVALID: <the first line of its errors>
then a summary: how many graphs validate; the calculators no registry knows
and the options types no linked proto defines, each with the number of
graphs that name them (also through their subgraphs; most first); and the
other failures by cause (file and node names taken out). A graph's text stops
parsing at its first unknown options type, so only that one is counted for
it. Exit status: 0 when every graph validates, else 1.
)";

constexpr char kDotHelp[] = R"(usage: rill dot [--plugin=LIB.so...] [-o FILE] GRAPH

Prints the graph, after subgraph expansion, in Graphviz DOT:
  box (rounded)      a node, labelled with its name and calculator
  edge               a stream, labelled with the stream name
  dashed edge        a back edge (input_stream_info back_edge: true)
  invhouse / house   graph input / output streams
  note, dotted edge  side packets (filled: the graph's input side packets;
                     double border: its output side packets)
  point              a stream that nothing reads
  red text           a stream that nothing produces
  -o FILE            write to FILE instead of standard output
Render with: rill dot g.pbtxt | dot -Tsvg > g.svg
)";

constexpr char kCalculatorsHelp[] = R"(usage: rill calculators [--plugin=LIB.so...] [--names] [FILTER]

Lists every registered calculator (those linked into rill and those of
--plugin libraries) whose name contains FILTER (case-blind), with the ports
its contract asks for:
  input / output / side input / side output   TAG:index   type   (optional)
"#0" is an untagged port. Ports are found by calling the calculator's
GetContract on a synthetic node, so ports that a contract only declares when
the node config already has them are not listed.
  --names    print the names only, one per line
)";

constexpr char kRunHelp[] = R"(usage: rill run GRAPH [flags]

Runs GRAPH until every node has finished, then prints the run's status.
GRAPH must be a regular, non-empty file with at least one node (else exit 1;
--allow_empty runs a graph without nodes).
Without --input, graph input streams are closed at once (a graph with inputs
only runs its sources) and packets reaching the graph's output streams and
its output side packets are printed.

media flags (the graph's first input_stream takes frames as ImageFrame, SRGB;
its first output_stream gives the frames written to --output):
  --input=FILE|camera:N      frames from a video file, an image, or a V4L2
                             camera; a progress bar shows frames and fps on
                             a terminal; a summary gives frames, per-frame
                             latency (mean/p50/p99) and throughput
  --output=FILE              write the output stream's frames: .mp4/.avi/.mkv
                             video, or .png/.jpg (the last frame)
  --input_stream=NAME        feed this graph input stream instead
  --output_stream=NAME       take frames (and latency) from this stream
  --dump_stream=NAME         print every packet of stream NAME as one JSON
                             line (repeatable; protos in their JSON form)
  --max_frames=N             stop after N input frames
  --loop                     start a video --input over at its end (until
                             --max_frames, --timeout or Ctrl-C)
  --report_every=SECONDS     print a line every SECONDS: frames so far, the
                             interval's fps and latency p50/p99/max, and
                             resident memory (a JSON line with --json)
  --max_in_flight=N          frames inside the graph at once (default 2;
                             0: send as fast as the graph's queues allow)
  --json                     print the summary as one JSON line

flags:
  --side_packet=NAME=VALUE   an input side packet (repeatable). VALUE is an
                             int, an int64 when it does not fit an int, a
                             float when it has a decimal point or exponent,
                             a bool (true/false), else a string. Force a type
                             with NAME:TYPE=VALUE, TYPE one of int, int64,
                             float, double, bool, string.
  --plugin=LIB.so            load calculators from a shared library first
  --trace=OUT.json           write a Chrome trace-event file of the run
                             (open in https://ui.perfetto.dev or
                             chrome://tracing)
  --stats                    print per-calculator invocation counts and
                             Process() times after the run
  --print=N                  print at most N packets per output stream
                             (default 10; the rest are counted)
  --quiet                    print no packets, only the summary
  --timeout=SECONDS          cancel the run after SECONDS and report which
                             node waits on which stream (default: none)
  --allow_empty              accept a graph without nodes
  --resource_root=DIR        where relative file paths in node options
                             (model_path, label_map_path) and MODEL side
                             packets are looked up (repeatable, tried in
                             order). Default: the repository holding GRAPH
                             (nearest folder above it with WORKSPACE or
                             .git), then the working directory; a missing
                             file's error lists every place looked in
)";

bool IsHelp(absl::string_view arg) {
  return arg == "--help" || arg == "-h" || arg == "help";
}

int UsageError(const std::string& message, const char* help) {
  std::fprintf(stderr, "rill: %s\n\n%s", message.c_str(), help);
  return 2;
}

// Flags common to every command, and the positional arguments left over.
struct CommandLine {
  std::vector<std::string> plugins;
  std::vector<std::string> subgraph_paths;  // --subgraph_path
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> flags;  // name, value
};

// Splits arguments into --flag=value / --flag value / positional. `with_value`
// lists flags that take a value.
absl::Status ParseCommandLine(int argc, char** argv, int first,
                              const std::vector<std::string>& with_value,
                              const std::vector<std::string>& booleans,
                              CommandLine* out) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) out->positional.push_back(argv[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-' || arg == "-") {
      out->positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string value;
    bool has_value = false;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const bool wants_value = name == "plugin" || name == "subgraph_path" ||
                             std::find(with_value.begin(), with_value.end(),
                                       name) != with_value.end();
    const bool boolean = std::find(booleans.begin(), booleans.end(), name) !=
                         booleans.end();
    if (!wants_value && !boolean) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag \"", arg, "\""));
    }
    if (boolean) {
      if (has_value) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", name, " takes no value"));
      }
      out->flags.emplace_back(name, "");
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", name, " needs a value"));
      }
      value = argv[++i];
    }
    if (name == "plugin") {
      out->plugins.push_back(value);
    } else if (name == "subgraph_path") {
      out->subgraph_paths.push_back(value);
    } else {
      out->flags.emplace_back(name, value);
    }
  }
  return absl::OkStatus();
}

void FindGraphFiles(const std::string& dir, std::vector<std::string>* files,
                    std::vector<std::string>* folders);
bool IsDirectory(const std::string& path);

// --subgraph_path=DIR: DIR and every folder under it that holds .pbtxt files
// join the subgraph search path (a MediaPipe checkout's mediapipe/ finds
// every module and graph subgraph folder).
absl::Status AddSubgraphPaths(const CommandLine& cl) {
  for (const std::string& arg : cl.subgraph_paths) {
    if (!IsDirectory(arg)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--subgraph_path \"", arg, "\" is not a folder"));
    }
    std::string dir = arg;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::vector<std::string> files;
    std::vector<std::string> folders = {dir};
    FindGraphFiles(dir, &files, &folders);
    for (const std::string& folder : folders) AddSubgraphSearchPath(folder);
  }
  return absl::OkStatus();
}

// --subgraph_path folders, then --plugin libraries, $RILL_PLUGINS and those
// the graph files name.
absl::Status LoadAllPlugins(const CommandLine& cl,
                            const std::vector<std::string>& graphs) {
  RILL_RETURN_IF_ERROR(AddSubgraphPaths(cl));
  RILL_RETURN_IF_ERROR(LoadPlugins(cl.plugins));
  RILL_RETURN_IF_ERROR(LoadPluginsFromEnvironment());
  for (const std::string& graph : graphs) {
    absl::Status status = LoadPluginsNamedInGraphFile(graph);
    // An unreadable graph file is reported by the config loader.
    if (!status.ok() && status.code() != absl::StatusCode::kNotFound) {
      return status;
    }
  }
  // A plugin that registers a name the program (or another plugin) already
  // has is refused here, naming both places, rather than at its first use.
  return CheckRegistrations();
}

void PrintError(const std::string& prefix, const absl::Status& status) {
  std::fprintf(stderr, "%s%s\n", prefix.c_str(),
               std::string(status.message()).c_str());
}

// A graph without nodes is almost always a mistake (the wrong file, a file
// of comments only), so it is an error unless --allow_empty asks for it.
absl::Status CheckNotEmpty(const CalculatorGraphConfig& config,
                           const std::string& path, bool allow_empty) {
  if (allow_empty || config.node_size() > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", path, "\" has no nodes (pass --allow_empty to accept an empty graph)"));
}

// ----------------------------------------------------------------- validate

// --report: the .pbtxt files under `dir` (recursively, not following
// symlinked folders, skipping hidden ones) go to `files`; `dir` and each
// folder below it holding one go to `folders`.
void FindGraphFiles(const std::string& dir, std::vector<std::string>* files,
                    std::vector<std::string>* folders) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (!name.empty() && name[0] != '.') names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  bool holds_graphs = false;
  std::vector<std::string> subdirs;
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      subdirs.push_back(path);
    } else if (absl::EndsWith(name, ".pbtxt")) {
      files->push_back(path);
      holds_graphs = true;
    }
  }
  if (holds_graphs && (folders->empty() || folders->back() != dir)) {
    folders->push_back(dir);
  }
  for (const std::string& sub : subdirs) FindGraphFiles(sub, files, folders);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The first line of an error, trimmed.
std::string FirstCause(absl::string_view message) {
  return std::string(
      absl::StripAsciiWhitespace(message.substr(0, message.find('\n'))));
}

// What failures of the same kind in different graphs share: the first cause
// without the graph's path, the node it happened at and the parser's
// file:line:column.
std::string CauseCategory(const std::string& path, const std::string& cause) {
  std::string category = absl::StrReplaceAll(cause, {{path, "GRAPH"}});
  absl::string_view rest = category;
  // node "name" (Calculator): ...
  while (absl::StartsWith(rest, "node \"")) {
    const size_t end = rest.find("): ");
    if (end == absl::string_view::npos) break;
    rest.remove_prefix(end + 3);
  }
  std::string out(rest);
  // malformed CalculatorGraphConfig in GRAPH:3:7: Expected ... ->
  // malformed CalculatorGraphConfig: Expected ...
  const size_t in = out.find(" in GRAPH:");
  if (absl::StartsWith(out, "malformed ") && in != std::string::npos) {
    const size_t colon = out.find(": ", in);
    if (colon != std::string::npos) out.erase(in, colon - in);
  }
  return out;
}

// "  3  FooCalculator" lines, most graphs first, then by name.
void PrintCounts(const char* heading,
                 const std::map<std::string, int>& counts) {
  if (counts.empty()) return;
  std::vector<std::pair<int, std::string>> rows;
  int widest = 0;
  for (const auto& [name, n] : counts) {
    rows.emplace_back(-n, name);
    widest = std::max(widest, static_cast<int>(absl::StrCat(n).size()));
  }
  std::sort(rows.begin(), rows.end());
  std::printf("%s\n", heading);
  for (const auto& [minus_n, name] : rows) {
    std::printf("  %*d  %s\n", widest, -minus_n, name.c_str());
  }
}

int ValidateReport(const CommandLine& cl, bool allow_empty) {
  // Graph files in order, and the folders that join the search path.
  std::vector<std::string> graphs;
  std::vector<std::string> folders;
  bool empty_folder = false;
  for (const std::string& arg : cl.positional) {
    if (!IsDirectory(arg)) {
      graphs.push_back(arg);
      // A named file's folder joins the search path too, before any graph
      // loads, so a list of files works as well as their folders.
      const size_t slash = arg.rfind('/');
      folders.push_back(slash == std::string::npos ? "." : arg.substr(0, slash));
      continue;
    }
    std::string dir = arg;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    folders.push_back(dir);
    std::vector<std::string> found;
    FindGraphFiles(dir, &found, &folders);
    if (found.empty()) {
      std::fprintf(stderr, "rill: %s: no .pbtxt files in this folder\n",
                   arg.c_str());
      empty_folder = true;
    }
    std::sort(found.begin(), found.end());
    graphs.insert(graphs.end(), found.begin(), found.end());
  }
  for (const std::string& folder : folders) AddSubgraphSearchPath(folder);
  // Plugins a graph file names are loaded by LoadGraphConfigFile, so one
  // that fails fails that graph only.
  absl::Status plugins = LoadAllPlugins(cl, {});
  if (!plugins.ok()) {
    PrintError("rill: ", plugins);
    return 1;
  }
  int valid = 0;
  std::map<std::string, int> missing_calculators;
  std::map<std::string, int> missing_options;
  std::map<std::string, int> other_failures;
  for (const std::string& path : graphs) {
    auto config = LoadGraphConfigFile(path);
    absl::Status status = config.status();
    if (status.ok()) status = CheckNotEmpty(*config, path, allow_empty);
    CalculatorGraph graph;
    if (status.ok()) status = graph.Initialize(*config);
    if (status.ok()) {
      ++valid;
      std::printf("%s: OK\n", path.c_str());
      continue;
    }
    const std::string cause = FirstCause(status.message());
    std::printf("%s: INVALID: %s\n", path.c_str(), cause.c_str());
    const MissingNames missing = FindMissingNames(status.message());
    for (const std::string& name : missing.calculators) {
      ++missing_calculators[name];
    }
    for (const std::string& name : missing.options_types) {
      ++missing_options[name];
    }
    if (missing.empty()) ++other_failures[CauseCategory(path, cause)];
  }
  std::printf("%d of %zu graphs validate\n", valid, graphs.size());
  PrintCounts("missing calculators (by number of graphs that name them):",
              missing_calculators);
  PrintCounts("missing options types (by number of graphs):", missing_options);
  PrintCounts("other failures:", other_failures);
  return valid == static_cast<int>(graphs.size()) && !empty_folder ? 0 : 1;
}

int Validate(int argc, char** argv) {
  CommandLine cl;
  absl::Status parsed =
      ParseCommandLine(argc, argv, 2, {}, {"allow_empty", "report"}, &cl);
  if (!parsed.ok()) return UsageError(std::string(parsed.message()), kValidateHelp);
  bool allow_empty = false;
  bool report = false;
  for (const auto& [flag, value] : cl.flags) {
    if (flag == "allow_empty") allow_empty = true;
    if (flag == "report") report = true;
  }
  if (cl.positional.empty()) {
    return UsageError("validate needs a GRAPH file", kValidateHelp);
  }
  if (report) return ValidateReport(cl, allow_empty);
  absl::Status plugins = LoadAllPlugins(cl, cl.positional);
  if (!plugins.ok()) {
    PrintError("rill: ", plugins);
    return 1;
  }
  int failures = 0;
  for (const std::string& path : cl.positional) {
    auto config = LoadGraphConfigFile(path);
    absl::Status status = config.status();
    if (status.ok()) status = CheckNotEmpty(*config, path, allow_empty);
    CalculatorGraph graph;
    if (status.ok()) status = graph.Initialize(*config);
    if (!status.ok()) {
      ++failures;
      std::printf("%s: INVALID: %s\n", path.c_str(),
                  std::string(status.message()).c_str());
      continue;
    }
    std::printf("%s: OK: %s\n", path.c_str(),
                SummaryLine(CountGraph(graph.Config())).c_str());
    for (const std::string& w : graph.ValidationWarnings()) {
      std::printf("%s: warning: %s\n", path.c_str(), w.c_str());
    }
  }
  return failures == 0 ? 0 : 1;
}

// ---------------------------------------------------------------------- dot

int Dot(int argc, char** argv) {
  CommandLine cl;
  absl::Status parsed = ParseCommandLine(argc, argv, 2, {"o"}, {}, &cl);
  if (!parsed.ok()) return UsageError(std::string(parsed.message()), kDotHelp);
  if (cl.positional.size() != 1) {
    return UsageError("dot needs exactly one GRAPH file", kDotHelp);
  }
  const std::string& path = cl.positional[0];
  // Drawing needs no calculators (only C++ subgraphs come from plugins), so
  // a --plugin or $RILL_PLUGINS library that does not load is worth a
  // warning, not a failure. (A "# rill:plugin" line that fails still fails
  // LoadGraphConfigFile below.)
  absl::Status plugins = LoadAllPlugins(cl, cl.positional);
  if (!plugins.ok()) PrintError("rill: warning: ", plugins);
  auto config = LoadGraphConfigFile(path);
  if (!config.ok()) {
    PrintError("rill: ", config.status());  // the loader's errors name `path`
    return 1;
  }
  absl::Status expanded = ExpandSubgraphs(&*config);
  if (!expanded.ok()) {
    PrintError(path + ": ", expanded);
    return 1;
  }
  std::string name = path.substr(path.rfind('/') + 1);
  name = name.substr(0, name.find('.'));
  if (!config->type().empty()) name = config->type();
  const std::string dot = GraphToDot(*config, name);
  for (const auto& [flag, value] : cl.flags) {
    if (flag != "o") continue;
    std::ofstream out(value);
    out << dot;
    if (!out) {
      std::fprintf(stderr, "rill: cannot write %s\n", value.c_str());
      return 1;
    }
    return 0;
  }
  std::fputs(dot.c_str(), stdout);
  return 0;
}

// -------------------------------------------------------------- calculators

int Calculators(int argc, char** argv) {
  CommandLine cl;
  absl::Status parsed = ParseCommandLine(argc, argv, 2, {}, {"names"}, &cl);
  if (!parsed.ok()) {
    return UsageError(std::string(parsed.message()), kCalculatorsHelp);
  }
  if (cl.positional.size() > 1) {
    return UsageError("calculators takes at most one FILTER", kCalculatorsHelp);
  }
  absl::Status plugins = LoadAllPlugins(cl, {});
  if (!plugins.ok()) {
    PrintError("rill: ", plugins);
    return 1;
  }
  const std::string filter = cl.positional.empty() ? "" : cl.positional[0];
  const bool names_only = !cl.flags.empty();
  std::vector<CalculatorInfo> infos;
  if (names_only) {
    std::vector<std::string> names = CalculatorRegistry().Names();
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (filter.empty() ||
          absl::StrContains(absl::AsciiStrToLower(name),
                            absl::AsciiStrToLower(filter))) {
        std::printf("%s\n", name.c_str());
      }
    }
    return 0;
  }
  infos = DescribeCalculators(filter);
  std::fputs(FormatCalculators(infos).c_str(), stdout);
  std::printf("%zu calculator%s%s\n", infos.size(),
              infos.size() == 1 ? "" : "s",
              filter.empty() ? " registered"
                             : (" matching \"" + filter + "\"").c_str());
  return 0;
}

// ---------------------------------------------------------------------- run

std::string ValueString(const Packet& packet) {
  if (packet.Holds<int>()) return absl::StrCat(packet.Get<int>());
  if (packet.Holds<int64_t>()) return absl::StrCat(packet.Get<int64_t>());
  if (packet.Holds<float>()) return absl::StrCat(packet.Get<float>());
  if (packet.Holds<double>()) return absl::StrCat(packet.Get<double>());
  if (packet.Holds<bool>()) return packet.Get<bool>() ? "true" : "false";
  if (packet.Holds<std::string>()) {
    return absl::StrCat("\"", packet.Get<std::string>(), "\"");
  }
  if (packet.IsEmpty()) return "(empty)";
  return absl::StrCat("<", packet.DebugTypeName(), ">");
}

// SIGINT / SIGTERM during a media run: stop reading input, let the frames
// in flight finish, finalize the output file and report "interrupted".
std::atomic<bool> g_stop{false};
void OnStopSignal(int) { g_stop.store(true); }

int Run(int argc, char** argv) {
  CommandLine cl;
  absl::Status parsed = ParseCommandLine(
      argc, argv, 2,
      {"side_packet", "trace", "print", "timeout", "input", "output",
       "input_stream", "output_stream", "dump_stream", "max_frames",
       "max_in_flight", "resource_root", "report_every"},
      {"quiet", "stats", "json", "allow_empty", "loop"}, &cl);
  if (!parsed.ok()) return UsageError(std::string(parsed.message()), kRunHelp);
  if (cl.positional.size() != 1) {
    return UsageError("run needs exactly one GRAPH file", kRunHelp);
  }
  const std::string& path = cl.positional[0];
  std::map<std::string, Packet> side_packets;
  std::string trace_path;
  int max_print = 10;
  double timeout_s = 0;
  bool stats = false;
  bool allow_empty = false;
  std::vector<std::string> resource_roots;
  MediaRunOptions media;
  bool use_media = false;
  for (const auto& [flag, value] : cl.flags) {
    if (flag == "input") media.input = value, use_media = true;
    if (flag == "output") media.output = value, use_media = true;
    if (flag == "input_stream") media.input_stream = value;
    if (flag == "output_stream") media.output_stream = value;
    if (flag == "dump_stream") media.dump_streams.push_back(value), use_media = true;
    if (flag == "json") media.json = true, use_media = true;
    if (flag == "max_in_flight" &&
        (!absl::SimpleAtoi(value, &media.max_in_flight) || media.max_in_flight < 0)) {
      return UsageError("--max_in_flight needs a count", kRunHelp);
    }
    if (flag == "max_frames" &&
        (!absl::SimpleAtoi(value, &media.max_frames) || media.max_frames < 0)) {
      return UsageError("--max_frames needs a count", kRunHelp);
    }
    if (flag == "loop") media.loop = true;
    if (flag == "report_every" &&
        (!absl::SimpleAtod(value, &media.report_every_s) || !(media.report_every_s > 0))) {
      return UsageError("--report_every needs a positive number of seconds", kRunHelp);
    }
    if (flag == "side_packet") {
      auto packet = ParseSidePacketFlag(value);
      if (!packet.ok()) {
        return UsageError(std::string(packet.status().message()), kRunHelp);
      }
      side_packets[packet->first] = packet->second;
    } else if (flag == "trace") {
      trace_path = value;
    } else if (flag == "print") {
      if (!absl::SimpleAtoi(value, &max_print) || max_print < 0) {
        return UsageError("--print needs a count", kRunHelp);
      }
    } else if (flag == "stats") {
      stats = true;
    } else if (flag == "allow_empty") {
      allow_empty = true;
    } else if (flag == "resource_root") {
      struct stat st;
      if (::stat(value.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        std::fprintf(stderr, "rill: --resource_root=%s: not a directory\n",
                     value.c_str());
        return 1;
      }
      resource_roots.push_back(value);
    } else if (flag == "quiet") {
      max_print = 0;
    } else if (flag == "timeout") {
      if (!absl::SimpleAtod(value, &timeout_s) || timeout_s <= 0) {
        return UsageError("--timeout needs a positive number of seconds",
                          kRunHelp);
      }
    }
  }
  absl::Status plugins = LoadAllPlugins(cl, cl.positional);
  if (!plugins.ok()) {
    PrintError("rill: ", plugins);
    return 1;
  }
  auto config = LoadGraphConfigFile(path);
  if (!config.ok()) {
    PrintError("rill: ", config.status());  // the loader's errors name `path`
    return 1;
  }
  absl::Status not_empty = CheckNotEmpty(*config, path, allow_empty);
  if (!not_empty.ok()) {
    PrintError("rill: ", not_empty);
    return 1;
  }
  if (!trace_path.empty()) EnableTracing(&*config);
  if (stats) EnableStats(&*config);

  CalculatorGraph graph;
  graph.SetResourceRoots(resource_roots.empty()
                             ? Resources::ForGraphFile(path).roots()
                             : resource_roots);
  absl::Status status = graph.Initialize(*config);
  if (!status.ok()) {
    std::fprintf(stderr, "%s: INVALID: %s\n", path.c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  for (const std::string& w : graph.ValidationWarnings()) {
    std::fprintf(stderr, "%s: warning: %s\n", path.c_str(), w.c_str());
  }
  if (use_media) {
    media.side_packets = side_packets;
    media.timeout_s = timeout_s;
    media.stop = &g_stop;
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    MediaRunSummary summary;
    status = RunWithMedia(&graph, media, &summary);
    if (media.json) {
      std::printf("%s\n", SummaryJson(path, summary).c_str());
    } else {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), SummaryText(summary).c_str());
    }
    if (stats) std::fputs(StatsTable(&graph).c_str(), stderr);
    if (!trace_path.empty()) {
      absl::Status written = WriteTrace(&graph, trace_path);
      if (!written.ok()) PrintError("rill: trace: ", written);
    }
    if (!status.ok()) {
      std::fprintf(stderr, "%s: run failed: %s\n", path.c_str(),
                   std::string(status.message()).c_str());
      return 1;
    }
    if (!media.output.empty() && !media.json) {
      std::fprintf(stderr, "wrote %s\n", media.output.c_str());
    }
    return 0;
  }

  // Output streams: print the first packets, count all.
  std::mutex print_mu;
  std::map<std::string, int64_t> counts;
  for (const std::string& entry : graph.Config().output_stream()) {
    const std::string stream = entry.substr(entry.rfind(':') + 1);
    counts[stream] = 0;
    status = graph.ObserveOutputStream(
        stream, [&, stream](const Packet& packet) {
          std::lock_guard<std::mutex> lock(print_mu);
          const int64_t n = ++counts[stream];
          if (n <= max_print) {
            std::printf("%s @ %s: %s\n", stream.c_str(),
                        packet.Timestamp().DebugString().c_str(),
                        ValueString(packet).c_str());
          }
          return absl::OkStatus();
        });
    if (!status.ok()) {
      PrintError(path + ": ", status);
      return 1;
    }
  }

  // Optional watchdog: cancels a run that does not finish in time.
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;
  std::atomic<bool> timed_out{false};
  std::string wait_report;
  std::thread watchdog;
  if (timeout_s > 0) {
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lock(done_mu);
      if (done_cv.wait_for(lock, std::chrono::duration<double>(timeout_s),
                           [&] { return done; })) {
        return;
      }
      timed_out = true;
      wait_report = graph.DebugWaitReport();
      graph.Cancel();
    });
  }
  const auto start = std::chrono::steady_clock::now();
  status = graph.StartRun(side_packets);
  if (status.ok()) status = graph.CloseAllInputStreams();
  if (status.ok()) {
    status = graph.WaitUntilDone();
  } else {
    graph.Cancel();
    (void)graph.WaitUntilDone();
  }
  const double elapsed_ms = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count();
  {
    std::lock_guard<std::mutex> lock(done_mu);
    done = true;
  }
  done_cv.notify_all();
  if (watchdog.joinable()) watchdog.join();

  for (const std::string& entry : graph.Config().output_side_packet()) {
    const std::string name = entry.substr(entry.rfind(':') + 1);
    auto packet = graph.GetOutputSidePacket(name);
    std::printf("side packet %s: %s\n", name.c_str(),
                packet.ok() ? ValueString(*packet).c_str()
                            : std::string(packet.status().message()).c_str());
  }
  for (const auto& [stream, n] : counts) {
    std::printf("stream %s: %lld packet%s\n", stream.c_str(),
                static_cast<long long>(n), n == 1 ? "" : "s");
  }
  if (stats) std::fputs(StatsTable(&graph).c_str(), stdout);
  if (!trace_path.empty()) {
    absl::Status written = WriteTrace(&graph, trace_path);
    if (written.ok()) {
      std::printf("trace written to %s\n", trace_path.c_str());
    } else {
      PrintError("rill: trace: ", written);
    }
  }
  if (timed_out) {
    std::fprintf(stderr,
                 "%s: run cancelled after %g s (--timeout); waiting nodes:\n%s\n",
                 path.c_str(), timeout_s, wait_report.c_str());
    return 1;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "%s: run failed after %.1f ms: %s\n", path.c_str(),
                 elapsed_ms, std::string(status.message()).c_str());
    return 1;
  }
  std::printf("%s: run finished in %.1f ms\n", path.c_str(), elapsed_ms);
  for (const auto& [node, report] : graph.NodeReports()) {
    std::printf("  node \"%s\": %s\n", node.c_str(), report.c_str());
  }
  return 0;
}

int Help(int argc, char** argv) {
  const std::string topic = argc > 2 ? argv[2] : "";
  if (topic == "validate") {
    std::fputs(kValidateHelp, stdout);
  } else if (topic == "dot") {
    std::fputs(kDotHelp, stdout);
  } else if (topic == "calculators") {
    std::fputs(kCalculatorsHelp, stdout);
  } else if (topic == "run") {
    std::fputs(kRunHelp, stdout);
  } else if (topic == "model") {
    std::fputs(kModelHelp, stdout);
  } else if (topic == "help" || IsHelp(topic)) {
    std::fputs(kHelpHelp, stdout);
  } else if (topic.empty()) {
    std::fputs(kUsage, stdout);
  } else {
    return UsageError(absl::StrCat("no help for \"", topic, "\""), kUsage);
  }
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2) return UsageError("no command given", kUsage);
  const std::string command = argv[1];
  if (IsHelp(command)) return Help(argc, argv);
  // "rill CMD --help" shows that command's help.
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      char* help_argv[] = {argv[0], argv[1], argv[1]};
      return Help(3, help_argv);
    }
  }
  if (command == "model") {
    // The engine's model tool: argv[1] becomes "info"/"bench"/"compare"/"run".
    return inference::RunModelTool(argc - 1, argv + 1);
  }
  if (command == "validate") return Validate(argc, argv);
  if (command == "dot") return Dot(argc, argv);
  if (command == "calculators") return Calculators(argc, argv);
  if (command == "run") return Run(argc, argv);
  return UsageError(absl::StrCat("unknown command \"", command, "\""), kUsage);
}

}  // namespace
}  // namespace tools
}  // namespace rill

int main(int argc, char** argv) { return rill::tools::Main(argc, argv); }
