// Data-dependent sizes (docs/design.md, "Data-dependent sizes") against ONNX
// Runtime on small models built in the test (onnx_op_test_util.h): NonZero
// and GatherND (torchvision's masking idiom, and GatherND with batch_dims),
// NonMaxSuppression (both box formats, the three optional inputs, the
// INT64_MAX "all" torchvision exports), TopK with a K computed at run time,
// Shape and ConstantOfShape of run-time sizes, If with a run-time condition
// (each branch taken, branches of different ranks) and with a constant one
// (inlined), ScatterND of activations (each reduction, run-time indices),
// integer Div (truncation); each also with an empty result. Then the session's side: one session run with inputs whose
// counts change (more, none, fewer), after Resize, steady-state runs that
// allocate nothing (this binary counts operator new: counting_new.h), the
// dynamic region's memory bound, and what the model says about its region.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/counting_new.h"
#include "tests/inference/onnx_op_test_util.h"
#include "tests/inference/test_util.h"

namespace rill::inference::testing {
namespace {

constexpr int64_t kFloat = 1;

void CastToFloat(OnnxGraph& g, const std::string& from, const std::string& to) {
  OnnxGraph::Attr(g.Node("Cast", {from}, {to}), "to", kFloat);
}

// x [2, 3, 4] -> NonZero(x > 0.3) as float, and x at those indices through
// Transpose + GatherND (what torchvision's boolean masks export to).
OnnxGraph MaskedGather() {
  OnnxGraph g;
  g.Input("x", {2, 3, 4});
  g.Initializer("t", {}, {0.3f});
  g.Node("Greater", {"x", "t"}, {"mask"});
  g.Node("NonZero", {"mask"}, {"nz"});
  OnnxGraph::Attr(g.Node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<int64_t>{1, 0});
  g.Node("GatherND", {"x", "idx"}, {"picked"});
  CastToFloat(g, "nz", "nz_f");
  g.Output("nz_f");
  g.Output("picked");
  return g;
}

TEST(OnnxDynamicOpsTest, NonZeroGatherNdMatchOrt) {
  const OnnxGraph g = MaskedGather();
  ExpectMatchesOrt(g, {{"x", {2, 3, 4}, RandomValues(24, -1.0f, 1.0f, 3)}});
  // No element above the threshold: [3, 0] and [0].
  ExpectMatchesOrt(g, {{"x", {2, 3, 4}, std::vector<float>(24, -0.5f)}});
  // Every element.
  ExpectMatchesOrt(g, {{"x", {2, 3, 4}, RandomValues(24, 0.5f, 1.0f, 4)}});
}

TEST(OnnxDynamicOpsTest, GatherNdBatchDimsMatchOrt) {
  OnnxGraph g;
  g.Input("x", {2, 3, 4});
  g.Int64Initializer("i", {2, 2, 1}, {2, -1, 0, 1});
  OnnxGraph::Attr(g.Node("GatherND", {"x", "i"}, {"y"}), "batch_dims", int64_t{1});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 4}, RandomValues(24, -1.0f, 1.0f, 5)}});
}

// Eight boxes in two clusters, two classes; NMS with the given inputs.
void ExpectNmsMatchesOrt(int64_t center_point_box, int64_t max_per_class, float iou, const float* score_threshold) {
  SCOPED_TRACE("center_point_box=" + std::to_string(center_point_box) + " max=" + std::to_string(max_per_class) +
               " iou=" + std::to_string(iou) + (score_threshold ? " score=" + std::to_string(*score_threshold) : ""));
  OnnxGraph g;
  g.Input("boxes", {1, 8, 4});
  g.Input("scores", {1, 2, 8});
  g.Int64Initializer("max", {1}, {max_per_class});
  g.Initializer("iou", {1}, {iou});
  std::vector<std::string> ins = {"boxes", "scores", "max", "iou"};
  if (score_threshold) {
    g.Initializer("score", {1}, {*score_threshold});
    ins.push_back("score");
  }
  OnnxGraph::Attr(g.Node("NonMaxSuppression", ins, {"sel"}), "center_point_box", center_point_box);
  CastToFloat(g, "sel", "sel_f");
  g.Output("sel_f");
  const std::vector<float> corners = {
      0.0f, 0.0f, 1.0f,  1.0f,   0.0f, 0.1f, 1.0f, 1.1f,  0.0f, -0.1f, 1.0f,  0.9f,  0.0f, 10.0f, 1.0f, 11.0f,
      0.0f, 10.1f, 1.0f, 11.1f,  1.0f, 1.0f, 0.0f, 0.0f,  0.0f, 100.f, 1.0f, 101.f,  0.5f, 0.5f, 0.5f, 0.5f,
  };
  const std::vector<float> scores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f, 0.2f, 0.4f,
                                     0.1f, 0.8f,  0.7f, 0.05f, 0.6f, 0.9f, 0.3f, 0.2f};
  ExpectMatchesOrt(g, {{"boxes", {1, 8, 4}, corners}, {"scores", {1, 2, 8}, scores}});
}

