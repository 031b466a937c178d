// rill_model: inspect and time a model with the engine alone.
//
//   rill_model info MODEL [--json] [--tune[=CACHE_FILE]] [--precision=P]
//   rill_model bench MODEL [--threads=N] [--runs=N] [--pause_ms=N] [--reference] [--tune[=CACHE_FILE]] [--profile]
//       [--precision=P] [--json]
//   rill_model compare MODEL.onnx [--threads=N] [--input=FILE.f32] [--reference] [--precision=P] [--json]
//                     [--output_dir=DIR]  (both engines' outputs: NAME.npy, NAME.onnxruntime.npy)
//   rill_model run MODEL --input=[NAME=]FILE... --output_dir=DIR [--format=npy|raw] [--json]
//
// --input_shape=NAME:D,D,... (repeatable): LoadOptions::input_shapes, for
// ONNX models with symbolic dimensions (a batch, an image size: `info` lists
// them per input) or shape arithmetic: the model is imported at that shape.
// --backend=NAME: SessionConfig::backend ("cpu", "opencl", "vulkan"); nodes
// it cannot run fall back to the CPU (`info` lists each layer's backend).
// --backend_option=NAME.KEY=VALUE (repeatable): SessionConfig::backend_options,
// e.g. --backend_option=vulkan.gpu_profile=FILE (per-dispatch GPU times).
// --max_memory_mb=N: the bound on planned activation memory
// (SessionConfig::max_memory_bytes; default half the machine's memory).
// --place=OUTPUT:BACKEND (repeatable): the nodes only that output needs (its
// head in a multi-task model) on BACKEND; --sequential runs the backends one
// after another instead of at once; --no_branch_streams keeps the branches
// of a model on one GPU in one queue; --trace=FILE (bench) writes the last
// run's tasks as a Chrome trace (one row per stream).
// --precision=fp32|fp16|bf16: SessionConfig::precision (kFp16: weights of
// the GEMM kernels stored in half precision; kBf16: the GEMMs in bfloat16);
// compare then holds the outputs to 1e-2 (fp16) or 3e-2 (bf16) of their range
// instead of 1e-4.
//
// `info` prints ops, MACs, parameter bytes, the planned arena and the kernel
// chosen per layer. `bench` prints median and min latency after warm-up
// (and per-layer times with --profile). `compare` runs the engine and
// ONNX Runtime 1.30 (ort_runner.h) on the same input and checks every output
// against ONNX Runtime's within 1e-4 of that output's range. The framework's `rill model ...`
// commands (//tools:rill) can forward to RunModelTool.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#ifndef RILL_MODEL_TOOL_NO_ONNX
#include "inference/export/onnx_exporter.h"
#endif
#include "inference/ir/graph.h"
#include "inference/tools/npy.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"

namespace rill::inference {
namespace {

struct Flags {
  std::string command, model;
  int threads = 1, runs = 20;
  int pause_ms = 0;  // idle time before each timed run (a frame interval)
  bool json = false, profile = false, reference = false, tune = false;
  Precision precision = Precision::kFp32;
  std::string backend = kCpuBackend;  // --backend=NAME: SessionConfig::backend
  std::vector<std::pair<std::string, std::string>> place;  // --place=OUTPUT:BACKEND
  bool sequential = false;                                  // --sequential: concurrent_backends off
  bool one_lane = false;                                    // --no_branch_streams: branch_streams off
  long long max_memory_mb = 0;                              // --max_memory_mb=N (0: the default bound)
  bool bf16_even_if_slower = false;                         // --bf16_even_if_slower
  std::string trace;                                        // --trace=FILE (bench)
  std::string tuning_cache;
  std::string input_file;
  std::vector<std::string> run_inputs;  // run: --input=[NAME=]FILE (repeatable)
  std::string output_dir;               // run: --output_dir=DIR
  std::string export_path;              // export: --output=OUT.onnx
  bool raw_outputs = false;             // run: --format=raw
  std::map<std::string, std::vector<int>> input_shapes;  // --input_shape=NAME:D,D,...
  std::map<std::string, std::string> backend_options;    // --backend_option=NAME.KEY=VALUE
};

const char* PrecisionName(Precision p) {
  return p == Precision::kFp16 ? "fp16" : p == Precision::kBf16 ? "bf16" : "fp32";
}


// "NAME:1,3,224,224" into `shapes`; false if malformed.
bool ParseInputShape(const std::string& spec, std::map<std::string, std::vector<int>>* shapes) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= spec.size()) return false;
  std::vector<int> dims;
  std::stringstream ss(spec.substr(colon + 1));
  std::string d;
  while (std::getline(ss, d, ',')) {
    char* end = nullptr;
    const long v = std::strtol(d.c_str(), &end, 10);
    if (d.empty() || *end != 0 || v <= 0 || v > (1 << 24)) return false;
    dims.push_back(static_cast<int>(v));
  }
  (*shapes)[spec.substr(0, colon)] = dims;
  return true;
}

