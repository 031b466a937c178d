// QuantizeLinear and DequantizeLinear (in float) against ONNX Runtime
// (onnx_op_test_util.h: optimized and reference kernels, 1 and 2 threads):
// per tensor and per axis, uint8 / int8 / int16 zero points and none, ties
// rounded to even, saturation, an NHWC value (after a Conv), and a QDQ
// model's int8 weights folded into float ones. ONNX Runtime's runner reads
// and writes float32: quantized outputs pass through a Cast to float.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

// A Constant node `name` holding an integer tensor of ONNX type `type` (2
// uint8, 3 int8, 5 int16).
void IntConstant(OnnxGraph& g, const std::string& name, int type, const std::vector<int64_t>& shape,
                 const std::vector<int>& values) {
  onnx::NodeProto* n = g.Node("Constant", {}, {name});
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = a->mutable_t();
  t->set_data_type(type);
  for (int64_t d : shape) t->add_dims(d);
  std::string raw;
  for (int v : values) {
    if (type == 5) {
      const int16_t s = static_cast<int16_t>(v);
      raw.append(reinterpret_cast<const char*>(&s), 2);
    } else {
      raw.push_back(static_cast<char>(static_cast<uint8_t>(v)));
    }
  }
  t->set_raw_data(raw);
}

TEST(OnnxQuantizeTest, QuantizePerTensor) {
  // Quotients x / 0.5 with ties (0.25 -> 0.5 -> 0, 0.75 -> 1.5 -> 2), and
  // values past each type's range.
  std::vector<float> x = {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, 100.0f, -100.0f, 0.0f};
  const std::vector<float> more = RandomValues(16, -80.0f, 80.0f, 501);
  x.insert(x.end(), more.begin(), more.end());
  for (int type : {0, 2, 3, 5}) {  // 0: no zero point (uint8)
    SCOPED_TRACE("type " + std::to_string(type));
    OnnxGraph g(type == 5 ? 21 : 13);  // int16 from opset 21
    g.Input("x", {4, 6});
    g.Initializer("s", {}, {0.5f});
    std::vector<std::string> ins = {"x", "s"};
    if (type != 0) {
      IntConstant(g, "zp", type, {}, {type == 2 ? 128 : (type == 3 ? -3 : 1000)});
      ins.push_back("zp");
    }
    g.Node("QuantizeLinear", ins, {"q"});
    OnnxGraph::Attr(g.Node("Cast", {"q"}, {"qf"}), "to", int64_t{1});
    g.Node("DequantizeLinear", ins.size() == 3 ? std::vector<std::string>{"q", "s", "zp"}
                                               : std::vector<std::string>{"q", "s"},
           {"y"});
    g.Output("qf");
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {4, 6}, x}});
  }
  // By hand: scale 0.5, zero point 128 (uint8): 0.25 -> 128, 0.75 -> 130,
  // -100 -> 0 (saturated), 100 -> 255.
  OnnxGraph g(13);
  g.Input("x", {4});
  g.Initializer("s", {}, {0.5f});
  IntConstant(g, "zp", 2, {}, {128});
  g.Node("QuantizeLinear", {"x", "s", "zp"}, {"q"});
  OnnxGraph::Attr(g.Node("Cast", {"q"}, {"y"}), "to", int64_t{1});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "quantize.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, {0.25f, 0.75f, -100.0f, 100.0f}, AlgorithmPolicy::kReference),
            (std::vector<float>{128, 130, 0, 255}));
}

// Per axis on a plain value and on an NHWC one (a Conv's output).
TEST(OnnxQuantizeTest, PerAxis) {
  for (bool after_conv : {false, true}) {
    SCOPED_TRACE(after_conv ? "after a conv" : "plain");
    OnnxGraph g(13);
    g.Input("x", {2, 3, 5, 4});
    std::string v = "x";
    if (after_conv) {
      g.Initializer("w", {3, 3, 1, 1}, RandomValues(9, -1.0f, 1.0f, 502));
      g.Node("Conv", {"x", "w"}, {"c"});
      v = "c";
    }
    g.Initializer("s", {3}, {0.01f, 0.05f, 0.2f});
    IntConstant(g, "zp", 3, {3}, {0, -20, 7});
    g.Node("QuantizeLinear", {v, "s", "zp"}, {"q"});
    g.Node("DequantizeLinear", {"q", "s", "zp"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 5, 4}, RandomValues(120, -2.0f, 2.0f, 503)}});
  }
}