TEST(OnnxDynamicOpsTest, NonMaxSuppressionMatchesOrt) {
  const float low = 0.25f, high = 0.99f;
  for (int64_t center : {0, 1}) {
    ExpectNmsMatchesOrt(center, 3, 0.5f, nullptr);
    ExpectNmsMatchesOrt(center, 1, 0.0f, &low);
    ExpectNmsMatchesOrt(center, INT64_MAX, 0.4f, &low);  // torchvision's "all"
    ExpectNmsMatchesOrt(center, 10, 0.5f, &high);        // nothing above the threshold
    ExpectNmsMatchesOrt(center, 0, 0.5f, nullptr);       // none asked for
  }
}

// TopK of x with K = min(3, count of x > 0), computed at run time as
// torchvision's _topk_min does: Shape -> Gather -> Unsqueeze -> Concat ->
// ReduceMin -> Reshape.
TEST(OnnxDynamicOpsTest, TopKWithRunTimeKMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {10});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("one", {}, {1});
  g.Int64Initializer("axes", {1}, {0});
  g.Int64Initializer("three", {1}, {3});
  g.Int64Initializer("shape1", {1}, {1});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  OnnxGraph::Attr(g.Node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<int64_t>{1, 0});
  g.Node("GatherND", {"x", "idx"}, {"kept"});
  g.Node("Shape", {"kept"}, {"s"});
  g.Int64Initializer("zero_i", {}, {0});
  g.Node("Gather", {"s", "zero_i"}, {"count"});
  g.Node("Unsqueeze", {"count", "axes"}, {"count1"});
  OnnxGraph::Attr(g.Node("Concat", {"three", "count1"}, {"both"}), "axis", int64_t{0});
  OnnxGraph::Attr(g.Node("ReduceMin", {"both"}, {"k0"}), "keepdims", int64_t{0});
  g.Node("Reshape", {"k0", "shape1"}, {"k"});
  g.Node("TopK", {"kept", "k"}, {"values", "indices"});
  CastToFloat(g, "indices", "indices_f");
  g.Output("values");
  g.Output("indices_f");
  ExpectMatchesOrt(g, {{"x", {10}, RandomValues(10, -1.0f, 1.0f, 9)}});  // K = 3
  ExpectMatchesOrt(g, {{"x", {10}, {-1, -1, -1, -1, 0.5f, -1, -1, 0.25f, -1, -1}}});  // K = 2
  ExpectMatchesOrt(g, {{"x", {10}, std::vector<float>(10, -1.0f)}});  // K = 0: empty
}

// ConstantOfShape of a run-time shape: [count, 2] of 7.
TEST(OnnxDynamicOpsTest, ConstantOfShapeOfRunTimeShapeMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {6});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("two", {1}, {2});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  g.Node("Shape", {"nz"}, {"s"});  // [1, count]
  g.Int64Initializer("one", {1}, {1});
  g.Int64Initializer("end", {1}, {2});
  g.Node("Slice", {"s", "one", "end"}, {"count"});
  OnnxGraph::Attr(g.Node("Concat", {"count", "two"}, {"shape"}), "axis", int64_t{0});
  onnx::NodeProto* n = g.Node("ConstantOfShape", {"shape"}, {"y"});
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(7.0f);
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {6}, {1, -1, 2, 3, -1, 4}}});
  ExpectMatchesOrt(g, {{"x", {6}, std::vector<float>(6, -1.0f)}});
}

// ScatterElements of run-time data, indices and updates, each reduction,
// negative indices; and with a count known only at run time (the rows
// selected by x > 0 scattered into zeros, as torchvision's MultiScaleRoIAlign
// merges its levels).
TEST(OnnxDynamicOpsTest, ScatterElementsMatchesOrt) {
  for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
    for (int64_t axis : {0, 1}) {
      SCOPED_TRACE(std::string(reduction) + " axis=" + std::to_string(axis));
      OnnxGraph g(18);
      g.Input("data", {3, 4});
      g.Input("updates", {2, 3});
      g.Int64Initializer("idx", {2, 3}, axis == 0 ? std::vector<int64_t>{0, 2, -1, 1, 0, 2}
                                                   : std::vector<int64_t>{3, 0, -2, 1, 2, -1});
      onnx::NodeProto* n = g.Node("ScatterElements", {"data", "idx", "updates"}, {"y"});
      OnnxGraph::Attr(n, "axis", axis);
      OnnxGraph::Attr(n, "reduction", std::string(reduction));
      g.Output("y");
      ExpectMatchesOrt(g, {{"data", {3, 4}, RandomValues(12, -1.0f, 1.0f, 11)},
                           {"updates", {2, 3}, RandomValues(6, -1.0f, 1.0f, 12)}});
    }
  }
  OnnxGraph g;
  g.Input("x", {6});
  g.Input("v", {6});
  g.Initializer("zero", {}, {0.0f});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  g.Int64Initializer("flat", {1}, {-1});
  g.Node("Reshape", {"nz", "flat"}, {"rows"});
  g.Node("Gather", {"v", "rows"}, {"picked"});
  g.Node("ScatterElements", {"v", "rows", "picked"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {6}, {1, -1, 2, -3, 0.5f, -1}}, {"v", {6}, {10, 20, 30, 40, 50, 60}}});
  ExpectMatchesOrt(g, {{"x", {6}, std::vector<float>(6, -1.0f)}, {"v", {6}, {10, 20, 30, 40, 50, 60}}});
}