bool ParseFlags(int argc, char** argv, Flags* f) {
  if (argc < 3) return false;
  f->command = argv[1];
  f->model = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--threads=", 0) == 0) f->threads = std::atoi(a.c_str() + 10);
    else if (a.rfind("--runs=", 0) == 0) f->runs = std::max(1, std::atoi(a.c_str() + 7));
    else if (a.rfind("--pause_ms=", 0) == 0) f->pause_ms = std::max(0, std::atoi(a.c_str() + 11));
    else if (a == "--json") f->json = true;
    else if (a == "--profile") f->profile = true;
    else if (a == "--reference") f->reference = true;
    else if (a == "--precision=fp16") f->precision = Precision::kFp16;
    else if (a == "--precision=bf16") f->precision = Precision::kBf16;
    else if (a.rfind("--input_shape=", 0) == 0) {
      if (!ParseInputShape(a.substr(14), &f->input_shapes)) return false;
    }
    else if (a == "--precision=fp32") f->precision = Precision::kFp32;
    else if (a.rfind("--backend=", 0) == 0) f->backend = a.substr(10);
    else if (a.rfind("--backend_option=", 0) == 0 && a.find('=', 17) != std::string::npos) {
      const size_t eq = a.find('=', 17);
      f->backend_options[a.substr(17, eq - 17)] = a.substr(eq + 1);
    }
    else if (a.rfind("--place=", 0) == 0 && a.find(':') != std::string::npos) {
      f->place.emplace_back(a.substr(8, a.rfind(':') - 8), a.substr(a.rfind(':') + 1));
    }
    else if (a == "--sequential") f->sequential = true;
    else if (a == "--no_branch_streams") f->one_lane = true;
    else if (a == "--bf16_even_if_slower") f->bf16_even_if_slower = true;
    else if (a.rfind("--max_memory_mb=", 0) == 0) f->max_memory_mb = std::atoll(a.c_str() + 16);
    else if (a.rfind("--trace=", 0) == 0) f->trace = a.substr(8);
    else if (a == "--tune") f->tune = true;
    else if (a.rfind("--tune=", 0) == 0) f->tune = true, f->tuning_cache = a.substr(7);
    else if (a.rfind("--input=", 0) == 0 && f->command == "compare") f->input_file = a.substr(8);
    else if (a.rfind("--input=", 0) == 0 && f->command == "run") f->run_inputs.push_back(a.substr(8));
    else if (a.rfind("--output_dir=", 0) == 0 && (f->command == "run" || f->command == "compare")) {
      f->output_dir = a.substr(13);
    }
    else if (a == "--format=npy" && f->command == "run") f->raw_outputs = false;
    else if (a == "--format=raw" && f->command == "run") f->raw_outputs = true;
    else if (a.rfind("--output=", 0) == 0 && f->command == "export") f->export_path = a.substr(9);
    else return false;
  }
  if (f->command == "run" && f->output_dir.empty()) return false;
  if (f->command == "export" && f->export_path.empty()) return false;
  return f->command == "info" || f->command == "bench" || f->command == "compare" || f->command == "run" ||
         f->command == "export";
}

int Fail(const Status& s) {
  std::fprintf(stderr, "rill_model: %s\n", s.ToString().c_str());
  return 1;
}

