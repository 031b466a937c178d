// The tensor, shape and attention ops (inference/ir/ops/tensor_ops.h and
// their converters, inference/import/onnx/converters/tensor.cc) against ONNX
// Runtime on small models (onnx_op_test_util.h): MatMul of two activations,
// Softmax on any axis, Split, Expand, Tile, Where, the comparisons and logic
// ops, Cast, ConstantOfShape, Range, Gather, the reductions, ArgMax / ArgMin,
// TopK and Einsum, integer Mod of activations, a run-time Slice of an NHWC
// value, sequences and Loops of a constant trip count (unrolled; run-time
// trip counts and conditions: onnx_loop_test); each op's constant folding (the shape
// arithmetic of exported transformers) feeding an activation; the ops' shapes after
// Session::Resize, and TFLite's BATCH_MATMUL with adj_x / adj_y, against
// hand-computed values.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference::testing {
namespace {

using Ints = std::vector<int64_t>;

// Values from a small set, so that comparisons meet ties.
std::vector<float> Steps(size_t n, unsigned seed = 1) {
  std::vector<float> v = RandomValues(n, -2.0f, 2.0f, seed);
  for (float& x : v) x = std::floor(x);
  return v;
}

size_t Count(const Ints& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

onnx::NodeProto* CastTo(OnnxGraph& g, const std::string& in, const std::string& out, int64_t to) {
  onnx::NodeProto* n = g.Node("Cast", {in}, {out});
  OnnxGraph::Attr(n, "to", to);
  return n;
}
constexpr int64_t kFloatType = 1, kInt64Type = 7, kBoolType = 9;

// ---- MatMul of two activations ---------------------------------------------

void ExpectMatMul(const Ints& a, const Ints& b, unsigned seed = 1) {
  OnnxGraph g;
  g.Input("a", a);
  g.Input("b", b);
  g.Node("MatMul", {"a", "b"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"a", a, RandomValues(Count(a), -1, 1, seed)}, {"b", b, RandomValues(Count(b), -1, 1, seed + 1)}});
}

TEST(OnnxTensorOpsTest, MatMulOfActivations) {
  ExpectMatMul({7, 9}, {9, 11});
  ExpectMatMul({2, 3, 5}, {2, 5, 4});
  ExpectMatMul({3, 2, 17, 8}, {3, 2, 8, 17});    // attention's Q K^T (6 batches)
  ExpectMatMul({2, 1, 3, 5}, {1, 4, 5, 6});      // batch dims broadcast both ways
  ExpectMatMul({4, 3, 5}, {5, 6});               // activation right operand of rank 2
  ExpectMatMul({1, 40, 33}, {1, 33, 29});        // one large batch: rows over the threads
  ExpectMatMul({5}, {2, 5, 3});                  // 1-D left: a row, dropped after
  ExpectMatMul({2, 3, 5}, {5});                  // 1-D right: a column, dropped after
}

TEST(OnnxTensorOpsTest, MatMulWithConstantOfRank3) {
  OnnxGraph g;
  g.Input("a", {2, 3, 5});
  g.Initializer("w", {2, 5, 4}, RandomValues(40, -1, 1, 7));
  g.Node("MatMul", {"a", "w"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"a", {2, 3, 5}, RandomValues(30)}});
}

TEST(OnnxTensorOpsTest, MatMulAfterAConvTakesOnnxLayout) {
  // The conv's output is held NHWC; MatMul reads it as NCHW.
  OnnxGraph g;
  g.Input("x", {1, 3, 4, 5});
  g.Input("b", {1, 3, 5, 6});
  g.Initializer("w", {3, 3, 1, 1}, RandomValues(9, -1, 1, 3));
  g.Node("Conv", {"x", "w"}, {"c"});
  g.Node("MatMul", {"c", "b"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 3, 4, 5}, RandomValues(60)}, {"b", {1, 3, 5, 6}, RandomValues(90, -1, 1, 2)}});
}

// ---- Softmax ---------------------------------------------------------------------

TEST(OnnxTensorOpsTest, SoftmaxOnAnyAxis) {
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    OnnxGraph g(13);
    g.Input("x", {2, 3, 4, 5});
    OnnxGraph::Attr(g.Node("Softmax", {"x"}, {"y"}), "axis", axis);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 4, 5}, RandomValues(120, -3, 3)}});
  }
}

TEST(OnnxTensorOpsTest, SoftmaxBeforeOpset13FlattensFromItsAxis) {
  for (int64_t axis : {1, 2, -3}) {
    OnnxGraph g(11);
    g.Input("x", {2, 3, 4, 5});
    OnnxGraph::Attr(g.Node("Softmax", {"x"}, {"y"}), "axis", axis);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 4, 5}, RandomValues(120, -3, 3)}});
  }
  OnnxGraph g(11);  // default axis 1 of a 3-D value
  g.Input("x", {2, 3, 7});
  g.Node("Softmax", {"x"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 7}, RandomValues(42, -3, 3)}});
}

// ---- Split -------------------------------------------------------------------------