// Expand to a shape computed at run time: x [1, 3] to [count, 3].
TEST(OnnxDynamicOpsTest, ExpandToRunTimeShapeMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {5});
  g.Input("row", {1, 3});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("three", {1}, {3});
  g.Int64Initializer("one", {1}, {1});
  g.Int64Initializer("end", {1}, {2});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  g.Node("Shape", {"nz"}, {"s"});
  g.Node("Slice", {"s", "one", "end"}, {"count"});
  OnnxGraph::Attr(g.Node("Concat", {"count", "three"}, {"shape"}), "axis", int64_t{0});
  g.Node("Expand", {"row", "shape"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {5}, {1, 2, -1, 3, -4}}, {"row", {1, 3}, {7, 8, 9}}});
  ExpectMatchesOrt(g, {{"x", {5}, std::vector<float>(5, -1.0f)}, {"row", {1, 3}, {7, 8, 9}}});
}

// x [6] -> rows = the indices of x > 0 ([count]); m = x[rows] as
// [count, 1] (Unsqueeze); the shape arithmetic torchvision's heads export
// around such counts: Reshape to a shape computed at run time (count, then
// the known 1 from a Shape), Slice whose end is computed (count - 1),
// Unsqueeze / Squeeze / Flatten of several run-time dims.
OnnxGraph RunTimeShapeArithmetic() {
  OnnxGraph g;
  g.Input("x", {6});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("flat", {1}, {-1});
  g.Int64Initializer("i0", {}, {0});
  g.Int64Initializer("i1", {}, {1});
  g.Int64Initializer("ax0", {1}, {0});
  g.Int64Initializer("ax1", {1}, {1});
  g.Int64Initializer("ax01", {2}, {0, 1});
  g.Int64Initializer("minus1", {1}, {-1});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  g.Node("Reshape", {"nz", "flat"}, {"rows"});
  g.Node("Gather", {"x", "rows"}, {"v"});         // [count]
  g.Node("Unsqueeze", {"v", "ax1"}, {"m"});      // [count, 1]
  g.Node("Shape", {"m"}, {"sm"});                // [count, 1]: the 1 is known
  g.Node("Gather", {"sm", "i1"}, {"one"});       // folds to 1
  g.Node("Gather", {"sm", "i0"}, {"count"});     // known only at run time
  g.Node("Unsqueeze", {"count", "ax0"}, {"count1"});
  g.Node("Unsqueeze", {"one", "ax0"}, {"one1"});
  OnnxGraph::Attr(g.Node("Concat", {"one1", "count1"}, {"shape"}), "axis", int64_t{0});
  g.Node("Reshape", {"m", "shape"}, {"r"});      // [1, count]
  g.Node("Add", {"count1", "minus1"}, {"end"});  // count - 1
  g.Node("Slice", {"r", "ax0", "end", "ax1"}, {"s"});  // [1, count - 1]
  g.Node("Unsqueeze", {"r", "ax01"}, {"u"});     // [1, 1, 1, count]
  g.Node("Squeeze", {"u", "ax01"}, {"q"});       // [1, count]
  OnnxGraph::Attr(g.Node("Flatten", {"u"}, {"f"}), "axis", int64_t{2});  // [1, count]
  g.Output("r");
  g.Output("s");
  g.Output("q");
  g.Output("f");
  return g;
}

TEST(OnnxDynamicOpsTest, RunTimeShapeArithmeticMatchesOrt) {
  const OnnxGraph g = RunTimeShapeArithmetic();
  ExpectMatchesOrt(g, {{"x", {6}, {1, -1, 2, 3, -1, 4}}});    // count 4
  ExpectMatchesOrt(g, {{"x", {6}, {-1, -1, 2, -3, -1, -4}}});  // count 1: an empty slice
  // The known dim folded at import: one Gather of the Shape is a constant,
  // so one GATHER of shape values is left (the count's), beside x[rows].
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "shape_arithmetic");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "GATHER"), 2);
}

// A branch graph: `ops` of (op type, inputs, output) and its one output.
onnx::GraphProto Branch(const std::string& name,
                        const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>& ops,
                        const std::string& output) {
  onnx::GraphProto b;
  b.set_name(name);
  for (const auto& [op, ins, out] : ops) {
    onnx::NodeProto* n = b.add_node();
    n->set_op_type(op);
    for (const std::string& in : ins) n->add_input(in);
    n->add_output(out);
  }
  onnx::ValueInfoProto* o = b.add_output();
  o->set_name(output);
  o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return b;
}

