// The signal ops (HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix,
// DFT of opsets 17 and 20, STFT) against ONNX Runtime (onnx_op_test_util.h:
// optimized and reference kernels, 1 and 2 threads) and by hand. The
// windows and the mel matrix fold into constants, so the test graphs use
// them on an input.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

TEST(OnnxSignalOpsTest, WindowsPeriodicAndSymmetric) {
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    for (int64_t periodic : {1, 0}) {
      for (int64_t size : {3, 10, 33}) {
        SCOPED_TRACE(std::string(op) + " periodic " + std::to_string(periodic) + " size " + std::to_string(size));
        OnnxGraph g(17);
        g.Input("x", {size});
        g.Int64Initializer("n", {}, {size});
        OnnxGraph::Attr(g.Node(op, {"n"}, {"w"}), "periodic", periodic);
        g.Node("Mul", {"x", "w"}, {"y"});
        g.Output("y");
        ExpectMatchesOrt(g, {{"x", {size}, RandomValues(size, 0.5f, 2.0f, 301)}});
        auto model = LoadOnnxGraph(g, "window.onnx");
        ASSERT_NE(model, nullptr);
        EXPECT_EQ(model->num_nodes(), 1) << "the window folds";
      }
    }
  }
  // (A symmetric Blackman window of 2 is all but 0: nothing for a comparison
  // relative to the output's range.) By hand: a periodic Hann window of 4 is 0, 0.5, 1, 0.5; symmetric of 3
  // is 0, 1, 0.
  for (int64_t periodic : {1, 0}) {
    const int64_t size = periodic ? 4 : 3;
    OnnxGraph g(17);
    g.Input("x", {size});
    g.Int64Initializer("n", {}, {size});
    OnnxGraph::Attr(g.Node("HannWindow", {"n"}, {"w"}), "periodic", periodic);
    g.Node("Mul", {"x", "w"}, {"y"});
    g.Output("y");
    auto model = LoadOnnxGraph(g, "hann.onnx");
    ASSERT_NE(model, nullptr);
    const std::vector<float> y = RunEngine(*model, std::vector<float>(size, 1.0f), AlgorithmPolicy::kReference);
    const std::vector<float> want = periodic ? std::vector<float>{0, 0.5f, 1, 0.5f} : std::vector<float>{0, 1, 0};
    ASSERT_EQ(y.size(), want.size());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
  }
}

TEST(OnnxSignalOpsTest, MelWeightMatrix) {
  struct Case {
    int64_t mels, dft_length, rate;
    float lower, upper;
  };
  for (const Case& k : {Case{8, 64, 16000, 0.0f, 8000.0f}, Case{5, 255, 8000, 100.0f, 3000.0f},
                        Case{40, 512, 16000, 20.0f, 7600.0f}}) {
    SCOPED_TRACE("mels " + std::to_string(k.mels) + " dft_length " + std::to_string(k.dft_length));
    const int64_t bins = k.dft_length / 2 + 1;
    OnnxGraph g(17);
    g.Input("x", {3, bins});
    g.Int64Initializer("mels", {}, {k.mels});
    g.Int64Initializer("len", {}, {k.dft_length});
    g.Int64Initializer("rate", {}, {k.rate});
    g.Initializer("lower", {}, {k.lower});
    g.Initializer("upper", {}, {k.upper});
    g.Node("MelWeightMatrix", {"mels", "len", "rate", "lower", "upper"}, {"m"});
    g.Node("MatMul", {"x", "m"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, bins}, RandomValues(3 * bins, 0.0f, 1.0f, 302)}});
  }
}

// Opset 17: real and complex input, onesided, inverse, dft_length shorter
// and longer than the signal, another axis.
TEST(OnnxSignalOpsTest, Dft17) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t axis, onesided, inverse, length;  // length 0: none
  };
  for (const Case& k : {Case{{2, 16, 1}, 1, 0, 0, 0}, Case{{2, 16, 1}, 1, 1, 0, 0}, Case{{2, 15, 2}, 1, 0, 0, 0},
                        Case{{2, 15, 2}, 1, 0, 1, 0}, Case{{2, 12, 1}, 1, 1, 0, 20}, Case{{2, 12, 2}, 1, 0, 0, 7},
                        Case{{2, 6, 5, 1}, 2, 0, 0, 0}, Case{{2, 6, 5, 2}, 2, 0, 1, 8}, Case{{3, 6, 5, 1}, 1, 1, 0, 0},
                        Case{{1, 2048, 1}, 1, 1, 0, 0}, Case{{1, 400, 1}, 1, 1, 0, 512},
                        Case{{1, 256, 2}, 1, 0, 1, 0}}) {
    SCOPED_TRACE("axis " + std::to_string(k.axis) + " onesided " + std::to_string(k.onesided) + " inverse " +
                 std::to_string(k.inverse) + " length " + std::to_string(k.length));
    OnnxGraph g(17);
    g.Input("x", k.shape);
    std::vector<std::string> ins = {"x"};
    if (k.length > 0) {
      g.Int64Initializer("len", {}, {k.length});
      ins.push_back("len");
    }
    onnx::NodeProto* n = g.Node("DFT", ins, {"y"});
    OnnxGraph::Attr(n, "axis", k.axis);
    OnnxGraph::Attr(n, "onesided", k.onesided);
    OnnxGraph::Attr(n, "inverse", k.inverse);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", k.shape, RandomValues(Elements(k.shape), -1.0f, 1.0f, 303)}});
  }
}

