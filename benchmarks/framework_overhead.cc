// Framework overhead: what the scheduler costs per calculator invocation when
// the calculators themselves do nothing, side by side with GStreamer doing
// the same chain in the same run.
//
//   bazel build -c opt //benchmarks:framework_overhead
//   bazel-bin/benchmarks/framework_overhead [--packets=200000] [--repeats=3]
//
// Graphs (all with a source calculator that emits P int packets and a sink
// that counts them, like GStreamer's fakesrc/fakesink):
//   chain N:       source -> N pass-throughs -> sink
//   fan-out K:     source -> K parallel pass-throughs -> merge (K inputs)
//                  -> sink
// Cost per invocation = (T(graph) - T(source -> sink)) / (P * invocations per
// packet), so the source and sink's own cost and start-up cancel out.
// GStreamer:       gst-launch-1.0 fakesrc num-buffers=P ! identity x N !
//                  fakesink, minus fakesrc ! fakesink; "2 threads" puts a
//                  queue (a second streaming thread) in front of the chain.
// Packets/s is P divided by the whole run of the graph (GStreamer: minus the
// time the same pipeline takes for one buffer, i.e. process start-up).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/calculator_base.h"
#include "framework/graph.h"
#include "framework/status_util.h"

extern char** environ;

namespace rill {
namespace bench {

// ---------------------------------------------------------------------------
// Calculators of the benchmark graphs (local, so the figures measure the
// framework and nothing else).

// Emits COUNT int packets (side packet), one per Process call, then stops.
class BenchSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->InputSidePackets().Tag("COUNT").Set<int>();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    count_ = cc->InputSidePackets().Tag("COUNT").Get<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (next_ >= count_) return StatusStop();
    cc->Outputs().Index(0).AddPacket(MakePacket<int>(next_).At(Timestamp(next_)));
    ++next_;
    return absl::OkStatus();
  }

 private:
  int count_ = 0;
  int next_ = 0;
};
REGISTER_CALCULATOR(BenchSourceCalculator);

// Forwards its input packet unchanged (the payload is shared, not copied).
class BenchPassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(cc->Inputs().Index(0));
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(BenchPassThroughCalculator);

// Joins K streams: forwards the first input of each timestamp.
class BenchMergeCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      cc->Inputs().Index(i).Set<int>();
    }
    cc->Outputs().Tag("OUT").Set<int>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Tag("OUT").AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(BenchMergeCalculator);

// Counts packets (like fakesink).
class BenchSinkCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    ++count_;
    return absl::OkStatus();
  }
  absl::Status Close(CalculatorContext* cc) override {
    last_count().store(count_);
    return absl::OkStatus();
  }
  static std::atomic<int64_t>& last_count() {
    static std::atomic<int64_t> count{0};
    return count;
  }

 private:
  int64_t count_ = 0;
};
REGISTER_CALCULATOR(BenchSinkCalculator);

// ---------------------------------------------------------------------------
// Rill graphs.

struct Options {
  int packets = 200000;
  int repeats = 3;
  std::vector<int> chains = {1, 10, 50};
  std::vector<int> fanouts = {4, 16};
  std::vector<int> threads = {1, 2};
  std::string pass_through = "BenchPassThroughCalculator";
  std::string gst = "gst-launch-1.0";
  bool skip_gst = false;
};

CalculatorGraphConfig ChainGraph(int n, int threads,
                                 const std::string& pass_through) {
  CalculatorGraphConfig config;
  config.set_num_threads(threads);
  config.add_input_side_packet("count");
  auto* source = config.add_node();
  source->set_calculator("BenchSourceCalculator");
  source->add_input_side_packet("COUNT:count");
  source->add_output_stream("s0");
  for (int i = 0; i < n; ++i) {
    auto* node = config.add_node();
    node->set_calculator(pass_through);
    node->add_input_stream(absl::StrCat("s", i));
    node->add_output_stream(absl::StrCat("s", i + 1));
  }
  auto* sink = config.add_node();
  sink->set_calculator("BenchSinkCalculator");
  sink->add_input_stream(absl::StrCat("s", n));
  return config;
}