TEST(OnnxTensorOpsTest, SplitBySizesInputAttributeAndNumOutputs) {
  {
    OnnxGraph g(13);
    g.Input("x", {2, 7, 3});
    g.Int64Initializer("s", {3}, {2, 4, 1});
    OnnxGraph::Attr(g.Node("Split", {"x", "s"}, {"a", "b", "c"}), "axis", int64_t{-2});
    for (const char* o : {"a", "b", "c"}) g.Output(o);
    ExpectMatchesOrt(g, {{"x", {2, 7, 3}, RandomValues(42)}});
  }
  {
    OnnxGraph g(11);  // sizes as an attribute
    g.Input("x", {6, 5});
    onnx::NodeProto* n = g.Node("Split", {"x"}, {"a", "b"});
    OnnxGraph::Attr(n, "axis", int64_t{1});
    OnnxGraph::Attr(n, "split", Ints{3, 2});
    g.Output("a");
    g.Output("b");
    ExpectMatchesOrt(g, {{"x", {6, 5}, RandomValues(30)}});
  }
  {
    OnnxGraph g(13);  // equal parts
    g.Input("x", {6, 4});
    g.Node("Split", {"x"}, {"a", "b", "c"});
    for (const char* o : {"a", "b", "c"}) g.Output(o);
    ExpectMatchesOrt(g, {{"x", {6, 4}, RandomValues(24)}});
  }
  {
    OnnxGraph g(18);  // num_outputs: 7 in parts of 3, 3, 1
    g.Input("x", {2, 7});
    onnx::NodeProto* n = g.Node("Split", {"x"}, {"a", "b", "c"});
    OnnxGraph::Attr(n, "axis", int64_t{1});
    OnnxGraph::Attr(n, "num_outputs", int64_t{3});
    for (const char* o : {"a", "b", "c"}) g.Output(o);
    ExpectMatchesOrt(g, {{"x", {2, 7}, RandomValues(14)}});
  }
  {
    OnnxGraph g(13);  // of an NHWC value: the channel axis
    g.Input("x", {1, 4, 3, 5});
    g.Initializer("w", {4, 4, 1, 1}, RandomValues(16, -1, 1, 5));
    g.Node("Conv", {"x", "w"}, {"c"});
    onnx::NodeProto* n = g.Node("Split", {"c"}, {"a", "b"});
    OnnxGraph::Attr(n, "axis", int64_t{1});
    g.Output("a");
    g.Output("b");
    ExpectMatchesOrt(g, {{"x", {1, 4, 3, 5}, RandomValues(60)}});
  }
}

// ---- Expand, Tile, Where ---------------------------------------------------------

TEST(OnnxTensorOpsTest, ExpandTileWhere) {
  {
    OnnxGraph g;
    g.Input("x", {3, 1});
    g.Int64Initializer("s", {3}, {2, 1, 4});
    g.Node("Expand", {"x", "s"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, 1}, RandomValues(3)}});
  }
  {
    OnnxGraph g;
    g.Input("x", {2, 3});
    g.Int64Initializer("r", {2}, {3, 2});
    g.Node("Tile", {"x", "r"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3}, RandomValues(6)}});
  }
  {
    // Where(x > y, x, y) with the three operands broadcast.
    OnnxGraph g;
    g.Input("x", {3, 1});
    g.Input("y", {1, 4});
    g.Input("c", {2, 3, 4});
    g.Node("Greater", {"c", "x"}, {"gt"});
    g.Node("Where", {"gt", "x", "y"}, {"w"});
    g.Output("w");
    ExpectMatchesOrt(g, {{"x", {3, 1}, RandomValues(3, -1, 1, 2)},
                         {"y", {1, 4}, RandomValues(4, -1, 1, 3)},
                         {"c", {2, 3, 4}, RandomValues(24, -1, 1, 4)}});
  }
}

// ---- comparisons, logic, Cast ------------------------------------------------------

TEST(OnnxTensorOpsTest, ComparisonsAndLogicWithTies) {
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    OnnxGraph g;
    g.Input("a", {2, 3, 4});
    g.Input("b", {3, 1});
    g.Node(op, {"a", "b"}, {"r"});
    CastTo(g, "r", "y", kFloatType);
    g.Output("y");
    ExpectMatchesOrt(g, {{"a", {2, 3, 4}, Steps(24, 1)}, {"b", {3, 1}, Steps(3, 2)}});
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    OnnxGraph g;
    g.Input("a", {2, 5});
    g.Input("b", {5});
    CastTo(g, "a", "ab", kBoolType);
    CastTo(g, "b", "bb", kBoolType);
    g.Node(op, {"ab", "bb"}, {"r"});
    g.Node("Not", {"r"}, {"n"});
    CastTo(g, "r", "y", kFloatType);
    CastTo(g, "n", "z", kFloatType);
    g.Output("y");
    g.Output("z");
    ExpectMatchesOrt(g, {{"a", {2, 5}, Steps(10, 3)}, {"b", {5}, Steps(5, 4)}});
  }
}

TEST(OnnxTensorOpsTest, CastOfActivationsTruncatesAndTestsNonZero) {
  OnnxGraph g;
  g.Input("x", {4, 5});
  CastTo(g, "x", "i", kInt64Type);
  CastTo(g, "i", "y", kFloatType);
  CastTo(g, "x", "b", kBoolType);
  CastTo(g, "b", "z", kFloatType);
  g.Output("y");
  g.Output("z");
  std::vector<float> x = RandomValues(20, -3, 3);
  x[0] = 0.0f;
  x[1] = -0.0f;
  x[2] = -2.5f;
  x[3] = 2.5f;
  ExpectMatchesOrt(g, {{"x", {4, 5}, x}});
}

// A run-time Cast to a narrow integer type wraps into its range as ONNX
// Runtime does (int64 to uint8: 300 -> 44, -1 -> 255; to int8: 200 -> -56;
// to int16 / uint16: 70000 -> 4464); within each type's range it is the
// value itself.
TEST(OnnxTensorOpsTest, CastToNarrowIntegersWraps) {
  constexpr int64_t kUint8Type = 2, kInt8Type = 3, kUint16Type = 4, kInt16Type = 5, kInt32Type = 6;
  for (int64_t to : {kUint8Type, kInt8Type, kUint16Type, kInt16Type, kInt32Type}) {
    OnnxGraph g;
    g.Input("x", {2, 6});
    CastTo(g, "x", "i", kInt64Type);
    CastTo(g, "i", "n", to);
    CastTo(g, "n", "y", kFloatType);
    g.Output("y");
    SCOPED_TRACE("to type " + std::to_string(to));
    ExpectMatchesOrt(g, {{"x", {2, 6}, {300.0f, -1.0f, 255.0f, 256.0f, -129.0f, 70000.0f, 200.7f, -200.7f, 127.0f,
                                         -128.0f, 65535.0f, -70000.0f}}},
                     0.0);
  }
}

