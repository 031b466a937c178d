// ONNX Loop run at run time and Range of run-time inputs (docs/design.md,
// "Data-dependent sizes") against ONNX Runtime, on small models built in the
// test (onnx_op_test_util.h): Range of float and of integer values (empty
// too); Resize to sizes and Concat of sizes known only at run time (the
// R-CNN loops' bodies); Loop with a trip count known only at run time (0, 1, several
// iterations), with a run-time condition that stops it early (with and
// without a trip count), with a carried value that grows every iteration
// (Concat), with a body that reads values of the enclosing graph and the
// iteration number, with scan outputs (a constant trip count too: unrolled,
// or a LOOP with its rows known at plan), with a constant trip count and a
// body's condition known only at run time (a LOOP, not unrolled), carrying
// int64 values (integer Divs after it), carrying a value whose rank
// changes, and nested; then the session's side
// (the same session run with other counts, buffers reused by runs no
// larger than an earlier one, the memory bound) and the error for a body
// the engine cannot convert.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"
#include "tests/inference/test_util.h"

namespace rill::inference::testing {
namespace {

constexpr int64_t kFloatType = 1, kInt64Type = 7, kBoolType = 9;

void CastTo(OnnxGraph& g, const std::string& from, const std::string& to, int64_t type) {
  OnnxGraph::Attr(g.Node("Cast", {from}, {to}), "to", type);
}

// One element of `from` ([n]) as a scalar.
void ScalarAt(OnnxGraph& g, const std::string& from, int64_t index, const std::string& to) {
  const std::string at = to + "_at";
  g.Int64Initializer(at, {}, {index});
  OnnxGraph::Attr(g.Node("Gather", {from, at}, {to}), "axis", int64_t{0});
}

// ---- Range -------------------------------------------------------------------

// Range(x[0], x[1], x[2]) of float32 values.
TEST(OnnxLoopTest, RangeOfRunTimeFloatsMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {3});
  ScalarAt(g, "x", 0, "start");
  ScalarAt(g, "x", 1, "limit");
  ScalarAt(g, "x", 2, "delta");
  g.Node("Range", {"start", "limit", "delta"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {3}, {0.5f, 3.7f, 0.4f}}});     // 9 values
  ExpectMatchesOrt(g, {{"x", {3}, {2.0f, -1.0f, -0.75f}}});  // counting down
  ExpectMatchesOrt(g, {{"x", {3}, {1.0f, 1.0f, 1.0f}}});     // none
  ExpectMatchesOrt(g, {{"x", {3}, {1.0f, 0.0f, 0.5f}}});     // none (the wrong way)
}

// Range of int64 values computed at run time (a detection count): 0 to the
// count of x > 0, and from x[0] to x[1] by x[2].
TEST(OnnxLoopTest, RangeOfRunTimeIntegersMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {3});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("zero_i", {}, {0});
  g.Int64Initializer("one_i", {}, {1});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  CastTo(g, "pos", "pos_i", kInt64Type);
  OnnxGraph::Attr(g.Node("ReduceSum", {"pos_i"}, {"count"}), "keepdims", int64_t{0});
  g.Node("Range", {"zero_i", "count", "one_i"}, {"r"});
  CastTo(g, "r", "y", kFloatType);
  CastTo(g, "x", "xi", kInt64Type);
  ScalarAt(g, "xi", 0, "start");
  ScalarAt(g, "xi", 1, "limit");
  ScalarAt(g, "xi", 2, "delta");
  g.Node("Range", {"start", "limit", "delta"}, {"r2"});
  CastTo(g, "r2", "z", kFloatType);
  g.Output("y");
  g.Output("z");
  ExpectMatchesOrt(g, {{"x", {3}, {1.0f, 7.0f, 2.0f}}});    // count 3; 1, 3, 5
  ExpectMatchesOrt(g, {{"x", {3}, {5.0f, 0.0f, -2.0f}}});   // count 1; 5, 3, 1
  ExpectMatchesOrt(g, {{"x", {3}, {-3.0f, -3.0f, -1.0f}}});  // none; none
}

// ---- what the R-CNN loops' bodies need -------------------------------------------

