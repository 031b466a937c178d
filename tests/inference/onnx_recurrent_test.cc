// ONNX's LSTM, GRU and RNN against ONNX Runtime: every direction, layout
// (steps first and batch first), the optional inputs (biases, initial
// states, peepholes, constant sequence lengths), clip, input_forget,
// linear_before_reset and the other activation functions with their alpha
// and beta; hidden sizes across the GEMM panels' width (10, 40) and batch 1
// (the recurrent product as a GEMV). ExpectMatchesOrt runs the optimized and
// reference kernels at 1 and 2 threads and compares Y, Y_h and Y_c.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference {
namespace {

using testing::ExpectMatchesOrt;
using testing::OnnxGraph;
using testing::RandomValues;

struct Rnn {
  std::string op = "LSTM";
  int steps = 5, batch = 3, input = 7, hidden = 10;
  std::string direction = "forward";
  int layout = 0;
  bool bias = true, initial = false, peephole = false;
  std::vector<int64_t> lens;  // constant sequence_lens (empty: none)
  float clip = 0.0f;
  bool input_forget = false, linear_before_reset = false;
  std::vector<std::string> activations;
  std::vector<float> alpha, beta;
  unsigned seed = 1;
};

int Gates(const std::string& op) { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }

// The model and its inputs (X and, with `initial`, initial_h / initial_c).
// ONNX Runtime has no layout 1 (batch first): `emulate` builds that model
// as layout 0 between TRANSPOSEs, the same inputs and outputs.
OnnxGraph Build(const Rnn& r, std::vector<ort::OrtTensor>* inputs, bool emulate = false) {
  const int d = r.direction == "bidirectional" ? 2 : 1, g = Gates(r.op);
  OnnxGraph graph;
  const std::vector<int64_t> xs = r.layout == 0 ? std::vector<int64_t>{r.steps, r.batch, r.input}
                                                : std::vector<int64_t>{r.batch, r.steps, r.input};
  graph.Input("x", xs);
  inputs->push_back({"x", xs, RandomValues(static_cast<size_t>(r.steps) * r.batch * r.input, -1.0f, 1.0f, r.seed)});
  // Weights scaled so the gates stay away from saturation.
  const float ws = 1.0f / static_cast<float>(r.input), rs = 1.5f / static_cast<float>(r.hidden);
  graph.Initializer("w", {d, g * r.hidden, r.input},
                    RandomValues(static_cast<size_t>(d) * g * r.hidden * r.input, -3.0f * ws, 3.0f * ws, r.seed + 1));
  graph.Initializer("r", {d, g * r.hidden, r.hidden},
                    RandomValues(static_cast<size_t>(d) * g * r.hidden * r.hidden, -rs, rs, r.seed + 2));
  const bool transposes = emulate && r.layout == 1;
  auto steps_first = [&](const std::string& name, const std::vector<int64_t>& perm) {
    if (!transposes) return name;
    OnnxGraph::Attr(graph.Node("Transpose", {name}, {name + "_t"}), "perm", perm);
    return name + "_t";
  };
  std::vector<std::string> in = {steps_first("x", {1, 0, 2}), "w", "r", "", "", ""};
  if (r.bias) {
    graph.Initializer("b", {d, 2 * g * r.hidden}, RandomValues(static_cast<size_t>(d) * 2 * g * r.hidden, -0.5f,
                                                                0.5f, r.seed + 3));
    in[3] = "b";
  }
  if (!r.lens.empty()) {
    // ONNX's sequence_lens is int32.
    graph.Int64Initializer("lens64", {static_cast<int64_t>(r.lens.size())}, r.lens);
    OnnxGraph::Attr(graph.Node("Cast", {"lens64"}, {"lens"}), "to", static_cast<int64_t>(6));
    in[4] = "lens";
  }
  const std::vector<int64_t> ss = r.layout == 0 ? std::vector<int64_t>{d, r.batch, r.hidden}
                                                : std::vector<int64_t>{r.batch, d, r.hidden};
  const size_t state = static_cast<size_t>(d) * r.batch * r.hidden;
  if (r.initial) {
    graph.Input("h0", ss);
    inputs->push_back({"h0", ss, RandomValues(state, -0.8f, 0.8f, r.seed + 4)});
    in[5] = steps_first("h0", {1, 0, 2});
    if (r.op == "LSTM") {
      graph.Input("c0", ss);
      inputs->push_back({"c0", ss, RandomValues(state, -1.5f, 1.5f, r.seed + 5)});
      in.push_back(steps_first("c0", {1, 0, 2}));
    }
  }
  if (r.peephole) {
    if (in.size() == 6) in.push_back("");
    graph.Initializer("p", {d, 3 * r.hidden}, RandomValues(static_cast<size_t>(d) * 3 * r.hidden, -0.5f, 0.5f,
                                                            r.seed + 6));
    in.push_back("p");
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  std::vector<std::string> out = {"y", "y_h"};
  if (r.op == "LSTM") out.push_back("y_c");
  std::vector<std::string> node_out = out;
  if (transposes) {
    for (std::string& o : node_out) o += "_t";
  }
  onnx::NodeProto* n = graph.Node(r.op, in, node_out);
  OnnxGraph::Attr(n, "hidden_size", static_cast<int64_t>(r.hidden));
  OnnxGraph::Attr(n, "direction", r.direction);
  if (r.layout != 0 && !transposes) OnnxGraph::Attr(n, "layout", static_cast<int64_t>(r.layout));
  if (r.clip > 0) OnnxGraph::Attr(n, "clip", r.clip);
  if (r.input_forget) OnnxGraph::Attr(n, "input_forget", static_cast<int64_t>(1));
  if (r.linear_before_reset) OnnxGraph::Attr(n, "linear_before_reset", static_cast<int64_t>(1));
  if (!r.activations.empty()) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("activations");
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& s : r.activations) a->add_strings(s);
  }
  for (const auto& [name, values] : {std::make_pair("activation_alpha", r.alpha), std::make_pair("activation_beta", r.beta)}) {
    if (values.empty()) continue;
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : values) a->add_floats(v);
  }
  if (transposes) {  // Y [S, D, B, H] -> [B, S, D, H]; the states [D, B, H] -> [B, D, H]
    for (size_t i = 0; i < out.size(); ++i) {
      OnnxGraph::Attr(graph.Node("Transpose", {node_out[i]}, {out[i]}), "perm",
                      i == 0 ? std::vector<int64_t>{2, 0, 1, 3} : std::vector<int64_t>{1, 0, 2});
    }
  }
  for (const std::string& o : out) graph.Output(o);
  return graph;
}