// ---- Gather ------------------------------------------------------------------------------

TEST(OnnxTensorOpsTest, GatherOfActivations) {
  {
    // ViT's class token: x[:, 0] (a scalar index drops the axis).
    OnnxGraph g;
    g.Input("x", {2, 5, 6});
    g.Int64Initializer("i", {}, {0});
    OnnxGraph::Attr(g.Node("Gather", {"x", "i"}, {"y"}), "axis", int64_t{1});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 5, 6}, RandomValues(60)}});
  }
  {
    // 2-D indices, negative ones, the last axis.
    OnnxGraph g;
    g.Input("x", {3, 4, 7});
    g.Int64Initializer("i", {2, 3}, {0, -1, 3, 6, -7, 2});
    OnnxGraph::Attr(g.Node("Gather", {"x", "i"}, {"y"}), "axis", int64_t{-1});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, 4, 7}, RandomValues(84)}});
  }
  {
    // Indices computed at run time: ArgMax -> Gather.
    OnnxGraph g;
    g.Input("x", {6, 4});
    g.Input("t", {6});
    onnx::NodeProto* am = g.Node("ArgMax", {"t"}, {"k"});
    OnnxGraph::Attr(am, "keepdims", int64_t{1});
    g.Node("Gather", {"x", "k"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {6, 4}, RandomValues(24)}, {"t", {6}, RandomValues(6, -1, 1, 9)}});
  }
}

// ---- reductions, ArgMax, TopK ------------------------------------------------------------

TEST(OnnxTensorOpsTest, ReductionsOverAxesWithKeepdims) {
  const std::vector<float> x = RandomValues(120, 0.5f, 1.5f);
  for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"}) {
    for (const Ints& axes : {Ints{1}, Ints{-1}, Ints{0, 2}, Ints{2, 3}, Ints{}}) {
      for (int64_t keep : {0, 1}) {
        SCOPED_TRACE(std::string(op) + " axes " + std::to_string(axes.size()) + " keep " + std::to_string(keep));
        // Axes as an attribute (opset 13; ReduceSum's is an input there).
        const bool sum = std::string(op) == "ReduceSum";
        OnnxGraph g(13);
        g.Input("x", {2, 3, 4, 5});
        std::vector<std::string> ins = {"x"};
        if (sum && !axes.empty()) {
          g.Int64Initializer("axes", {static_cast<int64_t>(axes.size())}, axes);
          ins.push_back("axes");
        }
        onnx::NodeProto* n = g.Node(op, ins, {"y"});
        if (!sum && !axes.empty()) OnnxGraph::Attr(n, "axes", axes);
        OnnxGraph::Attr(n, "keepdims", keep);
        g.Output("y");
        ExpectMatchesOrt(g, {{"x", {2, 3, 4, 5}, x}});
      }
    }
  }
}

TEST(OnnxTensorOpsTest, ReductionsOpset18AxesInputAndNoop) {
  for (const char* op : {"ReduceMax", "ReduceL2"}) {
    OnnxGraph g(18);
    g.Input("x", {3, 4, 5});
    g.Int64Initializer("axes", {1}, {-2});
    OnnxGraph::Attr(g.Node(op, {"x", "axes"}, {"y"}), "keepdims", int64_t{0});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, 4, 5}, RandomValues(60)}});
  }
  // noop_with_empty_axes: no axes is the identity (an Add keeps it a node).
  OnnxGraph g(18);
  g.Input("x", {3, 4});
  OnnxGraph::Attr(g.Node("ReduceSum", {"x"}, {"r"}), "noop_with_empty_axes", int64_t{1});
  g.Initializer("one", {1}, {1.0f});
  g.Node("Add", {"r", "one"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {3, 4}, RandomValues(12)}});
}

TEST(OnnxTensorOpsTest, ReductionOfAnNhwcValue) {
  OnnxGraph g(13);
  g.Input("x", {1, 4, 3, 5});
  g.Initializer("w", {6, 4, 1, 1}, RandomValues(24, -1, 1, 5));
  g.Node("Conv", {"x", "w"}, {"c"});
  g.Int64Initializer("axes", {1}, {1});
  g.Node("ReduceSum", {"c", "axes"}, {"s"});
  OnnxGraph::Attr(g.Node("ReduceMax", {"c"}, {"m"}), "axes", Ints{2, 3});
  g.Output("s");
  g.Output("m");
  ExpectMatchesOrt(g, {{"x", {1, 4, 3, 5}, RandomValues(60)}});
}

TEST(OnnxTensorOpsTest, ArgMaxArgMinWithTies) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, -1}) {
      for (int64_t keep : {0, 1}) {
        for (int64_t last : {0, 1}) {
          OnnxGraph g(13);
          g.Input("x", {3, 4, 5});
          onnx::NodeProto* n = g.Node(op, {"x"}, {"i"});
          OnnxGraph::Attr(n, "axis", axis);
          OnnxGraph::Attr(n, "keepdims", keep);
          OnnxGraph::Attr(n, "select_last_index", last);
          CastTo(g, "i", "y", kFloatType);
          g.Output("y");
          ExpectMatchesOrt(g, {{"x", {3, 4, 5}, Steps(60, 5)}});
        }
      }
    }
  }
}

TEST(OnnxTensorOpsTest, TopKLargestAndSmallest) {
  for (int64_t largest : {1, 0}) {
    for (int64_t axis : {-1, 1}) {
      OnnxGraph g(11);
      g.Input("x", {3, 6, 7});
      g.Int64Initializer("k", {1}, {4});
      onnx::NodeProto* n = g.Node("TopK", {"x", "k"}, {"v", "i"});
      OnnxGraph::Attr(n, "axis", axis);
      OnnxGraph::Attr(n, "largest", largest);
      CastTo(g, "i", "fi", kFloatType);
      g.Output("v");
      g.Output("fi");
      ExpectMatchesOrt(g, {{"x", {3, 6, 7}, RandomValues(126)}});
    }
  }
}