// Resize to sizes computed at run time (Mask R-CNN pastes each mask at its
// box's size): sizes = [1, 2, hw[0], hw[1]], linear and cubic, half_pixel.
TEST(OnnxLoopTest, ResizeToRunTimeSizesMatchesOrt) {
  for (const char* mode : {"linear", "cubic", "nearest"}) {
    SCOPED_TRACE(mode);
    OnnxGraph g;
    g.Input("x", {1, 2, 3, 4});
    g.Input("hw", {2});
    g.Int64Initializer("nc", {2}, {1, 2});
    CastTo(g, "hw", "hw_i", kInt64Type);
    OnnxGraph::Attr(g.Node("Concat", {"nc", "hw_i"}, {"sizes"}), "axis", int64_t{0});
    onnx::NodeProto* r = g.Node("Resize", {"x", "", "", "sizes"}, {"y"});
    OnnxGraph::Attr(r, "mode", std::string(mode));
    OnnxGraph::Attr(r, "coordinate_transformation_mode", std::string("half_pixel"));
    g.Output("y");
    const std::vector<float> x = RandomValues(24, -1.0f, 1.0f, 23);
    for (const std::vector<float>& hw : std::vector<std::vector<float>>{{5, 7}, {2, 2}, {3, 4}, {1, 9}}) {
      ExpectMatchesOrt(g, {{"x", {1, 2, 3, 4}, x}, {"hw", {2}, hw}});
    }
  }
}

// Concat of a known size and one known only at run time that must equal it
// ([1, 4] and [1, n] along axis 0, n = 4 at run time): planned [2, 4],
// though no one sample size for n fits (Graph::InferNodeShapes asks the
// shape function with n unknown).
TEST(OnnxLoopTest, ConcatOfKnownAndRunTimeSizesMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {1, 4});
  g.Input("n", {});
  g.Initializer("zero", {}, {0.0f});
  g.Initializer("one", {}, {1.0f});
  g.Int64Initializer("axes", {1}, {0});
  g.Node("Range", {"zero", "n", "one"}, {"r"});
  g.Node("Unsqueeze", {"r", "axes"}, {"row"});
  OnnxGraph::Attr(g.Node("Concat", {"x", "row"}, {"y"}), "axis", int64_t{0});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 4}, RandomValues(4, -1.0f, 1.0f, 24)}, {"n", {}, {4.0f}}});
}

// ---- Loop --------------------------------------------------------------------

// A Loop body: `ops` of (op type, inputs, output), inputs `inputs` (the
// iteration number int64, the condition bool, then `carried` float values)
// and outputs `outputs` (the condition, then float values).
onnx::GraphProto Body(const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>& ops,
                      const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  onnx::GraphProto b;
  b.set_name("body");
  for (const auto& [op, ins, out] : ops) {
    onnx::NodeProto* n = b.add_node();
    n->set_op_type(op);
    for (const std::string& in : ins) n->add_input(in);
    n->add_output(out);
  }
  auto typed = [](onnx::ValueInfoProto* v, int type, bool scalar) {
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    if (scalar) v->mutable_type()->mutable_tensor_type()->mutable_shape();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    onnx::ValueInfoProto* v = b.add_input();
    v->set_name(inputs[i]);
    typed(v, i == 0 ? onnx::TensorProto::INT64 : i == 1 ? onnx::TensorProto::BOOL : onnx::TensorProto::FLOAT, i < 2);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    onnx::ValueInfoProto* v = b.add_output();
    v->set_name(outputs[i]);
    typed(v, i == 0 ? onnx::TensorProto::BOOL : onnx::TensorProto::FLOAT, i == 0);
  }
  return b;
}

// Sets a node's integer attribute on a body node (by its output's name).
void BodyAttr(onnx::GraphProto* body, const std::string& output, const std::string& name, int64_t value) {
  for (onnx::NodeProto& n : *body->mutable_node()) {
    if (n.output(0) == output) OnnxGraph::Attr(&n, name, value);
  }
}

void SetBody(onnx::NodeProto* n, const onnx::GraphProto& body) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body;
}

// m (a float scalar) as the Loop's int64 trip count "trips".
void TripCount(OnnxGraph& g) {
  g.Input("m", {});
  CastTo(g, "m", "trips", kInt64Type);
}

