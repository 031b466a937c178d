// The ONNX sequence ops whose sequences are known at import (SequenceEmpty,
// SequenceConstruct, SequenceInsert, SequenceErase, SequenceAt,
// SequenceLength, SplitToSequence, ConcatFromSequence: lists of values at
// import, converters/sequence.cc) and Scan (a Loop of its constant trip
// count, converters/scan.cc) on the engine against ONNX Runtime
// (onnx_op_test_util.h: optimized and reference kernels, 1 and 2 threads).
// ONNX Runtime's runner reads and writes float32 tensors, so each model
// ends its sequences in a tensor (SequenceAt, ConcatFromSequence), and
// SequenceLength's int64 passes through a Cast. A sequence whose length
// depends on run-time data is refused (import_unsupported_test).
#include <onnx/onnx_pb.h>

#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

constexpr int64_t kFloatType = 1, kInt64Type = 7;

void CastTo(OnnxGraph& g, const std::string& from, const std::string& to, int64_t type) {
  OnnxGraph::Attr(g.Node("Cast", {from}, {to}), "to", type);
}

// ---- sequences ------------------------------------------------------------------

// SplitToSequence without split (pieces of 1, keepdims 1 and 0), with a
// scalar split (the last piece smaller) and a 1-D one, on every axis; the
// pieces back through ConcatFromSequence (axis and new_axis; pieces of
// unequal sizes only along the split axis) and SequenceAt.
TEST(OnnxSequenceOpsTest, SplitToSequenceThenConcatAndAt) {
  const std::vector<float> x = RandomValues(60, -1.0f, 1.0f, 401);
  struct Case {
    int64_t axis;
    int split;  // -1 none, 0 the 1-D split {1, 3, 1} / {2, 2} / {1, 2} per axis, else a scalar
    int64_t keepdims, new_axis, concat_axis;
  };
  const std::vector<int64_t> shape = {3, 4, 5};
  for (int opset : {11, 13, 18}) {
    for (const Case& k : {Case{0, -1, 1, 0, 0}, Case{1, -1, 0, 1, 1}, Case{-1, -1, 0, 1, -1}, Case{2, 2, 1, 0, 2},
                          Case{1, 3, 1, 0, 1}, Case{2, 0, 1, 0, -1}, Case{0, 0, 1, 0, 0}}) {
      SCOPED_TRACE("opset " + std::to_string(opset) + " axis " + std::to_string(k.axis) + " split " +
                   std::to_string(k.split) + " keepdims " + std::to_string(k.keepdims) + " new_axis " +
                   std::to_string(k.new_axis) + " concat axis " + std::to_string(k.concat_axis));
      OnnxGraph g(opset);
      g.Input("x", shape);
      std::vector<std::string> in = {"x"};
      if (k.split > 0) {
        g.Int64Initializer("split", {}, {k.split});
        in.push_back("split");
      } else if (k.split == 0) {
        const int64_t axis = k.axis < 0 ? k.axis + 3 : k.axis;
        const std::vector<int64_t> sizes =
            axis == 0 ? std::vector<int64_t>{1, 2} : axis == 1 ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{1, 3, 1};
        g.Int64Initializer("split", {static_cast<int64_t>(sizes.size())}, sizes);
        in.push_back("split");
      }
      onnx::NodeProto* s = g.Node("SplitToSequence", in, {"seq"});
      OnnxGraph::Attr(s, "axis", k.axis);
      OnnxGraph::Attr(s, "keepdims", k.keepdims);
      onnx::NodeProto* cat = g.Node("ConcatFromSequence", {"seq"}, {"cat"});
      OnnxGraph::Attr(cat, "axis", k.concat_axis);
      OnnxGraph::Attr(cat, "new_axis", k.new_axis);
      g.Int64Initializer("last", {}, {-1});
      g.Node("SequenceAt", {"seq", "last"}, {"at"});
      g.Node("Neg", {"cat"}, {"y"});
      g.Node("Abs", {"at"}, {"z"});
      g.Output("y");
      g.Output("z");
      ExpectMatchesOrt(g, {{"x", shape, x}});
    }
  }
}