// Opset 20: the axis (and dft_length) as inputs, negative axes.
TEST(OnnxSignalOpsTest, Dft20) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t axis, onesided, inverse, length;  // axis 99: none (-2)
  };
  for (const Case& k : {Case{{2, 16, 1}, 99, 0, 0, 0}, Case{{2, 16, 1}, -2, 1, 0, 0}, Case{{2, 6, 5, 2}, 1, 0, 1, 0},
                        Case{{2, 6, 5, 2}, -3, 0, 0, 9}, Case{{2, 6, 5, 1}, 2, 1, 0, 4}}) {
    SCOPED_TRACE("axis " + std::to_string(k.axis) + " onesided " + std::to_string(k.onesided));
    OnnxGraph g(20);
    g.Input("x", k.shape);
    std::vector<std::string> ins = {"x", ""};
    if (k.length > 0) {
      g.Int64Initializer("len", {}, {k.length});
      ins[1] = "len";
    }
    if (k.axis != 99) {
      g.Int64Initializer("axis", {}, {k.axis});
      ins.push_back("axis");
    }
    onnx::NodeProto* n = g.Node("DFT", ins, {"y"});
    OnnxGraph::Attr(n, "onesided", k.onesided);
    OnnxGraph::Attr(n, "inverse", k.inverse);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", k.shape, RandomValues(Elements(k.shape), -1.0f, 1.0f, 304)}});
  }
}

// By hand: an impulse's spectrum is all ones; a constant's is its sum at 0.
TEST(OnnxSignalOpsTest, DftByHand) {
  OnnxGraph g(17);
  g.Input("x", {1, 4, 1});
  g.Node("DFT", {"x"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "dft.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<std::vector<float>> in = {{1, 0, 0, 0}, {1, 1, 1, 1}};
  const std::vector<std::vector<float>> want = {{1, 0, 1, 0, 1, 0, 1, 0}, {4, 0, 0, 0, 0, 0, 0, 0}};
  for (size_t t = 0; t < in.size(); ++t) {
    const std::vector<float> y = RunEngine(*model, in[t], AlgorithmPolicy::kReference);
    ASSERT_EQ(y.size(), 8u);
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[t][i], 1e-6) << t << " " << i;
  }
}

// STFT: a constant window (from HannWindow, folded into the DFT matrix), a
// run-time window (a MUL), frame_length alone, a complex signal.
TEST(OnnxSignalOpsTest, Stft) {
  const std::vector<float> sig = RandomValues(2 * 70, -1.0f, 1.0f, 305);
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    OnnxGraph g(17);
    const int64_t parts = variant == 3 ? 2 : 1;
    g.Input("x", {2, 70, parts});
    g.Int64Initializer("step", {}, {12});
    g.Int64Initializer("len", {}, {16});
    std::vector<std::string> ins = {"x", "step"};
    std::vector<ort::OrtTensor> inputs = {{"x", {2, 70, parts}, RandomValues(2 * 70 * parts, -1.0f, 1.0f, 306)}};
    if (variant == 0) {
      g.Node("HannWindow", {"len"}, {"w"});
      ins.push_back("w");
    } else if (variant == 1) {
      g.Input("w", {16});
      ins.push_back("w");
      inputs.push_back({"w", {16}, RandomValues(16, 0.0f, 1.0f, 307)});
    } else {
      ins.push_back("");
      ins.push_back("len");
    }
    onnx::NodeProto* n = g.Node("STFT", ins, {"y"});
    if (variant == 3) OnnxGraph::Attr(n, "onesided", int64_t{0});
    g.Output("y");
    ExpectMatchesOrt(g, inputs);
  }
}

}  // namespace
}  // namespace rill::inference::testing
