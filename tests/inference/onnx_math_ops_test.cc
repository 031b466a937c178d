// The math and normalization ops (inference/ir/ops/math_ops.h) from ONNX,
// against ONNX Runtime: the unary functions, Gelu, Pow, the variadic Min /
// Max / Sum / Mean and LayerNormalization on odd shapes, broadcasting,
// negative axes and NHWC-held inputs; edge values (NaN, infinities) where ONNX
// Runtime defines them; constant folding; and the GELU and LAYER_NORM fusions
// of the graphs PyTorch 1.13 exports for nn.GELU() and nn.LayerNorm at
// opsets 13 and 17 (same nodes as those exports, rebuilt here).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "inference/ir/ops/math_ops.h"
#include "rill/inference/inference.h"
#include "tests/inference/counting_new.h"  // Session::Run must not allocate
#include "tests/inference/onnx_op_test_util.h"
#include "tests/inference/tflite_test_models.h"


namespace rill::inference::testing {
namespace {

// x of `shape`, one node `op` (attributes set by `attrs`), y.
template <typename F>
void ExpectUnary(const std::string& op, const std::vector<int64_t>& shape, const std::vector<float>& x, F attrs,
                 int opset = 17) {
  SCOPED_TRACE(op);
  OnnxGraph g(opset);
  g.Input("x", shape);
  attrs(g.Node(op, {"x"}, {"y"}));
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", shape, x}});
}
void ExpectUnary(const std::string& op, const std::vector<int64_t>& shape, const std::vector<float>& x,
                 int opset = 17) {
  ExpectUnary(op, shape, x, [](onnx::NodeProto*) {}, opset);
}

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

std::shared_ptr<const Model> Load(const OnnxGraph& g, bool optimize = true) {
  const std::string bytes = g.Serialize();
  LoadOptions options;
  options.optimize = optimize;
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "math_ops_test.onnx", options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

// The op names of the model's (optimized) graph, in order.
std::vector<std::string> Ops(const Model& m) {
  std::vector<std::string> ops;
  for (const ir::Node& n : m.graph().nodes) ops.push_back(ir::OpTypeName(n.type));
  return ops;
}

// ---- unary ------------------------------------------------------------------

TEST(OnnxMathOpsTest, UnaryOpsMatchOrt) {
  const std::vector<int64_t> s = {2, 3, 5};
  const std::vector<float> signed_x = RandomValues(30, -3.0f, 3.0f, 7);
  const std::vector<float> positive = RandomValues(30, 0.05f, 4.0f, 8);
  for (const char* op : {"Exp", "Neg", "Abs", "Tanh", "Erf", "Softplus", "Elu", "Selu"}) ExpectUnary(op, s, signed_x);
  for (const char* op : {"Sqrt", "Log", "Reciprocal"}) ExpectUnary(op, s, positive);
  for (const char* op : {"Sin", "Cos", "Floor", "Ceil", "Round"}) ExpectUnary(op, s, signed_x);
  // Round's halves go to even, as ONNX Runtime's.
  ExpectUnary("Round", {8}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 4.5f});
  // Softplus and Tanh far out (overflow of exp in a naive log(1 + exp(x))).
  ExpectUnary("Softplus", {41}, RandomValues(41, -60.0f, 60.0f, 9));
  ExpectUnary("Tanh", {1, 7, 3, 1}, RandomValues(21, -12.0f, 12.0f, 10));
  ExpectUnary("Elu", s, signed_x, [](onnx::NodeProto* n) { OnnxGraph::Attr(n, "alpha", 0.7f); });
  ExpectUnary("Selu", s, signed_x, [](onnx::NodeProto* n) {
    OnnxGraph::Attr(n, "alpha", 1.3f);
    OnnxGraph::Attr(n, "gamma", 0.8f);
  });
  // Large enough to split over two threads.
  ExpectUnary("Exp", {3, 7000}, RandomValues(21000, -5.0f, 5.0f, 11));
  ExpectUnary("Tanh", {3, 7000}, RandomValues(21000, -5.0f, 5.0f, 12));
}

// The rest of ONNX's elementwise unary ops: each on inputs of its domain,
// the attributed ones with their defaults and with values of their own.
TEST(OnnxMathOpsTest, MoreUnaryOpsMatchOrt) {
  const std::vector<int64_t> s = {2, 3, 5};
  std::vector<float> signed_x = RandomValues(30, -3.0f, 3.0f, 31);
  signed_x[0] = 0.0f;  // Sign of 0
  const std::vector<float> unit = RandomValues(30, -0.95f, 0.95f, 32);
  const std::vector<float> above_one = RandomValues(30, 1.0f, 6.0f, 33);
  for (const char* op : {"Sign", "Softsign", "Atan", "Sinh", "Cosh", "Asinh", "Celu", "ThresholdedRelu", "Shrink"}) {
    ExpectUnary(op, s, signed_x);
  }
  for (const char* op : {"Asin", "Acos", "Atanh"}) ExpectUnary(op, s, unit);
  ExpectUnary("Acosh", s, above_one);
  ExpectUnary("Tan", s, RandomValues(30, -1.4f, 1.4f, 34));
  ExpectUnary("Celu", s, signed_x, [](onnx::NodeProto* n) { OnnxGraph::Attr(n, "alpha", 0.6f); });
  ExpectUnary("ThresholdedRelu", s, signed_x, [](onnx::NodeProto* n) { OnnxGraph::Attr(n, "alpha", -0.4f); });
  ExpectUnary("Shrink", s, signed_x, [](onnx::NodeProto* n) {
    OnnxGraph::Attr(n, "lambd", 1.1f);
    OnnxGraph::Attr(n, "bias", 0.3f);
  });
  // Large enough to split over two threads.
  ExpectUnary("Softsign", {3, 7000}, RandomValues(21000, -5.0f, 5.0f, 35));
}

// LogSoftmax: opset 13's axis (any), opset 11's 2-D view from the axis, the
// log-sum-exp shifted by the maximum (logits of 80 apart stay finite).
TEST(OnnxMathOpsTest, LogSoftmaxMatchesOrt) {
  for (int64_t axis : {-1, 1, 0}) {
    OnnxGraph g(13);
    g.Input("x", {3, 4, 6});
    OnnxGraph::Attr(g.Node("LogSoftmax", {"x"}, {"y"}), "axis", axis);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, 4, 6}, RandomValues(72, -40.0f, 40.0f, 36)}});
  }
  OnnxGraph g(11);
  g.Input("x", {2, 3, 4, 5});
  OnnxGraph::Attr(g.Node("LogSoftmax", {"x"}, {"y"}), "axis", static_cast<int64_t>(1));
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 4, 5}, RandomValues(120, -3.0f, 3.0f, 37)}});
}