// SequenceConstruct, SequenceInsert (at the end, at a position, negative),
// SequenceErase (the last by default, at a position) and SequenceLength; the
// result stacked on a new last axis.
TEST(OnnxSequenceOpsTest, ConstructInsertEraseLength) {
  OnnxGraph g(18);
  g.Input("a", {2, 3});
  g.Input("b", {2, 3});
  g.Node("Relu", {"a"}, {"ra"});
  g.Node("Sigmoid", {"b"}, {"sb"});
  g.Node("SequenceConstruct", {"a", "b"}, {"s0"});          // a b
  g.Node("SequenceInsert", {"s0", "ra"}, {"s1"});           // a b ra
  g.Int64Initializer("p1", {}, {1});
  g.Node("SequenceInsert", {"s1", "sb", "p1"}, {"s2"});     // a sb b ra
  g.Int64Initializer("m2", {}, {-2});
  g.Node("SequenceInsert", {"s2", "ra", "m2"}, {"s3"});     // a sb ra b ra
  g.Node("SequenceErase", {"s3"}, {"s4"});                  // a sb ra b
  g.Int64Initializer("p0", {}, {0});
  g.Node("SequenceErase", {"s4", "p0"}, {"s5"});            // sb ra b
  g.Node("SequenceLength", {"s5"}, {"n"});
  onnx::NodeProto* cat = g.Node("ConcatFromSequence", {"s5"}, {"stacked"});
  OnnxGraph::Attr(cat, "axis", int64_t{-1});
  OnnxGraph::Attr(cat, "new_axis", int64_t{1});
  CastTo(g, "n", "nf", kFloatType);
  g.Node("Mul", {"stacked", "nf"}, {"y"});  // [2, 3, 3] * 3
  g.Output("y");
  ExpectMatchesOrt(g, {{"a", {2, 3}, RandomValues(6, -1.0f, 1.0f, 402)},
                       {"b", {2, 3}, RandomValues(6, -1.0f, 1.0f, 403)}});
}

// SequenceEmpty, two inserts, ConcatFromSequence along axis 0; and a
// SplitToSequence of an NHWC value (a conv's output) along its channels.
TEST(OnnxSequenceOpsTest, EmptyThenInsertsAndSplitOfConvOutput) {
  {
    OnnxGraph g(18);
    g.Input("a", {2, 3});
    g.Node("SequenceEmpty", {}, {"e"});
    g.Node("SequenceInsert", {"e", "a"}, {"s1"});
    g.Node("Exp", {"a"}, {"ea"});
    g.Node("SequenceInsert", {"s1", "ea"}, {"s2"});
    OnnxGraph::Attr(g.Node("ConcatFromSequence", {"s2"}, {"y"}), "axis", int64_t{0});
    g.Output("y");
    ExpectMatchesOrt(g, {{"a", {2, 3}, RandomValues(6, -1.0f, 1.0f, 404)}});
  }
  {
    OnnxGraph g(18);
    g.Input("x", {1, 3, 4, 4});
    g.Initializer("w", {4, 3, 3, 3}, RandomValues(108, -0.5f, 0.5f, 405));
    onnx::NodeProto* conv = g.Node("Conv", {"x", "w"}, {"c"});
    OnnxGraph::Attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
    g.Int64Initializer("split", {2}, {1, 3});
    OnnxGraph::Attr(g.Node("SplitToSequence", {"c", "split"}, {"seq"}), "axis", int64_t{1});
    g.Int64Initializer("p1", {}, {1});
    g.Node("SequenceAt", {"seq", "p1"}, {"y"});
    g.Int64Initializer("p0", {}, {0});
    g.Node("SequenceAt", {"seq", "p0"}, {"z0"});
    g.Node("Relu", {"z0"}, {"z"});
    g.Output("y");
    g.Output("z");
    ExpectMatchesOrt(g, {{"x", {1, 3, 4, 4}, RandomValues(48, -1.0f, 1.0f, 406)}});
  }
}

// Each item of SplitToSequence is a node: more than 4096 are refused,
// naming the node; so is an empty item (the engine's SLICE makes none).
TEST(OnnxSequenceOpsTest, SplitToSequenceOfTooManyItemsIsUnimplemented) {
  OnnxGraph g(18);
  g.Input("x", {5000, 2});
  g.Node("SplitToSequence", {"x"}, {"seq"});
  g.Int64Initializer("p0", {}, {0});
  g.Node("SequenceAt", {"seq", "p0"}, {"y"});
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "many_items.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented) << model.status().ToString();
  EXPECT_NE(model.status().message().find("(SplitToSequence): a sequence of 5000 items (each one a node; at most 4096)"),
            std::string::npos)
      << model.status().ToString();

  OnnxGraph e(18);
  e.Input("x", {4, 2});
  e.Int64Initializer("split", {3}, {2, 0, 2});
  e.Node("SplitToSequence", {"x", "split"}, {"seq"});
  e.Int64Initializer("p0", {}, {0});
  e.Node("SequenceAt", {"seq", "p0"}, {"y"});
  e.Output("y");
  const std::string empty_bytes = e.Serialize();
  auto empty = Model::FromBuffer(empty_bytes.data(), empty_bytes.size(), "empty_item.onnx");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kUnimplemented) << empty.status().ToString();
  EXPECT_NE(empty.status().message().find("(SplitToSequence): an empty item (split size 0)"), std::string::npos)
      << empty.status().ToString();
}

