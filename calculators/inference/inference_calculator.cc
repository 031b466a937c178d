// InferenceCalculator runs a model with Rill's inference engine (//inference)
// on each packet of tensors, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "InferenceCalculator"
//     input_stream: "TENSORS:input_tensors"      # std::vector<Tensor>
//     output_stream: "TENSORS:output_tensors"    # std::vector<Tensor>
//     options { [mediapipe.InferenceCalculatorOptions.ext] {
//       model_path: "third_party/models/face_detection_short_range.tflite"
//       delegate { xnnpack { num_threads: 2 } } } }
//   }
//
// The model comes from the MODEL side packet (a path as std::string, or an
// already loaded std::shared_ptr<const inference::Model>, which
// TfLiteModelCalculator makes) or model_path. OP_RESOLVER and
// CUSTOM_OP_RESOLVER side packets (TfLiteCustomOpResolverCalculator) are
// accepted and ignored: the engine has MediaPipe's custom ops built in.
// .tflite and .onnx files load (the engine tells the format by content).
// Delegates map to the engine's backends: tflite and xnnpack run the CPU
// backend with its fastest kernels; gpu (and the deprecated use_gpu) runs the
// OpenCL backend where there is a device, else the CPU with a warning; nnapi,
// which the engine does not have, runs on the CPU (logged once). Rill's
// `backend` option names a backend that must be there ("cpu", "opencl",
// "vulkan"), and `node_backend`
// places nodes of the model one by one. Threads: xnnpack.num_threads, else
// cpu_num_thread, else 1.
//
// The session is planned once in Open; every Process copies the inputs in,
// runs (allocation-free) and copies the outputs out (the engine reuses its
// arena on the next run, so outputs cannot alias it). Input tensors must
// match the model's input shapes and be float32; a mismatch is an error that
// names the node, the model file and both shapes.
//
// Also registered as InferenceCalculatorCpu, InferenceCalculatorXnnpack and
// TfLiteInferenceCalculator, names MediaPipe graphs use.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "calculators/inference/inference_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/tensor.h"
#include "glog/logging.h"
#include "rill/inference/inference.h"

