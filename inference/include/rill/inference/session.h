// A session runs one model. Creating or resizing a session does all the work
// that can be done ahead of a run: it infers every tensor's shape, picks a
// kernel per layer, and plans one arena for all activations from the tensors'
// lifetimes. Run() then only executes kernels: it makes no heap allocation
// and takes no decision.
//
//   auto model = Model::FromFile("face_detection_short_range.tflite");
//   auto session = Session::Create(*model, SessionConfig{});
//   Tensor* in = (*session)->input(0);      // fill in->data_as<float>()
//   (*session)->Run();
//   const Tensor* scores = (*session)->output("classificators");
#ifndef RILL_INFERENCE_SESSION_H_
#define RILL_INFERENCE_SESSION_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rill/inference/config.h"
#include "rill/inference/model.h"
#include "rill/inference/status.h"
#include "rill/inference/tensor.h"

namespace rill::inference {

// One node as planned, for tools (`rill model info`, profiles).
struct LayerInfo {
  std::string name;
  std::string op;      // "CONV_2D"
  std::string kernel;  // "conv2d_gemm_avx2"
  Shape output_shape;
  int64_t macs = 0;    // multiply-accumulates of conv / FC layers
  std::string backend;  // where it runs: "cpu", "cpu_device" (after any fallback)
};

// One task of a traced run (Session::set_tracing): a node's execution or a
// transfer, on a stream (0: the calling thread), in microseconds since the
// run began. `finish_us` > end_us marks a device task after which the
// backend waited for its queue (EndRun): the device worked until then.
struct TaskSpan {
  std::string name;     // node name, or "copy_to_host(opencl)" ...
  std::string kernel;   // execution name
  std::string backend;
  int stream = 0;
  double start_us = 0, end_us = 0, finish_us = 0;
};

class Session {
 public:
  static StatusOr<std::unique_ptr<Session>> Create(std::shared_ptr<const Model> model,
                                                   const SessionConfig& config = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Gives inputs new shapes (by input name) and re-plans: shapes, kernels,
  // arena. Inputs not named keep their shapes. Tensor pointers stay valid but
  // their data pointers move. A model whose graph was built for its input
  // shapes (ONNX: Model::specialized_to_input_shapes, symbolic dims among
  // them) is imported again at the new shapes (Model::WithInputShapes) and
  // that graph planned from scratch: about a load plus a Create; a resize
  // back to the shapes the session was created with only re-plans. Errors
  // name the input and dimension: a shape the model cannot take (the import
  // at it fails; the session stays planned as it was), or a model that kept
  // no bytes to import again (LoadOptions::keep_source_for_resize).
  Status Resize(const std::map<std::string, Shape>& input_shapes);

  // Runs the model on the current inputs. Allocation-free.
  Status Run();
  // Runs like Run() and writes each node's wall time in milliseconds.
  Status RunProfiled(std::vector<double>* node_ms);

  // State carried from one run to the next: a TFLite model's variable
  // tensors (is_variable, the states of its LSTM and RNN ops), as TFLite's
  // interpreter keeps them. They start at zero; each Run continues from the
  // state the previous one ended with (a streaming model gets one chunk
  // per Run); ResetVariables zeroes them again (a new stream). Resize
  // starts them at zero too. They are neither inputs nor outputs.
  void ResetVariables();
  int num_variables() const;
  std::vector<LayerInfo> Layers() const;

  // Records each task's start and end in the runs that follow (Run stays
  // allocation-free: the slots are planned), read with LastRunTrace.
  void set_tracing(bool on);
  std::vector<TaskSpan> LastRunTrace() const;
  // LastRunTrace as Chrome trace events (chrome://tracing, ui.perfetto.dev):
  // one row per stream.
  std::string LastRunTraceJson() const;

  int num_inputs() const;
  int num_outputs() const;
  Tensor* input(int index);
  const Tensor* output(int index) const;
  // nullptr if the model has no input/output of that name.
  Tensor* input(const std::string& name);
  const Tensor* output(const std::string& name) const;

  // Bytes of the planned activation arena (inputs and outputs included).
  size_t arena_bytes() const;
  // Bytes of the weights the kernels packed or transformed at resize (held
  // beside the model's own weights; SessionConfig::precision kFp16 halves
  // those of the GEMM kernels).
  size_t packed_weight_bytes() const;
  // The kernel chosen for each node, in execution order ("conv2d_ref", ...).
  std::vector<std::string> KernelNames() const;
  const SessionConfig& config() const;

 private:
  class Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_SESSION_H_