// ---- Einsum ------------------------------------------------------------------------------

void ExpectEinsum(const std::string& eq, const Ints& a, const Ints& b) {
  SCOPED_TRACE(eq);
  OnnxGraph g;
  g.Input("a", a);
  g.Input("b", b);
  OnnxGraph::Attr(g.Node("Einsum", {"a", "b"}, {"y"}), "equation", eq);
  g.Output("y");
  ExpectMatchesOrt(g, {{"a", a, RandomValues(Count(a), -1, 1, 3)}, {"b", b, RandomValues(Count(b), -1, 1, 4)}});
}

TEST(OnnxTensorOpsTest, EinsumFormsOfAttention) {
  ExpectEinsum("bhid,bhjd->bhij", {2, 3, 5, 4}, {2, 3, 6, 4});
  ExpectEinsum("bhij,bhjd->bhid", {2, 3, 5, 6}, {2, 3, 6, 4});
  ExpectEinsum("bid,bjd->bij", {2, 5, 4}, {2, 7, 4});
  ExpectEinsum("...ij,...jk->...ik", {2, 3, 5, 4}, {2, 3, 4, 6});
  ExpectEinsum("...ij,...jk->...ik", {2, 1, 5, 4}, {2, 3, 4, 6});  // ellipsis dims broadcast
  ExpectEinsum("ij,jk->ki", {5, 4}, {4, 6});               // output transposed
  ExpectEinsum("bij, bkj -> bik", {2, 3, 4}, {2, 5, 4});   // spaces
}

TEST(OnnxTensorOpsTest, EinsumWithConstantWeights) {
  OnnxGraph g;
  g.Input("x", {2, 3, 5});
  g.Initializer("w", {5, 4}, RandomValues(20, -1, 1, 6));
  OnnxGraph::Attr(g.Node("Einsum", {"x", "w"}, {"y"}), "equation", std::string("bij,jk->bik"));
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 5}, RandomValues(30)}});
}

TEST(OnnxTensorOpsTest, EinsumOfADiagonalIsUnsupportedNamingTheEquation) {
  OnnxGraph g(12);
  g.Input("a", {3, 3});
  g.Input("b", {3, 4});
  OnnxGraph::Attr(g.Node("Einsum", {"a", "b"}, {"y"}), "equation", std::string("ii,ij->ij"));
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "einsum.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(model.status().message().find("attribute 'equation'"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("diagonals"), std::string::npos) << model.status().message();
}

TEST(OnnxTensorOpsTest, LayerNormStatisticsPlusAScalarEpsilon) {
  // A decomposed layer norm's variance [N, T, 1] + a scalar (shape []) epsilon:
  // the binary kernel once read the scalar's last dim.
  OnnxGraph g(13);
  g.Input("x", {2, 3, 4});
  OnnxGraph::Attr(g.Node("ReduceMean", {"x"}, {"m"}), "axes", Ints{-1});
  g.Node("Sub", {"x", "m"}, {"d"});
  g.Node("Mul", {"d", "d"}, {"d2"});
  OnnxGraph::Attr(g.Node("ReduceMean", {"d2"}, {"v"}), "axes", Ints{-1});
  onnx::NodeProto* k = g.Node("Constant", {}, {"eps"});
  onnx::AttributeProto* a = k->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_float_data(1e-5f);
  g.Node("Add", {"v", "eps"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 4}, RandomValues(24)}});
}

TEST(OnnxTensorOpsTest, AHugeFoldIsUnsupportedNotAnAllocation) {
  OnnxGraph g;
  g.Input("x", {1});
  g.Int64Initializer("shape", {2}, {65536, 65536});
  g.Node("ConstantOfShape", {"shape"}, {"big"});
  g.Node("Add", {"x", "big"}, {"y"});
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "huge.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(model.status().message().find("more than 2^24 elements"), std::string::npos) << model.status().message();
}

// ---- constant folding --------------------------------------------------------------------

// ConstantOfShape's `value` attribute: a one-element int64 tensor.
void Int64ValueAttr(onnx::NodeProto* n, int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(v);
}

TEST(OnnxTensorOpsTest, VitClassTokenShapeArithmeticFolds) {
  // torch.onnx's export of class_token.expand(n, -1, -1) then cat.
  OnnxGraph g;
  g.Input("x", {2, 5, 6});
  g.Initializer("token", {1, 1, 6}, RandomValues(6, -1, 1, 8));
  g.Int64Initializer("zero", {}, {0});
  g.Int64Initializer("axes0", {1}, {0});
  g.Int64Initializer("rest", {2}, {-1, -1});
  g.Int64Initializer("three", {1}, {3});
  g.Int64Initializer("minus_one", {}, {-1});
  g.Node("Shape", {"x"}, {"shape"});
  g.Node("Gather", {"shape", "zero"}, {"n"});
  g.Node("Unsqueeze", {"n", "axes0"}, {"n1"});
  OnnxGraph::Attr(g.Node("Concat", {"n1", "rest"}, {"target"}), "axis", int64_t{0});
  Int64ValueAttr(g.Node("ConstantOfShape", {"three"}, {"ones"}), 1);
  g.Node("Mul", {"ones", "minus_one"}, {"neg"});
  g.Node("Equal", {"target", "neg"}, {"is_free"});
  g.Node("Where", {"is_free", "ones", "target"}, {"dims"});
  g.Node("Expand", {"token", "dims"}, {"tokens"});
  OnnxGraph::Attr(g.Node("Concat", {"tokens", "x"}, {"y"}), "axis", int64_t{1});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 5, 6}, RandomValues(60)}});
}