// `export MODEL --output=OUT.onnx`: the graph as imported (no optimizer
// passes) written as ONNX (inference/export/onnx_exporter.h).
int Export(const Flags& f) {
#ifdef RILL_MODEL_TOOL_NO_ONNX
  return Fail(UnimplementedError("this build of the model tool has no ONNX exporter (it is built without "
                                 "protobuf and libonnx): use `rill model export` or rill_model"));
#else
  LoadOptions load;
  load.optimize = false;
  load.input_shapes = f.input_shapes;
  auto model = Model::FromFile(f.model, load);
  if (!model.ok()) return Fail(model.status());
  auto bytes = onnx_export::ExportOnnx((*model)->graph());
  if (!bytes.ok()) return Fail(bytes.status());
  std::ofstream out(f.export_path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return Fail(InternalError(f.export_path + ": cannot write: " + std::strerror(errno)));
  const ir::Graph& g = (*model)->graph();
  std::printf("wrote %s: %zu nodes of %s as ONNX opset %d, %zu bytes\n", f.export_path.c_str(), g.nodes.size(),
              f.model.c_str(), onnx_export::kOpset, bytes->size());
  return 0;
#endif
}

int Info(const Flags& f, const Model& model, Session& session) {
  const ir::Graph& g = model.graph();
  // Constants the nodes read, each once: the tensor table still holds what
  // the optimizer folded away (batch-norm statistics, unfused weights).
  size_t param_bytes = 0;
  std::vector<bool> counted(g.tensors.size(), false);
  for (const ir::Node& node : g.nodes) {
    for (int id : node.inputs) {
      if (id < 0 || counted[id] || !g.tensors[id].is_constant()) continue;
      counted[id] = true;
      param_bytes += g.tensors[id].bytes;
    }
  }
  const std::vector<LayerInfo> layers = session.Layers();
  int64_t macs = 0;
  std::map<std::string, int> ops;
  for (const LayerInfo& l : layers) {
    macs += l.macs;
    ++ops[l.op];
  }
  if (f.json) {
    std::printf("{\"model\":\"%s\",\"nodes\":%zu,\"dynamic_nodes\":%d,\"macs\":%lld,\"param_bytes\":%zu,"
                "\"arena_bytes\":%zu,\"packed_weight_bytes\":%zu,\"precision\":\"%s\",\"inputs\":[",
                model.source().c_str(), layers.size(), model.dynamic_node_count(), static_cast<long long>(macs),
                param_bytes, session.arena_bytes(), session.packed_weight_bytes(), PrecisionName(f.precision));
    // Each input's shape as planned and its symbolic dimensions (settable
    // with --input_shape).
    for (int i = 0; i < session.num_inputs(); ++i) {
      const Tensor& t = *session.input(i);
      std::printf("%s{\"name\":\"%s\",\"shape\":[", i ? "," : "", t.name().c_str());
      for (size_t d = 0; d < t.shape().size(); ++d) std::printf("%s%d", d ? "," : "", t.shape()[d]);
      std::printf("],\"symbolic\":[");
      bool first = true;
      for (const Model::SymbolicDim& d : model.symbolic_dims()) {
        if (d.input != t.name()) continue;
        std::printf("%s{\"dim\":%d,\"name\":\"%s\"}", first ? "" : ",", d.axis, d.name.c_str());
        first = false;
      }
      std::printf("]}");
    }
    std::printf("],\"layers\":[");
    for (size_t i = 0; i < layers.size(); ++i) {
      std::printf("%s{\"name\":\"%s\",\"op\":\"%s\",\"kernel\":\"%s\",\"macs\":%lld}", i ? "," : "",
                  layers[i].name.c_str(), layers[i].op.c_str(), layers[i].kernel.c_str(),
                  static_cast<long long>(layers[i].macs));
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("%s\n", model.source().c_str());
  // kBf16 runs fp32 kernels where bf16 would not be faster (no AVX512-BF16,
  // or a half-rate vdpbf16ps): say so.
  bool bf16_kernels = false;
  for (const LayerInfo& l : layers) bf16_kernels = bf16_kernels || l.kernel.find("_bf16") != std::string::npos;
  const bool bf16_fell_back = f.precision == Precision::kBf16 && !bf16_kernels;
  std::printf("  nodes %zu, %.1f M MACs, %.2f MB parameters, %.2f MB arena, %.2f MB packed weights (%s)\n",
              layers.size(), macs / 1e6, param_bytes / 1048576.0, session.arena_bytes() / 1048576.0,
              session.packed_weight_bytes() / 1048576.0,
              bf16_fell_back ? "bf16 asked; fp32 kernels: bf16 GEMMs are not faster on this CPU"
                             : PrecisionName(f.precision));
  if (const int dynamic = model.dynamic_node_count()) {
    // docs/design.md, "Data-dependent sizes".
    std::printf("  dynamic region: %d of %zu nodes (sizes known only at run time; on the CPU, shapes inferred at "
                "run time when they change; -1 below is such a size)\n",
                dynamic, layers.size());
  }
  for (int i = 0; i < session.num_inputs(); ++i) {
    const std::string& name = session.input(i)->name();
    std::printf("  input  %-24s %s %s\n", name.c_str(), ShapeToString(session.input(i)->shape()).c_str(),
                LayoutName(session.input(i)->layout()));
    // Symbolic dimensions: what --input_shape (Session::Resize) may set.
    std::string dims;
    for (const Model::SymbolicDim& d : model.symbolic_dims()) {
      if (d.input == name) dims += (dims.empty() ? "" : ", ") + d.name + " (dim " + std::to_string(d.axis) + ")";
    }
    if (!dims.empty()) {
      std::printf("         symbolic: %s; set with --input_shape=%s:D,D,... (Session::Resize imports again)\n",
                  dims.c_str(), name.c_str());
    }
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
  session.set_tracing(!f.trace.empty());
  for (int r = 0; r < f.runs; ++r) {
    if (f.pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(f.pause_ms));
    const auto start = std::chrono::steady_clock::now();
    Status s = f.profile ? session.RunProfiled(&node_ms) : session.Run();
    if (!s.ok()) return Fail(s);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    for (size_t i = 0; f.profile && i < node_ms.size(); ++i) layer_sum[i] += node_ms[i];
  }
  if (!f.trace.empty() && !f.profile) {
    std::ofstream out(f.trace);
    out << session.LastRunTraceJson();
    if (!out) return Fail(InternalError("cannot write the trace to " + f.trace));
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

// ---- compare ---------------------------------------------------------------

// Tolerance of `compare`: max abs error <= kTolerance * (ONNX Runtime's
// output range; see ort::DiffOutputs for constant outputs).
constexpr double kTolerance = ort::kCompareTolerance;
// With --precision=fp16: each weight rounded to half (2^-11 relative).
constexpr double kFp16Tolerance = 1e-2;
// With --precision=bf16: weights and GEMM inputs rounded to bf16 (2^-9
// relative each), errors compounding over the layers.
constexpr double kBf16Tolerance = 3e-2;


std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out;
}

std::string ShapeJson(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

StatusOr<std::vector<float>> ReadF32(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return NotFoundError(path + ": cannot open input file");
  const std::streamoff bytes = in.tellg();
  if (bytes != static_cast<std::streamoff>(count * sizeof(float))) {
    return InvalidArgumentError(path + ": " + std::to_string(bytes) + " bytes, the model's inputs need " +
                                std::to_string(count) + " float32 values (" + std::to_string(count * sizeof(float)) +
                                " bytes)");
  }
  std::vector<float> v(count);
  in.seekg(0);
  if (count > 0 && !in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(float)))) {
    return DataLossError(path + ": read failed");
  }
  return v;
}

struct OutputRow {
  std::string name;
  std::vector<int64_t> shape;
  double max_abs = 0, max_rel = 0, range = 0;
  bool pass = false;
};


// Extension of a raw file holding `dtype` values.
std::string RawExtension(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return ".f32";
    case DataType::kFloat16: return ".f16";
    case DataType::kInt32: return ".i32";
    case DataType::kInt64: return ".i64";
    case DataType::kUInt8: return ".u8";
    case DataType::kInt8: return ".i8";
    case DataType::kBool: return ".bool";
    case DataType::kUnknown: break;
  }
  return ".bin";
}

// A file name for a tensor name ("StatefulPartitionedCall:0" and
// "head/logits" become "StatefulPartitionedCall_0", "head_logits").
std::string FileStem(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) c = '_';
  }
  if (s[0] == '.') s[0] = '_';
  return s;
}

// Fills `t` from `file`: a .npy must hold t's dtype and t's element count
// (its shape may differ only by size-1 dims or be flat); any other file is
// raw little-endian data of exactly t's byte size.
Status FillInput(const std::string& model, Tensor* t, const std::string& file) {
  const size_t bytes = static_cast<size_t>(t->num_elements()) * DataTypeSize(t->dtype());
  const std::string where = model + ": input " + t->name() + " " + ShapeToString(t->shape()) + " " +
                            DataTypeName(t->dtype());
  if (file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0) {
    auto a = npy::Read(file);
    if (!a.ok()) return a.status();
    if (a->dtype != t->dtype()) {
      return InvalidArgumentError(file + ": " + DataTypeName(a->dtype) + " array, but " + where +
                                  " (convert it with numpy's astype)");
    }
    if (a->data.size() != bytes) {
      return InvalidArgumentError(file + ": shape " + ShapeJson(a->shape) + " has " +
                                  std::to_string(a->data.size() / DataTypeSize(a->dtype)) + " values, but " + where +
                                  " needs " + std::to_string(t->num_elements()));
    }
    std::memcpy(t->data(), a->data.data(), bytes);
    return Status::Ok();
  }
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return NotFoundError(file + ": cannot open input file");
  const std::streamoff size = in.tellg();
  if (size != static_cast<std::streamoff>(bytes)) {
    return InvalidArgumentError(file + ": " + std::to_string(size) + " bytes, but " + where + " needs " +
                                std::to_string(bytes) + " bytes of raw little-endian data (or give a .npy)");
  }
  in.seekg(0);
  if (bytes > 0 && !in.read(static_cast<char*>(t->data()), static_cast<std::streamsize>(bytes))) {
    return DataLossError(file + ": read failed");
  }
  return Status::Ok();
}

// --output_dir: made if missing; an error naming it when it is not a
// writable folder.
Status PrepareOutputDir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (::mkdir(dir.c_str(), 0755) != 0) {
      return NotFoundError(dir + ": cannot create the output folder: " + std::strerror(errno));
    }
  } else if (!S_ISDIR(st.st_mode)) {
    return InvalidArgumentError(dir + ": --output_dir is not a folder");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return InvalidArgumentError(dir + ": cannot write to the output folder: " + std::strerror(errno));
  }
  return Status::Ok();
}

