#include "inference/tools/ort_runner.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

namespace rill::inference::ort {
namespace {

// ---- Our own minimal view of ONNX Runtime's C ABI --------------------------
// Opaque handles; only pointers to them cross the ABI.
struct OrtEnv;
struct OrtStatus;
struct OrtMemoryInfo;
struct OrtSession;
struct OrtValue;
struct OrtRunOptions;
struct OrtTypeInfo;
struct OrtTensorTypeAndShapeInfo;
struct OrtSessionOptions;
struct OrtAllocator;

// What OrtGetApiBase() returns: two function pointers.
struct ApiBase {
  const void* (*get_api)(uint32_t version);
  const char* (*get_version_string)();
};

// The API version of release 1.N is N; GetApi() returns null for a version
// the library does not have.
constexpr uint32_t kApiVersion = 30;

// Slots of the OrtApi function table that we use (the table only ever grows
// at its end, so these indices hold for every release since they were added).
enum Slot : int {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetSessionExecutionMode = 13,
  kEnableProfiling = 14,
  kSetSessionGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kSessionGetInputCount = 30,
  kSessionGetOutputCount = 31,
  kSessionGetInputTypeInfo = 33,
  kSessionGetOutputTypeInfo = 34,
  kSessionGetInputName = 36,
  kSessionGetOutputName = 37,
  kCreateTensorWithDataAsOrtValue = 49,
  kGetTensorMutableData = 51,
  kCastTypeInfoToTensorInfo = 55,
  kGetTensorElementType = 60,
  kGetDimensionsCount = 61,
  kGetDimensions = 62,
  kGetTensorTypeAndShape = 65,
  kCreateCpuMemoryInfo = 69,
  kAllocatorFree = 76,
  kGetAllocatorWithDefaultOptions = 78,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTypeInfo = 98,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
};

// Enum values of the C API that we pass.
constexpr int kLoggingLevelError = 3;
constexpr int kExecutionSequential = 0;
constexpr int kGraphOptimizationAll = 99;
constexpr int kArenaAllocator = 1;
constexpr int kMemTypeDefault = 0;
constexpr int kElementFloat = 1;
constexpr int kElementInt32 = 6;
constexpr int kElementInt64 = 7;
constexpr int kElementBool = 9;

using AnyFn = void (*)();

// Function pointer types, one per slot used.
using GetErrorMessageFn = const char* (*)(const OrtStatus*);
using CreateEnvFn = OrtStatus* (*)(int, const char*, OrtEnv**);
using CreateSessionFn = OrtStatus* (*)(const OrtEnv*, const char*, const OrtSessionOptions*, OrtSession**);
using RunFn = OrtStatus* (*)(OrtSession*, const OrtRunOptions*, const char* const*, const OrtValue* const*, size_t,
                             const char* const*, size_t, OrtValue**);
using CreateSessionOptionsFn = OrtStatus* (*)(OrtSessionOptions**);
using SetOptionIntFn = OrtStatus* (*)(OrtSessionOptions*, int);
using EnableProfilingFn = OrtStatus* (*)(OrtSessionOptions*, const char*);
using SessionCountFn = OrtStatus* (*)(const OrtSession*, size_t*);
using SessionTypeInfoFn = OrtStatus* (*)(const OrtSession*, size_t, OrtTypeInfo**);
using SessionNameFn = OrtStatus* (*)(const OrtSession*, size_t, OrtAllocator*, char**);
using CreateTensorWithDataFn = OrtStatus* (*)(const OrtMemoryInfo*, void*, size_t, const int64_t*, size_t, int,
                                              OrtValue**);
using GetTensorMutableDataFn = OrtStatus* (*)(OrtValue*, void**);
using CastTypeInfoToTensorInfoFn = OrtStatus* (*)(const OrtTypeInfo*, const OrtTensorTypeAndShapeInfo**);
using GetTensorElementTypeFn = OrtStatus* (*)(const OrtTensorTypeAndShapeInfo*, int*);
using GetDimensionsCountFn = OrtStatus* (*)(const OrtTensorTypeAndShapeInfo*, size_t*);
using GetDimensionsFn = OrtStatus* (*)(const OrtTensorTypeAndShapeInfo*, int64_t*, size_t);
using GetTensorTypeAndShapeFn = OrtStatus* (*)(const OrtValue*, OrtTensorTypeAndShapeInfo**);
using CreateCpuMemoryInfoFn = OrtStatus* (*)(int, int, OrtMemoryInfo**);
using AllocatorFreeFn = OrtStatus* (*)(OrtAllocator*, void*);
using GetAllocatorFn = OrtStatus* (*)(OrtAllocator**);
template <typename T>
using ReleaseFn = void (*)(T*);

// One loaded library: its API table, version and the process's one OrtEnv.
// Kept for the life of the process (ONNX Runtime is not meant to be unloaded).
struct Library {
  const AnyFn* table = nullptr;
  std::string path, version;
  OrtEnv* env = nullptr;
  OrtMemoryInfo* cpu_memory = nullptr;
  OrtAllocator* allocator = nullptr;

