// One table from one run: this engine vs ONNX Runtime 1.30 (dlopen()ed via
// ort_runner) vs OpenCV DNN (Debian's libopencv-dnn) on the same ONNX models
// at 1 and 2 threads (median and min latency, ratios ours/ORT and
// ours/OpenCV), MobileNetV2's compute bound, then the engine alone on the
// MediaPipe TFLite models at 1 and 2 threads.
//
//   bazel build //inference/tools:bench_engines
//   bazel-bin/inference/tools/bench_engines [--runs=N] [--warmup=N] [--pause_ms=N] [--block=N] [--models=a,b]
//       [--threads=1,2] [--clock=wall|cpu] [--ort_lib=PATH] [--ort_profile=PREFIX] [--json] [MODEL_DIR]
//
// Per model and thread count the three engines are set up side by side and
// their timed runs interleaved (the order rotating every round, a --pause_ms pause
// between engines so that one's spinning worker threads have gone idle
// before the next starts), so that drift of a shared machine hits all alike.
// With --block=N each engine instead runs N times back to back per turn (one
// untimed run first), the turns rotating: the steady-state latency of an
// engine kept busy, next to the default's latency of a run that starts idle.
// --ort_profile=PREFIX turns on ONNX Runtime's profiler: each session it
// opens writes PREFIX_<date>.json (a Chrome trace, one event per node run) when
// it closes, to set beside `rill model bench --profile` node by node.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include "inference/tools/ort_runner.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "rill/inference/inference.h"

namespace {

using rill::inference::AlgorithmPolicy;
using rill::inference::Model;
using rill::inference::Precision;
using rill::inference::Session;
using rill::inference::SessionConfig;
namespace ort = rill::inference::ort;

struct Flags {
  int runs = 15, warmup = 3;
  // Idle time before each timed run, so the worker threads of the engine
  // that ran before are off the cores. ONNX Runtime's intra-op workers spin
  // for longer than 20 ms after a run: on the device CPU (2 pinned cores) a
  // 20 ms pause left them on our second core, and our 2-thread MobileNetV2
  // median went from 6.3 ms (alone) to 11.1 ms (after ORT); at 100 ms it was
  // 7.1 ms and ORT's own 7.9 ms (measured 2026-11-23).
  int pause_ms = 100;
  // Runs per block: 1 interleaves the engines run by run (a pause before
  // each run, so every run starts idle, like one inference per video frame);
  // N > 1 runs each engine N times back to back per block (steady state, as
  // MNN's and ONNX Runtime's own benchmark tools measure), blocks rotating.
  int block = 1;
  std::vector<std::string> models;  // empty: all
  // Which engines run; ours_bf16 (Precision::kBf16) only where bf16 GEMMs
  // pay (CpuKernels::bf16_gemm_pays).
  std::vector<std::string> engines = {"ours", "onnxruntime", "opencv", "ours_bf16"};
  std::vector<int> threads = {1, 2};
  std::string dir = "third_party/models", ort_lib, ort_profile;
  bool json = false;
  // --clock=cpu: each run's process CPU time (all threads) instead of wall
  // time. At one thread on a shared, busy machine it is the latency the run
  // would have had alone (less the other process's cache and memory
  // traffic), where wall time also counts the time the run waited for a
  // core; at more threads it adds the threads' times (and spinning) up.
  bool cpu_clock = false;
};

double ProcessCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool Wanted(const Flags& f, const std::string& name) {
  return f.models.empty() || std::find(f.models.begin(), f.models.end(), name) != f.models.end();
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

// Latencies of one engine: median and min over the timed runs; -1: unavailable.
struct Times {
  std::vector<double> ms;
  std::string error;
  double median() const {
    if (ms.empty()) return -1;
    std::vector<double> t = ms;
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
  double min() const { return ms.empty() ? -1 : *std::min_element(ms.begin(), ms.end()); }
};

// One engine set up on one model: a run function that returns false on error.
struct Engine {
  std::string name;
  std::function<bool()> run;
  Times times;
};

std::vector<float> RandomInput(size_t n) {
  std::mt19937 rng(42);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f);
  return v;
}

// Warm-up runs, then `runs` rounds in which every engine runs once, the order
// rotating by one each round.
void Measure(std::vector<Engine*>& engines, const Flags& f) {
  for (Engine* e : engines) {
    for (int i = 0; i < f.warmup && e->times.error.empty(); ++i) {
      if (!e->run()) e->times.error = "run failed";
    }
  }
  const int rounds = (f.runs + f.block - 1) / f.block;
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < engines.size(); ++k) {
      Engine* e = engines[(k + r) % engines.size()];
      std::this_thread::sleep_for(std::chrono::milliseconds(f.pause_ms));
      // In block mode the first run of a block is a warm-up, not timed.
      if (f.block > 1 && e->times.error.empty() && !e->run()) e->times.error = "run failed";
      for (int i = 0; i < f.block && r * f.block + i < f.runs; ++i) {
        if (!e->times.error.empty()) break;
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = f.cpu_clock ? ProcessCpuMs() : 0.0;
        const bool ok = e->run();
        const double ms = f.cpu_clock ? ProcessCpuMs() - cpu_start
                                      : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (!ok) {
          e->times.error = "run failed";
          e->times.ms.clear();
        } else {
          e->times.ms.push_back(ms);
        }
      }
    }
  }
}