void SetBranches(onnx::NodeProto* n, const onnx::GraphProto& then_branch, const onnx::GraphProto& else_branch) {
  for (const auto& [name, g] : {std::pair{"then_branch", &then_branch}, std::pair{"else_branch", &else_branch}}) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *g;
  }
}

// If (sum(x) > 0) then x[x > 0] * 2 else (x + 1): the branches read outer
// values, and their results differ in size.
TEST(OnnxDynamicOpsTest, IfWithRunTimeConditionMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {5});
  g.Initializer("zero", {}, {0.0f});
  g.Initializer("two", {}, {2.0f});
  g.Initializer("one", {}, {1.0f});
  OnnxGraph::Attr(g.Node("ReduceSum", {"x"}, {"sum"}), "keepdims", int64_t{0});
  g.Node("Greater", {"sum", "zero"}, {"cond"});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  OnnxGraph::Attr(g.Node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<int64_t>{1, 0});
  onnx::NodeProto* n = g.Node("If", {"cond"}, {"y"});
  SetBranches(n, Branch("then", {{"GatherND", {"x", "idx"}, "p"}, {"Mul", {"p", "two"}, "t"}}, "t"),
              Branch("else", {{"Add", {"x", "one"}, "e"}}, "e"));
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {5}, {1, -0.5f, 2, 0.25f, -1}}});    // then: 3 elements
  ExpectMatchesOrt(g, {{"x", {5}, {-1, -0.5f, 2, -3, -1}}});      // else: 5 elements
  ExpectMatchesOrt(g, {{"x", {5}, {0.5f, -0.25f, 0, 0, 0}}});     // then: 1 element
}

// torch's squeeze of a run-time dim: If (dim == 1) Squeeze else Identity,
// branches of different ranks. The IF's output takes the taken branch's
// rank at run time: a scalar when the squeeze is taken, as in ONNX Runtime;
// a consumer that broadcasts follows it. Both branches in one session too.
TEST(OnnxDynamicOpsTest, IfBranchesOfDifferentRanksMatchOrt) {
  OnnxGraph g;
  g.Input("x", {4});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("one_i", {}, {1});
  g.Int64Initializer("zero_i", {}, {0});
  g.Int64Initializer("axes", {1}, {0});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  g.Int64Initializer("flat", {1}, {-1});
  g.Node("Reshape", {"nz", "flat"}, {"rows"});  // [count]
  g.Node("Gather", {"x", "rows"}, {"picked"});
  g.Node("Shape", {"picked"}, {"s"});
  g.Node("Gather", {"s", "zero_i"}, {"n"});
  g.Node("Equal", {"n", "one_i"}, {"cond"});
  onnx::NodeProto* n = g.Node("If", {"cond"}, {"y"});
  SetBranches(n, Branch("then", {{"Squeeze", {"picked", "axes"}, "t"}}, "t"),
              Branch("else", {{"Identity", {"picked"}, "e"}}, "e"));
  g.Initializer("ten", {}, {10.0f});
  g.Node("Mul", {"y", "ten"}, {"z"});
  g.Initializer("ten1", {1}, {10.0f});
  g.Node("Mul", {"y", "ten1"}, {"z1"});
  g.Output("y");
  g.Output("z");
  g.Output("z1");
  ExpectMatchesOrt(g, {{"x", {4}, {1, -2, 3, 4}}});    // else: [3]
  ExpectMatchesOrt(g, {{"x", {4}, {-1, -2, 3, -4}}});  // then: [] (one element, squeezed)
  ExpectMatchesOrt(g, {{"x", {4}, {-1, -2, -3, -4}}});  // else: [0]
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "if_ranks");
  ASSERT_NE(model, nullptr);
  auto session = Session::Create(model, SessionConfig());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (const auto& [x, y_shape, z_first] : {std::tuple{std::vector<float>{-1, -2, 3, -4}, Shape{}, 30.0f},
                                            std::tuple{std::vector<float>{1, 2, -3, -4}, Shape{2}, 10.0f},
                                            std::tuple{std::vector<float>{-1, -2, -3, 5}, Shape{}, 50.0f}}) {
    std::memcpy((*session)->input(0)->data(), x.data(), sizeof(float) * 4);
    ASSERT_TRUE((*session)->Run().ok());
    EXPECT_EQ((*session)->output("y")->shape(), y_shape);
    EXPECT_EQ((*session)->output("z")->shape(), y_shape);
    EXPECT_EQ((*session)->output("z1")->shape(), y_shape.empty() ? Shape{1} : y_shape);  // [] x [1] is [1]
    EXPECT_EQ((*session)->output("z")->data_as<float>()[0], z_first);
  }
}