int RunOnInput(const Flags& f, Session& session) {
  // Inputs: NAME=FILE binds by name; a bare FILE takes the next unbound
  // input in the session's order.
  std::vector<std::string> files(session.num_inputs());
  int next = 0;
  for (const std::string& arg : f.run_inputs) {
    const size_t eq = arg.find('=');
    int index = -1;
    if (eq != std::string::npos) {
      for (int i = 0; i < session.num_inputs(); ++i) {
        if (session.input(i)->name() == arg.substr(0, eq)) index = i;
      }
    }
    std::string file = arg;
    if (index >= 0) {
      file = arg.substr(eq + 1);
    } else {
      while (next < session.num_inputs() && !files[next].empty()) ++next;
      if (next >= session.num_inputs()) {
        return Fail(InvalidArgumentError(f.model + ": more --input files than the model's " +
                                         std::to_string(session.num_inputs()) + " inputs"));
      }
      index = next;
    }
    if (!files[index].empty()) {
      return Fail(InvalidArgumentError(f.model + ": input " + session.input(index)->name() + " given twice"));
    }
    files[index] = file;
  }
  std::string missing;
  for (int i = 0; i < session.num_inputs(); ++i) {
    if (files[i].empty()) {
      const Tensor* t = session.input(i);
      missing += "\n  " + t->name() + " " + ShapeToString(t->shape()) + " " + DataTypeName(t->dtype()) + " " +
                 LayoutName(t->layout());
    }
  }
  if (!missing.empty()) {
    return Fail(InvalidArgumentError(f.model + ": no --input for" + missing +
                                     "\n(--input=FILE.npy or raw FILE in input order, or --input=NAME=FILE)"));
  }
  for (int i = 0; i < session.num_inputs(); ++i) {
    Status s = FillInput(f.model, session.input(i), files[i]);
    if (!s.ok()) return Fail(s);
  }
  // The output folder: made if missing, checked before the run.
  if (Status d = PrepareOutputDir(f.output_dir); !d.ok()) return Fail(d);
  const auto t0 = std::chrono::steady_clock::now();
  Status run = session.Run();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok()) return Fail(run);
  std::string json = "{\"model\":\"" + JsonEscape(f.model) + "\",\"run_ms\":" + std::to_string(ms) + ",\"outputs\":[";
  if (!f.json) std::printf("%s: ran in %.2f ms; outputs in %s:\n", f.model.c_str(), ms, f.output_dir.c_str());
  std::map<std::string, int> stems;
  for (int i = 0; i < session.num_outputs(); ++i) {
    const Tensor* t = session.output(i);
    std::string stem = FileStem(t->name());
    if (stems[stem]++ > 0) stem += "_" + std::to_string(i);
    const std::string path = f.output_dir + "/" + stem + (f.raw_outputs ? RawExtension(t->dtype()) : ".npy");
    const size_t bytes = static_cast<size_t>(t->num_elements()) * DataTypeSize(t->dtype());
    std::vector<int64_t> shape(t->shape().begin(), t->shape().end());
    Status w = Status::Ok();
    if (f.raw_outputs) {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(static_cast<const char*>(t->data()), static_cast<std::streamsize>(bytes));
      out.close();
      if (!out) w = DataLossError(path + ": write failed");
    } else {
      w = npy::Write(path, t->dtype(), shape, t->data(), bytes);
    }
    if (!w.ok()) return Fail(w);
    double lo = 0, hi = 0, mean = 0;
    if (t->dtype() == DataType::kFloat32 && t->num_elements() > 0) {
      const float* v = static_cast<const float*>(t->data());
      lo = hi = v[0];
      for (int64_t k = 0; k < t->num_elements(); ++k) {
        lo = std::min<double>(lo, v[k]);
        hi = std::max<double>(hi, v[k]);
        mean += v[k];
      }
      mean /= static_cast<double>(t->num_elements());
    }
    if (f.json) {
      json += std::string(i ? "," : "") + "{\"name\":\"" + JsonEscape(t->name()) + "\",\"shape\":" + ShapeJson(shape) +
              ",\"dtype\":\"" + DataTypeName(t->dtype()) + "\",\"layout\":\"" + LayoutName(t->layout()) +
              "\",\"file\":\"" + JsonEscape(path) + "\"}";
    } else {
      std::printf("  %-28s %-18s %-7s %-4s -> %s", t->name().c_str(), ShapeToString(t->shape()).c_str(),
                  DataTypeName(t->dtype()), LayoutName(t->layout()), path.c_str());
      if (t->dtype() == DataType::kFloat32) std::printf("  (min %.6g, max %.6g, mean %.6g)", lo, hi, mean);
      std::printf("\n");
    }
  }
  if (f.json) std::printf("%s]}\n", json.c_str());
  return 0;
}