// y <- 2 * y + i * x, M times (M known only at run time, or the constant
// `constant_trips` where that is not negative; x read from the enclosing
// graph, i the iteration number), with scan outputs: each iteration's sum
// of y (a scalar) and y itself.
OnnxGraph AccumulateLoop(int64_t constant_trips = -1) {
  OnnxGraph g;
  g.Input("x", {2, 3});
  if (constant_trips >= 0) {
    g.Int64Initializer("trips", {}, {constant_trips});
  } else {
    TripCount(g);
  }
  g.Initializer("two", {}, {2.0f});
  onnx::GraphProto body = Body({{"Identity", {"cond_in"}, "cond_out"},
                                {"Cast", {"i"}, "i_f"},
                                {"Mul", {"y_in", "two"}, "y2"},
                                {"Mul", {"x", "i_f"}, "ix"},
                                {"Add", {"y2", "ix"}, "y_out"},
                                {"ReduceSum", {"y_out"}, "sum"},
                                {"Identity", {"y_out"}, "y_scan"}},
                               {"i", "cond_in", "y_in"}, {"cond_out", "y_out", "sum", "y_scan"});
  BodyAttr(&body, "i_f", "to", kFloatType);
  BodyAttr(&body, "sum", "keepdims", 0);
  SetBody(g.Node("Loop", {"trips", "", "x"}, {"y", "sums", "ys"}), body);
  g.Output("y");
  g.Output("sums");
  g.Output("ys");
  return g;
}

TEST(OnnxLoopTest, RunTimeTripCountMatchesOrt) {
  const OnnxGraph g = AccumulateLoop();
  const std::vector<float> x = RandomValues(6, -1.0f, 1.0f, 21);
  for (float m : {0.0f, 1.0f, 5.0f}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    ExpectMatchesOrt(g, {{"x", {2, 3}, x}, {"m", {}, {m}}});
  }
}

// The same body with a constant trip count: unrolled at import (the scan
// outputs a Concat of the iterations' values) at 1 and 5, and at 70 (over
// the 64 unrolled) a LOOP whose outputs' rows are known at plan; with 0
// iterations a LOOP too (its scan outputs are ONNX Runtime's [0] shapes).
TEST(OnnxLoopTest, ConstantTripCountWithScanOutputs) {
  const std::vector<float> x = RandomValues(6, -1.0f, 1.0f, 22);
  for (int64_t m : {0, 1, 5, 70}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const OnnxGraph g = AccumulateLoop(m);
    ExpectMatchesOrt(g, {{"x", {2, 3}, x}});
    auto model = LoadOnnxGraph(g, "loop_constant_trips");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "LOOP"), m >= 1 && m <= 64 ? 0 : 1);
  }
}

// The same session run with trip counts 3, 0, 7, 3: values and shapes (the
// scan outputs' first dim) follow each run's count. Hand-worked: y_M =
// 2^M x + sum_i i 2^(M-1-i) x.
TEST(OnnxLoopTest, SessionRunsChangingTripCounts) {
  const OnnxGraph g = AccumulateLoop();
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "loop");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "LOOP"), 1);
  auto session = Session::Create(model, SessionConfig{});
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::vector<float> x = {1.0f, -2.0f, 0.5f, 3.0f, 0.0f, -1.0f};
  for (int m : {3, 0, 7, 3}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    std::copy(x.begin(), x.end(), (*session)->input("x")->data_as<float>());
    (*session)->input("m")->data_as<float>()[0] = static_cast<float>(m);
    ASSERT_TRUE((*session)->Run().ok());
    double factor = 1.0;  // y = factor * x
    for (int i = 0; i < m; ++i) factor = 2.0 * factor + i;
    const Tensor* y = (*session)->output("y");
    ASSERT_EQ(y->shape(), (Shape{2, 3}));
    for (int k = 0; k < 6; ++k) EXPECT_FLOAT_EQ(y->data_as<float>()[k], static_cast<float>(factor * x[k]));
    const Tensor* sums = (*session)->output("sums");
    ASSERT_EQ(sums->shape(), (Shape{m}));
    const Tensor* ys = (*session)->output("ys");
    // No iteration: [0], as ONNX Runtime gives it (the body declares no
    // shape for the scan output).
    ASSERT_EQ(ys->shape(), (m == 0 ? Shape{0} : Shape{m, 2, 3}));
    double f = 1.0;
    for (int i = 0; i < m; ++i) {
      f = 2.0 * f + i;
      EXPECT_FLOAT_EQ(sums->data_as<float>()[i], static_cast<float>(f * 1.5));  // sum(x) = 1.5
      EXPECT_FLOAT_EQ(ys->data_as<float>()[6 * i + 1], static_cast<float>(f * -2.0));
    }
  }
}