// Branches whose shapes are both known before the run but differ in rank
// (a scalar and [1]): the IF's output is still the region's, and takes
// the taken branch's rank.
TEST(OnnxDynamicOpsTest, IfBranchesOfKnownShapesAndDifferentRanksMatchOrt) {
  OnnxGraph g;
  g.Input("x", {4});
  g.Initializer("zero", {}, {0.0f});
  OnnxGraph::Attr(g.Node("ReduceSum", {"x"}, {"sum"}), "keepdims", int64_t{0});
  g.Node("Greater", {"sum", "zero"}, {"cond"});
  onnx::NodeProto* n = g.Node("If", {"cond"}, {"y"});
  SetBranches(n, Branch("then", {{"ReduceMax", {"x"}, "t1"}, {"Squeeze", {"t1"}, "t"}}, "t"),  // []
              Branch("else", {{"ReduceMin", {"x"}, "e"}}, "e"));                             // [1]
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {4}, {1, -2, 3, 4}}});     // then: 4, a scalar
  ExpectMatchesOrt(g, {{"x", {4}, {-1, -2, 3, -4}}});   // else: [-4]
}

// ONNX's integer Div truncates toward zero: run-time int64 quotients
// (operands cast from float inputs) with negative operands and values up
// to 2^24 (where float32, the engine's run-time type, is still exact), a
// constant divisor, and the static path (no run-time size involved).
TEST(OnnxDynamicOpsTest, IntegerDivTruncatesLikeOrt) {
  OnnxGraph g;
  g.Input("a", {10});
  g.Input("b", {10});
  OnnxGraph::Attr(g.Node("Cast", {"a"}, {"ai"}), "to", int64_t{7});
  OnnxGraph::Attr(g.Node("Cast", {"b"}, {"bi"}), "to", int64_t{7});
  g.Node("Div", {"ai", "bi"}, {"q"});
  g.Int64Initializer("minus3", {}, {-3});
  g.Node("Div", {"ai", "minus3"}, {"q3"});
  // The quotient as a size: the count of x > 0 divided by 2 (torchvision's
  // anchor arithmetic), through the dynamic region.
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("two", {}, {2});
  g.Int64Initializer("zero_i", {}, {0});
  g.Node("Greater", {"a", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  g.Node("Shape", {"nz"}, {"s"});
  g.Int64Initializer("one_i", {}, {1});
  g.Node("Gather", {"s", "one_i"}, {"count"});
  g.Node("Div", {"count", "two"}, {"half"});
  CastToFloat(g, "q", "q_f");
  CastToFloat(g, "q3", "q3_f");
  CastToFloat(g, "half", "half_f");
  g.Output("q_f");
  g.Output("q3_f");
  g.Output("half_f");
  const std::vector<float> a = {7, -7, 7, -7, 16777214, -16777213, 0, 9999991, 16777215, 5};
  const std::vector<float> b = {2, 2, -2, -2, -3, 10, 5, 16777215, 16777214, -1};
  ExpectMatchesOrt(g, {{"a", {10}, a}, {"b", {10}, b}}, 0.0);
  // The same quotients computed here, independently of both runtimes.
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "integer_div");
  ASSERT_NE(model, nullptr);
  auto session = Session::Create(model, SessionConfig());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::memcpy((*session)->input("a")->data(), a.data(), sizeof(float) * a.size());
  std::memcpy((*session)->input("b")->data(), b.data(), sizeof(float) * b.size());
  ASSERT_TRUE((*session)->Run().ok());
  const float* q = (*session)->output("q_f")->data_as<float>();
  const float* q3 = (*session)->output("q3_f")->data_as<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t ai = static_cast<int64_t>(a[i]), bi = static_cast<int64_t>(b[i]);
    EXPECT_EQ(static_cast<int64_t>(q[i]), ai / bi) << ai << " / " << bi;  // C++ truncates toward zero too
    EXPECT_EQ(static_cast<int64_t>(q3[i]), ai / -3) << ai << " / -3";
  }
  EXPECT_EQ((*session)->output("half_f")->data_as<float>()[0], 3.0f);  // 7 of 10 positive: 7 / 2
}

// An If whose branches give integers (the count of x > 0, or x's length):
// the IF's value is an integer too, so n * n / (n + n), with no other
// integer operand, truncates (n / 2).
TEST(OnnxDynamicOpsTest, IntegerDivOfAnIfMatchesOrt) {
  OnnxGraph g;
  g.Input("x", {5});
  g.Initializer("zero", {}, {0.0f});
  g.Int64Initializer("one_i", {}, {1});
  g.Int64Initializer("zero_i", {}, {0});
  OnnxGraph::Attr(g.Node("ReduceSum", {"x"}, {"sum"}), "keepdims", int64_t{0});
  g.Node("Greater", {"sum", "zero"}, {"cond"});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  onnx::GraphProto then_branch = Branch("then", {{"Shape", {"nz"}, "s"}, {"Gather", {"s", "one_i"}, "t"}}, "t");
  onnx::GraphProto else_branch = Branch("else", {{"Shape", {"x"}, "sx"}, {"Gather", {"sx", "zero_i"}, "e"}}, "e");
  for (onnx::GraphProto* b : {&then_branch, &else_branch}) {
    b->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  }
  SetBranches(g.Node("If", {"cond"}, {"n"}), then_branch, else_branch);
  g.Node("Mul", {"n", "n"}, {"n2"});
  g.Node("Add", {"n", "n"}, {"twice"});
  g.Node("Div", {"n2", "twice"}, {"half"});
  CastToFloat(g, "half", "half_f");
  g.Output("half_f");
  ExpectMatchesOrt(g, {{"x", {5}, {1, -0.5f, 2, 0.25f, -1}}}, 0.0);  // then: 9 / 6 = 1
  ExpectMatchesOrt(g, {{"x", {5}, {-1, -0.5f, 2, -3, -1}}}, 0.0);    // else: 25 / 10 = 2
}