int Compare(const Flags& f, Session& session) {
  if (f.model.size() < 5 || f.model.compare(f.model.size() - 5, 5, ".onnx") != 0) {
    return Fail(InvalidArgumentError(f.model + ": compare needs an .onnx model (ONNX Runtime is the reference)"));
  }
  const double tolerance = f.precision == Precision::kFp16   ? kFp16Tolerance
                           : f.precision == Precision::kBf16 ? kBf16Tolerance
                                                             : kTolerance;
  ort::OrtOptions options;
  options.intra_op_threads = std::max(1, f.threads);
  auto ort_or = ort::OrtRunner::Create(f.model, options);
  if (!ort_or.ok()) return Fail(ort_or.status());
  ort::OrtRunner& ort = **ort_or;

  // The input: --input, else the golden MODEL.input.f32 beside the model,
  // else fixed-seed uniform values in [0, 1). Several inputs take
  // consecutive slices of the file, in the session's input order.
  size_t total = 0;
  for (int i = 0; i < session.num_inputs(); ++i) total += static_cast<size_t>(session.input(i)->num_elements());
  std::string source = f.input_file;
  if (source.empty()) {
    const std::string stem = f.model.size() > 5 && f.model.compare(f.model.size() - 5, 5, ".onnx") == 0
                                 ? f.model.substr(0, f.model.size() - 5)
                                 : f.model;
    if (std::ifstream(stem + ".input.f32").good()) source = stem + ".input.f32";
  }
  std::vector<float> values;
  if (!source.empty()) {
    auto read = ReadF32(source, total);
    if (!read.ok()) return Fail(read.status());
    values = std::move(*read);
  } else {
    std::mt19937 rng(42);
    values.resize(total);
    for (float& v : values) v = static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f);
  }
  if (session.num_inputs() != static_cast<int>(ort.inputs().size())) {
    return Fail(InvalidArgumentError(f.model + ": the engine sees " + std::to_string(session.num_inputs()) +
                                     " inputs, ONNX Runtime " + std::to_string(ort.inputs().size())));
  }
  std::vector<ort::OrtTensor> ort_inputs;
  size_t offset = 0;
  for (int i = 0; i < session.num_inputs(); ++i) {
    Tensor* t = session.input(i);
    if (t->dtype() != DataType::kFloat32) {
      return Fail(UnimplementedError(f.model + ": input " + t->name() + " is " + DataTypeName(t->dtype()) +
                                     ", compare supports float32 inputs only"));
    }
    const ort::TensorSpec* spec = nullptr;
    for (const ort::TensorSpec& s : ort.inputs()) {
      if (s.name == t->name()) spec = &s;
    }
    if (spec == nullptr) spec = &ort.inputs()[i];
    ort::OrtTensor in;
    in.name = spec->name;
    in.shape.assign(t->shape().begin(), t->shape().end());
    bool same = in.shape.size() == spec->shape.size();
    for (size_t d = 0; same && d < in.shape.size(); ++d) same = spec->shape[d] < 0 || spec->shape[d] == in.shape[d];
    if (!same) {
      return Fail(InvalidArgumentError(f.model + ": input " + t->name() + " is " + ShapeJson(in.shape) + " (" +
                                       LayoutName(t->layout()) + ") in the engine but " + ShapeJson(spec->shape) +
                                       " in ONNX Runtime"));
    }
    const size_t n = static_cast<size_t>(t->num_elements());
    in.data.assign(values.begin() + offset, values.begin() + offset + n);
    std::memcpy(t->data(), in.data.data(), n * sizeof(float));
    offset += n;
    ort_inputs.push_back(std::move(in));
  }
  Status s = session.Run();
  if (!s.ok()) return Fail(s);
  std::vector<ort::OrtTensor> expected;
  s = ort.Run(ort_inputs, &expected);
  if (!s.ok()) return Fail(s);

  // --output_dir: both engines' outputs as .npy, for comparisons beyond
  // element order (detections listed in another order among equal scores).
  if (!f.output_dir.empty()) {
    if (Status d = PrepareOutputDir(f.output_dir); !d.ok()) return Fail(d);
    std::map<std::string, int> stems;
    for (size_t o = 0; o < expected.size(); ++o) {
      const ort::OrtTensor& ref = expected[o];
      const Tensor* ours = session.output(ref.name);
      if (ours == nullptr && static_cast<int>(o) < session.num_outputs()) ours = session.output(static_cast<int>(o));
      if (ours == nullptr) continue;  // reported below
      std::string stem = FileStem(ref.name);
      if (stems[stem]++ > 0) stem += "_" + std::to_string(o);
      std::vector<int64_t> shape(ref.shape.begin(), ref.shape.end());
      if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) {
        shape.assign(ours->shape().begin(), ours->shape().end());
      }
      Status w = npy::Write(f.output_dir + "/" + stem + ".npy", ours->dtype(),
                            std::vector<int64_t>(ours->shape().begin(), ours->shape().end()), ours->data(),
                            static_cast<size_t>(ours->num_elements()) * DataTypeSize(ours->dtype()));
      if (w.ok()) {
        w = npy::Write(f.output_dir + "/" + stem + ".onnxruntime.npy", DataType::kFloat32, shape, ref.data.data(),
                       ref.data.size() * sizeof(float));
      }
      if (!w.ok()) return Fail(w);
    }
  }
  std::vector<OutputRow> diffs;
  bool all_pass = true;
  for (size_t o = 0; o < expected.size(); ++o) {
    const ort::OrtTensor& ref = expected[o];
    const Tensor* ours = session.output(ref.name);
    if (ours == nullptr && static_cast<int>(o) < session.num_outputs()) ours = session.output(static_cast<int>(o));
    if (ours == nullptr) return Fail(NotFoundError(f.model + ": the engine has no output " + ref.name));
    if (static_cast<size_t>(ours->num_elements()) != ref.data.size()) {
      return Fail(InvalidArgumentError(f.model + ": output " + ref.name + " is " + ShapeToString(ours->shape()) +
                                       " in the engine but " + ShapeJson(ref.shape) + " in ONNX Runtime"));
    }
    OutputRow d;
    d.name = ref.name;
    d.shape = ref.shape;
    const ort::OutputDiff diff = ort::DiffOutputs(ours->data_as<float>(), ref.data.data(), ref.data.size());
    d.max_abs = diff.max_abs;
    d.range = diff.range;
    d.max_rel = diff.max_rel();
    d.pass = diff.Within(tolerance);
    all_pass = all_pass && d.pass;
    diffs.push_back(d);
  }
  const char* policy = f.reference ? "reference" : f.tune ? "tune" : "auto";
  const std::string input_desc = source.empty() ? "random" : source;
  if (f.json) {
    std::printf("{\"model\":\"%s\",\"onnxruntime\":\"%s\",\"threads\":%d,\"algorithm\":\"%s\",\"input\":\"%s\","
                "\"tolerance\":%g,\"pass\":%s,\"outputs\":[",
                JsonEscape(f.model).c_str(), JsonEscape(ort.version()).c_str(), std::max(1, f.threads), policy,
                JsonEscape(input_desc).c_str(), tolerance, all_pass ? "true" : "false");
    for (size_t i = 0; i < diffs.size(); ++i) {
      const OutputRow& d = diffs[i];
      std::printf("%s{\"name\":\"%s\",\"shape\":%s,\"max_abs_error\":%.6g,\"max_rel_error\":%.6g,\"range\":%.6g,"
                  "\"pass\":%s}",
                  i ? "," : "", JsonEscape(d.name).c_str(), ShapeJson(d.shape).c_str(),
                  std::isfinite(d.max_abs) ? d.max_abs : 1e308, std::isfinite(d.max_rel) ? d.max_rel : 1e308, d.range,
                  d.pass ? "true" : "false");
    }
    std::printf("]}\n");
  } else {
    std::printf("%s: engine (%d thread%s, %s kernels%s) vs ONNX Runtime %s, input %s\n", f.model.c_str(),
                std::max(1, f.threads), f.threads > 1 ? "s" : "", policy,
                f.precision == Precision::kFp16   ? ", fp16 weights"
                : f.precision == Precision::kBf16 ? ", bf16 GEMMs"
                                                  : "",
                ort.version().c_str(),
                source.empty() ? "random [0,1) (seed 42)" : source.c_str());
    std::printf("  %-24s %-18s %12s %12s %12s  %s\n", "output", "shape", "max abs err", "range", "max rel err",
                "result");
    for (const OutputRow& d : diffs) {
      std::printf("  %-24s %-18s %12.3g %12.4g %12.3g  %s\n", d.name.c_str(), ShapeJson(d.shape).c_str(), d.max_abs,
                  d.range, d.max_rel, d.pass ? "PASS" : "FAIL");
    }
    std::printf("%s: max rel err (abs err / output range) must be <= %g\n", all_pass ? "PASS" : "FAIL", tolerance);
  }
  return all_pass ? 0 : 1;
}

}  // namespace

