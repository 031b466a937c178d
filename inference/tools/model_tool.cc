// rill_model: inspect and time a model with the engine alone.
//
//   rill_model info MODEL [--json] [--tune[=CACHE_FILE]]
//   rill_model bench MODEL [--threads=N] [--runs=N] [--reference] [--tune[=CACHE_FILE]] [--profile] [--json]
//
// `info` prints ops, MACs, parameter bytes, the planned arena and the kernel
// chosen per layer. `bench` prints median and min latency after warm-up
// (and per-layer times with --profile). The framework's `rill model ...`
// commands (//tools:rill) can forward to RunModelTool.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "inference/ir/graph.h"
#include "rill/inference/inference.h"

namespace rill::inference {
namespace {

struct Flags {
  std::string command, model;
  int threads = 1, runs = 20;
  bool json = false, profile = false, reference = false, tune = false;
  std::string tuning_cache;
};

bool ParseFlags(int argc, char** argv, Flags* f) {
  if (argc < 3) return false;
  f->command = argv[1];
  f->model = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--threads=", 0) == 0) f->threads = std::atoi(a.c_str() + 10);
    else if (a.rfind("--runs=", 0) == 0) f->runs = std::max(1, std::atoi(a.c_str() + 7));
    else if (a == "--json") f->json = true;
    else if (a == "--profile") f->profile = true;
    else if (a == "--reference") f->reference = true;
    else if (a == "--tune") f->tune = true;
    else if (a.rfind("--tune=", 0) == 0) f->tune = true, f->tuning_cache = a.substr(7);
    else return false;
  }
  return f->command == "info" || f->command == "bench";
}

int Fail(const Status& s) {
  std::fprintf(stderr, "rill_model: %s\n", s.ToString().c_str());
  return 1;
}

int Info(const Flags& f, const Model& model, Session& session) {
  const ir::Graph& g = model.graph();
  size_t param_bytes = 0;
  for (const ir::TensorInfo& t : g.tensors) {
    if (t.is_constant()) param_bytes += t.bytes;
  }
  const std::vector<LayerInfo> layers = session.Layers();
  int64_t macs = 0;
  std::map<std::string, int> ops;
  for (const LayerInfo& l : layers) {
    macs += l.macs;
    ++ops[l.op];
  }
  if (f.json) {
    std::printf("{\"model\":\"%s\",\"nodes\":%zu,\"macs\":%lld,\"param_bytes\":%zu,\"arena_bytes\":%zu,\"layers\":[",
                model.source().c_str(), layers.size(), static_cast<long long>(macs), param_bytes, session.arena_bytes());
    for (size_t i = 0; i < layers.size(); ++i) {
      std::printf("%s{\"name\":\"%s\",\"op\":\"%s\",\"kernel\":\"%s\",\"macs\":%lld}", i ? "," : "",
                  layers[i].name.c_str(), layers[i].op.c_str(), layers[i].kernel.c_str(),
                  static_cast<long long>(layers[i].macs));
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("%s\n", model.source().c_str());
  std::printf("  nodes %zu, %.1f M MACs, %.2f MB parameters, %.2f MB arena\n", layers.size(), macs / 1e6,
              param_bytes / 1048576.0, session.arena_bytes() / 1048576.0);
  for (int i = 0; i < session.num_inputs(); ++i) {
    std::printf("  input  %-24s %s %s\n", session.input(i)->name().c_str(),
                ShapeToString(session.input(i)->shape()).c_str(), LayoutName(session.input(i)->layout()));
  }
  for (int i = 0; i < session.num_outputs(); ++i) {
    std::printf("  output %-24s %s\n", session.output(i)->name().c_str(), ShapeToString(session.output(i)->shape()).c_str());
  }
  std::printf("  ops:");
  for (const auto& [op, n] : ops) std::printf(" %s x%d", op.c_str(), n);
  std::printf("\n  %-4s %-20s %-26s %-18s %10s  %s\n", "#", "op", "kernel", "output", "MMACs", "name");
  for (size_t i = 0; i < layers.size(); ++i) {
    std::printf("  %-4zu %-20s %-26s %-18s %10.2f  %s\n", i, layers[i].op.c_str(), layers[i].kernel.c_str(),
                ShapeToString(layers[i].output_shape).c_str(), layers[i].macs / 1e6, layers[i].name.c_str());
  }
  return 0;
}

int Bench(const Flags& f, Session& session) {
  for (int i = 0; i < session.num_inputs(); ++i) {
    Tensor* t = session.input(i);
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = 0.001f * static_cast<float>(k % 1000);
  }
  for (int i = 0; i < 3; ++i) {
    Status s = session.Run();
    if (!s.ok()) return Fail(s);
  }
  std::vector<double> times;
  std::vector<double> layer_sum(session.Layers().size(), 0.0), node_ms;
  for (int r = 0; r < f.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    Status s = f.profile ? session.RunProfiled(&node_ms) : session.Run();
    if (!s.ok()) return Fail(s);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    for (size_t i = 0; f.profile && i < node_ms.size(); ++i) layer_sum[i] += node_ms[i];
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2], best = times.front();
  if (f.json) {
    std::printf("{\"model\":\"%s\",\"threads\":%d,\"runs\":%d,\"median_ms\":%.3f,\"min_ms\":%.3f}\n", f.model.c_str(),
                f.threads, f.runs, median, best);
  } else {
    std::printf("%s: threads %d, %d runs: median %.2f ms, min %.2f ms\n", f.model.c_str(), f.threads, f.runs, median,
                best);
  }
  if (f.profile && !f.json) {
    const std::vector<LayerInfo> layers = session.Layers();
    for (size_t i = 0; i < layers.size(); ++i) {
      const double ms = layer_sum[i] / f.runs;
      std::printf("  %-4zu %-20s %-26s %8.3f ms %7.2f GMAC/s  %s\n", i, layers[i].op.c_str(), layers[i].kernel.c_str(),
                  ms, ms > 0 ? layers[i].macs / ms / 1e6 : 0.0, layers[i].name.c_str());
    }
  }
  return 0;
}

}  // namespace

int RunModelTool(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr,
                 "usage: rill model info MODEL [--json] [--tune[=CACHE_FILE]]\n"
                 "       rill model bench MODEL [--threads=N] [--runs=N] [--reference] [--tune[=CACHE_FILE]] [--profile] [--json]\n");
    return 2;
  }
  auto model = Model::FromFile(f.model);
  if (!model.ok()) return Fail(model.status());
  SessionConfig config;
  config.num_threads = std::max(1, f.threads);
  config.algorithm = f.reference ? AlgorithmPolicy::kReference : f.tune ? AlgorithmPolicy::kTune : AlgorithmPolicy::kAuto;
  config.tuning_cache = f.tuning_cache;
  auto session = Session::Create(*model, config);
  if (!session.ok()) return Fail(session.status());
  return f.command == "info" ? Info(f, **model, **session) : Bench(f, **session);
}

}  // namespace rill::inference

#ifndef RILL_MODEL_TOOL_NO_MAIN
int main(int argc, char** argv) { return rill::inference::RunModelTool(argc, argv); }
#endif