// y <- y * 1.5 while sum(y) < limit (the body's condition, known only at
// run time), at most M times; the Loop's own condition is sum(x) > 0, so a
// negative x runs no iteration.
OnnxGraph WhileLoop(bool with_trip_count) {
  OnnxGraph g;
  g.Input("x", {4});
  g.Input("limit", {});
  g.Initializer("zero", {}, {0.0f});
  g.Initializer("k", {}, {1.5f});
  OnnxGraph::Attr(g.Node("ReduceSum", {"x"}, {"sx"}), "keepdims", int64_t{0});
  g.Node("Greater", {"sx", "zero"}, {"go"});
  onnx::GraphProto body = Body({{"Mul", {"y_in", "k"}, "y_out"},
                                {"ReduceSum", {"y_out"}, "s"},
                                {"Less", {"s", "limit"}, "cond_out"},
                                {"Cast", {"i"}, "i_f"}},
                               {"i", "cond_in", "y_in"}, {"cond_out", "y_out", "i_f"});
  BodyAttr(&body, "s", "keepdims", 0);
  BodyAttr(&body, "i_f", "to", kFloatType);
  if (with_trip_count) g.Int64Initializer("trips", {}, {6});
  SetBody(g.Node("Loop", {with_trip_count ? "trips" : "", "go", "x"}, {"y", "iterations"}), body);
  g.Output("y");
  g.Output("iterations");
  return g;
}

TEST(OnnxLoopTest, RunTimeConditionStopsEarlyMatchesOrt) {
  const std::vector<float> x = {0.5f, 1.0f, 0.25f, 0.25f};  // sum 2
  for (bool trips : {true, false}) {
    SCOPED_TRACE(trips ? "M = 6" : "no M");
    const OnnxGraph g = WhileLoop(trips);
    ExpectMatchesOrt(g, {{"x", {4}, x}, {"limit", {}, {10.0f}}});  // 4 iterations (2 * 1.5^4 > 10)
    ExpectMatchesOrt(g, {{"x", {4}, x}, {"limit", {}, {1.0f}}});   // stops after the first
    ExpectMatchesOrt(g, {{"x", {4}, {-1.0f, 0.5f, 0.0f, 0.0f}}, {"limit", {}, {10.0f}}});  // never starts
  }
  // M = 6 reached before the condition fails.
  ExpectMatchesOrt(WhileLoop(true), {{"x", {4}, x}, {"limit", {}, {1000.0f}}});
}