int RunModelTool(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr,
                 "usage: rill model info MODEL [--json] [--tune[=CACHE_FILE]] [--precision=fp32|fp16|bf16] [--input_shape=NAME:D,D,...]\n"
                 "       rill model bench MODEL [--threads=N] [--runs=N] [--pause_ms=N] [--reference] [--tune[=CACHE_FILE]] [--profile] [--precision=fp32|fp16|bf16] [--json]\n"
                 "         (any command) [--backend=NAME] [--backend_option=NAME.KEY=VALUE] [--place=OUTPUT:BACKEND] [--sequential] [--no_branch_streams] [--trace=FILE] [--max_memory_mb=N]\n"
                 "       rill model compare MODEL.onnx [--threads=N] [--input=FILE.f32] [--reference] [--precision=fp32|fp16|bf16] [--json]\n"
                 "       rill model run MODEL --input=[NAME=]FILE --output_dir=DIR [--format=npy|raw] [--json]\n"
                 "       rill model export MODEL.tflite --output=OUT.onnx\n");
    return 2;
  }
  if (f.command == "export") return Export(f);
  LoadOptions load;
  load.input_shapes = f.input_shapes;
  auto model = Model::FromFile(f.model, load);
  if (!model.ok()) return Fail(model.status());
  for (const std::string& note : (*model)->graph().symbolic_inputs) {
    std::fprintf(stderr, "note: %s: %s, taken as 1 (give the shape with --input_shape=NAME:D,D,...)\n",
                 f.model.c_str(), note.c_str());
  }
  SessionConfig config;
  config.num_threads = std::max(1, f.threads);
  config.algorithm = f.reference ? AlgorithmPolicy::kReference : f.tune ? AlgorithmPolicy::kTune : AlgorithmPolicy::kAuto;
  config.tuning_cache = f.tuning_cache;
  config.precision = f.precision;
  config.backend = f.backend;
  config.backend_options = f.backend_options;
  config.concurrent_backends = !f.sequential;
  config.branch_streams = !f.one_lane;
  config.bf16_even_if_slower = f.bf16_even_if_slower;
  if (f.max_memory_mb > 0) config.max_memory_bytes = static_cast<size_t>(f.max_memory_mb) << 20;
  const ir::Graph& graph = (*model)->graph();
  for (const auto& [output, backend] : f.place) {
    int index = -1;
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
      if (graph.tensors[graph.outputs[k]].name == output) index = static_cast<int>(k);
    }
    if (index < 0) return Fail(NotFoundError(f.model + ": --place: no output named '" + output + "'"));
    const std::vector<bool> head = graph.HeadOf(index);
    for (size_t n = 0; n < head.size(); ++n) {
      if (head[n]) config.node_backends[graph.nodes[n].name] = backend;
    }
  }
  auto session = Session::Create(*model, config);
  if (!session.ok()) return Fail(session.status());
  if (f.command == "compare") return Compare(f, **session);
  if (f.command == "run") return RunOnInput(f, **session);
  return f.command == "info" ? Info(f, **model, **session) : Bench(f, **session);
}

}  // namespace rill::inference

#ifndef RILL_MODEL_TOOL_NO_MAIN
int main(int argc, char** argv) { return rill::inference::RunModelTool(argc, argv); }
#endif