// A condition the importer folds inlines its branch: no IF in the graph.
TEST(OnnxDynamicOpsTest, IfWithConstantConditionIsInlined) {
  OnnxGraph g;
  g.Input("x", {4});
  g.Int64Initializer("a", {}, {3});
  g.Int64Initializer("b", {}, {3});
  g.Initializer("one", {}, {1.0f});
  g.Node("Equal", {"a", "b"}, {"cond"});
  onnx::NodeProto* n = g.Node("If", {"cond"}, {"y"});
  SetBranches(n, Branch("then", {{"Add", {"x", "one"}, "t"}}, "t"), Branch("else", {{"Neg", {"x"}, "e"}}, "e"));
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {4}, {1, 2, 3, 4}}});
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "if_const");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "IF"), 0);
  EXPECT_EQ(model->dynamic_node_count(), 0);
}

// One session, inputs whose counts change from run to run, a Resize in
// between, and the same results as a fresh session each time.
TEST(OnnxDynamicOpsTest, SessionRunsChangingCountsAndAfterResize) {
  const OnnxGraph g = MaskedGather();
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "masked_gather");
  ASSERT_NE(model, nullptr);
  EXPECT_GT(model->dynamic_node_count(), 0);
  auto session = Session::Create(model, SessionConfig());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Session& s = **session;
  auto run = [&](const std::vector<float>& x, std::vector<float>* picked) {
    std::memcpy(s.input(0)->data(), x.data(), x.size() * sizeof(float));
    const Status st = s.Run();
    ASSERT_TRUE(st.ok()) << st.ToString();
    const Tensor* out = s.output("picked");
    ASSERT_NE(out, nullptr);
    picked->assign(out->data_as<float>(), out->data_as<float>() + out->num_elements());
  };
  std::vector<float> x(24, -1.0f), got;
  x[3] = 0.5f;
  x[17] = 0.75f;
  x[23] = 1.0f;
  run(x, &got);
  EXPECT_EQ(got, (std::vector<float>{0.5f, 0.75f, 1.0f}));
  run(std::vector<float>(24, 0.0f), &got);  // none
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(s.output("nz_f")->shape(), (Shape{3, 0}));
  std::vector<float> all(24);
  for (int i = 0; i < 24; ++i) all[i] = 0.5f + i;
  run(all, &got);
  EXPECT_EQ(got, all);
  ASSERT_TRUE(s.Resize({}).ok());
  run(x, &got);
  EXPECT_EQ(got, (std::vector<float>{0.5f, 0.75f, 1.0f}));
  EXPECT_EQ(s.output("nz_f")->shape(), (Shape{3, 3}));
  const float* nz = s.output("nz_f")->data_as<float>();
  // Indices of elements 3, 17, 23 of [2, 3, 4]: (0,0,3), (1,1,1), (1,2,3).
  EXPECT_EQ(std::vector<float>(nz, nz + 9), (std::vector<float>{0, 1, 1, 0, 1, 2, 3, 1, 3}));
}

// A model placed on a device backend: the dynamic region's nodes run on the
// CPU (the fallback a refused node takes), the static ones on the device,
// and the results are the CPU-only session's.
TEST(OnnxDynamicOpsTest, DynamicRegionFallsBackToCpuFromADevice) {
  const OnnxGraph g = MaskedGather();
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "masked_gather_device");
  ASSERT_NE(model, nullptr);
  SessionConfig config;
  config.backend = "cpu_device";
  auto session = Session::Create(model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<float> x(24, -1.0f);
  x[5] = 0.5f;
  x[20] = 0.9f;
  std::memcpy((*session)->input(0)->data(), x.data(), sizeof(float) * x.size());
  ASSERT_TRUE((*session)->Run().ok());
  const Tensor* picked = (*session)->output("picked");
  ASSERT_NE(picked, nullptr);
  EXPECT_EQ(std::vector<float>(picked->data_as<float>(), picked->data_as<float>() + picked->num_elements()),
            (std::vector<float>{0.5f, 0.9f}));
  bool device_used = false;
  for (const LayerInfo& l : (*session)->Layers()) {
    if (l.op == "NON_ZERO" || l.op == "GATHER_ND") {
      EXPECT_EQ(l.backend, "cpu") << l.name;
    }
    device_used = device_used || l.backend == "cpu_device";
  }
  EXPECT_TRUE(device_used);  // the static part (GREATER) stays on the device
}