// Sets the element type of a body's inputs from `first_input` on and of its
// outputs from `first_output` on (Body declares them float).
void BodyTypes(onnx::GraphProto* body, int first_input, int first_output, int type) {
  for (int i = first_input; i < body->input_size(); ++i) {
    body->mutable_input(i)->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  for (int i = first_output; i < body->output_size(); ++i) {
    body->mutable_output(i)->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
}

// s <- s + x while sum(s) < 10, at most 5 times: a constant trip count short
// enough to unroll, but the body's condition is known only at run time (an
// early exit on data), so the Loop is one LOOP node; with a scan output
// (each iteration's s) or without. `delayed`: the condition is the check of
// the iteration before, carried (true at first), so it folds in the first
// iteration and only the second finds it known only at run time.
OnnxGraph EarlyExitLoop(bool scan, bool delayed) {
  OnnxGraph g;
  g.Input("x", {2});
  g.Int64Initializer("trips", {}, {5});
  g.Initializer("limit", {}, {10.0f});
  g.Initializer("s0", {2}, {0.0f, 0.0f});
  std::vector<std::tuple<std::string, std::vector<std::string>, std::string>> ops = {
      {"Add", {"s_in", "x"}, "s_out"},
      {"ReduceSum", {"s_out"}, "total"},
      {"Less", {"total", "limit"}, delayed ? "check" : "cond_out"},
      {"Identity", {"s_out"}, "s_scan"}};
  std::vector<std::string> inputs = {"i", "cond_in", "s_in"};
  std::vector<std::string> outputs = {"cond_out", "s_out"};
  std::vector<std::string> loop_inputs = {"trips", "", "s0"};
  std::vector<std::string> loop_outputs = {"s"};
  if (delayed) {
    ops.push_back({"Identity", {"go_in"}, "cond_out"});
    ops.push_back({"Identity", {"check"}, "go_out"});
    inputs.push_back("go_in");
    outputs.push_back("go_out");
    loop_inputs.push_back("go0");
    loop_outputs.push_back("go");
    g.Int64Initializer("one_i", {}, {1});
    CastTo(g, "one_i", "go0", kBoolType);
  }
  if (scan) {
    outputs.push_back("s_scan");
    loop_outputs.push_back("ss");
  }
  onnx::GraphProto body = Body(ops, inputs, outputs);
  BodyAttr(&body, "total", "keepdims", 0);
  if (delayed) {
    body.mutable_input(3)->mutable_type()->mutable_tensor_type()->set_elem_type(kBoolType);
    body.mutable_output(2)->mutable_type()->mutable_tensor_type()->set_elem_type(kBoolType);
  }
  SetBody(g.Node("Loop", loop_inputs, loop_outputs), body);
  g.Output("s");
  if (scan) g.Output("ss");
  return g;
}

TEST(OnnxLoopTest, ConstantTripCountWithRunTimeConditionMatchesOrt) {
  for (bool scan : {false, true}) {
    for (bool delayed : {false, true}) {
      SCOPED_TRACE(std::string(scan ? "with" : "without") + " a scan output" + (delayed ? ", delayed" : ""));
      const OnnxGraph g = EarlyExitLoop(scan, delayed);
      auto model = LoadOnnxGraph(g, "loop_early_exit");
      ASSERT_NE(model, nullptr);
      EXPECT_EQ(CountOps(*model, "LOOP"), 1);
      // What the unrolled iterations made before the condition turned out
      // known only at run time is dropped: the body's ADD is in the LOOP's
      // own graph only, even unoptimized.
      auto raw = LoadOnnxGraph(g, "loop_early_exit", /*optimize=*/false);
      ASSERT_NE(raw, nullptr);
      EXPECT_EQ(CountOps(*raw, "ADD"), 0);
      EXPECT_EQ(CountOps(*raw, "REDUCE_SUM"), 0);
      ExpectMatchesOrt(g, {{"x", {2}, {1.0f, 2.0f}}});     // sums 3, 6, 9, 12: stops after 4 (delayed: 5)
      ExpectMatchesOrt(g, {{"x", {2}, {0.5f, 0.5f}}});     // sums 1 ... 5: all 5
      ExpectMatchesOrt(g, {{"x", {2}, {6.0f, 5.0f}}});     // stops after the first (delayed: 2)
      ExpectMatchesOrt(g, {{"x", {2}, {-1.0f, -2.0f}}});   // negative sums: all 5
    }
  }
}

// The early-exit Loop inside a Loop's body (the outer one's trip count known
// only at run time), reading x of the main graph: the inner one starts
// unrolling into the outer body's graph, taking x in as one of its inputs,
// and is rewound to a LOOP node there; acc <- acc + s, M times.
TEST(OnnxLoopTest, NestedConstantTripCountWithRunTimeConditionMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {2});
  TripCount(g);
  g.Int64Initializer("five", {}, {5});
  g.Initializer("limit", {}, {10.0f});
  g.Initializer("zeros", {2}, {0.0f, 0.0f});
  onnx::GraphProto inner = Body({{"Add", {"s_in", "x"}, "s_out"},
                                 {"ReduceSum", {"s_out"}, "total"},
                                 {"Less", {"total", "limit"}, "c2_out"}},
                                {"j", "c2", "s_in"}, {"c2_out", "s_out"});
  BodyAttr(&inner, "total", "keepdims", 0);
  onnx::GraphProto outer = Body({{"Identity", {"cond_in"}, "cond_out"}, {"Add", {"acc_in", "s"}, "acc_out"}},
                                {"i", "cond_in", "acc_in"}, {"cond_out", "acc_out"});
  onnx::NodeProto* loop = outer.add_node();
  loop->set_op_type("Loop");
  loop->add_input("five");
  loop->add_input("");
  loop->add_input("zeros");
  loop->add_output("s");
  SetBody(loop, inner);
  // The inner Loop before the Add reading its output.
  outer.mutable_node()->SwapElements(1, 2);
  SetBody(g.Node("Loop", {"trips", "", "zeros"}, {"acc"}), outer);
  g.Output("acc");
  for (const std::vector<float>& x : std::vector<std::vector<float>>{{1.0f, 2.0f}, {0.5f, 0.5f}}) {
    for (float m : {0.0f, 2.0f}) {
      SCOPED_TRACE("M = " + std::to_string(m));
      ExpectMatchesOrt(g, {{"x", {2}, x}, {"m", {}, {m}}});  // s = 4x (exits early) or 5x
    }
  }
}

// A Loop carrying a sequence (known at import only while unrolled) whose
// body's condition is known only at run time cannot be a LOOP node: it is
// refused naming the Loop.
TEST(OnnxLoopTest, CarriedSequenceWithRunTimeConditionIsUnimplemented) {
  OnnxGraph g(18);
  g.Input("x", {2});
  g.Int64Initializer("trips", {}, {3});
  g.Initializer("limit", {}, {10.0f});
  g.Node("SequenceEmpty", {}, {"seq0"});
  onnx::GraphProto body = Body({{"SequenceInsert", {"seq_in", "x"}, "seq_out"},
                                {"ReduceSum", {"x"}, "total"},
                                {"Less", {"total", "limit"}, "cond_out"}},
                               {"i", "cond_in", "seq_in"}, {"cond_out", "seq_out"});
  BodyAttr(&body, "total", "keepdims", 0);
  SetBody(g.Node("Loop", {"trips", "", "seq0"}, {"seq"}), body);
  OnnxGraph::Attr(g.Node("ConcatFromSequence", {"seq"}, {"y"}), "axis", int64_t{0});
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "sequence_loop.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  const std::string& m = model.status().message();
  EXPECT_NE(m.find("node 'seq' (Loop): Loop carrying a sequence, with a trip count or condition known only at "
                   "run time"),
            std::string::npos)
      << m;
}

// A Loop carrying int64 values (n <- n + 1, d passed on, from Casts of the
// inputs) with n as a scan output too, M times (M known only at run time: a
// LOOP node; or the constant 3: unrolled), then Divs of its outputs: integer
// Divs, which truncate toward zero (7 / 2 = 3, -1 / 2 = 0), as the body
// declares them int64.
OnnxGraph IntegerLoop(int64_t constant_trips) {
  OnnxGraph g;
  g.Input("x", {2});
  g.Input("dx", {2});
  if (constant_trips >= 0) {
    g.Int64Initializer("trips", {}, {constant_trips});
  } else {
    TripCount(g);
  }
  g.Int64Initializer("one_i", {}, {1});
  g.Int64Initializer("two_i", {}, {2});
  CastTo(g, "x", "n0", kInt64Type);
  CastTo(g, "dx", "d0", kInt64Type);
  onnx::GraphProto body = Body({{"Identity", {"cond_in"}, "cond_out"},
                                {"Add", {"n_in", "one_i"}, "n_out"},
                                {"Identity", {"d_in"}, "d_out"},
                                {"Identity", {"n_out"}, "n_scan"}},
                               {"i", "cond_in", "n_in", "d_in"}, {"cond_out", "n_out", "d_out", "n_scan"});
  BodyTypes(&body, 2, 1, kInt64Type);
  SetBody(g.Node("Loop", {"trips", "", "n0", "d0"}, {"n", "d", "ns"}), body);
  g.Node("Div", {"n", "d"}, {"q"});
  g.Node("Div", {"n", "two_i"}, {"half"});
  g.Node("Div", {"ns", "d"}, {"qs"});
  CastTo(g, "q", "q_f", kFloatType);
  CastTo(g, "half", "half_f", kFloatType);
  CastTo(g, "qs", "qs_f", kFloatType);
  g.Output("q_f");
  g.Output("half_f");
  g.Output("qs_f");
  return g;
}

TEST(OnnxLoopTest, IntegerLoopOutputsDivideAsIntegersMatchesOrt) {
  for (int64_t trips : {int64_t{-1}, int64_t{3}}) {
    SCOPED_TRACE(trips < 0 ? "M at run time" : "M = 3");
    const OnnxGraph g = IntegerLoop(trips);
    auto model = LoadOnnxGraph(g, "integer_loop");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "LOOP"), trips < 0 ? 1 : 0);
    // n = 7, 1 and -1, 2 after 3 iterations: q = 3, 0 and 0, 1; half = 3, 0 and 0, 1.
    for (const auto& [x, dx] : std::vector<std::pair<std::vector<float>, std::vector<float>>>{
             {{4.0f, -2.0f}, {2.0f, 3.0f}}, {{-4.0f, -1.0f}, {2.0f, 2.0f}}}) {
      std::vector<ort::OrtTensor> inputs = {{"x", {2}, x}, {"dx", {2}, dx}};
      if (trips < 0) inputs.push_back({"m", {}, {3.0f}});
      ExpectMatchesOrt(g, inputs);
    }
  }
}