namespace rill {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kModelTag[] = "MODEL";

absl::StatusCode ToAbslCode(inference::StatusCode code) {
  switch (code) {
    case inference::StatusCode::kOk:
      return absl::StatusCode::kOk;
    case inference::StatusCode::kInvalidArgument:
      return absl::StatusCode::kInvalidArgument;
    case inference::StatusCode::kNotFound:
      return absl::StatusCode::kNotFound;
    case inference::StatusCode::kUnimplemented:
      return absl::StatusCode::kUnimplemented;
    case inference::StatusCode::kDataLoss:
      return absl::StatusCode::kDataLoss;
    case inference::StatusCode::kFailedPrecondition:
      return absl::StatusCode::kFailedPrecondition;
    case inference::StatusCode::kOutOfRange:
      return absl::StatusCode::kOutOfRange;
    case inference::StatusCode::kInternal:
      return absl::StatusCode::kInternal;
    case inference::StatusCode::kUnavailable:
      return absl::StatusCode::kUnavailable;
  }
  return absl::StatusCode::kUnknown;
}

std::string ShapeString(const std::vector<int>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// Shapes equal up to leading 1s ([128,128,3] feeds [1,128,128,3]).
bool SameShape(std::vector<int> a, std::vector<int> b) {
  while (a.size() > 1 && a.front() == 1) a.erase(a.begin());
  while (b.size() > 1 && b.front() == 1) b.erase(b.begin());
  return a == b;
}

}  // namespace

class InferenceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    cc->Outputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    if (cc->InputSidePackets().HasTag(kModelTag)) {
      cc->InputSidePackets().Tag(kModelTag).SetAny();
    }
    // MediaPipe's graphs pass the custom-op resolver of
    // TfLiteCustomOpResolverCalculator; the engine has those ops built in,
    // so the packet is accepted and not read.
    for (const char* tag : {"OP_RESOLVER", "CUSTOM_OP_RESOLVER"}) {
      if (cc->InputSidePackets().HasTag(tag)) {
        cc->InputSidePackets().Tag(tag).SetAny().Optional();
      }
    }
    const auto& o = cc->Options<InferenceCalculatorOptions>();
    if (!cc->InputSidePackets().HasTag(kModelTag) && o.model_path().empty()) {
      return absl::InvalidArgumentError(
          "InferenceCalculator needs a model: set "
          "InferenceCalculatorOptions.model_path or a MODEL side packet");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& o = cc->Options<InferenceCalculatorOptions>();
    node_ = absl::StrCat("InferenceCalculator node \"", cc->NodeName(), "\"");
    std::shared_ptr<const inference::Model> model;
    std::string path = o.model_path();
    if (cc->InputSidePackets().HasTag(kModelTag) &&
        !cc->InputSidePackets().Tag(kModelTag).IsEmpty()) {
      const Packet& p = cc->InputSidePackets().Tag(kModelTag);
      if (p.Holds<std::string>()) {
        path = p.Get<std::string>();
      } else if (p.Holds<std::shared_ptr<const inference::Model>>()) {
        model = p.Get<std::shared_ptr<const inference::Model>>();
        path = model->source();
        if (o.input_shape_size() > 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              node_, ": input_shape applies when the calculator loads the "
                     "model; the MODEL side packet holds a loaded model \"",
              path, "\" (load it with LoadOptions::input_shapes instead)"));
        }
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            node_,
            ": the MODEL side packet must hold a path (std::string) or "
            "a std::shared_ptr<const rill::inference::Model>, got ",
            p.DebugTypeName()));
      }
    }
    if (model == nullptr) {
      auto resolved = cc->ResourcePath(path, "model file");
      if (!resolved.ok()) {
        return absl::Status(
            resolved.status().code(),
            absl::StrCat(resolved.status().message(),
                         " (scripts/fetch_models.sh fetches the MediaPipe "
                         "models into third_party/models/)"));
      }
      path = *resolved;
    }
    model_file_ = path;
    if (model == nullptr) {
      inference::LoadOptions load;
      for (const auto& s : o.input_shape()) {
        load.input_shapes[s.name()] =
            std::vector<int>(s.dims().begin(), s.dims().end());
      }
      auto loaded = inference::Model::FromFile(path, load);
      if (!loaded.ok()) {
        return absl::Status(ToAbslCode(loaded.status().code()),
                            absl::StrCat(node_, ": cannot load model \"", path,
                                         "\": ", loaded.status().message()));
      }
      model = *loaded;
    }

    inference::SessionConfig config;
    config.backend = inference::kCpuBackend;
    config.algorithm = inference::AlgorithmPolicy::kAuto;
    int threads = o.cpu_num_thread();
    const auto& d = o.delegate();
    if (d.has_xnnpack() && d.xnnpack().num_threads() > 0) {
      threads = d.xnnpack().num_threads();
    }
    config.num_threads = threads > 0 ? threads : 1;
    if (o.fp16_weights() && o.bf16()) {
      return absl::InvalidArgumentError(absl::StrCat(
          node_, ": fp16_weights and bf16 are two precisions; set one"));
    }
    if (o.fp16_weights()) config.precision = inference::Precision::kFp16;
    if (o.bf16()) config.precision = inference::Precision::kBf16;
    config.bf16_even_if_slower = o.bf16_even_if_slower();
    // MediaPipe's graphs still set the deprecated use_gpu / use_nnapi.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const bool use_gpu = o.use_gpu(), use_nnapi = o.use_nnapi();