// ScatterND of activations, each reduction (repeated indices with the
// reductions; opset 18 for max / min), slices and element tuples, and
// indices computed at run time (the positive elements of x doubled in
// place: NonZero -> GatherND -> ScatterND).
TEST(OnnxDynamicOpsTest, ScatterNdMatchesOrt) {
  for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
    SCOPED_TRACE(reduction);
    const bool repeats = std::string(reduction) != "none";  // ONNX leaves repeats undefined without reduction
    OnnxGraph g(18);
    g.Input("data", {4, 3, 2});
    g.Input("u", {3, 3, 2});
    g.Input("ue", {3});
    g.Int64Initializer("rows", {3, 1}, {1, repeats ? 1 : 3, -4});
    g.Int64Initializer("elems", {3, 3}, {0, 2, 1, 3, 0, 0, 0, 2, repeats ? 1 : 0});
    OnnxGraph::Attr(g.Node("ScatterND", {"data", "rows", "u"}, {"y"}), "reduction", std::string(reduction));
    OnnxGraph::Attr(g.Node("ScatterND", {"data", "elems", "ue"}, {"z"}), "reduction", std::string(reduction));
    g.Output("y");
    g.Output("z");
    ExpectMatchesOrt(g, {{"data", {4, 3, 2}, RandomValues(24, -1.0f, 1.0f, 21)},
                         {"u", {3, 3, 2}, RandomValues(18, -1.0f, 1.0f, 22)},
                         {"ue", {3}, {0.5f, -3.0f, 2.0f}}},
                     0.0);
  }
  OnnxGraph g;
  g.Input("x", {6});
  g.Initializer("zero", {}, {0.0f});
  g.Initializer("two", {}, {2.0f});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  OnnxGraph::Attr(g.Node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<int64_t>{1, 0});
  g.Node("GatherND", {"x", "idx"}, {"picked"});
  g.Node("Mul", {"picked", "two"}, {"doubled"});
  g.Node("ScatterND", {"x", "idx", "doubled"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {6}, {1, -2, 3, 0, -5, 6}}}, 0.0);
  ExpectMatchesOrt(g, {{"x", {6}, {-1, -2, -3, 0, -5, -6}}}, 0.0);  // no index: x as is
}

// NonZero + GatherND beside NonMaxSuppression, Gather and ScatterElements:
// x [2, 3, 4] as MaskedGather; boxes [1, 8, 4], scores [1, 2, 8] -> the
// selected triples, the boxes they select, and the scores with the
// selected boxes' zeroed.
OnnxGraph MaskAndNms() {
  OnnxGraph g = MaskedGather();
  g.Input("boxes", {1, 8, 4});
  g.Input("scores", {1, 2, 8});
  g.Int64Initializer("max", {1}, {3});
  g.Initializer("iou", {1}, {0.5f});
  g.Initializer("score", {1}, {0.25f});
  g.Int64Initializer("two_i", {}, {2});
  g.Int64Initializer("rows", {2}, {8, 4});
  g.Node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "score"}, {"sel"});
  OnnxGraph::Attr(g.Node("Gather", {"sel", "two_i"}, {"which"}), "axis", int64_t{1});
  g.Node("Reshape", {"boxes", "rows"}, {"boxes2d"});
  g.Node("Gather", {"boxes2d", "which"}, {"kept"});
  // The kept boxes' class-0 scores zeroed: ScatterElements at run-time
  // indices (as MultiScaleRoIAlign scatters its levels' results).
  g.Int64Initializer("flat16", {1}, {16});
  g.Initializer("zero_f", {}, {0.0f});
  g.Node("Reshape", {"scores", "flat16"}, {"all_scores"});  // [16]: class 0's 8, then class 1's
  g.Node("Gather", {"all_scores", "which"}, {"kept_scores"});
  g.Node("Mul", {"kept_scores", "zero_f"}, {"zeros"});
  g.Node("ScatterElements", {"all_scores", "which", "zeros"}, {"zeroed"});
  CastToFloat(g, "sel", "sel_f");
  g.Output("sel_f");
  g.Output("kept");
  g.Output("zeroed");
  return g;
}