// A carried value whose rank changes in the body (Unsqueeze every
// iteration): unrolled (a constant trip count of at most 64), each
// iteration has its own shapes, as in ONNX Runtime; run at run time, a
// LOOP plans each carried value with one rank, so the import refuses it,
// naming the model, the Loop and the carried value.
OnnxGraph RankChangingLoop(bool constant_trips) {
  OnnxGraph g;
  g.Input("x", {2});
  if (constant_trips) {
    g.Int64Initializer("trips", {}, {3});
  } else {
    TripCount(g);
  }
  g.Int64Initializer("axes", {1}, {0});
  onnx::GraphProto body = Body({{"Identity", {"cond_in"}, "cond_out"}, {"Unsqueeze", {"v_in", "axes"}, "v_out"}},
                               {"i", "cond_in", "v_in"}, {"cond_out", "v_out"});
  g.Node("Neg", {"x"}, {"v0"});
  SetBody(g.Node("Loop", {"trips", "", "v0"}, {"v"}), body);
  g.Output("v");
  return g;
}

TEST(OnnxLoopTest, CarriedValueThatChangesRank) {
  ExpectMatchesOrt(RankChangingLoop(true), {{"x", {2}, {1.5f, -2.0f}}});  // [1, 1, 1, 2]
  const std::string bytes = RankChangingLoop(false).Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "rank_loop.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  const std::string& m = model.status().message();
  EXPECT_NE(m.find("rank_loop.onnx"), std::string::npos) << m;
  EXPECT_NE(m.find("node 'v' (Loop)"), std::string::npos) << m;
  EXPECT_NE(m.find("carried value 'v0' (the body's 'v_in') changes rank in the body ([2] to [1,2])"),
            std::string::npos)
      << m;
}