// Every output of the model on `inputs`.
std::vector<std::vector<float>> RunAll(const OnnxGraph& g, const std::vector<ort::OrtTensor>& inputs,
                                       AlgorithmPolicy policy) {
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "recurrent.onnx");
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  SessionConfig config;
  config.algorithm = policy;
  auto session = Session::Create(*model, config);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  for (const ort::OrtTensor& in : inputs) {
    Tensor* t = (*session)->input(in.name);
    EXPECT_NE(t, nullptr) << in.name;
    if (t == nullptr || static_cast<size_t>(t->num_elements()) != in.data.size()) return {};
    std::copy(in.data.begin(), in.data.end(), t->data_as<float>());
  }
  EXPECT_TRUE((*session)->Run().ok());
  std::vector<std::vector<float>> outs;
  for (int i = 0; i < (*session)->num_outputs(); ++i) {
    const Tensor* o = (*session)->output(i);
    outs.emplace_back(o->data_as<float>(), o->data_as<float>() + o->num_elements());
  }
  return outs;
}

// Against ONNX Runtime; a batch-first model through its layout-0 twin,
// which must give the same bits on the engine.
void Check(const Rnn& r) {
  std::vector<ort::OrtTensor> inputs;
  const OnnxGraph g = Build(r, &inputs, /*emulate=*/true);
  ExpectMatchesOrt(g, inputs);
  if (r.layout == 1) {
    std::vector<ort::OrtTensor> same;
    const OnnxGraph batch_first = Build(r, &same);
    for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
      const auto want = RunAll(g, inputs, policy);
      ASSERT_EQ(want.size(), r.op == "LSTM" ? 3u : 2u);
      EXPECT_EQ(RunAll(batch_first, same, policy), want) << "layout 1 against its layout-0 twin";
    }
  }
}

TEST(OnnxRecurrentTest, LstmForwardWithStates) {
  Rnn r;
  r.initial = true;
  Check(r);
}

TEST(OnnxRecurrentTest, LstmBidirectionalPeepholes) {
  Rnn r;
  r.direction = "bidirectional";
  r.peephole = true;
  r.initial = true;
  Check(r);
}

TEST(OnnxRecurrentTest, LstmReverseClipInputForgetNoBias) {
  Rnn r;
  r.direction = "reverse";
  r.clip = 0.7f;
  r.input_forget = true;
  r.bias = false;
  Check(r);
}