// GlobalMaxPool on an NCHW input (through the NHWC layout after a conv) and
// on 3-D and 5-D ones.
TEST(OnnxMathOpsTest, GlobalMaxPoolMatchesOrt) {
  {
    OnnxGraph g(17);
    g.Input("x", {1, 3, 9, 7});
    g.Initializer("w", {5, 3, 3, 3}, RandomValues(135, -0.5f, 0.5f, 38));
    g.Node("Conv", {"x", "w"}, {"c"});
    g.Node("GlobalMaxPool", {"c"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {1, 3, 9, 7}, RandomValues(189, -1.0f, 1.0f, 39)}});
  }
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 4, 11}, std::vector<int64_t>{1, 2, 3, 4, 5}}) {
    OnnxGraph g(17);
    g.Input("x", shape);
    g.Node("GlobalMaxPool", {"x"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", shape, RandomValues(Count(shape), -2.0f, 2.0f, 40)}});
  }
}

// ReduceL1, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp: axes as the
// attribute (opset 17) and as the input (opset 18), negative, all (none
// given), keepdims both ways.
TEST(OnnxMathOpsTest, ComposedReductionsMatchOrt) {
  const std::vector<int64_t> shape = {2, 3, 4, 5};
  for (const char* op : {"ReduceL1", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    const bool positive = std::string(op) == "ReduceLogSum";
    const std::vector<float> x = RandomValues(120, positive ? 0.1f : -20.0f, positive ? 3.0f : 20.0f, 41);
    for (int keep : {0, 1}) {
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1}, std::vector<int64_t>{-1, 0},
                                               std::vector<int64_t>{}}) {
        SCOPED_TRACE(std::string(op) + " keepdims " + std::to_string(keep) + " axes " + std::to_string(axes.size()));
        for (int opset : {17, 18}) {
          OnnxGraph g(opset);
          g.Input("x", shape);
          std::vector<std::string> in = {"x"};
          if (opset == 18 && !axes.empty()) {
            g.Int64Initializer("axes", {static_cast<int64_t>(axes.size())}, axes);
            in.push_back("axes");
          }
          onnx::NodeProto* n = g.Node(op, in, {"y"});
          OnnxGraph::Attr(n, "keepdims", static_cast<int64_t>(keep));
          if (opset == 17 && !axes.empty()) OnnxGraph::Attr(n, "axes", axes);
          g.Output("y");
          ExpectMatchesOrt(g, {{"x", shape, x}});
        }
      }
    }
  }
}

// CumSum along every axis (negative too), exclusive and reverse; a large
// one over two threads; and of a constant, folded.
TEST(OnnxMathOpsTest, CumSumMatchesOrt) {
  const std::vector<int64_t> shape = {3, 4, 5};
  for (int64_t axis : {0, 1, 2, -1}) {
    for (int exclusive : {0, 1}) {
      for (int reverse : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + " exclusive " + std::to_string(exclusive) + " reverse " +
                     std::to_string(reverse));
        OnnxGraph g(17);
        g.Input("x", shape);
        g.Int64Initializer("axis", {}, {axis});
        onnx::NodeProto* n = g.Node("CumSum", {"x", "axis"}, {"y"});
        OnnxGraph::Attr(n, "exclusive", static_cast<int64_t>(exclusive));
        OnnxGraph::Attr(n, "reverse", static_cast<int64_t>(reverse));
        g.Output("y");
        ExpectMatchesOrt(g, {{"x", shape, RandomValues(60, -2.0f, 2.0f, 42)}});
      }
    }
  }
  {
    OnnxGraph g(17);
    g.Input("x", {6, 4000});
    g.Int64Initializer("axis", {}, {1});
    g.Node("CumSum", {"x", "axis"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {6, 4000}, RandomValues(24000, -1.0f, 1.0f, 43)}});
  }
  {
    OnnxGraph g(17);
    g.Input("x", {2, 3});
    g.Initializer("c", {2, 3}, {1, 2, 3, 4, 5, 6});
    g.Int64Initializer("axis", {}, {1});
    OnnxGraph::Attr(g.Node("CumSum", {"c", "axis"}, {"s"}), "reverse", int64_t{1});
    g.Node("Add", {"x", "s"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3}, RandomValues(6, -1.0f, 1.0f, 44)}});
    const auto model = Load(g);
    ASSERT_NE(model, nullptr);
    for (const std::string& op : Ops(*model)) EXPECT_NE(op, "CUMSUM") << "the constant's CumSum folds";
  }
}

TEST(OnnxMathOpsTest, MishAndItsDecompositionMatchOrt) {
  ExpectUnary("Mish", {2, 3, 7}, RandomValues(42, -6.0f, 6.0f, 13), 18);
  // Before opset 18: x * tanh(softplus(x)), kept as it is.
  OnnxGraph g(17);
  g.Input("x", {2, 3, 7});
  g.Node("Softplus", {"x"}, {"sp"});
  g.Node("Tanh", {"sp"}, {"t"});
  g.Node("Mul", {"x", "t"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 7}, RandomValues(42, -6.0f, 6.0f, 14)}});
}