// acc <- Concat(acc, x * i) along axis 0 every iteration: the carried value
// grows ([1, 3], [2, 3], ...), as Mask R-CNN's pasted masks do; the body
// also reads x from the enclosing graph, and the carried shape's rows are
// known only at run time downstream (ReduceSum over them).
OnnxGraph GrowingLoop() {
  OnnxGraph g;
  g.Input("x", {1, 3});
  TripCount(g);
  onnx::GraphProto body = Body({{"Identity", {"cond_in"}, "cond_out"},
                                {"Cast", {"i"}, "i_f"},
                                {"Mul", {"x", "i_f"}, "row"},
                                {"Concat", {"acc_in", "row"}, "acc_out"}},
                               {"i", "cond_in", "acc_in"}, {"cond_out", "acc_out"});
  BodyAttr(&body, "i_f", "to", kFloatType);
  BodyAttr(&body, "acc_out", "axis", 0);
  g.Node("Neg", {"x"}, {"acc0"});
  SetBody(g.Node("Loop", {"trips", "", "acc0"}, {"acc"}), body);
  OnnxGraph::Attr(g.Node("ReduceSum", {"acc"}, {"total"}), "keepdims", int64_t{0});
  g.Output("acc");
  g.Output("total");
  return g;
}

TEST(OnnxLoopTest, CarriedValueThatGrowsMatchesOrt) {
  const OnnxGraph g = GrowingLoop();
  const std::vector<float> x = RandomValues(3, -1.0f, 1.0f, 22);
  for (float m : {0.0f, 1.0f, 6.0f, 2.0f}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    ExpectMatchesOrt(g, {{"x", {1, 3}, x}, {"m", {}, {m}}});
  }
}

// Runs of the growing loop whose sizes do not exceed the first run's reuse
// its buffers: the output (a carried buffer of the LOOP's own; there are
// three, rotated as the body writes each next value into the one it does
// not read) is always one of three addresses, over runs of M = 6, then 6,
// 2, 5, 4, 3, 1, 6, each with its values (hand-worked: row 0 is -x, row r
// is (r - 1) x).
TEST(OnnxLoopTest, RepeatedRunsReuseLoopMemory) {
  std::shared_ptr<const Model> model = LoadOnnxGraph(GrowingLoop(), "growing_loop");
  ASSERT_NE(model, nullptr);
  auto session = Session::Create(model, SessionConfig{});
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::vector<float> x = {1.0f, 2.0f, -3.0f};
  std::copy(x.begin(), x.end(), (*session)->input("x")->data_as<float>());
  std::set<const void*> addresses;
  for (int m : {6, 6, 2, 5, 4, 3, 1, 6}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    (*session)->input("m")->data_as<float>()[0] = static_cast<float>(m);
    ASSERT_TRUE((*session)->Run().ok());
    const Tensor* acc = (*session)->output("acc");
    ASSERT_EQ(acc->shape(), (Shape{m + 1, 3}));
    for (int r = 0; r <= m; ++r) {
      for (int k = 0; k < 3; ++k) EXPECT_EQ(acc->data_as<float>()[3 * r + k], (r == 0 ? -1.0f : r - 1.0f) * x[k]);
    }
    addresses.insert(acc->data());
  }
  EXPECT_LE(addresses.size(), 3u);
}