// Our engine on `path`: session, inputs filled from `input` (consecutive slices).
struct Ours {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
  std::string error;
  Ours(const std::string& path, int threads, Precision precision = Precision::kFp32) {
    auto m = Model::FromFile(path);
    if (!m.ok()) {
      error = m.status().ToString();
      return;
    }
    model = std::move(*m);
    SessionConfig config;
    config.num_threads = threads;
    config.algorithm = AlgorithmPolicy::kAuto;
    config.precision = precision;
    auto s = Session::Create(model, config);
    if (!s.ok()) {
      error = s.status().ToString();
      return;
    }
    session = std::move(*s);
  }
};

std::string Ratio(double a, double b) {
  if (a <= 0 || b <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", a / b);
  return buf;
}

std::string Ms(double v) {
  if (v < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string JsonMs(double v) { return v < 0 ? "null" : Ms(v); }

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out;
}

// The first "cpu MHz" and "model name" of /proc/cpuinfo.
void CpuInfo(double* mhz, std::string* model_name) {
  std::ifstream in("/proc/cpuinfo");
  *mhz = 0;
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "cpu MHz" && *mhz == 0) *mhz = std::atof(value.c_str());
    if (key == "model name" && model_name->empty()) *model_name = value;
  }
}

struct OnnxRow {
  std::string model;
  int threads;
  Times ours, ort, opencv;
  Times bf16;  // ours with Precision::kBf16 (empty: not run)
  double macs = 0;  // the model's conv and FC multiply-accumulates (nominal)
};

// One core's fp32 FMA peak (the kernel table's fma_chain_gmacs), best of 3
// runs of ~20 ms; -1 where the table cannot measure it.
double MeasureFmaPeakGmacs() {
  const auto& kernels = rill::inference::cpu::CpuKernelsFor(rill::inference::AlgorithmPolicy::kAuto);
  if (kernels.fma_chain_gmacs == nullptr) return -1;
  const long rounds = 5'000'000;  // 60 M FMAs: ~20 ms at 3 GHz on one 512-bit port
  double best = -1;
  for (int r = 0; r < 3; ++r) best = std::max(best, kernels.fma_chain_gmacs(rounds));
  return best;
}

int64_t ModelMacs(const Session& s) {
  int64_t macs = 0;
  for (const auto& l : s.Layers()) macs += l.macs;
  return macs;
}