CalculatorGraphConfig FanOutGraph(int k, int threads,
                                  const std::string& pass_through) {
  CalculatorGraphConfig config;
  config.set_num_threads(threads);
  config.add_input_side_packet("count");
  auto* source = config.add_node();
  source->set_calculator("BenchSourceCalculator");
  source->add_input_side_packet("COUNT:count");
  source->add_output_stream("src");
  auto* merge = config.add_node();
  merge->set_calculator("BenchMergeCalculator");
  merge->add_output_stream("OUT:merged");
  for (int i = 0; i < k; ++i) {
    auto* node = config.add_node();
    node->set_calculator(pass_through);
    node->add_input_stream("src");
    node->add_output_stream(absl::StrCat("branch", i));
    merge->add_input_stream(absl::StrCat("branch", i));
  }
  auto* sink = config.add_node();
  sink->set_calculator("BenchSinkCalculator");
  sink->add_input_stream("merged");
  return config;
}

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Seconds from StartRun to the end of the run (best of `repeats`); graph
// construction and validation are outside the timed region.
absl::StatusOr<double> TimeRillGraph(const CalculatorGraphConfig& config,
                                     int packets, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    CalculatorGraph graph;
    RILL_RETURN_IF_ERROR(graph.Initialize(config));
    BenchSinkCalculator::last_count().store(-1);
    const double start = Now();
    RILL_RETURN_IF_ERROR(graph.StartRun({{"count", MakePacket<int>(packets)}}));
    RILL_RETURN_IF_ERROR(graph.WaitUntilDone());
    const double elapsed = Now() - start;
    if (BenchSinkCalculator::last_count().load() != packets) {
      return absl::InternalError(absl::StrCat(
          "sink saw ", BenchSinkCalculator::last_count().load(),
          " packets, expected ", packets));
    }
    best = std::min(best, elapsed);
  }
  return best;
}

// ---------------------------------------------------------------------------
// GStreamer.

// Wall seconds of one gst-launch-1.0 run; negative when it failed.
double RunGst(const Options& options, const std::vector<std::string>& args) {
  std::vector<std::string> argv_storage = {options.gst, "-q"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const double start = Now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, options.gst.c_str(), &actions, nullptr,
                              argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  const double elapsed = Now() - start;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return elapsed;
}

std::vector<std::string> GstPipeline(int buffers, int identities,
                                     bool with_queue) {
  std::vector<std::string> args = {
      "fakesrc", absl::StrCat("num-buffers=", buffers), "!"};
  if (with_queue) args.insert(args.end(), {"queue", "!"});
  for (int i = 0; i < identities; ++i) {
    args.insert(args.end(), {"identity", "!"});
  }
  args.push_back("fakesink");
  return args;
}

double BestGst(const Options& options, const std::vector<std::string>& args) {
  double best = 1e30;
  for (int r = 0; r < options.repeats; ++r) {
    const double t = RunGst(options, args);
    if (t < 0) return -1;
    best = std::min(best, t);
  }
  return best;
}

// ---------------------------------------------------------------------------
// Table.

struct Row {
  std::string graph;
  int threads = 1;
  int invocations_per_packet = 0;
  double rill_ns = -1, rill_pps = -1;
  double gst_ns = -1, gst_pps = -1;
  std::string note;
};

std::string Cell(double v, const char* format) {
  if (v < 0) return "n/a";
  return absl::StrFormat(format, v);
}

std::string Ratio(const Row& row) {
  if (row.rill_ns <= 0 || row.gst_ns <= 0) return "n/a";
  return absl::StrFormat("%.2fx", row.gst_ns / row.rill_ns);
}

void PrintTable(const std::vector<Row>& rows) {
  std::printf(
      "| graph | threads | invocations/packet | Rill ns/invocation | "
      "Rill packets/s | GStreamer ns/invocation | GStreamer packets/s | "
      "GStreamer ns / Rill ns |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& row : rows) {
    std::printf("| %s | %d | %d | %s | %s | %s | %s | %s |\n",
                row.graph.c_str(), row.threads, row.invocations_per_packet,
                Cell(row.rill_ns, "%.0f").c_str(),
                Cell(row.rill_pps, "%.3g").c_str(),
                Cell(row.gst_ns, "%.0f").c_str(),
                Cell(row.gst_pps, "%.3g").c_str(), Ratio(row).c_str());
  }
  for (const Row& row : rows) {
    if (!row.note.empty()) {
      std::printf("\nnote (%s, %d threads): %s\n", row.graph.c_str(),
                  row.threads, row.note.c_str());
    }
  }
}

bool ParseIntList(absl::string_view text, std::vector<int>* out) {
  out->clear();
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int v = 0;
    if (!absl::SimpleAtoi(part, &v) || v < 0) return false;
    out->push_back(v);
  }
  return !out->empty();
}