TEST(OnnxMathOpsTest, GeluOpset20MatchesOrt) {
  for (const char* approximate : {"none", "tanh"}) {
    ExpectUnary(
        "Gelu", {3, 11}, RandomValues(33, -5.0f, 5.0f, 15),
        [&](onnx::NodeProto* n) { OnnxGraph::Attr(n, "approximate", std::string(approximate)); }, 20);
  }
  ExpectUnary("Gelu", {2, 9}, RandomValues(18, -5.0f, 5.0f, 16), 20);  // default: none
}

TEST(OnnxMathOpsTest, GeluHandComputed) {
  OnnxGraph g(20);
  g.Input("x", {4});
  g.Node("Gelu", {"x"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    const std::vector<float> y = RunEngine(*m, {0.0f, 1.0f, -1.0f, 3.0f}, p);
    ASSERT_EQ(y.size(), 4u);
    // 0.5 x (1 + erf(x / sqrt(2))): Phi(1) = 0.8413447, Phi(3) = 0.9986501.
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_NEAR(y[1], 0.8413447f, 1e-6f);
    EXPECT_NEAR(y[2], -1.0f * (1.0f - 0.8413447f), 1e-6f);
    EXPECT_NEAR(y[3], 3.0f * 0.9986501f, 1e-5f);
  }
}

// TFLite's GELU builtin (150) with GeluOptions { approximate } (options 116).
flatbuffers::uoffset_t GeluApproximate(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(0), 1, 0);
  return b->EndTable(start);
}

TEST(OnnxMathOpsTest, TfLiteGeluHandComputed) {
  for (bool approximate : {false, true}) {
    SCOPED_TRACE(approximate);
    const std::vector<TfliteTensor> tensors = {{"x", {1, 3}, {}}, {"y", {1, 3}, {}}};
    TfliteOp op{150, "", {0}, {1}};
    if (approximate) {
      op.options_type = 116;
      op.options = GeluApproximate;
    }
    const std::vector<uint8_t> bytes = TfliteModel(tensors, {op}, {1});
    auto m = Model::FromBuffer(bytes.data(), bytes.size(), "gelu.tflite");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(Ops(**m), (std::vector<std::string>{"GELU"}));
    for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
      const std::vector<float> y = RunEngine(**m, {1.0f, -1.0f, 3.0f}, p);
      ASSERT_EQ(y.size(), 3u);
      // Python's math.erf / math.tanh in double.
      const std::vector<float> want = approximate ? std::vector<float>{0.84119199f, -0.15880801f, 2.99636261f}
                                                  : std::vector<float>{0.84134475f, -0.15865525f, 2.99595031f};
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[i], want[i], 2e-6f) << i;
    }
  }
}

// The optimized executions against the reference kernels on odd sizes (tails
// of every loop block), one and two threads: ERF and GELU through the
// rational erf within 1e-6, LAYER_NORM rows in float within 1e-5.
TEST(OnnxMathOpsTest, OptimizedMatchesReferenceOnOddSizes) {
  struct Case {
    const char* op;
    int opset;
    std::vector<int64_t> shape;
    float tolerance;
  };
  for (const Case& k : {Case{"Erf", 17, {37, 129}, 1e-6f}, Case{"Gelu", 20, {7, 4099}, 2e-6f},
                        Case{"Sqrt", 17, {3, 1001}, 0.0f}, Case{"Reciprocal", 17, {5, 17}, 0.0f},
                        Case{"LayerNormalization", 17, {67, 131}, 1e-5f}, Case{"LayerNormalization", 17, {300, 3}, 1e-5f}}) {
    SCOPED_TRACE(std::string(k.op) + " " + std::to_string(k.shape[1]));
    OnnxGraph g(k.opset);
    g.Input("x", k.shape);
    if (std::string(k.op) == "LayerNormalization") {
      const size_t inner = static_cast<size_t>(k.shape[1]);
      g.Initializer("s", {k.shape[1]}, RandomValues(inner, 0.5f, 1.5f, 60));
      g.Initializer("b", {k.shape[1]}, RandomValues(inner, -1.0f, 1.0f, 61));
      g.Node(k.op, {"x", "s", "b"}, {"y"});
    } else {
      g.Node(k.op, {"x"}, {"y"});
    }
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    const float lo = std::string(k.op) == "Sqrt" ? 0.0f : -6.0f;
    const std::vector<float> x = RandomValues(Count(k.shape), lo, 6.0f, 62);
    const std::vector<float> want = RunEngine(*m, x, AlgorithmPolicy::kReference);
    for (int threads : {1, 2}) {
      const std::vector<float> got = RunEngine(*m, x, AlgorithmPolicy::kAuto, threads);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], k.tolerance) << i << " x " << x[i];
    }
  }
}

// An NHWC value (a conv's output) through a unary op and a binary with a
// per-channel constant: the layout follows and the output matches.
TEST(OnnxMathOpsTest, NhwcInputsMatchOrt) {
  OnnxGraph g(17);
  g.Input("x", {1, 3, 5, 6});
  g.Initializer("w", {4, 3, 1, 1}, RandomValues(12, -1.0f, 1.0f, 17));
  g.Node("Conv", {"x", "w"}, {"c"});
  g.Node("Exp", {"c"}, {"e"});
  g.Initializer("p", {1, 4, 1, 1}, {1.0f, 2.0f, 0.5f, 3.0f});
  g.Node("Pow", {"e", "p"}, {"pw"});
  g.Initializer("k", {4, 1, 1}, {0.1f, 0.2f, 0.3f, 0.4f});
  g.Node("Max", {"pw", "k", "e"}, {"mx"});
  OnnxGraph::Attr(g.Node("LayerNormalization", {"mx", "ls"}, {"y"}), "axis", int64_t{1});
  g.Initializer("ls", {4, 5, 6}, RandomValues(120, 0.5f, 1.5f, 18));
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 3, 5, 6}, RandomValues(90, -1.0f, 1.0f, 19)}});
}