TEST(OnnxTensorOpsTest, EachOpFoldsOnConstants) {
  OnnxGraph g(13);
  g.Input("x", {2, 3});
  g.Int64Initializer("r0", {}, {0});
  g.Int64Initializer("r3", {}, {3});
  g.Int64Initializer("r1", {}, {1});
  g.Node("Range", {"r0", "r3", "r1"}, {"range"});
  CastTo(g, "range", "range_f", kFloatType);
  g.Initializer("row", {1, 3}, {0.5f, -1.0f, 2.0f});
  g.Int64Initializer("reps", {2}, {2, 1});
  g.Node("Tile", {"row", "reps"}, {"tiled"});
  g.Initializer("wide", {2, 6}, RandomValues(12, -1, 1, 11));
  g.Int64Initializer("halves", {2}, {3, 3});
  OnnxGraph::Attr(g.Node("Split", {"wide", "halves"}, {"left", "right"}), "axis", int64_t{1});
  g.Initializer("cube", {2, 3, 2}, RandomValues(12, -1, 1, 12));
  g.Int64Initializer("last", {1}, {-1});
  OnnxGraph::Attr(g.Node("ReduceSum", {"cube", "last"}, {"summed"}), "keepdims", int64_t{0});
  OnnxGraph::Attr(g.Node("ReduceMax", {"cube"}, {"maxed"}), "axes", Ints{2});
  g.Int64Initializer("mx_shape", {2}, {2, 3});
  g.Node("Reshape", {"maxed", "mx_shape"}, {"maxed2"});
  g.Initializer("table", {4, 3}, RandomValues(12, -1, 1, 13));
  g.Int64Initializer("pick", {2}, {1, -1});
  g.Node("Gather", {"table", "pick"}, {"picked"});
  g.Node("Less", {"row", "tiled"}, {"less"});
  g.Node("Not", {"less"}, {"not_less"});
  g.Node("Where", {"not_less", "picked", "left"}, {"chosen"});
  const char* terms[] = {"range_f", "tiled", "right", "summed", "maxed2", "picked", "chosen"};
  std::string acc = "x";
  for (const char* t : terms) {
    const std::string next = acc + "+" + t;
    g.Node("Add", {acc, t}, {next});
    acc = next;
  }
  g.Node("Identity", {acc}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3}, RandomValues(6)}});
  // Every op above folded: the model is the chain of ADDs only.
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "fold.onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<LayerInfo> layers = (*session)->Layers();
  EXPECT_EQ(layers.size(), 7u);
  for (const LayerInfo& l : layers) EXPECT_EQ(l.op, "ADD");
}

TEST(OnnxTensorOpsTest, IntegerConstantsBroadcastAsNumpy) {
  // swin_t's relative position index: Range[:, None] + Range, a [3, 4] table
  // (shapes were once flattened to 1-D here).
  OnnxGraph g;
  g.Input("x", {3, 4});
  g.Int64Initializer("zero", {}, {0});
  g.Int64Initializer("three", {}, {3});
  g.Int64Initializer("four", {}, {4});
  g.Int64Initializer("one", {}, {1});
  g.Int64Initializer("column", {2}, {-1, 1});
  g.Node("Range", {"zero", "three", "one"}, {"r3"});
  g.Node("Range", {"zero", "four", "one"}, {"r4"});
  g.Node("Reshape", {"r3", "column"}, {"c3"});
  g.Node("Mul", {"c3", "four"}, {"rows"});
  g.Node("Add", {"rows", "r4"}, {"table"});
  g.Node("Sub", {"table", "three"}, {"shifted"});
  CastTo(g, "shifted", "f", kFloatType);
  g.Node("Add", {"x", "f"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {3, 4}, RandomValues(12)}});
}

TEST(OnnxTensorOpsTest, TransposeConcatSliceModScatterOfConstantsFold) {
  OnnxGraph g(13);
  g.Input("x", {2, 2});
  g.Input("z", {2, 3});
  g.Input("w", {3});
  g.Int64Initializer("m", {2, 3}, {-7, 5, 2, 9, -4, 0});
  OnnxGraph::Attr(g.Node("Transpose", {"m"}, {"t"}), "perm", Ints{1, 0});  // [3, 2]
  OnnxGraph::Attr(g.Node("Concat", {"t", "t"}, {"tt"}), "axis", int64_t{1});  // [3, 4]
  g.Int64Initializer("starts", {2}, {0, 3});
  g.Int64Initializer("ends", {2}, {3, 0});
  g.Int64Initializer("axes", {2}, {0, 1});
  g.Int64Initializer("steps", {2}, {2, -2});
  g.Node("Slice", {"tt", "starts", "ends", "axes", "steps"}, {"s"});  // rows 0, 2; cols 3, 1
  g.Int64Initializer("three", {}, {3});
  g.Node("Mod", {"s", "three"}, {"mod"});  // the divisor's sign
  CastTo(g, "mod", "modf", kFloatType);
  g.Node("Add", {"x", "modf"}, {"y"});
  g.Output("y");
  // ScatterND into zeros made by ConstantOfShape.
  g.Int64Initializer("zshape", {2}, {2, 3});
  g.Node("ConstantOfShape", {"zshape"}, {"zeros"});
  g.Int64Initializer("where", {2, 2}, {0, 1, 1, 2});
  g.Initializer("updates", {2}, {5.0f, 7.0f});
  g.Node("ScatterND", {"zeros", "where", "updates"}, {"scattered"});
  g.Node("Add", {"z", "scattered"}, {"y2"});
  g.Output("y2");
  // A bool Constant node picks from w.
  onnx::NodeProto* k = g.Node("Constant", {}, {"mask"});
  onnx::AttributeProto* a = k->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
  a->mutable_t()->add_dims(3);
  for (int b : {1, 0, 1}) a->mutable_t()->add_int32_data(b);
  g.Initializer("fill", {1}, {-1.0f});
  g.Node("Where", {"mask", "w", "fill"}, {"y3"});
  g.Output("y3");
  ExpectMatchesOrt(g, {{"x", {2, 2}, RandomValues(4)}, {"z", {2, 3}, RandomValues(6, -1, 1, 2)},
                       {"w", {3}, RandomValues(3, -1, 1, 3)}});
}

