// Compress and Unique against ONNX Runtime (onnx_op_test_util.h: optimized
// and reference kernels, 1 and 2 threads) and by hand: constant conditions
// (a GATHER of constant indices, or folded), conditions computed at run time
// and Unique in the dynamic region (docs/design.md, "Data-dependent sizes"),
// empty selections included, and steady-state runs that allocate nothing
// (this binary counts operator new: counting_new.h). ONNX Runtime's runner reads and writes float32,
// so bool and int64 values pass through Cast nodes in the test graphs.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/counting_new.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

constexpr int64_t kFloat = 1, kBool = 9;

void CastTo(OnnxGraph& g, const std::string& from, const std::string& to, int64_t type) {
  OnnxGraph::Attr(g.Node("Cast", {from}, {to}), "to", type);
}

// A bool initializer as an int64 one cast to bool.
void BoolConstant(OnnxGraph& g, const std::string& name, const std::vector<int64_t>& v) {
  g.Int64Initializer(name + "_i", {static_cast<int64_t>(v.size())}, v);
  CastTo(g, name + "_i", name, kBool);
}

TEST(OnnxSelectOpsTest, CompressConstantCondition) {
  const std::vector<float> x = RandomValues(60, -1.0f, 1.0f, 201);
  struct Case {
    bool has_axis;
    int64_t axis;
    std::vector<int64_t> cond;
  };
  for (const Case& k : {Case{true, 0, {0, 1, 1}}, Case{true, 1, {1, 0, 0, 1}}, Case{true, -1, {0, 1, 0, 1, 1}},
                        Case{true, 2, {1, 1}},  // shorter than the axis
                        Case{false, 0, {0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1}}}) {
    SCOPED_TRACE(k.has_axis ? "axis " + std::to_string(k.axis) : "flattened");
    OnnxGraph g(11);
    g.Input("x", {3, 4, 5});
    BoolConstant(g, "cond", k.cond);
    onnx::NodeProto* n = g.Node("Compress", {"x", "cond"}, {"y"});
    if (k.has_axis) OnnxGraph::Attr(n, "axis", k.axis);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, 4, 5}, x}});
    auto model = LoadOnnxGraph(g, "compress_const.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "NON_ZERO"), 0);
    EXPECT_EQ(CountOps(*model, "GATHER"), 1);
  }
  // Constant data and condition fold: [[1, 2], [3, 4], [5, 6]] keeping rows
  // 0 and 2 is [[1, 2], [5, 6]].
  OnnxGraph g(11);
  g.Input("x", {2, 2});
  g.Initializer("c", {3, 2}, {1, 2, 3, 4, 5, 6});
  BoolConstant(g, "cond", {1, 0, 1});
  OnnxGraph::Attr(g.Node("Compress", {"c", "cond"}, {"t"}), "axis", int64_t{0});
  g.Node("Add", {"x", "t"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 2}, RandomValues(4, -1.0f, 1.0f, 202)}});
  auto model = LoadOnnxGraph(g, "compress_fold.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->num_nodes(), 1) << "Compress of constants folds";
  EXPECT_EQ(RunEngine(*model, {0, 0, 0, 0}, AlgorithmPolicy::kReference), (std::vector<float>{1, 2, 5, 6}));
}