// ---- edge values -----------------------------------------------------------

// Runs ONNX Runtime and the engine, both kernels; non-finite outputs must be
// the same (NaN where ONNX Runtime gives NaN, the same infinity), finite ones
// within 1e-5 relative.
void ExpectSameWithNonFinite(const OnnxGraph& g, const std::vector<int64_t>& shape, const std::vector<float>& x) {
  const std::string bytes = g.Serialize();
  const char* dir = std::getenv("TEST_TMPDIR");
  static int counter = 0;
  const std::string path = std::string(dir ? dir : "/tmp") + "/edge_" + std::to_string(counter++) + ".onnx";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto runner = ort::OrtRunner::Create(path);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  std::vector<ort::OrtTensor> expected;
  ASSERT_TRUE((*runner)->Run({{"x", shape, x}}, &expected).ok());
  ASSERT_EQ(expected.size(), 1u);
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    const std::vector<float> y = RunEngine(*m, x, p);
    const std::vector<float>& want = expected[0].data;
    ASSERT_EQ(y.size(), want.size());
    for (size_t i = 0; i < y.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << i << ": x " << x[i % x.size()] << " gives " << y[i];
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(y[i], want[i]) << i;
      } else {
        EXPECT_NEAR(y[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << i;
      }
    }
  }
}

TEST(OnnxMathOpsTest, EdgeValuesMatchOrt) {
  const std::vector<float> x = {0.0f, -0.0f, -1.0f, -8.0f, 2.0f, INFINITY, -INFINITY, 1e-30f, NAN, 100.0f, -100.0f};
  const std::vector<int64_t> shape = {static_cast<int64_t>(x.size())};
  for (const char* op : {"Sqrt", "Log", "Reciprocal", "Exp", "Abs", "Neg", "Tanh", "Erf", "Softplus", "Elu", "Selu",
                         "Gelu", "Mish"}) {
    SCOPED_TRACE(op);
    OnnxGraph g(20);
    g.Input("x", shape);
    g.Node(op, {"x"}, {"y"});
    g.Output("y");
    ExpectSameWithNonFinite(g, shape, x);
  }
  // Pow of negatives: integer exponents are defined, fractional ones NaN.
  for (float e : {2.0f, 3.0f, 0.5f, 1.0f, 1.0f / 3.0f, -1.0f, 0.0f}) {
    SCOPED_TRACE(e);
    OnnxGraph g(17);
    g.Input("x", shape);
    g.Initializer("e", {}, {e});
    g.Node("Pow", {"x", "e"}, {"y"});
    g.Output("y");
    ExpectSameWithNonFinite(g, shape, x);
  }
}

TEST(OnnxMathOpsTest, EdgeValuesHandComputed) {
  OnnxGraph g(17);
  g.Input("x", {4});
  g.Node("Log", {"x"}, {"l"});
  g.Node("Sqrt", {"l"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    // log(0) = -inf, sqrt(-inf) = NaN; log(e^4) = 4, sqrt = 2; log(1) = 0.
    const std::vector<float> y = RunEngine(*m, {0.0f, std::exp(4.0f), 1.0f, INFINITY}, p);
    ASSERT_EQ(y.size(), 4u);
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_NEAR(y[1], 2.0f, 1e-6f);
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[3], INFINITY);
  }
}

// ---- Pow and the variadic ops ---------------------------------------------------

TEST(OnnxMathOpsTest, PowMatchesOrt) {
  const std::vector<float> x = RandomValues(2 * 3 * 4, 0.1f, 3.0f, 20);
  // Constant scalar exponents (the fast paths and a general one).
  for (float e : {2.0f, 0.5f, 1.0f, 3.0f, -1.5f, 2.7f}) {
    SCOPED_TRACE(e);
    OnnxGraph g(17);
    g.Input("x", {2, 3, 4});
    g.Initializer("e", {}, {e});
    g.Node("Pow", {"x", "e"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 4}, x}});
  }
  {  // A broadcast exponent tensor.
    OnnxGraph g(17);
    g.Input("x", {2, 3, 4});
    g.Initializer("e", {4}, {0.0f, 1.0f, 2.5f, -2.0f});
    g.Node("Pow", {"x", "e"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 4}, x}});
  }
  {  // An int64 exponent (Pow's T2), negative base.
    OnnxGraph g(17);
    g.Input("x", {2, 3, 4});
    g.Int64Initializer("e", {1}, {3});
    g.Node("Pow", {"x", "e"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 4}, RandomValues(24, -2.0f, 2.0f, 21)}});
  }
  {  // Both operands activations, broadcast both ways: [3, 1] ^ [2, 1, 4].
    OnnxGraph g(17);
    g.Input("b", {3, 1});
    g.Input("e", {2, 1, 4});
    g.Node("Pow", {"b", "e"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"b", {3, 1}, RandomValues(3, 0.2f, 2.0f, 22)}, {"e", {2, 1, 4}, RandomValues(8, -2, 2, 23)}});
  }
  {  // A constant base to a tensor power.
    OnnxGraph g(17);
    g.Input("e", {5, 3});
    g.Initializer("b", {}, {2.0f});
    g.Node("Pow", {"b", "e"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"e", {5, 3}, RandomValues(15, -3, 3, 24)}});
  }
}