// A clip below the cell state's size (the initial c in [-1.5, 1.5]): the
// gates' inputs are clipped, h(C) reads the state unclipped (ONNX Runtime;
// clipping C there too differs by 0.26).
TEST(OnnxRecurrentTest, LstmClipBelowTheCellState) {
  Rnn r;
  r.clip = 0.3f;
  r.initial = true;
  r.peephole = true;
  Check(r);
}

TEST(OnnxRecurrentTest, LstmBatchFirstSequenceLengths) {
  for (const char* direction : {"forward", "reverse", "bidirectional"}) {
    SCOPED_TRACE(direction);
    Rnn r;
    r.layout = 1;
    r.direction = direction;
    r.lens = {5, 2, 3};
    r.initial = true;
    Check(r);
  }
}

// Batch 1 (the recurrent product as a GEMV), a hidden size over one panel
// (40 > 32), more steps.
TEST(OnnxRecurrentTest, LstmWideHiddenBatchOne) {
  Rnn r;
  r.steps = 12;
  r.batch = 1;
  r.input = 33;
  r.hidden = 40;
  r.direction = "bidirectional";
  Check(r);
}

TEST(OnnxRecurrentTest, LstmOtherActivations) {
  Rnn r;
  r.activations = {"HardSigmoid", "ScaledTanh", "Softsign"};
  r.alpha = {0.25f, 0.9f};
  r.beta = {0.45f, 1.2f};
  Check(r);
}

TEST(OnnxRecurrentTest, GruBothResets) {
  for (bool lbr : {false, true}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      SCOPED_TRACE(std::string(direction) + (lbr ? " linear_before_reset" : ""));
      Rnn r;
      r.op = "GRU";
      r.linear_before_reset = lbr;
      r.direction = direction;
      r.initial = std::string(direction) != "forward";
      r.hidden = lbr ? 10 : 40;
      Check(r);
    }
  }
}

TEST(OnnxRecurrentTest, GruBatchFirstLengthsClipActivations) {
  Rnn r;
  r.op = "GRU";
  r.layout = 1;
  r.lens = {4, 5, 1};
  r.clip = 1.5f;
  r.activations = {"HardSigmoid", "Elu"};
  r.alpha = {0.3f, 0.8f};
  r.beta = {0.4f};
  r.initial = true;
  Check(r);
}

TEST(OnnxRecurrentTest, RnnDirectionsAndActivations) {
  {
    Rnn r;
    r.op = "RNN";
    r.direction = "bidirectional";
    r.initial = true;
    Check(r);
  }
  {
    Rnn r;
    r.op = "RNN";
    r.activations = {"Relu"};
    r.hidden = 40;
    r.batch = 1;
    Check(r);
  }
  {
    Rnn r;
    r.op = "RNN";
    r.direction = "bidirectional";
    r.activations = {"LeakyRelu", "Affine"};
    r.alpha = {0.1f, 0.7f};
    r.beta = {0.2f};
    r.lens = {3, 5, 4};
    Check(r);
  }
}

// The optimized execution names its GEMM; the reference policy runs the
// reference kernel.
TEST(OnnxRecurrentTest, KernelNames) {
  Rnn r;
  std::vector<ort::OrtTensor> inputs;
  const OnnxGraph g = Build(r, &inputs);
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "lstm.onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    SessionConfig config;
    config.algorithm = policy;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    std::string kernel;
    for (const LayerInfo& l : (*session)->Layers()) {
      if (l.op == "LSTM") kernel = l.kernel;
    }
    if (policy == AlgorithmPolicy::kReference) {
      EXPECT_EQ(kernel, "lstm_ref");
    } else {
      EXPECT_EQ(kernel.rfind("lstm_gemm_", 0), 0u) << kernel;
    }
  }
}

// W from another node (not a constant) is one clear error naming the node.
TEST(OnnxRecurrentTest, RunTimeWeightsAreUnsupported) {
  OnnxGraph g;
  g.Input("x", {2, 1, 3});
  g.Input("w", {1, 8, 3});
  g.Initializer("r", {1, 8, 2}, RandomValues(16));
  OnnxGraph::Attr(g.Node("LSTM", {"x", "w", "r"}, {"y"}), "hidden_size", static_cast<int64_t>(2));
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "runtime_w.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(model.status().message().find("LSTM"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("W and R computed at run time"), std::string::npos)
      << model.status().message();
}

}  // namespace
}  // namespace rill::inference