// ONNX Runtime's outputs for `inputs`.
std::vector<ort::OrtTensor> OrtOutputs(const OnnxGraph& g, const std::vector<ort::OrtTensor>& inputs) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/dynamic_steady.onnx";
  {
    const std::string bytes = g.Serialize();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto runner = ort::OrtRunner::Create(path);
  EXPECT_TRUE(runner.ok()) << runner.status().ToString();
  std::vector<ort::OrtTensor> outputs;
  if (runner.ok()) {
    const Status st = (*runner)->Run(inputs, &outputs);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return outputs;
}

// Steady state: a run whose run-time sizes (and the values its shapes are
// computed from) repeat the previous run's allocates nothing (each dynamic
// execution keeps the shapes it inferred and stays prepared); a run with
// new counts infers and prepares again and still gives ONNX Runtime's
// answer, and is steady from its second run on.
TEST(OnnxDynamicOpsTest, SteadyStateRunsDoNotAllocate) {
  RILL_REQUIRE(FileExists(ort::DefaultLibraryPath()),
               ort::DefaultLibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)");
  const OnnxGraph g = MaskAndNms();
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "mask_and_nms");
  ASSERT_NE(model, nullptr);
  ASSERT_GT(model->dynamic_node_count(), 0);
  const std::vector<float> corners = {
      0.0f, 0.0f, 1.0f,  1.0f,   0.0f, 0.1f, 1.0f, 1.1f,  0.0f, -0.1f, 1.0f,  0.9f,  0.0f, 10.0f, 1.0f, 11.0f,
      0.0f, 10.1f, 1.0f, 11.1f,  1.0f, 1.0f, 0.0f, 0.0f,  0.0f, 100.f, 1.0f, 101.f,  0.5f, 0.5f, 0.5f, 0.5f,
  };
  const std::vector<float> scores_a = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f, 0.2f, 0.4f,
                                       0.1f, 0.8f,  0.7f, 0.05f, 0.6f, 0.9f, 0.3f, 0.2f};
  std::vector<float> scores_b = scores_a;
  for (float& s : scores_b) s = 1.0f - s;  // other boxes kept, another count
  const std::vector<std::vector<ort::OrtTensor>> cases = {
      {{"x", {2, 3, 4}, RandomValues(24, -1.0f, 1.0f, 3)},
       {"boxes", {1, 8, 4}, corners},
       {"scores", {1, 2, 8}, scores_a}},
      {{"x", {2, 3, 4}, RandomValues(24, -1.0f, 1.0f, 11)},
       {"boxes", {1, 8, 4}, corners},
       {"scores", {1, 2, 8}, scores_b}},
      {{"x", {2, 3, 4}, std::vector<float>(24, -1.0f)},  // nothing: empty results
       {"boxes", {1, 8, 4}, corners},
       {"scores", {1, 2, 8}, std::vector<float>(16, 0.1f)}},
  };
  for (int threads : {1, 2}) {
    SessionConfig config;
    config.num_threads = threads;
    auto session = Session::Create(model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& s = **session;
    for (size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE("case " + std::to_string(c) + ", " + std::to_string(threads) + " thread(s)");
      const std::vector<ort::OrtTensor> want = OrtOutputs(g, cases[c]);
      ASSERT_EQ(want.size(), 5u);
      for (const ort::OrtTensor& in : cases[c]) {
        std::memcpy(s.input(in.name)->data(), in.data.data(), in.data.size() * sizeof(float));
      }
      for (int run = 0; run < 4; ++run) {
        if (run > 0) rill::testing::StartCountingAllocations();
        const Status st = s.Run();
        const long allocations = run > 0 ? rill::testing::StopCountingAllocations() : 0;
        ASSERT_TRUE(st.ok()) << st.ToString();
        EXPECT_EQ(allocations, 0) << "run " << run;
        for (const ort::OrtTensor& w : want) {
          const Tensor* got = s.output(w.name);
          ASSERT_NE(got, nullptr) << w.name;
          ASSERT_EQ(std::vector<int64_t>(got->shape().begin(), got->shape().end()), w.shape) << w.name;
          EXPECT_EQ(std::vector<float>(got->data_as<float>(), got->data_as<float>() + got->num_elements()), w.data)
              << w.name << " run " << run;
        }
      }
    }
  }
}

// The dynamic region's memory counts against max_memory_bytes: an error
// naming the node when a run needs more than the bound allows.
TEST(OnnxDynamicOpsTest, DynamicRegionMemoryIsBounded) {
  OnnxGraph g;
  g.Input("x", {1000});
  g.Initializer("zero", {}, {0.0f});
  g.Node("Greater", {"x", "zero"}, {"pos"});
  g.Node("NonZero", {"pos"}, {"nz"});
  CastToFloat(g, "nz", "y");
  g.Output("y");
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "bounded");
  ASSERT_NE(model, nullptr);
  auto probe = Session::Create(model, SessionConfig());
  ASSERT_TRUE(probe.ok());
  SessionConfig config;
  config.max_memory_bytes = (*probe)->arena_bytes() + 1000;  // the bound NON_ZERO's 4000 bytes do not fit
  auto session = Session::Create(model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<float> x(1000, 1.0f);
  std::memcpy((*session)->input(0)->data(), x.data(), sizeof(float) * x.size());
  const Status st = (*session)->Run();
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange) << st.ToString();
  EXPECT_NE(st.message().find("max_memory_bytes"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("nz"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace rill::inference::testing