TEST(OnnxMathOpsTest, VariadicMinMaxSumMeanMatchOrt) {
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) {
    SCOPED_TRACE(op);
    {  // One input.
      OnnxGraph g(17);
      g.Input("a", {3, 5});
      g.Node(op, {"a"}, {"y"});
      g.Output("y");
      ExpectMatchesOrt(g, {{"a", {3, 5}, RandomValues(15, -1, 1, 25)}});
    }
    {  // Two of one shape (the loops), large enough for two threads.
      OnnxGraph g(17);
      g.Input("a", {4, 6000});
      g.Input("b", {4, 6000});
      g.Node(op, {"a", "b"}, {"y"});
      g.Output("y");
      ExpectMatchesOrt(g, {{"a", {4, 6000}, RandomValues(24000, -1, 1, 26)},
                           {"b", {4, 6000}, RandomValues(24000, -1, 1, 27)}});
    }
    {  // Three, broadcasting [2, 1, 4], [3, 1], a constant [4] and a scalar.
      OnnxGraph g(17);
      g.Input("a", {2, 1, 4});
      g.Input("b", {3, 1});
      g.Initializer("c", {4}, {0.1f, -0.2f, 0.3f, -0.4f});
      g.Initializer("d", {}, {0.05f});
      g.Node(op, {"a", "b", "c", "d"}, {"y"});
      g.Output("y");
      ExpectMatchesOrt(g, {{"a", {2, 1, 4}, RandomValues(8, -1, 1, 28)}, {"b", {3, 1}, RandomValues(3, -1, 1, 29)}});
    }
    {  // A scalar activation and a tensor (the loops' scalar path).
      OnnxGraph g(17);
      g.Input("a", {});
      g.Input("b", {2, 7});
      g.Node(op, {"a", "b"}, {"y"});
      g.Output("y");
      ExpectMatchesOrt(g, {{"a", {}, {0.25f}}, {"b", {2, 7}, RandomValues(14, -1, 1, 30)}});
    }
  }
}

TEST(OnnxMathOpsTest, VariadicHandComputed) {
  OnnxGraph g(17);
  g.Input("x", {3});
  g.Initializer("c", {3}, {1.0f, -5.0f, 2.0f});
  g.Initializer("d", {1}, {0.5f});
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) g.Node(op, {"x", "c", "d"}, {std::string("y_") + op});
  OnnxGraph::Attr(g.Node("Concat", {"y_Min", "y_Max", "y_Sum", "y_Mean"}, {"y"}), "axis", int64_t{0});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    EXPECT_EQ(RunEngine(*m, {3.0f, 0.0f, -1.0f}, p),
              (std::vector<float>{0.5f, -5.0f, -1.0f, 3.0f, 0.5f, 2.0f, 4.5f, -4.5f, 1.5f, 1.5f, -1.5f, 0.5f}));
  }
  ExpectMatchesOrt(g, {{"x", {3}, {3.0f, 0.0f, -1.0f}}});
}