// A QDQ model's weights: int8 per output channel, dequantized into the
// conv's float weights at import.
TEST(OnnxQuantizeTest, DequantizedWeightsFold) {
  OnnxGraph g(13);
  g.Input("x", {1, 3, 6, 6});
  std::vector<int> wq(4 * 3 * 3 * 3);
  for (size_t i = 0; i < wq.size(); ++i) wq[i] = static_cast<int>((i * 37) % 255) - 127;
  IntConstant(g, "wq", 3, {4, 3, 3, 3}, wq);
  g.Initializer("ws", {4}, {0.01f, 0.02f, 0.005f, 0.03f});
  IntConstant(g, "wz", 3, {4}, {0, 0, 0, 0});
  OnnxGraph::Attr(g.Node("DequantizeLinear", {"wq", "ws", "wz"}, {"w"}), "axis", int64_t{0});
  g.Node("Conv", {"x", "w"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 3, 6, 6}, RandomValues(108, -1.0f, 1.0f, 504)}});
  auto model = LoadOnnxGraph(g, "qdq_weights.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "CONV_2D"), 1);
  EXPECT_EQ(CountOps(*model, "MUL") + CountOps(*model, "SUB"), 0) << "the dequantized weights fold into the conv's";
}

// One quantization step of a uint8 output, relative to its range: where a
// value rounds the other way (ONNX Runtime's integer arithmetic against the
// engine's float), the outputs differ by one step.
constexpr double kOneStep = 1.01 / 255.0;