// ConcatFromSequence of items that do not match (other than along the
// axis; stacked, at all) is refused naming the ConcatFromSequence node, the
// model's own, not the Concat it expands into.
TEST(OnnxSequenceOpsTest, ConcatFromSequenceOfMismatchedItemsNamesTheNode) {
  for (bool new_axis : {false, true}) {
    SCOPED_TRACE(new_axis ? "new_axis" : "axis 0");
    OnnxGraph g(18);
    g.Input("a", {2, 3});
    g.Input("b", {new_axis ? 2 : 4, 4});
    g.Node("SequenceConstruct", {"a", "b"}, {"s"});
    onnx::NodeProto* cat = g.Node("ConcatFromSequence", {"s"}, {"y"});
    cat->set_name("join_pieces");
    OnnxGraph::Attr(cat, "axis", int64_t{0});
    if (new_axis) OnnxGraph::Attr(cat, "new_axis", int64_t{1});
    g.Output("y");
    const std::string bytes = g.Serialize();
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "mismatched_items.onnx");
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument) << model.status().ToString();
    const std::string& m = model.status().message();
    EXPECT_NE(m.find("mismatched_items.onnx: node 'join_pieces' (ConcatFromSequence): the sequence's items do not "
                     "match in shape: item 0 is [2,3], item 1 " +
                     std::string(new_axis ? "[2,4] (stacked, they must be equal)"
                                          : "[4,4] (only their sizes along axis 0 may differ)")),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find("expanded"), std::string::npos) << m;
  }
}

// ---- Scan ---------------------------------------------------------------------------