// Session::Resize: the broadcasting shape function reads the new shapes.
TEST(OnnxMathOpsTest, BroadcastingOpsResize) {
  OnnxGraph g(17);
  g.Input("x", {1, 3});
  g.Initializer("c", {3}, {0.0f, 10.0f, -10.0f});
  g.Initializer("two", {}, {2.0f});
  g.Node("Max", {"x", "c"}, {"m"});
  g.Node("Pow", {"m", "two"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    SessionConfig config;
    config.algorithm = p;
    auto session = Session::Create(m, config);
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE((*session)->Resize({{"x", {2, 3}}}).ok());
    const std::vector<float> x = {1, 2, 3, -1, 20, -20};
    std::memcpy((*session)->input(0)->data(), x.data(), x.size() * sizeof(float));
    ASSERT_TRUE((*session)->Run().ok());
    const Tensor* y = (*session)->output(0);
    EXPECT_EQ(y->shape(), Shape({2, 3}));
    EXPECT_EQ(std::vector<float>(y->data_as<float>(), y->data_as<float>() + 6),
              (std::vector<float>{1, 100, 9, 0, 400, 100}));
  }
}

// Session::Run of every op of the family allocates nothing, optimized and
// reference kernels, one and two threads.
TEST(OnnxMathOpsTest, RunDoesNotAllocate) {
  OnnxGraph g(20);
  g.Input("x", {2, 5, 8});
  g.Initializer("s", {8}, RandomValues(8, 0.5f, 1.5f, 70));
  g.Initializer("two", {}, {2.0f});
  g.Initializer("e", {8}, RandomValues(8, 0.5f, 1.5f, 71));
  g.Node("LayerNormalization", {"x", "s"}, {"ln"});
  g.Node("Gelu", {"ln"}, {"ge"});
  g.Node("Pow", {"ge", "two"}, {"p2"});
  g.Node("Abs", {"ge"}, {"ab"});
  g.Node("Pow", {"ab", "e"}, {"pe"});
  g.Node("Max", {"p2", "pe", "s"}, {"mx"});
  g.Node("Mean", {"mx", "x"}, {"mn"});
  g.Node("Tanh", {"mn"}, {"th"});
  g.Node("Sum", {"th", "x", "ln"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    for (int threads : {1, 2}) {
      SessionConfig config;
      config.algorithm = p;
      config.num_threads = threads;
      auto session = Session::Create(m, config);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      Tensor* in = (*session)->input(0);
      for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = 0.1f * static_cast<float>(i % 7);
      rill::testing::StartCountingAllocations();
      const Status run = (*session)->Run();
      const long allocations = rill::testing::StopCountingAllocations();
      ASSERT_TRUE(run.ok());
      EXPECT_EQ(allocations, 0) << threads << " thread(s)";
    }
  }
}

// ---- constant folding -----------------------------------------------------------

TEST(OnnxMathOpsTest, ConstantInputsFold) {
  OnnxGraph g(17);
  g.Input("x", {2, 3});
  g.Initializer("c", {3}, {4.0f, 9.0f, 16.0f});
  g.Initializer("two", {}, {2.0f});
  g.Node("Sqrt", {"c"}, {"s"});             // 2, 3, 4
  g.Node("Pow", {"s", "two"}, {"p"});       // 4, 9, 16
  g.Node("Max", {"p", "two", "s"}, {"m"});  // 4, 9, 16
  g.Node("Neg", {"m"}, {"n"});
  g.Node("Add", {"x", "n"}, {"a"});
  // Integer shape arithmetic: Max({2, 3}, {1, 1}) is Reshape's target.
  g.Int64Initializer("shape", {2}, {3, 2});
  g.Int64Initializer("ones", {2}, {1, 1});
  g.Node("Max", {"shape", "ones"}, {"target"});
  g.Node("Reshape", {"a", "target"}, {"y"});
  g.Output("y");
  auto m = Load(g, /*optimize=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Ops(*m), (std::vector<std::string>{"ADD", "RESHAPE"}));
  const std::vector<float> y = RunEngine(*m, {0, 1, 2, 3, 4, 5}, AlgorithmPolicy::kReference);
  EXPECT_EQ(y, (std::vector<float>{-4, -8, -14, -1, -5, -11}));
  ExpectMatchesOrt(g, {{"x", {2, 3}, RandomValues(6, -1, 1, 31)}});
}

// ---- LayerNormalization ---------------------------------------------------------

TEST(OnnxMathOpsTest, LayerNormalizationMatchesOrt) {
  const std::vector<float> x = RandomValues(2 * 3 * 8, -2.0f, 3.0f, 32);
  struct Case {
    int64_t axis;
    std::vector<int64_t> scale_shape;
    bool bias;
    float epsilon;
  };
  for (const Case& k : {Case{-1, {8}, true, 1e-5f}, Case{2, {8}, false, 1e-5f}, Case{1, {3, 8}, true, 1e-3f},
                        Case{-2, {3, 8}, false, 0.1f}, Case{0, {2, 3, 8}, true, 1e-5f}}) {
    SCOPED_TRACE(k.axis);
    OnnxGraph g(17);
    g.Input("x", {2, 3, 8});
    const size_t n = Count(k.scale_shape);
    g.Initializer("s", k.scale_shape, RandomValues(n, 0.5f, 1.5f, 33));
    std::vector<std::string> in = {"x", "s"};
    if (k.bias) {
      g.Initializer("b", k.scale_shape, RandomValues(n, -1.0f, 1.0f, 34));
      in.push_back("b");
    }
    onnx::NodeProto* ln = g.Node("LayerNormalization", in, {"y"});
    OnnxGraph::Attr(ln, "axis", k.axis);
    OnnxGraph::Attr(ln, "epsilon", k.epsilon);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 8}, x}});
  }
  {  // Many rows over two threads, a row far from zero mean.
    OnnxGraph g(17);
    g.Input("x", {64, 50, 96});
    g.Initializer("s", {96}, RandomValues(96, 0.5f, 1.5f, 35));
    g.Initializer("b", {96}, RandomValues(96, -1.0f, 1.0f, 36));
    g.Node("LayerNormalization", {"x", "s", "b"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {64, 50, 96}, RandomValues(64 * 50 * 96, 90.0f, 110.0f, 37)}});
  }
}

TEST(OnnxMathOpsTest, LayerNormalizationHandComputedAndResizes) {
  OnnxGraph g(17);
  g.Input("x", {1, 4});
  g.Initializer("s", {4}, {1.0f, 2.0f, 1.0f, 1.0f});
  g.Initializer("b", {4}, {0.0f, 0.0f, 10.0f, 0.0f});
  OnnxGraph::Attr(g.Node("LayerNormalization", {"x", "s", "b"}, {"y"}), "epsilon", 0.0f);
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy p : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    // x = 1, 2, 3, 4: mean 2.5, variance 1.25, (x - 2.5) / sqrt(1.25).
    const float r = 1.0f / std::sqrt(1.25f);
    const std::vector<float> y = RunEngine(*m, {1, 2, 3, 4}, p);
    ASSERT_EQ(y.size(), 4u);
    EXPECT_NEAR(y[0], -1.5f * r, 1e-6f);
    EXPECT_NEAR(y[1], 2.0f * -0.5f * r, 1e-6f);
    EXPECT_NEAR(y[2], 0.5f * r + 10.0f, 1e-5f);
    EXPECT_NEAR(y[3], 1.5f * r, 1e-6f);
  }
  // Session::Resize to three rows: the shape function reads the new shape.
  auto session = Session::Create(m);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Resize({{"x", {3, 4}}}).ok());
  Tensor* in = (*session)->input(0);
  // Shifted and scaled copies of the first row normalize alike.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, -4, -2, 0, 2};
  std::memcpy(in->data(), x.data(), x.size() * sizeof(float));
  ASSERT_TRUE((*session)->Run().ok());
  const float* y = (*session)->output(0)->data_as<float>();
  EXPECT_EQ((*session)->output(0)->shape(), Shape({3, 4}));
  for (int row = 1; row < 3; ++row) {
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[row * 4 + i], y[i], 1e-5f) << row << " " << i;
  }
  EXPECT_NEAR(y[0], -1.5f / std::sqrt(1.25f), 1e-6f);
}

TEST(OnnxMathOpsTest, UnsupportedFormsNameWhatIsMissing) {
  {
    OnnxGraph g(20);
    g.Input("x", {3});
    OnnxGraph::Attr(g.Node("Gelu", {"x"}, {"y"}), "approximate", std::string("fast"));
    g.Output("y");
    const std::string bytes = g.Serialize();
    auto m = Model::FromBuffer(bytes.data(), bytes.size(), "gelu.onnx");
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(m.status().message().find("attribute 'approximate'"), std::string::npos) << m.status().ToString();
  }
  {
    OnnxGraph g(17);
    g.Input("x", {2, 4});
    g.Initializer("s", {4}, {1, 1, 1, 1});
    g.Node("LayerNormalization", {"x", "s"}, {"y", "mean"});
    g.Output("y");
    g.Output("mean");
    const std::string bytes = g.Serialize();
    auto m = Model::FromBuffer(bytes.data(), bytes.size(), "ln.onnx");
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("Mean and InvStdDev"), std::string::npos) << m.status().ToString();
  }
}

// ---- fusions of PyTorch's exports --------------------------------------------------

// nn.LayerNorm(8) then nn.GELU() on [2, 5, 8], as torch 1.13 exports them at
// opset 13 (the decomposed layer norm) or 17 (LayerNormalization); the GELU
// is decomposed at both. Constant nodes become initializers here.
OnnxGraph TorchLayerNormGelu(int opset, bool affine = true) {
  OnnxGraph g(opset);
  g.Input("input", {2, 5, 8});
  g.Initializer("ln.weight", {8}, RandomValues(8, 0.5f, 1.5f, 40));
  g.Initializer("ln.bias", {8}, RandomValues(8, -0.5f, 0.5f, 41));
  std::string ln_out;
  if (opset >= 17) {
    onnx::NodeProto* n = g.Node("LayerNormalization", {"input", "ln.weight", "ln.bias"}, {"ln_out"});
    OnnxGraph::Attr(n, "axis", int64_t{-1});
    OnnxGraph::Attr(n, "epsilon", 9.999999747378752e-06f);
    ln_out = "ln_out";
  } else {
    OnnxGraph::Attr(g.Node("ReduceMean", {"input"}, {"mean"}), "axes", std::vector<int64_t>{-1});
    g.Node("Sub", {"input", "mean"}, {"sub"});
    g.Initializer("c2", {}, {2.0f});
    g.Node("Pow", {"sub", "c2"}, {"pow"});
    OnnxGraph::Attr(g.Node("ReduceMean", {"pow"}, {"var"}), "axes", std::vector<int64_t>{-1});
    g.Initializer("eps", {}, {9.999999747378752e-06f});
    g.Node("Add", {"var", "eps"}, {"add"});
    g.Node("Sqrt", {"add"}, {"sqrt"});
    g.Node("Div", {"sub", "sqrt"}, {"div"});
    ln_out = "div";
    if (affine) {
      g.Node("Mul", {"div", "ln.weight"}, {"mul"});
      g.Node("Add", {"mul", "ln.bias"}, {"ln_add"});
      ln_out = "ln_add";
    }
  }
  g.Initializer("sqrt2", {}, {1.4142135381698608f});
  g.Node("Div", {ln_out, "sqrt2"}, {"g_div"});
  g.Node("Erf", {"g_div"}, {"g_erf"});
  g.Initializer("one", {}, {1.0f});
  g.Node("Add", {"g_erf", "one"}, {"g_add"});
  g.Node("Mul", {ln_out, "g_add"}, {"g_mul"});
  g.Initializer("half", {}, {0.5f});
  g.Node("Mul", {"g_mul", "half"}, {"y"});
  g.Output("y");
  return g;
}

TEST(OnnxMathOpsTest, TorchLayerNormAndGeluFuse) {
  const std::vector<float> x = RandomValues(80, -3.0f, 3.0f, 42);
  for (int opset : {13, 17}) {
    SCOPED_TRACE(opset);
    const OnnxGraph g = TorchLayerNormGelu(opset);
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(Ops(*m), (std::vector<std::string>{"LAYER_NORM", "GELU"}));
    ExpectMatchesOrt(g, {{"input", {2, 5, 8}, x}});
    // The fused graph against the unfused one, reference kernels.
    auto raw = Load(g, /*optimize=*/false);
    ASSERT_NE(raw, nullptr);
    EXPECT_GT(raw->graph().nodes.size(), 2u);
    const std::vector<float> a = RunEngine(*m, x, AlgorithmPolicy::kReference);
    const std::vector<float> b = RunEngine(*raw, x, AlgorithmPolicy::kReference);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f) << i;
  }
  {  // nn.LayerNorm(elementwise_affine=False): scaled by ones, no bias.
    const OnnxGraph g = TorchLayerNormGelu(13, /*affine=*/false);
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(Ops(*m), (std::vector<std::string>{"LAYER_NORM", "GELU"}));
    ExpectMatchesOrt(g, {{"input", {2, 5, 8}, x}});
  }
}

