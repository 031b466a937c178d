// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (opset 18) and BitShift on
// the engine against ONNX Runtime (onnx_op_test_util.h: optimized and
// reference kernels, 1 and 2 threads) and by hand. ONNX Runtime's runner
// reads and writes float32, so the integers pass through Cast nodes in the
// test graphs; the engine holds run-time integers as float32 (ir/ops/
// bitwise_ops.h), so results are exact while below 2^24 in magnitude: the
// values here stay below that (uint32 / uint64 / int64 inputs and results
// of 2^24 or more are a limit of the engine, not tested). ONNX Runtime 1.30
// runs BitShift on uint8, uint32 and uint64 only: uint16 is checked by hand.
// A shift by the type's width or more gives 0 (C++ leaves it undefined; not
// compared with ONNX Runtime).
#include <onnx/onnx_pb.h>

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

constexpr int64_t kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
                  kUint32 = 12, kUint64 = 13;

void CastTo(OnnxGraph& g, const std::string& from, const std::string& to, int64_t type) {
  OnnxGraph::Attr(g.Node("Cast", {from}, {to}), "to", type);
}

// Fixed-seed whole numbers in [lo, hi).
std::vector<float> Integers(size_t n, int lo, int hi, unsigned seed) {
  std::vector<float> v = RandomValues(n, static_cast<float>(lo), static_cast<float>(hi), seed);
  for (float& e : v) e = std::floor(e);
  return v;
}

struct TypeCase {
  int64_t type;
  int lo, hi;  // the inputs' range
};

const TypeCase kTypes[] = {{kUint8, 0, 256},         {kInt8, -128, 128},       {kUint16, 0, 65536},
                           {kInt16, -32768, 32768},  {kInt32, -100000, 100000}, {kInt64, -1000000, 1000000},
                           {kUint32, 0, 1 << 23},    {kUint64, 0, 1 << 23}};

// a [2, 3, 4] op b, b of shapes that broadcast in each way.
TEST(OnnxBitwiseOpsTest, AndOrXorEveryTypeBroadcast) {
  const std::vector<std::vector<int64_t>> b_shapes = {{2, 3, 4}, {4}, {3, 1}, {1}};
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    for (const TypeCase& t : kTypes) {
      for (const std::vector<int64_t>& bs : b_shapes) {
        SCOPED_TRACE(std::string(op) + " type " + std::to_string(t.type) + " b " + std::to_string(bs.size()) + "-D " +
                     std::to_string(Elements(bs)));
        OnnxGraph g(18);
        g.Input("a", {2, 3, 4});
        g.Input("b", bs);
        CastTo(g, "a", "ai", t.type);
        CastTo(g, "b", "bi", t.type);
        g.Node(op, {"ai", "bi"}, {"r"});
        CastTo(g, "r", "y", kFloat);
        g.Output("y");
        ExpectMatchesOrt(g, {{"a", {2, 3, 4}, Integers(24, t.lo, t.hi, 301)},
                             {"b", bs, Integers(static_cast<size_t>(Elements(bs)), t.lo, t.hi, 302)}});
      }
    }
  }
}

// ~x: -x - 1 for signed types, 2^bits - 1 - x for unsigned ones (uint32 and
// uint64 give results over 2^24: not compared).
TEST(OnnxBitwiseOpsTest, NotEveryType) {
  for (const TypeCase& t : kTypes) {
    if (t.type == kUint32 || t.type == kUint64) continue;
    SCOPED_TRACE("type " + std::to_string(t.type));
    OnnxGraph g(18);
    g.Input("a", {3, 5});
    CastTo(g, "a", "ai", t.type);
    g.Node("BitwiseNot", {"ai"}, {"r"});
    CastTo(g, "r", "y", kFloat);
    g.Output("y");
    ExpectMatchesOrt(g, {{"a", {3, 5}, Integers(15, t.lo, t.hi, 303)}});
  }
  // By hand: uint8 and int8.
  for (int64_t type : {kUint8, kInt8}) {
    OnnxGraph g(18);
    g.Input("a", {4});
    CastTo(g, "a", "ai", type);
    g.Node("BitwiseNot", {"ai"}, {"r"});
    CastTo(g, "r", "y", kFloat);
    g.Output("y");
    auto model = LoadOnnxGraph(g, "bitwise_not.onnx");
    ASSERT_NE(model, nullptr);
    const std::vector<float> x = type == kUint8 ? std::vector<float>{0, 1, 200, 255} : std::vector<float>{0, 1, -1, 127};
    const std::vector<float> want =
        type == kUint8 ? std::vector<float>{255, 254, 55, 0} : std::vector<float>{-1, -2, 0, -128};
    EXPECT_EQ(RunEngine(*model, x, AlgorithmPolicy::kReference), want);
    EXPECT_EQ(RunEngine(*model, x, AlgorithmPolicy::kAuto, 2), want);
  }
}