// Integer Mod of run-time values, as a detector's `topk_idxs % num_classes`
// (RetinaNet, FCOS): Python's %, the result takes the divisor's sign, on
// values up to 2^24 - 1 (exact) and an activation divisor as well as a
// constant one.
TEST(OnnxTensorOpsTest, IntegerModOfActivationsMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {2, 6});
  g.Input("d", {6});
  CastTo(g, "x", "xi", kInt64Type);
  CastTo(g, "d", "di", kInt64Type);
  g.Int64Initializer("classes", {}, {91});
  g.Node("Mod", {"xi", "classes"}, {"by_classes"});
  g.Node("Mod", {"xi", "di"}, {"by_d"});  // divisors of both signs
  CastTo(g, "by_classes", "y1", kFloatType);
  CastTo(g, "by_d", "y2", kFloatType);
  g.Output("y1");
  g.Output("y2");
  const std::vector<float> x = {0, 90, 91, 182, 16777215, 16777214, -1, -90, -91, -92, 12345, -12346};
  ExpectMatchesOrt(g, {{"x", {2, 6}, x}, {"d", {6}, {7, -7, 91, -3, 1000, -1000}}});
  // The values themselves, against Python's % (not only ORT's).
  OnnxGraph h;
  h.Input("x", {12});
  CastTo(h, "x", "xi", kInt64Type);
  h.Int64Initializer("classes", {}, {91});
  h.Node("Mod", {"xi", "classes"}, {"m"});
  CastTo(h, "m", "y", kFloatType);
  h.Output("y");
  std::shared_ptr<const Model> model = LoadOnnxGraph(h, "mod");
  ASSERT_NE(model, nullptr);
  const std::vector<float> y = RunEngine(*model, x, AlgorithmPolicy::kAuto, 1);
  ASSERT_EQ(y.size(), 12u);
  const std::vector<float> want = {0, 90, 0, 0, 0, 90, 90, 1, 0, 90, 60, 30};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], want[i]) << i;
}

// Slice of a convolution's output (NHWC inside the engine) with starts and
// ends computed at run time, as Keypoint R-CNN crops its heatmaps: the value
// goes back to NCHW, whose axes the bounds index.
TEST(OnnxTensorOpsTest, RunTimeSliceOfAConvOutputMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {1, 4, 6, 6});
  g.Input("b", {2});
  g.Initializer("w", {4, 4, 1, 1}, RandomValues(16, -1.0f, 1.0f, 5));
  g.Node("Conv", {"x", "w"}, {"c"});
  CastTo(g, "b", "starts", kInt64Type);
  g.Int64Initializer("ends", {2}, {6, 5});
  g.Int64Initializer("axes", {2}, {1, 3});
  g.Node("Slice", {"c", "starts", "ends", "axes"}, {"y"});
  g.Output("y");
  const std::vector<float> x = RandomValues(144, -1.0f, 1.0f, 6);
  ExpectMatchesOrt(g, {{"x", {1, 4, 6, 6}, x}, {"b", {2}, {1, 2}}});  // channels 1..3, columns 2..4
  ExpectMatchesOrt(g, {{"x", {1, 4, 6, 6}, x}, {"b", {2}, {3, 0}}});  // channel 3, columns 0..4
}

// A Loop body: `ops` of (op type, inputs, output), its inputs (iteration
// number, condition, then `carried`: true for a float sequence, false for a
// float tensor) and outputs (the condition, then the carried values).
onnx::GraphProto LoopBody(const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>& ops,
                          const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                          const std::vector<bool>& sequence) {
  onnx::GraphProto b;
  b.set_name("body");
  for (const auto& [op, ins, out] : ops) {
    onnx::NodeProto* n = b.add_node();
    n->set_op_type(op);
    for (const std::string& in : ins) n->add_input(in);
    n->add_output(out);
  }
  auto set_type = [&](onnx::ValueInfoProto* v, size_t i) {
    if (i == 0) {
      v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
      v->mutable_type()->mutable_tensor_type()->mutable_shape();
    } else if (i == 1) {
      v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
      v->mutable_type()->mutable_tensor_type()->mutable_shape();
    } else if (sequence[i - 2]) {
      v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
          onnx::TensorProto::FLOAT);
    } else {
      v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    onnx::ValueInfoProto* v = b.add_input();
    v->set_name(inputs[i]);
    set_type(v, i);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    onnx::ValueInfoProto* v = b.add_output();
    v->set_name(outputs[i]);
    set_type(v, i == 0 ? 1 : i + 1);
  }
  return b;
}

void SetBody(onnx::NodeProto* n, const onnx::GraphProto& body) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
}

// torch's tensor_split as exported (MViT's pooling splits its class token
// off): SequenceEmpty, a Loop of one iteration slicing [0, 2) of axis 2
// into the sequence, SequenceInsert of the rest, SequenceAt 0 and 1; on a
// convolution's output (NHWC inside the engine). Unrolled at import.
TEST(OnnxTensorOpsTest, TensorSplitLoopOfSequencesMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {1, 3, 5, 4});
  g.Initializer("w", {3, 3, 1, 1}, RandomValues(9, -1.0f, 1.0f, 7));
  g.Node("Conv", {"x", "w"}, {"c"});
  g.Int64Initializer("bounds", {2, 1}, {0, 2});  // Gather by the iteration number: a [1] bound
  g.Int64Initializer("one", {}, {1});
  g.Int64Initializer("trips", {1}, {1});
  g.Int64Initializer("axis", {1}, {2});
  g.Int64Initializer("rest_start", {1}, {2});
  g.Int64Initializer("rest_end", {1}, {5});
  g.Int64Initializer("first", {}, {0});
  g.Int64Initializer("second", {}, {1});
  onnx::NodeProto* cond = g.Node("Constant", {}, {"true"});
  onnx::AttributeProto* a = cond->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
  a->mutable_t()->add_int32_data(1);
  OnnxGraph::Attr(g.Node("SequenceEmpty", {}, {"empty"}), "dtype", int64_t{1});
  SetBody(g.Node("Loop", {"trips", "true", "empty"}, {"split"}),
          LoopBody({{"Gather", {"bounds", "i"}, "start"},
                    {"Add", {"i", "one"}, "next"},
                    {"Gather", {"bounds", "next"}, "end"},
                    {"Slice", {"c", "start", "end", "axis"}, "part"},
                    {"SequenceInsert", {"seq_in", "part"}, "seq_out"},
                    {"Identity", {"cond_in"}, "cond_out"}},
                   {"i", "cond_in", "seq_in"}, {"cond_out", "seq_out"}, {true}));
  g.Node("Slice", {"c", "rest_start", "rest_end", "axis"}, {"rest"});
  g.Node("SequenceInsert", {"split", "rest"}, {"both"});
  g.Node("SequenceAt", {"both", "first"}, {"head"});
  g.Node("SequenceAt", {"both", "second"}, {"tail"});
  g.Output("head");
  g.Output("tail");
  ExpectMatchesOrt(g, {{"x", {1, 3, 5, 4}, RandomValues(60, -1.0f, 1.0f, 8)}});
}