// The other orders of the erf form, and forms that must not fuse.
TEST(OnnxMathOpsTest, GeluFusionOrders) {
  struct Form {
    const char* name;
    bool fuses;
    void (*build)(OnnxGraph& g);
  };
  const Form forms[] = {
      {"x*0.5 then *(1+erf(x*0.7071))", true,
       [](OnnxGraph& g) {
         g.Node("Mul", {"r", "rsqrt2"}, {"t"});
         g.Node("Erf", {"t"}, {"e"});
         g.Node("Add", {"one", "e"}, {"s"});
         g.Node("Mul", {"half", "r"}, {"h"});
         g.Node("Mul", {"h", "s"}, {"y"});
       }},
      {"x * ((1+erf(x/sqrt2)) * 0.5)", true,
       [](OnnxGraph& g) {
         g.Node("Div", {"r", "sqrt2"}, {"t"});
         g.Node("Erf", {"t"}, {"e"});
         g.Node("Add", {"e", "one"}, {"s"});
         g.Node("Mul", {"s", "half"}, {"k"});
         g.Node("Mul", {"r", "k"}, {"y"});
       }},
      {"wrong constant: x/2", false,
       [](OnnxGraph& g) {
         g.Node("Div", {"r", "two"}, {"t"});
         g.Node("Erf", {"t"}, {"e"});
         g.Node("Add", {"e", "one"}, {"s"});
         g.Node("Mul", {"r", "s"}, {"m"});
         g.Node("Mul", {"m", "half"}, {"y"});
       }},
      {"erf read twice", false,
       [](OnnxGraph& g) {
         g.Node("Div", {"r", "sqrt2"}, {"t"});
         g.Node("Erf", {"t"}, {"e"});
         g.Node("Add", {"e", "one"}, {"s"});
         g.Node("Mul", {"r", "s"}, {"m"});
         g.Node("Mul", {"m", "half"}, {"z"});
         g.Node("Add", {"z", "e"}, {"y"});
       }},
  };
  for (const Form& f : forms) {
    SCOPED_TRACE(f.name);
    OnnxGraph g(17);
    g.Input("x", {3, 10});
    g.Node("Relu", {"x"}, {"r"});
    g.Initializer("sqrt2", {}, {1.4142135f});
    g.Initializer("rsqrt2", {}, {0.70710678f});
    g.Initializer("two", {}, {2.0f});
    g.Initializer("one", {}, {1.0f});
    g.Initializer("half", {}, {0.5f});
    f.build(g);
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    const std::vector<std::string> ops = Ops(*m);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "GELU"), f.fuses ? 1 : 0);
    if (f.fuses) {
      EXPECT_EQ(ops.size(), 2u);
    }
    ExpectMatchesOrt(g, {{"x", {3, 10}, RandomValues(30, -3, 3, 43)}});
  }
}