constexpr char kUsage[] =
    "usage: framework_overhead [flags]\n"
    "Prints a table of framework overhead per calculator invocation, Rill\n"
    "next to GStreamer's identity chain.\n"
    "  --packets=P        packets (GStreamer buffers) per run [200000]\n"
    "  --repeats=R        runs per figure; the best is kept [3]\n"
    "  --chains=1,10,50   chain lengths N\n"
    "  --fanouts=4,16     fan-out widths K\n"
    "  --threads=1,2      scheduler threads\n"
    "  --calculator=NAME  pass-through calculator [BenchPassThroughCalculator]\n"
    "  --gst=PATH         gst-launch-1.0 binary [gst-launch-1.0]\n"
    "  --no_gst           skip the GStreamer half\n";

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    auto value = [&](absl::string_view flag, std::string* out) {
      const std::string prefix = absl::StrCat("--", flag, "=");
      if (arg.substr(0, prefix.size()) != prefix) return false;
      *out = std::string(arg.substr(prefix.size()));
      return true;
    };
    std::string v;
    bool ok = true;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (value("packets", &v)) {
      ok = absl::SimpleAtoi(v, &options.packets) && options.packets > 0;
    } else if (value("repeats", &v)) {
      ok = absl::SimpleAtoi(v, &options.repeats) && options.repeats > 0;
    } else if (value("chains", &v)) {
      ok = ParseIntList(v, &options.chains);
    } else if (value("fanouts", &v)) {
      ok = ParseIntList(v, &options.fanouts);
    } else if (value("threads", &v)) {
      ok = ParseIntList(v, &options.threads);
    } else if (value("calculator", &v)) {
      options.pass_through = v;
    } else if (value("gst", &v)) {
      options.gst = v;
    } else if (arg == "--no_gst") {
      options.skip_gst = true;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "framework_overhead: bad argument \"%s\"\n\n%s",
                   argv[i], kUsage);
      return 2;
    }
  }

  const int p = options.packets;
  std::printf(
      "# framework overhead: %d packets per run, best of %d runs, %u CPUs\n\n",
      p, options.repeats, std::thread::hardware_concurrency());
  std::fflush(stdout);
  // Warm-up: GStreamer builds its plugin registry on first use, and the
  // first graph run pays for page faults and thread creation.
  if (!options.skip_gst && RunGst(options, GstPipeline(1, 1, false)) < 0) {
    std::fprintf(stderr,
                 "framework_overhead: \"%s\" did not run; GStreamer figures "
                 "are n/a (install gstreamer1.0-tools or pass --no_gst)\n",
                 options.gst.c_str());
    options.skip_gst = true;
  }
  (void)TimeRillGraph(ChainGraph(1, 1, options.pass_through),
                      std::min(p, 1000), 1);
  std::vector<Row> rows;
  for (int threads : options.threads) {
    // Baseline: source -> sink.
    auto base = TimeRillGraph(ChainGraph(0, threads, options.pass_through), p,
                              options.repeats);
    double gst_base = -1;
    if (!options.skip_gst) {
      gst_base = BestGst(options, GstPipeline(p, 0, threads > 1));
    }
    for (int n : options.chains) {
      Row row;
      row.graph = absl::StrCat("chain N=", n);
      row.threads = threads;
      row.invocations_per_packet = n;
      if (!base.ok()) {
        row.note = std::string(base.status().message());
      } else {
        auto t = TimeRillGraph(ChainGraph(n, threads, options.pass_through), p,
                               options.repeats);
        if (t.ok()) {
          row.rill_ns = std::max(0.0, (*t - *base)) * 1e9 / (double(p) * n);
          row.rill_pps = p / *t;
        } else {
          row.note = std::string(t.status().message());
        }
      }
      if (gst_base > 0) {
        const double t = BestGst(options, GstPipeline(p, n, threads > 1));
        const double startup =
            BestGst(options, GstPipeline(1, n, threads > 1));
        if (t > 0 && startup > 0) {
          row.gst_ns = std::max(0.0, (t - gst_base)) * 1e9 / (double(p) * n);
          row.gst_pps = p / std::max(1e-9, t - startup);
        }
      }
      std::fprintf(stderr, "  done: %s, %d threads\n", row.graph.c_str(),
                   threads);
      rows.push_back(row);
    }
    for (int k : options.fanouts) {
      Row row;
      row.graph = absl::StrCat("fan-out/fan-in K=", k);
      row.threads = threads;
      row.invocations_per_packet = k + 1;
      if (!base.ok()) {
        row.note = std::string(base.status().message());
      } else {
        auto t = TimeRillGraph(FanOutGraph(k, threads, options.pass_through),
                               p, options.repeats);
        if (t.ok()) {
          row.rill_ns =
              std::max(0.0, (*t - *base)) * 1e9 / (double(p) * (k + 1));
          row.rill_pps = p / *t;
        } else {
          row.note = std::string(t.status().message());
        }
      }
      std::fprintf(stderr, "  done: %s, %d threads\n", row.graph.c_str(),
                   threads);
      rows.push_back(row);
    }
  }
  PrintTable(rows);
  if (!options.skip_gst) {
    std::printf(
        "\nGStreamer: %s -q fakesrc num-buffers=%d ! identity ! ... (N "
        "identities) ! fakesink,\n  minus the same with no identity; with 2 "
        "threads \"queue !\" follows fakesrc.\n",
        options.gst.c_str(), p);
  }
  return 0;
}

}  // namespace bench
}  // namespace rill

int main(int argc, char** argv) { return rill::bench::Main(argc, argv); }