// A Loop of constant trip count carrying a tensor, y <- 2 y + i three
// times (no condition input): 8 x + 4, against ONNX Runtime and by hand.
TEST(OnnxTensorOpsTest, ConstantTripCountLoopIsUnrolled) {
  OnnxGraph g;
  g.Input("x", {2, 3});
  g.Int64Initializer("trips", {}, {3});
  g.Initializer("two", {}, {2.0f});
  onnx::GraphProto body = LoopBody({{"Mul", {"y_in", "two"}, "doubled"},
                                     {"Cast", {"i"}, "i_f"},
                                     {"Add", {"doubled", "i_f"}, "y_out"},
                                     {"Identity", {"cond_in"}, "cond_out"}},
                                    {"i", "cond_in", "y_in"}, {"cond_out", "y_out"}, {false});
  OnnxGraph::Attr(body.mutable_node(1), "to", kFloatType);
  SetBody(g.Node("Loop", {"trips", "", "x"}, {"y"}), body);
  g.Output("y");
  const std::vector<float> x = RandomValues(6, -1.0f, 1.0f, 9);
  ExpectMatchesOrt(g, {{"x", {2, 3}, x}});
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "loop");
  ASSERT_NE(model, nullptr);
  const std::vector<float> y = RunEngine(*model, x, AlgorithmPolicy::kReference, 1);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(y[i], 8.0f * x[i] + 4.0f) << i;
}

// SequenceConstruct, SequenceInsert at a position, SequenceAt from the end
// and SequenceLength: [a, c, b] after inserting c at 1; at(-1) - at(1) =
// b - c, length 3 added to a.
TEST(OnnxTensorOpsTest, SequenceOpsAtConstantPositionsMatchOrt) {
  OnnxGraph g;
  g.Input("a", {2, 3});
  g.Input("b", {2, 3});
  g.Input("c", {2, 3});
  g.Int64Initializer("at1", {}, {1});
  g.Int64Initializer("last", {}, {-1});
  g.Node("SequenceConstruct", {"a", "b"}, {"ab"});
  g.Node("SequenceInsert", {"ab", "c", "at1"}, {"acb"});
  g.Node("SequenceAt", {"acb", "last"}, {"y_last"});
  g.Node("SequenceAt", {"acb", "at1"}, {"y_1"});
  g.Node("SequenceLength", {"acb"}, {"n"});
  CastTo(g, "n", "n_f", kFloatType);
  g.Node("Add", {"a", "n_f"}, {"y_n"});
  g.Node("Sub", {"y_last", "y_1"}, {"b_minus_c"});  // an engine output may not be a graph input
  g.Output("b_minus_c");
  g.Output("y_n");
  ExpectMatchesOrt(g, {{"a", {2, 3}, RandomValues(6, -1, 1, 11)},
                       {"b", {2, 3}, RandomValues(6, -1, 1, 12)},
                       {"c", {2, 3}, RandomValues(6, -1, 1, 13)}});
}

// A Loop whose trip count is computed at run time: onnx_loop_test.cc.

TEST(OnnxTensorOpsTest, SwinAttentionMaskFoldsWhole) {
  // swin_t's shifted-window mask: region ids [w, n], their pairwise
  // differences, != 0 -> -100 else 0, added to the scores.
  OnnxGraph g(13);
  g.Input("scores", {2, 3, 3});
  g.Initializer("ids", {2, 3}, {0, 0, 1, 2, 2, 2});
  g.Int64Initializer("ax1", {1}, {1});
  g.Int64Initializer("ax2", {1}, {2});
  g.Node("Unsqueeze", {"ids", "ax1"}, {"u1"});
  g.Node("Unsqueeze", {"ids", "ax2"}, {"u2"});
  g.Node("Sub", {"u1", "u2"}, {"diff"});
  g.Initializer("zero", {}, {0.0f});
  g.Node("Equal", {"diff", "zero"}, {"same"});
  g.Node("Not", {"same"}, {"other"});
  CastTo(g, "other", "other_f", kFloatType);
  CastTo(g, "other_f", "other_b", kBoolType);
  g.Initializer("minus", {}, {-100.0f});
  g.Node("Where", {"other_b", "minus", "zero"}, {"mask"});
  g.Node("Add", {"scores", "mask"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"scores", {2, 3, 3}, RandomValues(18)}});
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "mask.onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<LayerInfo> layers = (*session)->Layers();
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].op, "ADD");
}

// ---- Session::Resize ----------------------------------------------------------------------