// The condition computed from an input: some, none and all kept; along an
// axis and flattened; a condition shorter than the axis.
TEST(OnnxSelectOpsTest, CompressRunTimeCondition) {
  const std::vector<float> x = RandomValues(60, -1.0f, 1.0f, 203);
  struct Case {
    bool has_axis;
    int64_t axis;
    int64_t len;
  };
  for (const Case& k : {Case{true, 1, 4}, Case{true, 0, 3}, Case{true, 2, 3}, Case{false, 0, 60}, Case{false, 0, 7}}) {
    SCOPED_TRACE(k.has_axis ? "axis " + std::to_string(k.axis) : "flattened");
    OnnxGraph g(11);
    g.Input("x", {3, 4, 5});
    g.Input("c", {k.len});
    g.Initializer("zero", {}, {0.0f});
    g.Node("Greater", {"c", "zero"}, {"cond"});
    onnx::NodeProto* n = g.Node("Compress", {"x", "cond"}, {"y"});
    if (k.has_axis) OnnxGraph::Attr(n, "axis", k.axis);
    g.Output("y");
    const std::vector<int64_t> cs = {k.len};
    ExpectMatchesOrt(g, {{"x", {3, 4, 5}, x}, {"c", cs, RandomValues(k.len, -1.0f, 1.0f, 204)}});
    ExpectMatchesOrt(g, {{"x", {3, 4, 5}, x}, {"c", cs, std::vector<float>(k.len, -1.0f)}});  // none
    ExpectMatchesOrt(g, {{"x", {3, 4, 5}, x}, {"c", cs, std::vector<float>(k.len, 1.0f)}});   // all
    auto model = LoadOnnxGraph(g, "compress_run_time.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(CountOps(*model, "NON_ZERO"), 1);
  }
}

// Unique with its four outputs (the int64 ones cast to float).
OnnxGraph UniqueGraph(const std::vector<int64_t>& shape, bool has_axis, int64_t axis, int64_t sorted) {
  OnnxGraph g(11);
  g.Input("x", shape);
  onnx::NodeProto* n = g.Node("Unique", {"x"}, {"y", "indices", "inverse", "counts"});
  if (has_axis) OnnxGraph::Attr(n, "axis", axis);
  OnnxGraph::Attr(n, "sorted", sorted);
  g.Node("Identity", {"y"}, {"values"});
  CastTo(g, "indices", "indices_f", kFloat);
  CastTo(g, "inverse", "inverse_f", kFloat);
  CastTo(g, "counts", "counts_f", kFloat);
  g.Output("values");
  g.Output("indices_f");
  g.Output("inverse_f");
  g.Output("counts_f");
  return g;
}

// Values from a small set, so that elements and slices repeat.
std::vector<float> Repeating(size_t n, unsigned seed) {
  std::vector<float> v = RandomValues(n, 0.0f, 4.0f, seed);
  for (float& f : v) f = std::floor(f) - 1.5f;
  return v;
}

TEST(OnnxSelectOpsTest, UniqueFlattenedSortedAndUnsorted) {
  for (int64_t sorted : {1, 0}) {
    SCOPED_TRACE("sorted " + std::to_string(sorted));
    const OnnxGraph g = UniqueGraph({3, 4}, false, 0, sorted);
    ExpectMatchesOrt(g, {{"x", {3, 4}, Repeating(12, 205)}});
    ExpectMatchesOrt(g, {{"x", {3, 4}, RandomValues(12, -1.0f, 1.0f, 206)}});  // all distinct
    ExpectMatchesOrt(g, {{"x", {3, 4}, std::vector<float>(12, 0.5f)}});        // one value
  }
}

TEST(OnnxSelectOpsTest, UniqueAlongAnAxis) {
  // Rows (axis 0) and columns (axis 1 of a [2, 5, 2]) that repeat.
  std::vector<float> rows = Repeating(5 * 3, 207);
  for (int k = 0; k < 3; ++k) rows[9 + k] = rows[3 + k];  // row 3 = row 1
  std::vector<float> cols(20);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int l = 0; l < 2; ++l) cols[(i * 5 + j) * 2 + l] = static_cast<float>(((j % 3) * 7 + i * 3 + l) % 5);
    }
  }
  for (int64_t sorted : {1, 0}) {
    SCOPED_TRACE("sorted " + std::to_string(sorted));
    ExpectMatchesOrt(UniqueGraph({5, 3}, true, 0, sorted), {{"x", {5, 3}, rows}});
    ExpectMatchesOrt(UniqueGraph({2, 5, 2}, true, 1, sorted), {{"x", {2, 5, 2}, cols}});
    ExpectMatchesOrt(UniqueGraph({2, 5, 2}, true, -1, sorted), {{"x", {2, 5, 2}, cols}});
  }
}