struct TfliteRow {
  std::string model;
  std::vector<Times> by_threads;
};

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--runs=", 0) == 0) f.runs = std::max(1, std::atoi(a.c_str() + 7));
    else if (a.rfind("--warmup=", 0) == 0) f.warmup = std::max(0, std::atoi(a.c_str() + 9));
    else if (a.rfind("--pause_ms=", 0) == 0) f.pause_ms = std::max(0, std::atoi(a.c_str() + 11));
    else if (a.rfind("--models=", 0) == 0) f.models = Split(a.substr(9));
    else if (a.rfind("--block=", 0) == 0) f.block = std::max(1, std::atoi(a.c_str() + 8));
    else if (a.rfind("--engines=", 0) == 0) f.engines = Split(a.substr(10));
    else if (a.rfind("--threads=", 0) == 0) {
      f.threads.clear();
      for (const std::string& t : Split(a.substr(10))) f.threads.push_back(std::max(1, std::atoi(t.c_str())));
    } else if (a.rfind("--ort_lib=", 0) == 0) {
      f.ort_lib = a.substr(10);
    } else if (a.rfind("--ort_profile=", 0) == 0) {
      f.ort_profile = a.substr(14);
    } else if (a == "--json") f.json = true;
    else if (a == "--clock=cpu") f.cpu_clock = true;
    else if (a == "--clock=wall") f.cpu_clock = false;
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr,
                   "usage: bench_engines [--runs=N] [--warmup=N] [--pause_ms=N] [--block=N] [--models=a,b] [--engines=ours,onnxruntime,opencv,ours_bf16] "
                   "[--threads=1,2] [--clock=wall|cpu] [--ort_lib=PATH] [--ort_profile=PREFIX] [--json] [MODEL_DIR]\n");
      return 2;
    } else f.dir = a;
  }
  double mhz = 0;
  std::string cpu_name;
  CpuInfo(&mhz, &cpu_name);
  const unsigned cpus = std::thread::hardware_concurrency();
  double load_start[3] = {0, 0, 0}, load_end[3] = {0, 0, 0};
  if (getloadavg(load_start, 3) < 0) load_start[0] = -1;

  // ONNX models: ours vs ONNX Runtime vs OpenCV DNN, interleaved.
  std::string ort_version, ort_error;
  std::vector<OnnxRow> onnx_rows;
  // The four reference models, then any other ONNX model --models names
  // (MODEL_DIR/NAME.onnx: torchvision exports, your own).
  std::vector<std::string> onnx_names = {"mobilenet_v2", "resnet18", "resnet50", "squeezenet1_1"};
  for (const std::string& name : f.models) {
    if (std::find(onnx_names.begin(), onnx_names.end(), name) == onnx_names.end() &&
        Exists(f.dir + "/" + name + ".onnx")) {
      onnx_names.push_back(name);
    }
  }
  for (const std::string& name : onnx_names) {
    const std::string path = f.dir + "/" + name + ".onnx";
    if (!Wanted(f, name)) continue;
    if (!Exists(path)) {
      std::fprintf(stderr, "bench_engines: %s is missing (run scripts/fetch_models.sh); skipped\n", path.c_str());
      continue;
    }
    for (int threads : f.threads) {
      OnnxRow row{name, threads, {}, {}, {}, {}, 0};
      Engine ours_e{"ours", nullptr, {}}, ort_e{"onnxruntime", nullptr, {}}, cv_e{"opencv", nullptr, {}};

      Ours ours(path, threads);
      std::vector<float> input;
      if (!ours.error.empty()) {
        ours_e.times.error = ours.error;
      } else {
        size_t total = 0;
        for (int i = 0; i < ours.session->num_inputs(); ++i) total += ours.session->input(i)->num_elements();
        input = RandomInput(total);
        size_t offset = 0;
        for (int i = 0; i < ours.session->num_inputs(); ++i) {
          auto* t = ours.session->input(i);
          std::memcpy(t->data(), input.data() + offset, t->num_elements() * sizeof(float));
          offset += t->num_elements();
        }
        ours_e.run = [&] { return ours.session->Run().ok(); };
        row.macs = static_cast<double>(ModelMacs(*ours.session));
      }

      // The same model in bfloat16, on the same input.
      Engine bf_e{"ours_bf16", nullptr, {}};
      std::unique_ptr<Ours> ours_bf;
      if (ours_e.times.error.empty() && rill::inference::cpu::CpuKernelsFor(rill::inference::AlgorithmPolicy::kAuto).bf16_pays()) {
        ours_bf = std::make_unique<Ours>(path, threads, Precision::kBf16);
        if (!ours_bf->error.empty()) {
          bf_e.times.error = ours_bf->error;
        } else {
          size_t offset = 0;
          for (int i = 0; i < ours_bf->session->num_inputs(); ++i) {
            auto* t = ours_bf->session->input(i);
            std::memcpy(t->data(), input.data() + offset, t->num_elements() * sizeof(float));
            offset += t->num_elements();
          }
          bf_e.run = [&] { return ours_bf->session->Run().ok(); };
        }
      }

      std::unique_ptr<ort::OrtRunner> ort_runner;
      std::vector<ort::OrtTensor> ort_inputs, ort_outputs;
      if (ours_e.times.error.empty()) {
        ort::OrtOptions options;
        options.intra_op_threads = threads;
        options.library = f.ort_lib;
        options.profile_prefix = f.ort_profile;
        auto r = ort::OrtRunner::Create(path, options);
        if (!r.ok()) {
          ort_e.times.error = r.status().ToString();
          if (ort_error.empty()) ort_error = ort_e.times.error;
        } else {
          ort_runner = std::move(*r);
          ort_version = ort_runner->version();
          size_t offset = 0;
          for (int i = 0; i < ours.session->num_inputs() && i < static_cast<int>(ort_runner->inputs().size()); ++i) {
            const auto* t = ours.session->input(i);
            ort::OrtTensor in;
            in.name = ort_runner->inputs()[i].name;
            in.shape.assign(t->shape().begin(), t->shape().end());
            in.data.assign(input.begin() + offset, input.begin() + offset + t->num_elements());
            offset += t->num_elements();
            ort_inputs.push_back(std::move(in));
          }
          ort_e.run = [&] {
            const auto s = ort_runner->Run(ort_inputs, &ort_outputs);
            if (!s.ok()) std::fprintf(stderr, "bench_engines: %s\n", s.ToString().c_str());
            return s.ok();
          };
        }
      }

      // OpenCV DNN 4.6 needs Clip in its pre-opset-11 form: the exporter writes that copy.
      const std::string cv_path = Exists(f.dir + "/" + name + ".opencv.onnx") ? f.dir + "/" + name + ".opencv.onnx" : path;
      cv::dnn::Net net;
      cv::Mat cv_input;
      if (ours_e.times.error.empty()) {
        try {
          cv::setNumThreads(threads);
          net = cv::dnn::readNetFromONNX(cv_path);
          net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
          net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
          const auto& shape = ours.session->input(0)->shape();
          std::vector<int> dims(shape.begin(), shape.end());
          cv_input = cv::Mat(static_cast<int>(dims.size()), dims.data(), CV_32F);
          std::memcpy(cv_input.ptr<float>(), input.data(), cv_input.total() * sizeof(float));
          cv_e.run = [&] {
            try {
              net.setInput(cv_input);
              cv::Mat out = net.forward();
              return !out.empty();
            } catch (const cv::Exception& e) {
              std::fprintf(stderr, "bench_engines: opencv: %s\n", e.what());
              return false;
            }
          };
        } catch (const cv::Exception& e) {
          cv_e.times.error = std::string(cv_path) + ": opencv: " + e.what();
        }
      }

      std::vector<Engine*> engines;
      for (Engine* e : {&ours_e, &ort_e, &cv_e, &bf_e}) {
        const bool wanted = std::find(f.engines.begin(), f.engines.end(), e->name) != f.engines.end();
        if (e->run && e->times.error.empty() && wanted) engines.push_back(e);
      }
      Measure(engines, f);
      for (Engine* e : {&ours_e, &ort_e, &cv_e, &bf_e}) {
        if (!e->times.error.empty()) std::fprintf(stderr, "bench_engines: %s %s: %s\n", name.c_str(), e->name.c_str(), e->times.error.c_str());
      }
      row.ours = ours_e.times;
      row.ort = ort_e.times;
      row.opencv = cv_e.times;
      row.bf16 = bf_e.times;
      onnx_rows.push_back(row);
      if (!f.json) {
        if (onnx_rows.size() == 1) {
          std::printf("| model | threads | ours median ms | ours min ms | ORT median ms | ORT min ms | OpenCV median ms | "
                      "OpenCV min ms | ours / ORT | ours / OpenCV |\n|---|---|---|---|---|---|---|---|---|---|\n");
        }
        std::printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", name.c_str(), threads, Ms(row.ours.median()).c_str(),
                    Ms(row.ours.min()).c_str(), Ms(row.ort.median()).c_str(), Ms(row.ort.min()).c_str(),
                    Ms(row.opencv.median()).c_str(), Ms(row.opencv.min()).c_str(),
                    Ratio(row.ours.median(), row.ort.median()).c_str(),
                    Ratio(row.ours.median(), row.opencv.median()).c_str());
        std::fflush(stdout);
      }
    }
  }

  // MobileNetV2's compute bound: 313.6 M MAC over 2 cores x 32 fp32 MAC/cycle
  // (two AVX-512 FMA units of 16 lanes each) at /proc/cpuinfo's clock.
  const double mnv2_macs = 313.6e6, macs_per_cycle = 32, bound_cores = 2;
  const double bound_ms = mhz > 0 ? mnv2_macs / (bound_cores * macs_per_cycle * mhz * 1e6) * 1e3 : -1;
  double mnv2_ours = -1;
  for (const OnnxRow& r : onnx_rows) {
    if (r.model == "mobilenet_v2" && r.threads == 2) mnv2_ours = r.ours.median();
  }

  // MediaPipe TFLite models: ours alone, the thread counts interleaved.
  std::vector<TfliteRow> tflite_rows;
  for (const char* name : {"face_detection_short_range", "face_detection_full_range", "face_detection_full_range_sparse",
                           "selfie_segmentation", "selfie_segmentation_landscape", "hand_landmark_lite",
                           "hand_landmark_full", "pose_landmark_lite", "pose_landmark_full", "pose_landmark_heavy"}) {
    const std::string path = f.dir + "/" + name + ".tflite";
    if (!Wanted(f, name) || !Exists(path)) continue;
    std::vector<std::unique_ptr<Ours>> sessions;
    std::vector<Engine> engines(f.threads.size());
    for (size_t k = 0; k < f.threads.size(); ++k) {
      sessions.push_back(std::make_unique<Ours>(path, f.threads[k]));
      Ours& o = *sessions.back();
      engines[k].name = "ours x" + std::to_string(f.threads[k]);
      if (!o.error.empty()) {
        engines[k].times.error = o.error;
        continue;
      }
      for (int i = 0; i < o.session->num_inputs(); ++i) {
        auto* t = o.session->input(i);
        const std::vector<float> in = RandomInput(t->num_elements());
        std::memcpy(t->data(), in.data(), in.size() * sizeof(float));
      }
      engines[k].run = [&o] { return o.session->Run().ok(); };
    }
    std::vector<Engine*> ptrs;
    for (Engine& e : engines) {
      if (e.run && e.times.error.empty()) ptrs.push_back(&e);
    }
    Measure(ptrs, f);
    TfliteRow row{name, {}};
    for (Engine& e : engines) {
      if (!e.times.error.empty()) std::fprintf(stderr, "bench_engines: %s: %s\n", name, e.times.error.c_str());
      row.by_threads.push_back(e.times);
    }
    tflite_rows.push_back(row);
    if (!f.json) {
      if (tflite_rows.size() == 1) {
        std::printf("\n| MediaPipe model |");
        for (int t : f.threads) std::printf(" ours median ms (%d thr) | ours min ms (%d thr) |", t, t);
        std::printf("\n|---|");
        for (size_t k = 0; k < f.threads.size(); ++k) std::printf("---|---|");
        std::printf("\n");
      }
      std::printf("| %s |", name);
      for (const Times& t : row.by_threads) std::printf(" %s | %s |", Ms(t.median()).c_str(), Ms(t.min()).c_str());
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  if (getloadavg(load_end, 3) < 0) load_end[0] = -1;
  const double peak = MeasureFmaPeakGmacs();
  // Nominal MAC rate: the model's MACs over the median, against `threads`
  // cores' measured peak (Winograd and Strassen layers do fewer multiplies
  // than they are credited with, so ResNets can pass 100%).
  auto rate = [](double macs, const Times& t) { return macs > 0 && t.median() > 0 ? macs / (t.median() * 1e6) : -1.0; };
  auto pct = [&](double gmacs, int threads) -> std::string {
    if (gmacs <= 0 || peak <= 0) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.0f%%", 100 * gmacs / (peak * threads));
    return buf;
  };
  auto gm = [](double v) -> std::string {
    if (v <= 0) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    return buf;
  };

  if (f.json) {
    std::printf("{\"machine\":{\"cpus\":%u,\"cpu\":\"%s\",\"cpu_mhz\":%.0f,\"fma_peak_gmacs_per_core\":%s,\"load_start\":%.2f,\"load_end\":%.2f},"
                "\"runs\":%d,\"warmup\":%d,\"clock\":\"%s\",\"onnxruntime\":\"%s\",\"onnx\":[",
                cpus, JsonEscape(cpu_name).c_str(), mhz, peak > 0 ? gm(peak).c_str() : "null", load_start[0], load_end[0], f.runs, f.warmup,
                f.cpu_clock ? "cpu" : "wall", JsonEscape(ort_version).c_str());
    for (size_t i = 0; i < onnx_rows.size(); ++i) {
      const OnnxRow& r = onnx_rows[i];
      std::printf("%s{\"model\":\"%s\",\"threads\":%d,\"ours\":{\"median_ms\":%s,\"min_ms\":%s},"
                  "\"macs\":%.0f,\"onnxruntime\":{\"median_ms\":%s,\"min_ms\":%s},\"opencv\":{\"median_ms\":%s,\"min_ms\":%s},"
                  "\"ours_over_onnxruntime\":%s,\"ours_over_opencv\":%s,\"ours_bf16\":{\"median_ms\":%s,\"min_ms\":%s}}",
                  i ? "," : "", r.model.c_str(), r.threads, JsonMs(r.ours.median()).c_str(), JsonMs(r.ours.min()).c_str(), r.macs,
                  JsonMs(r.ort.median()).c_str(), JsonMs(r.ort.min()).c_str(), JsonMs(r.opencv.median()).c_str(),
                  JsonMs(r.opencv.min()).c_str(),
                  Ratio(r.ours.median(), r.ort.median()) == "n/a" ? "null" : Ratio(r.ours.median(), r.ort.median()).c_str(),
                  Ratio(r.ours.median(), r.opencv.median()) == "n/a" ? "null"
                                                                     : Ratio(r.ours.median(), r.opencv.median()).c_str(),
                  JsonMs(r.bf16.median()).c_str(), JsonMs(r.bf16.min()).c_str());
    }
    std::printf("],\"mobilenet_v2_bound\":{\"macs\":%.0f,\"cores\":%.0f,\"macs_per_cycle\":%.0f,\"cpu_mhz\":%.0f,"
                "\"bound_ms\":%s,\"ours_2_threads_median_ms\":%s,\"ours_over_bound\":%s},\"tflite\":[",
                mnv2_macs, bound_cores, macs_per_cycle, mhz, JsonMs(bound_ms).c_str(), JsonMs(mnv2_ours).c_str(),
                Ratio(mnv2_ours, bound_ms) == "n/a" ? "null" : Ratio(mnv2_ours, bound_ms).c_str());
    for (size_t i = 0; i < tflite_rows.size(); ++i) {
      std::printf("%s{\"model\":\"%s\",\"ours\":[", i ? "," : "", tflite_rows[i].model.c_str());
      for (size_t k = 0; k < tflite_rows[i].by_threads.size(); ++k) {
        const Times& t = tflite_rows[i].by_threads[k];
        std::printf("%s{\"threads\":%d,\"median_ms\":%s,\"min_ms\":%s}", k ? "," : "", f.threads[k],
                    JsonMs(t.median()).c_str(), JsonMs(t.min()).c_str());
      }
      std::printf("]}");
    }
    std::printf("]}\n");
  } else {
    std::printf("\nMachine: %u CPUs, %s, cpu MHz %.0f (/proc/cpuinfo, first core); load average %.2f at start, %.2f "
                "at end. %d warm-up + %d timed runs per engine, %s; input fixed-seed random [0,1); %s.\n",
                cpus, cpu_name.c_str(), mhz, load_start[0], load_end[0], f.warmup, f.runs,
                f.block > 1 ? ("in rotating blocks of " + std::to_string(f.block) + " back-to-back runs (" +
                               std::to_string(f.pause_ms) + " ms pause before each block)").c_str()
                            : ("interleaved (" + std::to_string(f.pause_ms) + " ms pause before each run)").c_str(),
                f.cpu_clock ? "times are the process's CPU time per run (--clock=cpu)" : "times are wall time");
    if (!ort_version.empty()) std::printf("ONNX Runtime %s (intra-op threads = threads, inter-op 1, sequential, all graph optimizations).\n", ort_version.c_str());
    if (!ort_error.empty()) std::printf("ONNX Runtime unavailable: %s\n", ort_error.c_str());
    if (bound_ms > 0) {
      std::printf("MobileNetV2 compute bound: 313.6 M MAC / (2 cores x 32 MAC/cycle x %.0f MHz) = %.2f ms; ours at 2 "
                  "threads (median) %s ms = %s x the bound.\n",
                  mhz, bound_ms, Ms(mnv2_ours).c_str(), Ratio(mnv2_ours, bound_ms).c_str());
    } else {
      std::printf("MobileNetV2 compute bound: /proc/cpuinfo gives no cpu MHz\n");
    }
    bool any_bf16 = false;
    for (const OnnxRow& r : onnx_rows) any_bf16 = any_bf16 || r.bf16.median() > 0;
    if (any_bf16) {
      std::printf("\nOurs with Precision::kBf16 (bfloat16 GEMMs on AVX512-BF16; outputs within ~1e-2 of their range, "
                  "not fp32's 1e-4), timed in the same rotation:\n\n"
                  "| model | threads | ours bf16 median ms | ours bf16 min ms | bf16 / ours fp32 | bf16 / ORT |\n"
                  "|---|---|---|---|---|---|\n");
      for (const OnnxRow& r : onnx_rows) {
        if (r.bf16.median() <= 0) continue;
        std::printf("| %s | %d | %s | %s | %s | %s |\n", r.model.c_str(), r.threads, Ms(r.bf16.median()).c_str(),
                    Ms(r.bf16.min()).c_str(), Ratio(r.bf16.median(), r.ours.median()).c_str(),
                    Ratio(r.bf16.median(), r.ort.median()).c_str());
      }
    }
    if (peak > 0 && !onnx_rows.empty()) {
      std::printf("\nMeasured FMA peak: %.1f GMAC/s per core (12 independent %s FMA chains, one thread, best of 3).\n"
                  "Nominal MAC rate (the model's conv/FC MACs over the median; %% of threads x that peak; 'ORT x 0.8' is "
                  "the rate 0.8x ONNX Runtime's latency needs):\n\n"
                  "| model | threads | G MAC | ours GMAC/s | ours %% of peak | ORT GMAC/s | ORT %% of peak | ORT x 0.8 needs |\n"
                  "|---|---|---|---|---|---|---|---|\n",
                  peak,
#if defined(__x86_64__)
                  __builtin_cpu_supports("avx512f") ? "16-lane AVX-512" : "8-lane AVX2"
#else
                  "4-lane NEON"
#endif
      );
      for (const OnnxRow& r : onnx_rows) {
        const double ours_r = rate(r.macs, r.ours), ort_r = rate(r.macs, r.ort);
        std::printf("| %s | %d | %.2f | %s | %s | %s | %s | %s |\n", r.model.c_str(), r.threads, r.macs / 1e9,
                    gm(ours_r).c_str(), pct(ours_r, r.threads).c_str(), gm(ort_r).c_str(), pct(ort_r, r.threads).c_str(),
                    pct(ort_r > 0 ? ort_r / 0.8 : -1, r.threads).c_str());
      }
    }
  }
  return 0;
}