TEST(OnnxTensorOpsTest, ShapesFollowAResize) {
  OnnxGraph g;
  g.Input("a", {2, 3, 4});
  g.Input("b", {2, 4, 5});
  g.Node("MatMul", {"a", "b"}, {"y"});
  OnnxGraph::Attr(g.Node("ReduceMax", {"y"}, {"m"}), "axes", Ints{-1});
  OnnxGraph::Attr(g.Node("ArgMax", {"y"}, {"k"}), "axis", int64_t{1});
  CastTo(g, "k", "kf", kFloatType);
  g.Output("y");
  g.Output("m");
  g.Output("kf");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "resize.onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    SessionConfig config;
    config.algorithm = policy;
    config.num_threads = 2;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& s = **session;
    const int n = 3, m = 17, k = 4, p = 2;
    ASSERT_TRUE(s.Resize({{"a", {n, m, k}}, {"b", {n, k, p}}}).ok());
    const std::vector<float> a = RandomValues(n * m * k, -1, 1, 21), b = RandomValues(n * k * p, -1, 1, 22);
    std::memcpy(s.input("a")->data(), a.data(), a.size() * sizeof(float));
    std::memcpy(s.input("b")->data(), b.data(), b.size() * sizeof(float));
    ASSERT_TRUE(s.Run().ok());
    EXPECT_EQ(s.output("y")->shape(), (Shape{n, m, p}));
    EXPECT_EQ(s.output("m")->shape(), (Shape{n, m, 1}));
    EXPECT_EQ(s.output("kf")->shape(), (Shape{n, 1, p}));
    const float* y = s.output("y")->data_as<float>();
    const float* mx = s.output("m")->data_as<float>();
    const float* kf = s.output("kf")->data_as<float>();
    for (int i = 0; i < n; ++i) {
      for (int r = 0; r < m; ++r) {
        float best = -INFINITY;
        for (int c = 0; c < p; ++c) {
          double want = 0;
          for (int t = 0; t < k; ++t) want += double{a[(i * m + r) * k + t]} * b[(i * k + t) * p + c];
          EXPECT_NEAR(y[(i * m + r) * p + c], want, 1e-5);
          best = std::max(best, y[(i * m + r) * p + c]);
        }
        EXPECT_EQ(mx[i * m + r], best);
      }
      for (int c = 0; c < p; ++c) {
        int arg = 0;
        for (int r = 1; r < m; ++r) {
          if (y[(i * m + r) * p + c] > y[(i * m + arg) * p + c]) arg = r;
        }
        EXPECT_EQ(kf[i * p + c], static_cast<float>(arg));
      }
    }
  }
}

// ---- TFLite BATCH_MATMUL --------------------------------------------------------------------

constexpr int32_t kBatchMatMulCode = 126;
constexpr uint8_t kBatchMatMulOptionsType = 101;

template <bool kAdjX, bool kAdjY>
flatbuffers::uoffset_t BatchMatMulOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(0), kAdjX, 0);
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(1), kAdjY, 0);
  return b->EndTable(start);
}

template <bool kAdjX, bool kAdjY>
void ExpectTfliteBatchMatMul() {
  SCOPED_TRACE(std::string("adj_x ") + (kAdjX ? "1" : "0") + " adj_y " + (kAdjY ? "1" : "0"));
  const int batch = 2, m = 7, k = 5, n = 9;  // b broadcasts its batch of 1
  const std::vector<int32_t> a_shape = kAdjX ? std::vector<int32_t>{batch, k, m} : std::vector<int32_t>{batch, m, k};
  const std::vector<int32_t> b_shape = kAdjY ? std::vector<int32_t>{1, n, k} : std::vector<int32_t>{1, k, n};
  const std::vector<uint8_t> bytes = OneOpTflite(
      kBatchMatMulCode, {{"a", a_shape, {}}, {"b", b_shape, {}}, {"y", {batch, m, n}, {}}}, {0, 1}, {2},
      kBatchMatMulOptionsType, BatchMatMulOptions<kAdjX, kAdjY>);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "batch_matmul.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<float> a = RandomValues(batch * m * k, -1, 1, 31), b = RandomValues(k * n, -1, 1, 32);
  for (const SessionConfig& config : PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::memcpy((*s)->input(0)->data(), a.data(), a.size() * sizeof(float));
    std::memcpy((*s)->input(1)->data(), b.data(), b.size() * sizeof(float));
    ASSERT_TRUE((*s)->Run().ok());
    const Tensor* out = (*s)->output(0);
    ASSERT_EQ(out->shape(), (Shape{batch, m, n}));
    for (int q = 0; q < batch; ++q) {
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double want = 0;
          for (int t = 0; t < k; ++t) {
            const float u = kAdjX ? a[(q * k + t) * m + i] : a[(q * m + i) * k + t];
            const float v = kAdjY ? b[j * k + t] : b[t * n + j];
            want += double{u} * v;
          }
          EXPECT_NEAR(out->data_as<float>()[(q * m + i) * n + j], want, 1e-5) << q << " " << i << " " << j;
        }
      }
    }
  }
}

TEST(OnnxTensorOpsTest, TfliteBatchMatMulWithAdjoints) {
  ExpectTfliteBatchMatMul<false, false>();
  ExpectTfliteBatchMatMul<true, false>();
  ExpectTfliteBatchMatMul<false, true>();
  ExpectTfliteBatchMatMul<true, true>();
}

TEST(OnnxTensorOpsTest, BatchMatMulRunsThePackedGemmUnlessReference) {
  OnnxGraph g;
  g.Input("a", {4, 3, 5});
  g.Input("b", {4, 5, 6});
  g.Node("MatMul", {"a", "b"}, {"y"});
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "bmm.onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    SessionConfig config;
    config.algorithm = policy;
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const std::vector<LayerInfo> layers = (*s)->Layers();
    ASSERT_EQ(layers.size(), 1u);
    EXPECT_EQ(layers[0].op, "BATCH_MATMUL");
    EXPECT_EQ(layers[0].macs, 4 * 3 * 5 * 6);
    if (policy == AlgorithmPolicy::kReference) {
      EXPECT_EQ(layers[0].kernel, "batch_matmul_ref");
    } else {
      EXPECT_EQ(layers[0].kernel.rfind("batch_matmul_gemm_", 0), 0u) << layers[0].kernel;
    }
  }
}

}  // namespace
}  // namespace rill::inference::testing