// A Loop in a Loop's body: the inner one runs i + 1 times (its trip count
// is the outer iteration number, plus 1) adding x, the outer one M times.
TEST(OnnxLoopTest, NestedLoopsMatchOrt) {
  OnnxGraph g;
  g.Input("x", {2});
  TripCount(g);
  g.Int64Initializer("one_i", {}, {1});
  onnx::GraphProto inner = Body({{"Identity", {"c2"}, "c2_out"}, {"Add", {"z_in", "x"}, "z_out"}},
                                {"j", "c2", "z_in"}, {"c2_out", "z_out"});
  onnx::GraphProto outer = Body({{"Identity", {"cond_in"}, "cond_out"}, {"Add", {"i", "one_i"}, "n"}},
                                {"i", "cond_in", "y_in"}, {"cond_out", "y_out"});
  onnx::NodeProto* loop = outer.add_node();
  loop->set_op_type("Loop");
  loop->add_input("n");
  loop->add_input("");
  loop->add_input("y_in");
  loop->add_output("y_out");
  SetBody(loop, inner);
  SetBody(g.Node("Loop", {"trips", "", "x"}, {"y"}), outer);
  g.Output("y");
  for (float m : {0.0f, 1.0f, 4.0f}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    ExpectMatchesOrt(g, {{"x", {2}, {1.0f, -0.5f}}, {"m", {}, {m}}});  // y = (1 + M (M + 1) / 2) x
  }
}

// Every body node the engine cannot convert is named, under the Loop's, in
// the one error listing unsupported nodes.
TEST(OnnxLoopTest, UnsupportedBodyNodesAreNamed) {
  OnnxGraph g;
  g.Input("x", {4});
  TripCount(g);
  onnx::GraphProto body = Body({{"Identity", {"cond_in"}, "cond_out"},
                                {"NoSuchOp", {"y_in"}, "a"},
                                {"Relu", {"a"}, "b"},
                                {"AlsoNoSuchOp", {"y_in"}, "c"},
                                {"Add", {"b", "c"}, "y_out"}},
                               {"i", "cond_in", "y_in"}, {"cond_out", "y_out"});
  SetBody(g.Node("Loop", {"trips", "", "x"}, {"y"}), body);
  g.Output("y");
  const std::string bytes = g.Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "loop.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  const std::string& m = model.status().message();
  EXPECT_NE(m.find("loop.onnx"), std::string::npos) << m;
  EXPECT_NE(m.find("node 'y' (Loop)"), std::string::npos) << m;
  EXPECT_NE(m.find("node 'a' (NoSuchOp): unsupported op type 'NoSuchOp'"), std::string::npos) << m;
  EXPECT_NE(m.find("node 'c' (AlsoNoSuchOp)"), std::string::npos) << m;
}

// What the body holds counts against SessionConfig::max_memory_bytes: a
// carried value grown past the bound is an OutOfRange error naming the
// LOOP, and the session runs again once the count fits.
TEST(OnnxLoopTest, LoopMemoryIsBounded) {
  OnnxGraph g;
  g.Input("x", {1, 1024});
  TripCount(g);
  onnx::GraphProto body = Body({{"Identity", {"cond_in"}, "cond_out"}, {"Concat", {"acc_in", "x"}, "acc_out"}},
                               {"i", "cond_in", "acc_in"}, {"cond_out", "acc_out"});
  BodyAttr(&body, "acc_out", "axis", 0);
  SetBody(g.Node("Loop", {"trips", "", "x"}, {"acc"}), body);
  g.Output("acc");
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "loop_bound");
  ASSERT_NE(model, nullptr);
  SessionConfig config;
  config.max_memory_bytes = 1 << 20;  // 256 rows of 4 KiB, less what else is held
  auto session = Session::Create(model, config);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Tensor* x = (*session)->input("x");
  for (int k = 0; k < 1024; ++k) x->data_as<float>()[k] = static_cast<float>(k);
  (*session)->input("m")->data_as<float>()[0] = 1000.0f;
  const Status big = (*session)->Run();
  EXPECT_EQ(big.code(), StatusCode::kOutOfRange) << big.message();
  EXPECT_NE(big.message().find("max_memory_bytes"), std::string::npos) << big.message();
  (*session)->input("m")->data_as<float>()[0] = 3.0f;
  const Status small = (*session)->Run();
  ASSERT_TRUE(small.ok()) << small.message();
  const Tensor* acc = (*session)->output("acc");
  ASSERT_EQ(acc->shape(), (Shape{4, 1024}));
  EXPECT_EQ(acc->data_as<float>()[3 * 1024 + 7], 7.0f);
}

}  // namespace
}  // namespace rill::inference::testing