  template <typename F>
  F fn(Slot slot) const {
    return reinterpret_cast<F>(table[slot]);
  }

  // nullptr -> OK; otherwise the message, and the OrtStatus is released.
  Status Check(OrtStatus* status, const std::string& context) const {
    if (status == nullptr) return Status::Ok();
    std::string message = fn<GetErrorMessageFn>(kGetErrorMessage)(status);
    fn<ReleaseFn<OrtStatus>>(kReleaseStatus)(status);
    return InternalError(context + ": onnxruntime " + version + ": " + message);
  }
};

bool Exists(const std::string& path) { return !path.empty() && ::access(path.c_str(), R_OK) == 0; }

StatusOr<const Library*> LoadLibrary(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, Library*>* loaded = new std::map<std::string, Library*>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded->find(path);
  if (it != loaded->end()) return static_cast<const Library*>(it->second);

  if (!Exists(path)) {
    return NotFoundError(path + ": ONNX Runtime library not found (run scripts/fetch_models.sh, or set " +
                         "RILL_ONNXRUNTIME_LIB to a libonnxruntime.so.1)");
  }
  // A path without a slash would make dlopen search the system's directories.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return FailedPreconditionError(path + ": cannot load ONNX Runtime: " + (why ? why : "dlopen failed"));
  }
  void* symbol = ::dlsym(handle, "OrtGetApiBase");
  if (symbol == nullptr) {
    return FailedPreconditionError(path + ": not an ONNX Runtime library (no OrtGetApiBase symbol)");
  }
  const ApiBase* (*get_api_base)() = nullptr;
  static_assert(sizeof(get_api_base) == sizeof(symbol), "function and object pointers differ in size");
  std::memcpy(&get_api_base, &symbol, sizeof(symbol));
  const ApiBase* base = get_api_base();
  if (base == nullptr || base->get_version_string == nullptr || base->get_api == nullptr) {
    return FailedPreconditionError(path + ": OrtGetApiBase() returned no API");
  }
  auto lib = std::make_unique<Library>();
  lib->path = path;
  lib->version = base->get_version_string();
  const std::string expected = std::string(kExpectedVersion) + ".";
  if (lib->version.rfind(expected, 0) != 0 && lib->version != kExpectedVersion) {
    return FailedPreconditionError(path + ": ONNX Runtime " + lib->version + ", expected " + kExpectedVersion +
                                   ".x (the C API slots used here are checked against that release)");
  }
  const void* api = base->get_api(kApiVersion);
  if (api == nullptr) {
    return FailedPreconditionError(path + ": ONNX Runtime " + lib->version + " does not offer C API version " +
                                   std::to_string(kApiVersion));
  }
  lib->table = static_cast<const AnyFn*>(api);
  RILL_INF_RETURN_IF_ERROR(
      lib->Check(lib->fn<CreateEnvFn>(kCreateEnv)(kLoggingLevelError, "rill", &lib->env), path + ": CreateEnv"));
  RILL_INF_RETURN_IF_ERROR(lib->Check(
      lib->fn<CreateCpuMemoryInfoFn>(kCreateCpuMemoryInfo)(kArenaAllocator, kMemTypeDefault, &lib->cpu_memory),
      path + ": CreateCpuMemoryInfo"));
  RILL_INF_RETURN_IF_ERROR(lib->Check(lib->fn<GetAllocatorFn>(kGetAllocatorWithDefaultOptions)(&lib->allocator),
                                      path + ": GetAllocatorWithDefaultOptions"));
  Library* raw = lib.release();
  (*loaded)[path] = raw;
  return static_cast<const Library*>(raw);
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

struct OrtRunner::Handles {
  const Library* lib = nullptr;
  OrtSessionOptions* options = nullptr;
  OrtSession* session = nullptr;
};

OutputDiff DiffOutputs(const float* got, const float* want, size_t n) {
  OutputDiff d;
  if (n == 0) return d;
  double lo = want[0], hi = want[0];
  for (size_t i = 1; i < n; ++i) {
    lo = std::min(lo, static_cast<double>(want[i]));
    hi = std::max(hi, static_cast<double>(want[i]));
  }
  d.range = hi - lo;
  const double magnitude = std::max(std::fabs(lo), std::fabs(hi));
  d.scale = d.range > 0 ? d.range : magnitude > 0 ? magnitude : 1.0;
  for (size_t i = 0; i < n; ++i) {
    const double e = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    d.max_abs = std::isfinite(e) ? std::max(d.max_abs, e) : INFINITY;
  }
  return d;
}

std::string DefaultLibraryPath() {
  const std::string rel = "third_party/onnxruntime/libonnxruntime.so.1";
  if (const char* env = std::getenv("RILL_ONNXRUNTIME_LIB"); env != nullptr && *env) return env;
  if (Exists(rel)) return rel;
  std::vector<std::string> roots;
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var); dir != nullptr && *dir) roots.push_back(std::string(dir) + "/rill/");
  }
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) roots.push_back(std::string(exe, n) + ".runfiles/rill/");
  for (const std::string& root : roots) {
    if (Exists(root + rel)) return root + rel;
  }
  return rel;
}