// By hand, x = [2, 1, 2, 3, 1]: sorted values [1, 2, 3], first indices
// [1, 0, 3], inverse [1, 0, 1, 2, 0], counts [2, 2, 1]; unsorted [2, 1, 3],
// [0, 1, 3], [0, 1, 0, 2, 1], [2, 2, 1].
TEST(OnnxSelectOpsTest, UniqueByHand) {
  const std::vector<float> x = {2, 1, 2, 3, 1};
  const std::vector<std::vector<float>> want_sorted = {{1, 2, 3}, {1, 0, 3}, {1, 0, 1, 2, 0}, {2, 2, 1}};
  const std::vector<std::vector<float>> want_unsorted = {{2, 1, 3}, {0, 1, 3}, {0, 1, 0, 2, 1}, {2, 2, 1}};
  const char* names[4] = {"values", "indices_f", "inverse_f", "counts_f"};
  for (int64_t sorted : {1, 0}) {
    for (int k = 0; k < 4; ++k) {
      SCOPED_TRACE(std::string(names[k]) + " sorted " + std::to_string(sorted));
      OnnxGraph g(11);
      g.Input("x", {5});
      std::vector<std::string> outs = {"y", "indices", "inverse", "counts"};
      onnx::NodeProto* n = g.Node("Unique", {"x"}, outs);
      OnnxGraph::Attr(n, "sorted", sorted);
      CastTo(g, outs[k], "out", kFloat);
      g.Output("out");
      auto model = LoadOnnxGraph(g, "unique.onnx");
      ASSERT_NE(model, nullptr);
      for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
        EXPECT_EQ(RunEngine(*model, x, policy), (sorted ? want_sorted : want_unsorted)[k]);
      }
    }
  }
}

// Unique's four outputs and a run-time Compress in one session: repeated
// runs of one input allocate nothing once the region has seen its sizes,
// and give the same values; a new count infers and prepares again.
TEST(OnnxSelectOpsTest, SteadyStateRunsDoNotAllocate) {
  // The rows that repeat: Compress(values, counts > 1) along axis 0, whose
  // input and condition both have run-time sizes.
  OnnxGraph g = UniqueGraph({6, 4}, true, 0, 0);
  g.Int64Initializer("one", {}, {1});
  g.Node("Greater", {"counts", "one"}, {"repeated"});
  OnnxGraph::Attr(g.Node("Compress", {"values", "repeated"}, {"kept"}), "axis", int64_t{0});
  g.Output("kept");
  std::shared_ptr<const Model> model = LoadOnnxGraph(g, "unique_compress");
  ASSERT_NE(model, nullptr);
  ASSERT_GT(model->dynamic_node_count(), 0);
  std::vector<float> a = Repeating(24, 208);
  for (int k = 0; k < 4; ++k) a[12 + k] = a[k];  // row 3 = row 0
  std::vector<float> b = Repeating(24, 209);
  ExpectMatchesOrt(g, {{"x", {6, 4}, a}});
  ExpectMatchesOrt(g, {{"x", {6, 4}, b}});
  {  // flattened: a RESHAPE of run-time sizes first
    OnnxGraph f = UniqueGraph({6, 4}, true, 0, 1);
    f.Int64Initializer("one", {}, {1});
    f.Node("Greater", {"counts", "one"}, {"repeated"});
    f.Node("Compress", {"values", "repeated"}, {"kept"});
    f.Output("kept");
    ExpectMatchesOrt(f, {{"x", {6, 4}, a}});
  }
  for (int threads : {1, 2}) {
    SessionConfig config;
    config.num_threads = threads;
    auto session = Session::Create(model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& s = **session;
    for (const std::vector<float>* x : {&a, &b, &a}) {
      std::memcpy(s.input(0)->data(), x->data(), x->size() * sizeof(float));
      std::vector<std::vector<float>> first;
      for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE("run " + std::to_string(run) + ", " + std::to_string(threads) + " thread(s)");
        if (run > 0) rill::testing::StartCountingAllocations();
        const Status st = s.Run();
        const long allocations = run > 0 ? rill::testing::StopCountingAllocations() : 0;
        ASSERT_TRUE(st.ok()) << st.ToString();
        EXPECT_EQ(allocations, 0);
        std::vector<std::vector<float>> outs;
        for (int o = 0; o < 5; ++o) {
          const Tensor* t = s.output(o);
          outs.emplace_back(t->data_as<float>(), t->data_as<float>() + t->num_elements());
        }
        if (run == 0) {
          first = outs;
        } else {
          EXPECT_EQ(outs, first);
        }
      }
    }
  }
}

}  // namespace
}  // namespace rill::inference::testing
