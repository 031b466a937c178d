// Small ONNX models built in a test, run on the engine and on ONNX Runtime:
// how an ONNX op's converter and kernels are tested against the reference
// runtime without files fetched beforehand.
//
//   OnnxGraph g;
//   g.Input("x", {2, 3, 5});
//   g.Initializer("w", {5, 4}, RandomValues(20));
//   g.Node("MatMul", {"x", "w"}, {"y"});
//   g.Output("y");
//   ExpectMatchesOrt(g, {{"x", {2, 3, 5}, RandomValues(30)}});
//
// The engine runs the model with its optimized (kAuto) and reference kernels
// at 1 and 2 threads; every output must be within `tolerance` of ONNX
// Runtime's, relative to the output's range (ort::DiffOutputs). ONNX
// Runtime's C API reads and writes float32 only: give an op with other
// input or output types Cast nodes around it.
#ifndef RILL_TESTS_INFERENCE_ONNX_OP_TEST_UTIL_H_
#define RILL_TESTS_INFERENCE_ONNX_OP_TEST_UTIL_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include <memory>

#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"

namespace rill::inference::testing {

class OnnxGraph {
 public:
  explicit OnnxGraph(int opset = 17);
  // A float32 graph input of this shape (ONNX's, e.g. NCHW).
  void Input(const std::string& name, const std::vector<int64_t>& shape);
  // Constant tensors.
  void Initializer(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values);
  void Int64Initializer(const std::string& name, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& values);
  onnx::NodeProto* Node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs);
  // A float32 graph output (its shape left to inference).
  void Output(const std::string& name);

  static void Attr(onnx::NodeProto* node, const std::string& name, int64_t value);
  static void Attr(onnx::NodeProto* node, const std::string& name, float value);
  static void Attr(onnx::NodeProto* node, const std::string& name, const std::string& value);
  static void Attr(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& value);

  std::string Serialize() const;

 private:
  onnx::ModelProto model_;
};

// The number of elements of a tensor of this shape.
int64_t Elements(const std::vector<int64_t>& shape);

// Fixed-seed values in [lo, hi).
std::vector<float> RandomValues(size_t n, float lo = -1.0f, float hi = 1.0f, unsigned seed = 1);

// Builds, runs and compares (see above); failures are gtest failures that
// name the model's first node's op type and the output. The model is also
// written to $TEST_UNDECLARED_OUTPUTS_DIR (or the temp dir) for inspection.
void ExpectMatchesOrt(const OnnxGraph& graph, const std::vector<ort::OrtTensor>& inputs,
                      double tolerance = ort::kCompareTolerance);

// The graph loaded by the engine (optimized or not), named `name` in
// messages; null (and a gtest failure) when it does not load.
std::shared_ptr<const Model> LoadOnnxGraph(const OnnxGraph& graph, const std::string& name, bool optimize = true);

// How many nodes of the model's graph have op `op` ("ATTENTION", ...).
int CountOps(const Model& model, const std::string& op);

// Runs the model once on its first input `x` (reference or auto kernels,
// `threads` threads) and returns its first output.
std::vector<float> RunEngine(const Model& model, const std::vector<float>& x, AlgorithmPolicy policy,
                             int threads = 1);

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_ONNX_OP_TEST_UTIL_H_