// QLinearConv (per-channel weights, int32 bias, strides and pads) and
// QLinearMatMul, their quantized outputs cast to float.
TEST(OnnxQuantizeTest, QLinearConvAndMatMul) {
  {
    OnnxGraph g(13);
    g.Input("x", {1, 3, 7, 6});
    g.Initializer("xs", {}, {0.02f});
    IntConstant(g, "xz", 2, {}, {100});
    g.Initializer("is", {}, {0.02f});
    g.Node("QuantizeLinear", {"x", "is", "xz"}, {"xq"});
    std::vector<int> wq(4 * 3 * 3 * 3);
    for (size_t i = 0; i < wq.size(); ++i) wq[i] = static_cast<int>((i * 53) % 200) - 100;
    IntConstant(g, "w", 3, {4, 3, 3, 3}, wq);
    g.Initializer("ws", {4}, {0.004f, 0.002f, 0.003f, 0.005f});
    IntConstant(g, "wz", 3, {4}, {0, 0, 0, 0});
    g.Initializer("ys", {}, {0.05f});
    IntConstant(g, "yz", 2, {}, {120});
    onnx::NodeProto* b = g.Node("Constant", {}, {"bias"});
    onnx::AttributeProto* a = b->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto* t = a->mutable_t();
    t->set_data_type(6);  // int32
    t->add_dims(4);
    for (int v : {500, -300, 0, 1200}) t->add_int32_data(v);
    onnx::NodeProto* n = g.Node("QLinearConv", {"xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"}, {"y"});
    OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 1});
    OnnxGraph::Attr(n, "pads", std::vector<int64_t>{1, 1, 1, 0});
    OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    OnnxGraph::Attr(g.Node("Cast", {"y"}, {"yf"}), "to", int64_t{1});
    g.Output("yf");
    ExpectMatchesOrt(g, {{"x", {1, 3, 7, 6}, RandomValues(126, -1.5f, 2.5f, 505)}}, kOneStep);
  }
  {
    OnnxGraph g(13);
    g.Input("x", {2, 5, 8});
    g.Initializer("as", {}, {0.03f});
    IntConstant(g, "az", 3, {}, {-5});
    g.Node("QuantizeLinear", {"x", "as", "az"}, {"aq"});
    std::vector<int> bq(8 * 6);
    for (size_t i = 0; i < bq.size(); ++i) bq[i] = static_cast<int>((i * 29) % 250) - 125;
    IntConstant(g, "b", 3, {8, 6}, bq);
    g.Initializer("bs", {}, {0.01f});
    IntConstant(g, "bz", 3, {}, {3});
    g.Initializer("ys", {}, {0.04f});
    IntConstant(g, "yz", 3, {}, {10});
    g.Node("QLinearMatMul", {"aq", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
    OnnxGraph::Attr(g.Node("Cast", {"y"}, {"yf"}), "to", int64_t{1});
    g.Output("yf");
    ExpectMatchesOrt(g, {{"x", {2, 5, 8}, RandomValues(80, -3.0f, 3.0f, 506)}}, kOneStep);
  }
}

// ConvInteger and MatMulInteger: exact integer sums (within float's 2^24).
TEST(OnnxQuantizeTest, ConvIntegerAndMatMulInteger) {
  {
    OnnxGraph g(11);
    g.Input("x", {1, 2, 5, 5});
    OnnxGraph::Attr(g.Node("Cast", {"x"}, {"xq"}), "to", int64_t{2});  // uint8
    std::vector<int> wq(3 * 2 * 2 * 2);
    for (size_t i = 0; i < wq.size(); ++i) wq[i] = static_cast<int>((i * 41) % 255);
    IntConstant(g, "w", 2, {3, 2, 2, 2}, wq);
    IntConstant(g, "xz", 2, {}, {17});
    IntConstant(g, "wz", 2, {}, {128});
    g.Node("ConvInteger", {"xq", "w", "xz", "wz"}, {"y"});
    OnnxGraph::Attr(g.Node("Cast", {"y"}, {"yf"}), "to", int64_t{1});
    g.Output("yf");
    std::vector<float> x(50);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 97) % 256);
    ExpectMatchesOrt(g, {{"x", {1, 2, 5, 5}, x}});
  }
  {
    OnnxGraph g(11);
    g.Input("a", {3, 4});
    OnnxGraph::Attr(g.Node("Cast", {"a"}, {"aq"}), "to", int64_t{2});
    std::vector<int> bq(4 * 5);
    for (size_t i = 0; i < bq.size(); ++i) bq[i] = static_cast<int>((i * 23) % 255);
    IntConstant(g, "b", 2, {4, 5}, bq);
    IntConstant(g, "az", 2, {}, {200});  // ONNX Runtime takes a scalar only
    IntConstant(g, "bz", 2, {5}, {0, 128, 3, 9, 255});  // per column of b
    g.Node("MatMulInteger", {"aq", "b", "az", "bz"}, {"y"});
    OnnxGraph::Attr(g.Node("Cast", {"y"}, {"yf"}), "to", int64_t{1});
    g.Output("yf");
    std::vector<float> a(12);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 71) % 256);
    ExpectMatchesOrt(g, {{"a", {3, 4}, a}});
  }
  // A zero point per row of a (the operator allows it, ONNX Runtime does
  // not), by hand: [[10, 20], [30, 40]] less [10, 30] by rows, times the
  // identity, is [[0, 10], [0, 10]].
  OnnxGraph g(11);
  g.Input("a", {2, 2});
  OnnxGraph::Attr(g.Node("Cast", {"a"}, {"aq"}), "to", int64_t{2});
  IntConstant(g, "b", 2, {2, 2}, {1, 0, 0, 1});
  IntConstant(g, "az", 2, {2}, {10, 30});
  g.Node("MatMulInteger", {"aq", "b", "az"}, {"y"});
  OnnxGraph::Attr(g.Node("Cast", {"y"}, {"yf"}), "to", int64_t{1});
  g.Output("yf");
  auto model = LoadOnnxGraph(g, "matmul_integer.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, {10, 20, 30, 40}, AlgorithmPolicy::kReference), (std::vector<float>{0, 10, 0, 10}));
}

// DynamicQuantizeLinear's three outputs; an input of one sign only (the
// range includes 0).
TEST(OnnxQuantizeTest, DynamicQuantizeLinear) {
  for (float lo : {-2.0f, 0.5f}) {
    SCOPED_TRACE("low " + std::to_string(lo));
    OnnxGraph g(11);
    g.Input("x", {3, 7});
    g.Node("DynamicQuantizeLinear", {"x"}, {"y", "s", "z"});
    OnnxGraph::Attr(g.Node("Cast", {"y"}, {"yf"}), "to", int64_t{1});
    OnnxGraph::Attr(g.Node("Cast", {"z"}, {"zf"}), "to", int64_t{1});
    g.Node("Identity", {"s"}, {"sf"});
    g.Output("yf");
    g.Output("sf");
    g.Output("zf");
    ExpectMatchesOrt(g, {{"x", {3, 7}, RandomValues(21, lo, 3.0f, 507)}}, kOneStep);
  }
}

}  // namespace
}  // namespace rill::inference::testing