StatusOr<std::unique_ptr<OrtRunner>> OrtRunner::Create(const std::string& model_path, const OrtOptions& options) {
  if (!Exists(model_path)) return NotFoundError(model_path + ": cannot open model file");
  const std::string library = options.library.empty() ? DefaultLibraryPath() : options.library;
  RILL_INF_ASSIGN_OR_RETURN(const Library* lib, LoadLibrary(library));

  std::unique_ptr<OrtRunner> runner(new OrtRunner());
  runner->model_path_ = model_path;
  runner->version_ = lib->version;
  runner->h_ = std::make_unique<Handles>();
  Handles& h = *runner->h_;
  h.lib = lib;
  const std::string ctx = model_path;
  RILL_INF_RETURN_IF_ERROR(
      lib->Check(lib->fn<CreateSessionOptionsFn>(kCreateSessionOptions)(&h.options), ctx + ": CreateSessionOptions"));
  RILL_INF_RETURN_IF_ERROR(lib->Check(
      lib->fn<SetOptionIntFn>(kSetIntraOpNumThreads)(h.options, options.intra_op_threads < 1 ? 1 : options.intra_op_threads),
      ctx + ": SetIntraOpNumThreads"));
  RILL_INF_RETURN_IF_ERROR(
      lib->Check(lib->fn<SetOptionIntFn>(kSetInterOpNumThreads)(h.options, 1), ctx + ": SetInterOpNumThreads"));
  RILL_INF_RETURN_IF_ERROR(lib->Check(lib->fn<SetOptionIntFn>(kSetSessionExecutionMode)(h.options, kExecutionSequential),
                                      ctx + ": SetSessionExecutionMode"));
  RILL_INF_RETURN_IF_ERROR(
      lib->Check(lib->fn<SetOptionIntFn>(kSetSessionGraphOptimizationLevel)(h.options, kGraphOptimizationAll),
                 ctx + ": SetSessionGraphOptimizationLevel"));
  if (!options.profile_prefix.empty()) {
    RILL_INF_RETURN_IF_ERROR(lib->Check(
        lib->fn<EnableProfilingFn>(kEnableProfiling)(h.options, options.profile_prefix.c_str()), ctx + ": EnableProfiling"));
  }
  RILL_INF_RETURN_IF_ERROR(lib->Check(
      lib->fn<CreateSessionFn>(kCreateSession)(lib->env, model_path.c_str(), h.options, &h.session), ctx));

  // Names, element types and shapes of the inputs and outputs.
  for (int io = 0; io < 2; ++io) {
    const bool is_input = io == 0;
    const char* what = is_input ? "input" : "output";
    size_t count = 0;
    RILL_INF_RETURN_IF_ERROR(lib->Check(
        lib->fn<SessionCountFn>(is_input ? kSessionGetInputCount : kSessionGetOutputCount)(h.session, &count),
        ctx + ": " + what + " count"));
    std::vector<TensorSpec>& specs = is_input ? runner->inputs_ : runner->outputs_;
    for (size_t i = 0; i < count; ++i) {
      TensorSpec spec;
      char* name = nullptr;
      RILL_INF_RETURN_IF_ERROR(lib->Check(
          lib->fn<SessionNameFn>(is_input ? kSessionGetInputName : kSessionGetOutputName)(h.session, i, lib->allocator,
                                                                                          &name),
          ctx + ": " + what + " name"));
      spec.name = name ? name : "";
      if (name) (void)lib->Check(lib->fn<AllocatorFreeFn>(kAllocatorFree)(lib->allocator, name), ctx);
      OrtTypeInfo* type_info = nullptr;
      RILL_INF_RETURN_IF_ERROR(lib->Check(
          lib->fn<SessionTypeInfoFn>(is_input ? kSessionGetInputTypeInfo : kSessionGetOutputTypeInfo)(h.session, i,
                                                                                                      &type_info),
          ctx + ": " + what + " " + spec.name + " type"));
      const OrtTensorTypeAndShapeInfo* tensor_info = nullptr;
      Status s = lib->Check(lib->fn<CastTypeInfoToTensorInfoFn>(kCastTypeInfoToTensorInfo)(type_info, &tensor_info),
                            ctx + ": " + what + " " + spec.name);
      size_t rank = 0;
      if (s.ok() && tensor_info == nullptr) {
        s = UnimplementedError(ctx + ": " + what + " " + spec.name + " is not a tensor");
      }
      if (s.ok()) {
        s = lib->Check(lib->fn<GetTensorElementTypeFn>(kGetTensorElementType)(tensor_info, &spec.element_type), ctx);
      }
      if (s.ok()) s = lib->Check(lib->fn<GetDimensionsCountFn>(kGetDimensionsCount)(tensor_info, &rank), ctx);
      if (s.ok()) {
        spec.shape.resize(rank);
        s = lib->Check(lib->fn<GetDimensionsFn>(kGetDimensions)(tensor_info, spec.shape.data(), rank), ctx);
      }
      lib->fn<ReleaseFn<OrtTypeInfo>>(kReleaseTypeInfo)(type_info);
      RILL_INF_RETURN_IF_ERROR(s);
      specs.push_back(std::move(spec));
    }
  }
  return runner;
}