// A Scan body: `ops` of (op type, inputs, output); float inputs and outputs.
onnx::GraphProto Body(const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>& ops,
                      const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  onnx::GraphProto b;
  b.set_name("scan_body");
  for (const auto& [op, ins, out] : ops) {
    onnx::NodeProto* n = b.add_node();
    n->set_op_type(op);
    for (const std::string& in : ins) n->add_input(in);
    n->add_output(out);
  }
  for (const std::string& name : inputs) {
    onnx::ValueInfoProto* v = b.add_input();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  for (const std::string& name : outputs) {
    onnx::ValueInfoProto* v = b.add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  return b;
}

void SetBody(onnx::NodeProto* n, const onnx::GraphProto& body) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
}

// The cumulative sum of x's rows: state s, s' = s + x[t], scan output s'.
// Short: unrolled at import (the scan output a Concat of the iterations'
// values, no LOOP); long: one LOOP whose outputs' rows are known at plan.
TEST(OnnxSequenceOpsTest, ScanCumulativeSum) {
  for (int64_t rows : {5, 100}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    OnnxGraph g(16);
    g.Input("x", {rows, 3});
    g.Initializer("s0", {3}, {0.5f, -1.0f, 0.0f});
    onnx::NodeProto* scan = g.Node("Scan", {"s0", "x"}, {"s", "sums"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{1});
    SetBody(scan, Body({{"Add", {"s_in", "x_t"}, "s_out"}, {"Identity", {"s_out"}, "scan_out"}}, {"s_in", "x_t"},
                       {"s_out", "scan_out"}));
    g.Output("s");
    g.Output("sums");
    ExpectMatchesOrt(g, {{"x", {rows, 3}, RandomValues(static_cast<size_t>(rows * 3), -1.0f, 1.0f, 407)}});
    auto model = LoadOnnxGraph(g, "scan_cumsum.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "LOOP"), rows <= 64 ? 0 : 1);
    // Either way the outputs are planned ([rows, 3]): nothing after the Scan
    // waits for the run to know its size.
    EXPECT_EQ(model->dynamic_node_count(), rows <= 64 ? 0 : 1);
  }
}

// Two scan inputs, one read in reverse along axis 1, the other forward along
// axis 0; two scan outputs, one written in reverse, one along axis 1 (and
// negative axes); two states; at opsets 11 (Unsqueeze's axes an attribute
// in the unrolled Loop) and 16.
TEST(OnnxSequenceOpsTest, ScanDirectionsAndAxes) {
  for (int opset : {11, 16}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    OnnxGraph g(opset);
    g.Input("a", {2, 4});  // scanned along axis 1: slices [2]
    g.Input("b", {4, 2});  // along axis 0: slices [2]
    g.Input("p0", {2});
    g.Initializer("q0", {2}, {1.0f, -1.0f});
    onnx::NodeProto* scan = g.Node("Scan", {"p0", "q0", "a", "b"}, {"p", "q", "ys", "zs"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{2});
    OnnxGraph::Attr(scan, "scan_input_axes", std::vector<int64_t>{-1, 0});
    OnnxGraph::Attr(scan, "scan_input_directions", std::vector<int64_t>{1, 0});
    OnnxGraph::Attr(scan, "scan_output_directions", std::vector<int64_t>{1, 0});
    OnnxGraph::Attr(scan, "scan_output_axes", std::vector<int64_t>{0, -1});
    SetBody(scan, Body({{"Mul", {"p_in", "a_t"}, "pa"},
                        {"Add", {"pa", "b_t"}, "p_out"},
                        {"Add", {"q_in", "p_out"}, "q_out"},
                        {"Sub", {"a_t", "q_out"}, "y_t"},
                        {"Tanh", {"p_out"}, "z_t"}},
                       {"p_in", "q_in", "a_t", "b_t"}, {"p_out", "q_out", "y_t", "z_t"}));
    g.Output("p");
    g.Output("q");
    g.Output("ys");
    g.Output("zs");
    ExpectMatchesOrt(g, {{"a", {2, 4}, RandomValues(8, -1.0f, 1.0f, 408)},
                         {"b", {4, 2}, RandomValues(8, -1.0f, 1.0f, 409)},
                         {"p0", {2}, RandomValues(2, -1.0f, 1.0f, 410)}});
  }
}

// Only states, no scan outputs: a short Scan unrolls at import (no LOOP),
// a long one runs as a LOOP; both reverse.
TEST(OnnxSequenceOpsTest, ScanWithoutScanOutputs) {
  for (int64_t rows : {6, 80}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    OnnxGraph g(16);
    g.Input("x", {rows, 2, 3});
    g.Initializer("m0", {2, 3}, std::vector<float>(6, -10.0f));
    onnx::NodeProto* scan = g.Node("Scan", {"m0", "x"}, {"m"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{1});
    OnnxGraph::Attr(scan, "scan_input_directions", std::vector<int64_t>{1});
    SetBody(scan, Body({{"Max", {"m_in", "x_t"}, "mx"}, {"Mul", {"mx", "k"}, "m_out"}}, {"m_in", "x_t"}, {"m_out"}));
    g.Initializer("k", {}, {0.9f});
    g.Output("m");
    ExpectMatchesOrt(g, {{"x", {rows, 2, 3}, RandomValues(static_cast<size_t>(rows * 6), -1.0f, 1.0f, 411)}});
    auto model = LoadOnnxGraph(g, "scan_max.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "LOOP"), rows <= 64 ? 0 : 1);
  }
}

// A Scan whose states and scan output the body declares int64 (n <- n +
// int(x[t]), d passed on, both from Casts of inputs): Divs of its outputs
// truncate toward zero as ONNX Runtime's do; short (unrolled) and long (a
// LOOP).
TEST(OnnxSequenceOpsTest, ScanOfIntegersDividesAsIntegers) {
  for (int64_t rows : {3, 70}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    OnnxGraph g(16);
    g.Input("x", {rows});
    g.Input("n0", {});
    g.Input("dx", {});
    CastTo(g, "n0", "n0_i", kInt64Type);
    CastTo(g, "dx", "d0", kInt64Type);
    onnx::NodeProto* scan = g.Node("Scan", {"n0_i", "d0", "x"}, {"n", "d", "ns"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{1});
    onnx::GraphProto body = Body({{"Cast", {"x_t"}, "x_i"},
                                  {"Add", {"n_in", "x_i"}, "n_out"},
                                  {"Identity", {"d_in"}, "d_out"},
                                  {"Identity", {"n_out"}, "n_t"}},
                                 {"n_in", "d_in", "x_t"}, {"n_out", "d_out", "n_t"});
    OnnxGraph::Attr(body.mutable_node(0), "to", kInt64Type);
    // int64 scalars (ONNX Runtime's Scan needs its body outputs' shapes).
    for (onnx::ValueInfoProto* v : {body.mutable_input(0), body.mutable_input(1), body.mutable_input(2),
                                    body.mutable_output(0), body.mutable_output(1), body.mutable_output(2)}) {
      if (v->name() != "x_t") v->mutable_type()->mutable_tensor_type()->set_elem_type(kInt64Type);
      v->mutable_type()->mutable_tensor_type()->mutable_shape();
    }
    SetBody(scan, body);
    g.Node("Div", {"n", "d"}, {"q"});
    g.Node("Div", {"ns", "d"}, {"qs"});
    CastTo(g, "q", "q_f", kFloatType);
    CastTo(g, "qs", "qs_f", kFloatType);
    g.Output("q_f");
    g.Output("qs_f");
    std::vector<float> x(static_cast<size_t>(rows));
    for (size_t t = 0; t < x.size(); ++t) x[t] = static_cast<float>(static_cast<int>(t % 5) - 2);  // -2 ... 2
    // Running sums from 3 (odd and negative ones too) over 2 (and -3).
    ExpectMatchesOrt(g, {{"x", {rows}, x}, {"n0", {}, {3.0f}}, {"dx", {}, {2.0f}}});
    ExpectMatchesOrt(g, {{"x", {rows}, x}, {"n0", {}, {-4.0f}}, {"dx", {}, {-3.0f}}});
  }
}

// A 1-D scan input: each slice a scalar, the scan output [N] of scalars,
// the state a running product; a Scan without states; over a conv's output (NHWC inside the
// engine) along its width, scan output along axis 2 in reverse.
TEST(OnnxSequenceOpsTest, ScanOfScalarsAndOfConvOutput) {
  {
    OnnxGraph g(16);
    g.Input("x", {7});
    g.Initializer("p0", {}, {1.0f});
    onnx::NodeProto* scan = g.Node("Scan", {"p0", "x"}, {"p", "ps"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{1});
    SetBody(scan, Body({{"Mul", {"p_in", "x_t"}, "p_out"}, {"Neg", {"p_out"}, "n_t"}}, {"p_in", "x_t"},
                       {"p_out", "n_t"}));
    g.Output("p");
    g.Output("ps");
    ExpectMatchesOrt(g, {{"x", {7}, RandomValues(7, 0.5f, 1.5f, 412)}});
  }
  {
    // No state: a map over the rows (scan outputs only), reading a value of
    // the enclosing graph.
    OnnxGraph g(16);
    g.Input("x", {6, 4});
    g.Initializer("k", {4}, {1.0f, -2.0f, 0.5f, 3.0f});
    onnx::NodeProto* scan = g.Node("Scan", {"x"}, {"ys"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{1});
    SetBody(scan, Body({{"Mul", {"x_t", "k"}, "y_t"}}, {"x_t"}, {"y_t"}));
    g.Output("ys");
    ExpectMatchesOrt(g, {{"x", {6, 4}, RandomValues(24, -1.0f, 1.0f, 415)}});
  }
  {
    OnnxGraph g(16);
    g.Input("x", {1, 2, 3, 5});
    g.Initializer("w", {4, 2, 1, 1}, RandomValues(8, -1.0f, 1.0f, 413));
    g.Node("Conv", {"x", "w"}, {"c"});  // [1, 4, 3, 5]
    g.Initializer("s0", {1, 4, 3}, std::vector<float>(12, 0.0f));
    onnx::NodeProto* scan = g.Node("Scan", {"s0", "c"}, {"s", "ss"});
    OnnxGraph::Attr(scan, "num_scan_inputs", int64_t{1});
    OnnxGraph::Attr(scan, "scan_input_axes", std::vector<int64_t>{3});
    OnnxGraph::Attr(scan, "scan_output_axes", std::vector<int64_t>{2});
    OnnxGraph::Attr(scan, "scan_output_directions", std::vector<int64_t>{1});
    SetBody(scan, Body({{"Add", {"s_in", "c_t"}, "s_out"}, {"Sigmoid", {"s_out"}, "y_t"}}, {"s_in", "c_t"},
                       {"s_out", "y_t"}));
    g.Output("s");
    g.Output("ss");  // [1, 4, 5, 3]
    ExpectMatchesOrt(g, {{"x", {1, 2, 3, 5}, RandomValues(30, -1.0f, 1.0f, 414)}});
  }
}

}  // namespace
}  // namespace rill::inference::testing