// LEFT (wrapping at the type's width) and RIGHT, amounts per element and a
// scalar amount.
TEST(OnnxBitwiseOpsTest, BitShift) {
  struct Case {
    int64_t type;
    int hi, max_shift;
  };
  for (const Case& k : {Case{kUint8, 256, 8}, Case{kUint32, 1 << 12, 12}, Case{kUint64, 1 << 12, 12}}) {
    for (const char* direction : {"LEFT", "RIGHT"}) {
      for (bool scalar : {false, true}) {
        SCOPED_TRACE("type " + std::to_string(k.type) + " " + direction + (scalar ? " scalar amount" : ""));
        const std::vector<int64_t> ss = scalar ? std::vector<int64_t>{} : std::vector<int64_t>{2, 6};
        OnnxGraph g(18);
        g.Input("a", {2, 6});
        g.Input("s", ss);
        CastTo(g, "a", "ai", k.type);
        CastTo(g, "s", "si", k.type);
        OnnxGraph::Attr(g.Node("BitShift", {"ai", "si"}, {"r"}), "direction", std::string(direction));
        CastTo(g, "r", "y", kFloat);
        g.Output("y");
        ExpectMatchesOrt(g, {{"a", {2, 6}, Integers(12, 0, k.hi, 304)},
                             {"s", ss, scalar ? std::vector<float>{3} : Integers(12, 0, k.max_shift, 305)}});
      }
    }
  }
  // By hand: uint8 and uint16 wrap on the left; a shift by the width or more
  // gives 0.
  struct Hand {
    int64_t type;
    const char* direction;
    std::vector<float> x, s, want;
  };
  for (const Hand& h : {Hand{kUint8, "LEFT", {200, 3, 1, 255}, {1, 6, 8, 0}, {144, 192, 0, 255}},
                        Hand{kUint16, "LEFT", {40000, 3, 1, 65535}, {1, 14, 16, 4}, {14464, 49152, 0, 65520}},
                        Hand{kUint16, "RIGHT", {40000, 3, 65535, 7}, {1, 1, 15, 20}, {20000, 1, 1, 0}}}) {
    SCOPED_TRACE(std::string("by hand, type ") + std::to_string(h.type) + " " + h.direction);
    OnnxGraph g(18);
    g.Input("a", {4});
    g.Int64Initializer("s", {4}, std::vector<int64_t>(h.s.begin(), h.s.end()));
    CastTo(g, "a", "ai", h.type);
    CastTo(g, "s", "si", h.type);
    OnnxGraph::Attr(g.Node("BitShift", {"ai", "si"}, {"r"}), "direction", std::string(h.direction));
    CastTo(g, "r", "y", kFloat);
    g.Output("y");
    auto model = LoadOnnxGraph(g, "bit_shift.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(RunEngine(*model, h.x, AlgorithmPolicy::kReference), h.want);
    EXPECT_EQ(RunEngine(*model, h.x, AlgorithmPolicy::kAuto, 2), h.want);
  }
}

// A constant operand (a uint8 mask), constants folded at import (the
// folded value meets a run-time one), a chain of bitwise ops whose type
// comes through the first, and an NHWC operand (a conv's output, cast).
TEST(OnnxBitwiseOpsTest, ConstantsFoldedChainsAndLayouts) {
  {
    OnnxGraph g(18);
    g.Input("a", {2, 8});
    g.Int64Initializer("m", {8}, {1, 2, 4, 8, 16, 32, 64, 128});
    g.Int64Initializer("k1", {1}, {0xF0});
    g.Int64Initializer("k2", {1}, {0x3C});
    CastTo(g, "a", "ai", kUint8);
    CastTo(g, "m", "mi", kUint8);
    CastTo(g, "k1", "k1i", kUint8);
    CastTo(g, "k2", "k2i", kUint8);
    g.Node("BitwiseXor", {"k1i", "k2i"}, {"k"});  // folds: 0xCC
    g.Node("BitwiseNot", {"k"}, {"kn"});          // folds: 0x33
    g.Node("BitwiseAnd", {"ai", "mi"}, {"r1"});
    g.Node("BitwiseOr", {"r1", "kn"}, {"r2"});
    g.Node("BitwiseNot", {"r2"}, {"r3"});  // uint8 through the chain
    CastTo(g, "r3", "y", kFloat);
    g.Output("y");
    const std::vector<float> a = Integers(16, 0, 256, 306);
    ExpectMatchesOrt(g, {{"a", {2, 8}, a}});
    auto model = LoadOnnxGraph(g, "bitwise_chain.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "BITWISE_XOR"), 0);  // folded
    EXPECT_EQ(CountOps(*model, "BITWISE_NOT"), 1);
    const std::vector<float> y = RunEngine(*model, a, AlgorithmPolicy::kReference);
    ASSERT_EQ(y.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      const unsigned v = static_cast<unsigned>(a[i]) & (1u << (i % 8));
      EXPECT_EQ(y[i], static_cast<float>(~(v | 0x33u) & 0xFFu)) << i;
    }
  }
  {
    // The conv's output is NHWC inside the engine; the int32 mask a [1, 2, 1, 1]
    // constant, brought to NHWC.
    OnnxGraph g(18);
    g.Input("x", {1, 2, 4, 4});
    g.Initializer("w", {2, 2, 1, 1}, {3, 0, 0, 5});
    g.Node("Conv", {"x", "w"}, {"c"});
    CastTo(g, "c", "ci", kInt32);
    g.Int64Initializer("m", {1, 2, 1, 1}, {6, 12});
    CastTo(g, "m", "mi", kInt32);
    g.Node("BitwiseAnd", {"ci", "mi"}, {"r"});
    CastTo(g, "r", "y", kFloat);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {1, 2, 4, 4}, Integers(32, -20, 20, 307)}});
  }
}

// BitShift of a signed type is not an ONNX model: refused naming the node.
TEST(OnnxBitwiseOpsTest, BitShiftOfSignedTypeIsInvalid) {
  OnnxGraph g(18);
  g.Input("a", {4});
  CastTo(g, "a", "ai", kInt32);
  OnnxGraph::Attr(g.Node("BitShift", {"ai", "ai"}, {"r"}), "direction", std::string("LEFT"));
  CastTo(g, "r", "y", kFloat);
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("(BitShift): BitShift takes unsigned integer types"), std::string::npos)
      << model.status().message();
}

}  // namespace
}  // namespace rill::inference::testing