OrtRunner::~OrtRunner() {
  if (!h_) return;
  if (h_->session) h_->lib->fn<ReleaseFn<OrtSession>>(kReleaseSession)(h_->session);
  if (h_->options) h_->lib->fn<ReleaseFn<OrtSessionOptions>>(kReleaseSessionOptions)(h_->options);
}

Status OrtRunner::Run(const std::vector<OrtTensor>& inputs, std::vector<OrtTensor>* outputs) {
  const Library* lib = h_->lib;
  const std::string& ctx = model_path_;
  if (inputs.size() != inputs_.size()) {
    return InvalidArgumentError(ctx + ": the model has " + std::to_string(inputs_.size()) + " inputs, " +
                                std::to_string(inputs.size()) + " given");
  }
  std::vector<OrtValue*> values(inputs.size(), nullptr), results(outputs_.size(), nullptr);
  auto release_all = [&] {
    for (OrtValue*& v : values) {
      if (v) lib->fn<ReleaseFn<OrtValue>>(kReleaseValue)(v), v = nullptr;
    }
    for (OrtValue*& v : results) {
      if (v) lib->fn<ReleaseFn<OrtValue>>(kReleaseValue)(v), v = nullptr;
    }
  };
  std::vector<const char*> input_names, output_names;
  Status s;
  for (size_t i = 0; i < inputs.size() && s.ok(); ++i) {
    const OrtTensor& t = inputs[i];
    int64_t n = 1;
    for (int64_t d : t.shape) n = d < 0 ? -1 : n * d;
    if (n < 0 || static_cast<size_t>(n) != t.data.size()) {
      s = InvalidArgumentError(ctx + ": input " + t.name + " has shape " + ShapeString(t.shape) + " and " +
                               std::to_string(t.data.size()) + " values");
      break;
    }
    input_names.push_back(t.name.c_str());
    // ONNX Runtime reads but does not write an input it wraps.
    s = lib->Check(lib->fn<CreateTensorWithDataFn>(kCreateTensorWithDataAsOrtValue)(
                       lib->cpu_memory, const_cast<float*>(t.data.data()), t.data.size() * sizeof(float),
                       t.shape.data(), t.shape.size(), kElementFloat, &values[i]),
                   ctx + ": input " + t.name);
  }
  for (const TensorSpec& o : outputs_) output_names.push_back(o.name.c_str());
  if (s.ok()) {
    s = lib->Check(lib->fn<RunFn>(kRun)(h_->session, nullptr, input_names.data(), values.data(), values.size(),
                                        output_names.data(), output_names.size(), results.data()),
                   ctx + ": Run");
  }
  if (s.ok()) outputs->assign(outputs_.size(), OrtTensor());
  for (size_t i = 0; i < results.size() && s.ok(); ++i) {
    OrtTensor& out = (*outputs)[i];
    out.name = outputs_[i].name;
    OrtTensorTypeAndShapeInfo* info = nullptr;
    s = lib->Check(lib->fn<GetTensorTypeAndShapeFn>(kGetTensorTypeAndShape)(results[i], &info), ctx + ": " + out.name);
    if (!s.ok()) break;
    int type = 0;
    size_t rank = 0;
    s = lib->Check(lib->fn<GetTensorElementTypeFn>(kGetTensorElementType)(info, &type), ctx);
    if (s.ok()) s = lib->Check(lib->fn<GetDimensionsCountFn>(kGetDimensionsCount)(info, &rank), ctx);
    if (s.ok()) {
      out.shape.resize(rank);
      s = lib->Check(lib->fn<GetDimensionsFn>(kGetDimensions)(info, out.shape.data(), rank), ctx);
    }
    lib->fn<ReleaseFn<OrtTensorTypeAndShapeInfo>>(kReleaseTensorTypeAndShapeInfo)(info);
    if (!s.ok()) break;
    // Integer and boolean outputs (a detector's labels, NonMaxSuppression's
    // indices) come back as float32, as the engine holds them.
    if (type != kElementFloat && type != kElementInt32 && type != kElementInt64 && type != kElementBool) {
      s = UnimplementedError(ctx + ": output " + out.name + " has ONNX element type " + std::to_string(type) +
                             ", only float32, int32, int64 and bool are supported");
      break;
    }
    int64_t n = 1;
    for (int64_t d : out.shape) n *= d;
    void* data = nullptr;
    s = lib->Check(lib->fn<GetTensorMutableDataFn>(kGetTensorMutableData)(results[i], &data), ctx + ": " + out.name);
    if (s.ok()) {
      out.data.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) {
        if (type == kElementFloat) {
          std::memcpy(&out.data[k], static_cast<const float*>(data) + k, sizeof(float));
        } else if (type == kElementInt64) {
          out.data[k] = static_cast<float>(static_cast<const int64_t*>(data)[k]);
        } else if (type == kElementInt32) {
          out.data[k] = static_cast<float>(static_cast<const int32_t*>(data)[k]);
        } else {
          out.data[k] = static_cast<const uint8_t*>(data)[k] != 0 ? 1.0f : 0.0f;
        }
      }
    }
  }
  release_all();
  return s;
}

}  // namespace rill::inference::ort