// Decomposed layer norms over a 4-D value held as NHWC (ConvNeXt's
// LayerNorm2d permutes to channels-last first), over two trailing axes, with
// MUL(d, d) for the square; and one whose mean is read elsewhere (no fusion).
TEST(OnnxMathOpsTest, LayerNormFusionForms) {
  auto decomposed = [](OnnxGraph& g, const std::string& x, const std::vector<int64_t>& axes, bool mul_square,
                       const std::string& gamma, const std::string& beta, const std::string& y) {
    OnnxGraph::Attr(g.Node("ReduceMean", {x}, {x + "_m"}), "axes", axes);
    g.Node("Sub", {x, x + "_m"}, {x + "_d"});
    if (mul_square) {
      g.Node("Mul", {x + "_d", x + "_d"}, {x + "_p"});
    } else {
      g.Node("Pow", {x + "_d", "c2"}, {x + "_p"});
    }
    OnnxGraph::Attr(g.Node("ReduceMean", {x + "_p"}, {x + "_v"}), "axes", axes);
    g.Node("Add", {"eps", x + "_v"}, {x + "_a"});
    g.Node("Sqrt", {x + "_a"}, {x + "_s"});
    g.Node("Div", {x + "_d", x + "_s"}, {x + "_n"});
    g.Node("Mul", {gamma, x + "_n"}, {x + "_g"});
    g.Node("Add", {x + "_g", beta}, {y});
  };
  {  // Conv (NHWC) -> Transpose to NHWC order -> layer norm over C.
    OnnxGraph g(13);
    g.Input("x", {1, 3, 5, 7});
    g.Initializer("w", {6, 3, 1, 1}, RandomValues(18, -1, 1, 44));
    g.Node("Conv", {"x", "w"}, {"c"});
    OnnxGraph::Attr(g.Node("Transpose", {"c"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
    g.Initializer("c2", {}, {2.0f});
    g.Initializer("eps", {}, {1e-6f});
    g.Initializer("gamma", {6}, RandomValues(6, 0.5f, 1.5f, 45));
    g.Initializer("beta", {6}, RandomValues(6, -1, 1, 46));
    decomposed(g, "t", {-1}, false, "gamma", "beta", "y");
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    const std::vector<std::string> ops = Ops(*m);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "LAYER_NORM"), 1);
    ExpectMatchesOrt(g, {{"x", {1, 3, 5, 7}, RandomValues(105, -1, 1, 47)}});
  }
  {  // Two trailing axes, MUL(d, d), gamma [4, 6].
    OnnxGraph g(13);
    g.Input("x", {3, 4, 6});
    g.Initializer("eps", {}, {1e-5f});
    g.Initializer("gamma", {4, 6}, RandomValues(24, 0.5f, 1.5f, 48));
    g.Initializer("beta", {1, 4, 6}, RandomValues(24, -1, 1, 49));
    decomposed(g, "x", {-2, -1}, true, "gamma", "beta", "y");
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(Ops(*m), (std::vector<std::string>{"LAYER_NORM"}));
    ExpectMatchesOrt(g, {{"x", {3, 4, 6}, RandomValues(72, -2, 2, 50)}});
  }
  {  // Not the trailing axis: stays decomposed.
    OnnxGraph g(13);
    g.Input("x", {3, 4, 6});
    g.Initializer("c2", {}, {2.0f});
    g.Initializer("eps", {}, {1e-5f});
    g.Initializer("gamma", {1}, {2.0f});
    g.Initializer("beta", {1}, {0.5f});
    decomposed(g, "x", {1}, false, "gamma", "beta", "y");
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    const std::vector<std::string> ops = Ops(*m);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "LAYER_NORM"), 0);
    ExpectMatchesOrt(g, {{"x", {3, 4, 6}, RandomValues(72, -2, 2, 51)}});
  }
}

// The tanh form of nn.GELU(approximate='tanh') stays as exported and matches.
TEST(OnnxMathOpsTest, TorchTanhGeluMatchesOrt) {
  OnnxGraph g(13);
  g.Input("input", {2, 5, 8});
  g.Node("Mul", {"input", "input"}, {"m0"});
  g.Node("Mul", {"input", "m0"}, {"m1"});
  g.Initializer("k0", {}, {0.044714998453855515f});
  g.Node("Mul", {"k0", "m1"}, {"m2"});
  g.Node("Add", {"input", "m2"}, {"a0"});
  g.Initializer("k1", {}, {0.7978845834732056f});
  g.Node("Mul", {"k1", "a0"}, {"m3"});
  g.Node("Tanh", {"m3"}, {"t"});
  g.Initializer("one", {}, {1.0f});
  g.Node("Add", {"one", "t"}, {"a1"});
  g.Node("Mul", {"input", "a1"}, {"m4"});
  g.Initializer("half", {}, {0.5f});
  g.Node("Mul", {"half", "m4"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"input", {2, 5, 8}, RandomValues(80, -4, 4, 52)}});
}

}  // namespace
}  // namespace rill::inference::testing