#pragma GCC diagnostic pop
    const bool gpu_if_present = o.backend().empty() && (d.has_gpu() || use_gpu);
    if (gpu_if_present) {
      // OpenCL, else Vulkan (the engine logs which), else the CPU (below).
      config.backend = inference::kGpuBackend;
      if (d.has_gpu() && d.gpu().api() == InferenceCalculatorOptions::Delegate::Gpu::OPENGL) {
        LOG_FIRST_N(INFO, 1) << node_ << ": the engine has no OpenGL backend; running on OpenCL (else Vulkan)";
      }
    } else if (d.has_nnapi() || use_nnapi) {
      LOG_FIRST_N(INFO, 1) << node_ << ": the engine has no NNAPI backend; running \"" << path << "\" on the CPU";
    }
    if (!o.backend().empty()) config.backend = o.backend();
    for (const auto& nb : o.node_backend()) config.node_backends[nb.node()] = nb.backend();
    if (o.max_memory_mb() > 0) config.max_memory_bytes = static_cast<size_t>(o.max_memory_mb()) << 20;
    if (o.input_output_config().feedback_tensor_links_size() > 0) {
      return absl::UnimplementedError(absl::StrCat(
          node_,
          ": input_output_config.feedback_tensor_links is not supported"));
    }
    auto session = inference::Session::Create(model, config);
    if (!session.ok() && gpu_if_present && session.status().code() == inference::StatusCode::kUnavailable) {
      LOG(WARNING) << node_ << ": no GPU for the gpu delegate, running \"" << path
                   << "\" on the CPU: " << session.status().message();
      config.backend = inference::kCpuBackend;
      session = inference::Session::Create(model, config);
    }
    if (!session.ok()) {
      return absl::Status(ToAbslCode(session.status().code()),
                          absl::StrCat(node_, ": cannot plan model \"", path,
                                       "\": ", session.status().message()));
    }
    session_ = std::move(*session);
    {
      // "model.tflite on opencl (62 layers), cpu (2 layers)": the backends
      // the layers really run on, after any fallback.
      std::map<std::string, int> layers;
      for (const auto& l : session_->Layers()) ++layers[l.backend];
      std::string where;
      for (const auto& [backend, n] : layers) {
        absl::StrAppend(&where, where.empty() ? "" : ", ", backend, " (", n, n == 1 ? " layer)" : " layers)");
      }
      const std::string base = path.substr(path.find_last_of('/') + 1);
      const bool on_asked = layers.count(config.backend) > 0 ||
                            (config.backend == inference::kGpuBackend && (layers.count("opencl") || layers.count("vulkan")));
      cc->SetReport(absl::StrCat(base, " on ", where,
                                 config.backend != inference::kCpuBackend && !on_asked
                                     ? absl::StrCat(" (asked for ", config.backend, ")")
                                     : ""));
      if (config.backend != inference::kCpuBackend || !config.node_backends.empty()) {
        LOG(INFO) << node_ << ": \"" << path << "\" layers: " << where;
      }
    }
    RILL_RETURN_IF_ERROR(BuildTensorMaps(o));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& inputs =
        cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    const int n_in = session_->num_inputs();
    if (static_cast<int>(inputs.size()) != n_in) {
      return absl::InvalidArgumentError(absl::StrCat(
          node_, ": got ", inputs.size(), " input tensors but model \"",
          model_file_, "\" has ", n_in, " inputs"));
    }
    for (int i = 0; i < n_in; ++i) {
      const Tensor& t = inputs[i];
      inference::Tensor* in = session_->input(input_map_[i]);
      if (!SameShape(t.shape().dims, in->shape())) {
        return absl::InvalidArgumentError(absl::StrCat(
            node_, ": input tensor ", i, " has shape ",
            ShapeString(t.shape().dims), " but model \"", model_file_,
            "\" input \"", in->name(), "\" expects ", ShapeString(in->shape()),
            " (check the ImageToTensorCalculator output size against the "
            "model)"));
      }
      if (in->dtype() != inference::DataType::kFloat32 ||
          t.element_type() != Tensor::ElementType::kFloat32) {
        return absl::InvalidArgumentError(absl::StrCat(
            node_, ": input tensor ", i, " is ",
            Tensor::ElementTypeName(t.element_type()), " but model \"",
            model_file_, "\" input \"", in->name(), "\" is ",
            inference::DataTypeName(in->dtype()),
            " (only float32 inputs are supported)"));
      }
      std::memcpy(in->data(), t.raw_data(), t.bytes());
    }
    inference::Status run = session_->Run();
    if (!run.ok()) {
      return absl::Status(ToAbslCode(run.code()),
                          absl::StrCat(node_, ": running model \"", model_file_,
                                       "\": ", run.message()));
    }
    std::vector<Tensor> outputs;
    outputs.reserve(output_map_.size());
    for (int index : output_map_) {
      const inference::Tensor* out = session_->output(index);
      if (out->dtype() != inference::DataType::kFloat32) {
        return absl::UnimplementedError(absl::StrCat(
            node_, ": model \"", model_file_, "\" output \"", out->name(),
            "\" is ", inference::DataTypeName(out->dtype()),
            " (only float32 outputs are supported)"));
      }
      Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape(out->shape()));
      std::memcpy(t.mutable_raw_data(), out->data(), out->byte_size());
      outputs.push_back(std::move(t));
    }
    cc->Outputs()
        .Tag(kTensorsTag)
        .AddPacket(MakePacket<std::vector<Tensor>>(std::move(outputs))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  // The model index of each calculator input and output (identity unless
  // input_output_config reorders them).
  absl::Status BuildTensorMaps(const InferenceCalculatorOptions& o) {
    const auto& io = o.input_output_config();
    auto build = [&](bool input, std::vector<int>* map) -> absl::Status {
      const int n = input ? session_->num_inputs() : session_->num_outputs();
      map->clear();
      const bool by_index = input ? io.has_input_tensor_indices_map()
                                  : io.has_output_tensor_indices_map();
      const bool by_name = input ? io.has_input_tensor_names_map()
                                 : io.has_output_tensor_names_map();
      const char* what = input ? "input" : "output";
      if (by_index) {
        const auto& idx = input ? io.input_tensor_indices_map()
                                : io.output_tensor_indices_map();
        for (int i : idx.model_tensor_indices()) {
          if (i < 0 || i >= n) {
            return absl::InvalidArgumentError(
                absl::StrCat(node_, ": ", what, " tensor index ", i,
                             " is out of range; "
                             "model \"",
                             model_file_, "\" has ", n, " ", what, "s"));
          }
          map->push_back(i);
        }
      } else if (by_name) {
        const auto& names =
            input ? io.input_tensor_names_map() : io.output_tensor_names_map();
        for (const std::string& name : names.tensor_names()) {
          int found = -1;
          for (int i = 0; i < n; ++i) {
            const std::string& tn = input ? session_->input(i)->name()
                                          : session_->output(i)->name();
            if (tn == name) found = i;
          }
          if (found < 0) {
            return absl::InvalidArgumentError(
                absl::StrCat(node_, ": model \"", model_file_, "\" has no ",
                             what, " tensor named \"", name, "\""));
          }
          map->push_back(found);
        }
      } else {
        for (int i = 0; i < n; ++i) map->push_back(i);
      }
      if (static_cast<int>(map->size()) != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            node_, ": the ", what, " tensor map names ", map->size(),
            " tensors but model \"", model_file_, "\" has ", n));
      }
      return absl::OkStatus();
    };
    RILL_RETURN_IF_ERROR(build(true, &input_map_));
    return build(false, &output_map_);
  }

  std::string node_;
  std::string model_file_;
  std::unique_ptr<inference::Session> session_;
  std::vector<int> input_map_, output_map_;
};

static const bool kRegistered [[maybe_unused]] =
    RegisterCalculator<InferenceCalculator>("InferenceCalculator", __FILE__) &&
    RegisterCalculator<InferenceCalculator>("InferenceCalculatorCpu",
                                            __FILE__) &&
    RegisterCalculator<InferenceCalculator>("InferenceCalculatorXnnpack",
                                            __FILE__) &&
    RegisterCalculator<InferenceCalculator>("TfLiteInferenceCalculator",
                                            __FILE__);

}  // namespace rill
