// TFLite builtins beyond the MediaPipe models (issue 16, "TFLite breadth"),
// on models written here (tflite_test_models.h), against values computed
// here with plain loops and <cmath> (or by hand), with the optimized and
// reference kernels at 1 and 2 threads: SPLIT, SPLIT_V, UNPACK and PACK
// (one operator lowered into several engine nodes), the reductions
// (keep_dims both ways, negative and repeated axes, a 4-D NHWC input),
// ARG_MAX / ARG_MIN (ties), GATHER (constant and run-time indices, negative
// ones, any axis), the unary and binary math, L2_NORMALIZATION,
// LOCAL_RESPONSE_NORMALIZATION and
// LOG_SOFTMAX, the comparisons and logic ops, SELECT / SELECT_V2, CAST,
// TILE, BROADCAST_TO, STRIDED_SLICE's ellipsis / new-axis / shrink / offset,
// SPACE_TO_DEPTH, TOPK_V2, REVERSE_V2, ADD_N, FLOOR_DIV, ROUND, RELU_0_TO_1,
// GATHER_ND and SCATTER_ND (repeated indices summed);
// and the errors of what the engine cannot do. Then one model of many of
// these ops, exported to ONNX (onnx_exporter.h) and run by
// ONNX Runtime: the independent check of the engine's results.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/export/onnx_exporter.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

extern "C" const char* __lsan_default_suppressions() { return "leak:libonnxruntime.so.1\n"; }

namespace rill::inference {
namespace {

using testing::TfliteOp;
using testing::TfliteTensor;
using OptionsFn = flatbuffers::uoffset_t (*)(flatbuffers::FlatBufferBuilder*);

struct Out {
  Shape shape;
  std::vector<float> values;
};

// Runs `bytes` on `inputs` (one per graph input, in order) with every
// policy and thread count; checks each output's shape and values (within
// `tol`, relative above 1; 0: exactly).
void ExpectOutputs(const std::vector<uint8_t>& bytes, const std::vector<std::vector<float>>& inputs,
                   const std::vector<Out>& want, float tol = 0.0f) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "op.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(static_cast<size_t>((*s)->input(i)->num_elements()), inputs[i].size()) << "input " << i;
      std::memcpy((*s)->input(i)->data(), inputs[i].data(), inputs[i].size() * 4);
    }
    ASSERT_TRUE((*s)->Run().ok());
    for (size_t o = 0; o < want.size(); ++o) {
      const Tensor* y = (*s)->output(o);
      EXPECT_EQ(Shape(y->shape().begin(), y->shape().end()), want[o].shape) << "output " << o;
      ASSERT_EQ(static_cast<size_t>(y->num_elements()), want[o].values.size()) << "output " << o;
      const float* v = y->data_as<float>();
      for (size_t i = 0; i < want[o].values.size(); ++i) {
        const float w = want[o].values[i];
        if (tol == 0.0f) {
          EXPECT_FLOAT_EQ(v[i], w) << "output " << o << " element " << i;
        } else {
          EXPECT_NEAR(v[i], w, tol * std::max(1.0f, std::fabs(w))) << "output " << o << " element " << i;
        }
      }
    }
  }
}

// The import error of `bytes` (the test fails if it imports).
std::string ImportError(const std::vector<uint8_t>& bytes, const char* name) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), name);
  EXPECT_FALSE(model.ok());
  return model.ok() ? "" : model.status().message();
}

std::vector<float> Iota(int n, float start = 0.0f, float step = 1.0f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// ---- options tables (field index, value; written even at their defaults) --

template <int kField0, int kValue0, int kField1 = -1, int kValue1 = 0>
flatbuffers::uoffset_t IntOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(kField0), kValue0, kValue0 + 1);
  if (kField1 >= 0) b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(kField1), kValue1, kValue1 + 1);
  return b->EndTable(start);
}

template <int kField, int kValue>
flatbuffers::uoffset_t ByteOption(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(kField), kValue, kValue + 1);
  return b->EndTable(start);
}

// ---- SPLIT, SPLIT_V, UNPACK, PACK ----------------------------------------------

// The [outer, axis, inner] view of `x` of `shape` sliced to [begin, end) along `axis`.
std::vector<float> SliceAlong(const std::vector<float>& x, const Shape& shape, int axis, int begin, int end) {
  int outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<float> out;
  for (int o = 0; o < outer; ++o)
    for (int k = begin; k < end; ++k)
      for (int j = 0; j < inner; ++j) out.push_back(x[(o * shape[axis] + k) * inner + j]);
  return out;
}

TEST(TfliteBreadthOpsTest, SplitEvenlyAlongANegativeAxis) {
  // SPLIT (49): axis -2 of [3, 4, 2] in two [3, 2, 2].
  const std::vector<float> x = Iota(24);
  const auto bytes = testing::OneOpTflite(
      49, {{"axis", {1}, {}, {-2}}, {"x", {3, 4, 2}, {}, {}}, {"a", {3, 2, 2}, {}, {}}, {"b", {3, 2, 2}, {}, {}}},
      {0, 1}, {2, 3}, 35, IntOptions<0, 2>);
  ExpectOutputs(bytes, {x}, {{{3, 2, 2}, SliceAlong(x, {3, 4, 2}, 1, 0, 2)}, {{3, 2, 2}, SliceAlong(x, {3, 4, 2}, 1, 2, 4)}});
}

TEST(TfliteBreadthOpsTest, SplitNhwcChannels) {
  // A 4-D tensor: TFLite's axis 3 is the engine's channel axis.
  const std::vector<float> x = Iota(2 * 2 * 3 * 4);
  const Shape s = {2, 2, 3, 4};
  const auto bytes = testing::OneOpTflite(
      49, {{"axis", {1}, {}, {3}}, {"x", {2, 2, 3, 4}, {}, {}}, {"a", {2, 2, 3, 2}, {}, {}}, {"b", {2, 2, 3, 2}, {}, {}}},
      {0, 1}, {2, 3}, 35, IntOptions<0, 2>);
  ExpectOutputs(bytes, {x}, {{{2, 2, 3, 2}, SliceAlong(x, s, 3, 0, 2)}, {{2, 2, 3, 2}, SliceAlong(x, s, 3, 2, 4)}});
}

TEST(TfliteBreadthOpsTest, SplitVWithOneRest) {
  // SPLIT_V (102): [2, 7] by sizes {2, -1, 1} along axis 1: 2, 4, 1 columns.
  const std::vector<float> x = Iota(14, -3.0f, 0.5f);
  const auto bytes = testing::OneOpTflite(102,
                                          {{"x", {2, 7}, {}, {}},
                                           {"sizes", {3}, {}, {2, -1, 1}},
                                           {"axis", {1}, {}, {1}},
                                           {"a", {2, 2}, {}, {}},
                                           {"b", {2, 4}, {}, {}},
                                           {"c", {2, 1}, {}, {}}},
                                          {0, 1, 2}, {3, 4, 5}, 79, IntOptions<0, 3>);
  ExpectOutputs(bytes, {x},
                {{{2, 2}, SliceAlong(x, {2, 7}, 1, 0, 2)},
                 {{2, 4}, SliceAlong(x, {2, 7}, 1, 2, 6)},
                 {{2, 1}, SliceAlong(x, {2, 7}, 1, 6, 7)}});
}

TEST(TfliteBreadthOpsTest, UnpackAndPack) {
  // UNPACK (88; num 3, axis -2) of [2, 3, 2] into three [2, 2].
  const std::vector<float> x = Iota(12);
  const auto unpack = testing::OneOpTflite(
      88, {{"x", {2, 3, 2}, {}, {}}, {"a", {2, 2}, {}, {}}, {"b", {2, 2}, {}, {}}, {"c", {2, 2}, {}, {}}}, {0},
      {1, 2, 3}, 64, IntOptions<0, 3, 1, -2>);
  std::vector<Out> pieces;
  for (int i = 0; i < 3; ++i) pieces.push_back({{2, 2}, SliceAlong(x, {2, 3, 2}, 1, i, i + 1)});
  ExpectOutputs(unpack, {x}, pieces);
  // PACK (83; values_count 3) of three [2, 3] along axis 1 and along -1;
  // the third input is a constant.
  const std::vector<float> a = Iota(6), b = Iota(6, 10), k = Iota(6, -5);
  std::vector<float> axis1, axis_last;
  for (int i = 0; i < 2; ++i)
    for (const auto* v : {&a, &b, &k})
      for (int j = 0; j < 3; ++j) axis1.push_back((*v)[i * 3 + j]);
  for (int i = 0; i < 6; ++i)
    for (const auto* v : {&a, &b, &k}) axis_last.push_back((*v)[i]);
  const std::vector<TfliteTensor> tensors = {
      {"a", {2, 3}, {}, {}}, {"b", {2, 3}, {}, {}}, {"k", {2, 3}, k, {}}, {"y", {2, 3, 3}, {}, {}}};
  ExpectOutputs(testing::OneOpTflite(83, tensors, {0, 1, 2}, {3}, 59, IntOptions<0, 3, 1, 1>), {a, b},
                {{{2, 3, 3}, axis1}});
  ExpectOutputs(testing::OneOpTflite(83, tensors, {0, 1, 2}, {3}, 59, IntOptions<0, 3, 1, -1>), {a, b},
                {{{2, 3, 3}, axis_last}});
  // UNPACK of a 1-D tensor (scalar outputs) is refused, naming the node.
  const std::string error = ImportError(
      testing::OneOpTflite(88, {{"x", {2}, {}, {}}, {"a", {}, {}, {}}, {"b", {}, {}, {}}}, {0}, {1, 2}, 64,
                           IntOptions<0, 2, 1, 0>),
      "unpack.tflite");
  EXPECT_NE(error.find("node #0 'a' (UNPACK)"), std::string::npos) << error;
  EXPECT_NE(error.find("rank-1"), std::string::npos) << error;
  // SPLIT_V with two -1 sizes is invalid.
  const std::string twice = ImportError(testing::OneOpTflite(102,
                                                             {{"x", {2, 7}, {}, {}},
                                                              {"sizes", {2}, {}, {-1, -1}},
                                                              {"axis", {1}, {}, {1}},
                                                              {"a", {2, 2}, {}, {}},
                                                              {"b", {2, 5}, {}, {}}},
                                                             {0, 1, 2}, {3, 4}, 79, IntOptions<0, 2>),
                                        "split_v.tflite");
  EXPECT_NE(twice.find("SPLIT_V"), std::string::npos) << twice;
  EXPECT_NE(twice.find("one -1"), std::string::npos) << twice;
}

TEST(TfliteBreadthOpsTest, SplitOutputsFeedLaterOperators) {
  // SPLIT into two halves, then ADD (0) of them: the lowered nodes sit in
  // the graph's order.
  const std::vector<float> x = Iota(8);
  const auto bytes = testing::TfliteModel(
      {{"axis", {1}, {}, {0}}, {"x", {2, 4}, {}, {}}, {"a", {1, 4}, {}, {}}, {"b", {1, 4}, {}, {}}, {"y", {1, 4}, {}, {}}},
      {TfliteOp{49, "", {0, 1}, {2, 3}, 35, IntOptions<0, 2>}, TfliteOp{0, "", {2, 3}, {4}}}, {4});
  ExpectOutputs(bytes, {x}, {{{1, 4}, {4, 6, 8, 10}}});
}

// ---- reductions, ARG_MAX / ARG_MIN ------------------------------------------------

enum class Red { kSum, kMax, kMin, kProd };

// A plain reduction of `x` of `shape` over `axes` (already in range).
Out Reduce(const std::vector<float>& x, const Shape& shape, const std::vector<int>& axes, bool keep, Red r) {
  const int rank = static_cast<int>(shape.size());
  Shape kept = shape;
  for (int a : axes) kept[a] = 1;
  const float init = r == Red::kMax ? -INFINITY : r == Red::kMin ? INFINITY : r == Red::kProd ? 1.0f : 0.0f;
  std::vector<float> y(static_cast<size_t>(NumElements(kept)), init);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    int64_t rest = i, o = 0, stride = 1;
    std::vector<int> idx(rank);
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = static_cast<int>(rest % shape[d]);
      rest /= shape[d];
    }
    for (int d = rank - 1; d >= 0; --d) {
      o += (kept[d] == 1 ? 0 : idx[d]) * stride;
      stride *= kept[d];
    }
    float& v = y[o];
    switch (r) {
      case Red::kSum: v += x[i]; break;
      case Red::kMax: v = std::max(v, x[i]); break;
      case Red::kMin: v = std::min(v, x[i]); break;
      case Red::kProd: v *= x[i]; break;
    }
  }
  Shape out;
  for (int d = 0; d < rank; ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) out.push_back(shape[d]);
    else if (keep) out.push_back(1);
  }
  return {out, y};
}

std::vector<uint8_t> ReduceModel(int32_t code, const Shape& in, const std::vector<int32_t>& axes, const Shape& out,
                                 OptionsFn keep) {
  return testing::OneOpTflite(code,
                              {{"x", in, {}, {}}, {"axes", {static_cast<int32_t>(axes.size())}, {}, axes}, {"y", out, {}, {}}},
                              {0, 1}, {2}, 27, keep);
}

TEST(TfliteBreadthOpsTest, Reductions) {
  const Shape s = {2, 3, 4};
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>((i * 7) % 11) - 4.5f;
  const auto keep = ByteOption<0, 1>;
  const auto drop = ByteOption<0, 0>;
  // SUM (74) over {1, -1} both ways; REDUCE_MAX (82) over {0};
  // REDUCE_MIN (89) over {-1, 2} (a repeat); REDUCE_PROD (81) over {1}.
  ExpectOutputs(ReduceModel(74, s, {1, -1}, {2}, drop), {x}, {Reduce(x, s, {1, 2}, false, Red::kSum)}, 1e-5f);
  ExpectOutputs(ReduceModel(74, s, {1, -1}, {2, 1, 1}, keep), {x}, {Reduce(x, s, {1, 2}, true, Red::kSum)}, 1e-5f);
  ExpectOutputs(ReduceModel(82, s, {0}, {3, 4}, drop), {x}, {Reduce(x, s, {0}, false, Red::kMax)});
  ExpectOutputs(ReduceModel(89, s, {-1, 2}, {2, 3, 1}, keep), {x}, {Reduce(x, s, {2}, true, Red::kMin)});
  std::vector<float> small(24);
  for (int i = 0; i < 24; ++i) small[i] = 0.5f + 0.1f * static_cast<float>(i % 5);
  ExpectOutputs(ReduceModel(81, s, {1}, {2, 1, 4}, keep), {small}, {Reduce(small, s, {1}, true, Red::kProd)}, 1e-6f);
  // A 4-D input: axis 3 (channels) of NHWC.
  const Shape s4 = {1, 2, 3, 4};
  ExpectOutputs(ReduceModel(74, s4, {3}, {1, 2, 3}, drop), {x}, {Reduce(x, s4, {3}, false, Red::kSum)}, 1e-5f);
  // Every axis without keep_dims: a scalar.
  ExpectOutputs(ReduceModel(74, {2, 3}, {0, 1}, {}, drop), {Iota(6)}, {{{}, {15}}});
  // REDUCE_ANY (91) of 0 / 1 values over the last axis.
  const std::vector<float> flags = {0, 0, 1, 0, 0, 0, 1, 1, 0};
  ExpectOutputs(ReduceModel(91, {3, 3}, {-1}, {3}, drop), {flags}, {{{3}, {1, 0, 1}}});
}

TEST(TfliteBreadthOpsTest, ArgMaxArgMinFirstOfTies) {
  // [2, 3, 4] with ties: the first index wins.
  const Shape s = {2, 3, 4};
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>((i * 5) % 7);
  auto arg = [&](int axis, bool max) {
    Out o;
    for (int d = 0; d < 3; ++d) {
      if (d != axis) o.shape.push_back(s[d]);
    }
    int outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= s[d];
    for (int d = axis + 1; d < 3; ++d) inner *= s[d];
    for (int a = 0; a < outer; ++a) {
      for (int j = 0; j < inner; ++j) {
        int best = 0;
        for (int k = 1; k < s[axis]; ++k) {
          const float v = x[(a * s[axis] + k) * inner + j], b = x[(a * s[axis] + best) * inner + j];
          if (max ? v > b : v < b) best = k;
        }
        o.values.push_back(static_cast<float>(best));
      }
    }
    return o;
  };
  auto model = [&](int32_t code, int32_t axis, const Shape& out, OptionsFn type) {
    return testing::OneOpTflite(code, {{"x", s, {}, {}}, {"axis", {1}, {}, {axis}}, {"y", out, {}, {}}}, {0, 1}, {2},
                                40, type);
  };
  ExpectOutputs(model(56, 1, {2, 4}, ByteOption<0, 2>), {x}, {arg(1, true)});    // INT32
  ExpectOutputs(model(56, -1, {2, 3}, ByteOption<0, 4>), {x}, {arg(2, true)});   // INT64
  ExpectOutputs(model(79, 0, {3, 4}, ByteOption<0, 2>), {x}, {arg(0, false)});
  ExpectOutputs(model(79, -1, {2, 3}, ByteOption<0, 4>), {x}, {arg(2, false)});
  // output_type FLOAT32 is refused, naming the option.
  const std::string error = ImportError(model(56, 1, {2, 4}, ByteOption<0, 0>), "argmax.tflite");
  EXPECT_NE(error.find("node #0"), std::string::npos) << error;
  EXPECT_NE(error.find("ARG_MAX"), std::string::npos) << error;
  EXPECT_NE(error.find("output_type"), std::string::npos) << error;
  // Without options the output tensor's type stands for output_type: a
  // FLOAT32 output is refused too.
  const std::string absent = ImportError(model(56, 1, {2, 4}, nullptr), "argmax_absent.tflite");
  EXPECT_NE(absent.find("output_type"), std::string::npos) << absent;
}

// ---- GATHER ---------------------------------------------------------------------------

TEST(TfliteBreadthOpsTest, GatherConstantAndRuntimeIndices) {
  // params [3, 4]; indices {2, -1, 0} along axis 0 and along axis -1.
  const std::vector<float> p = Iota(12, 1);
  auto rows = [&](const std::vector<int>& idx) {
    std::vector<float> v;
    for (int i : idx)
      for (int j = 0; j < 4; ++j) v.push_back(p[(i < 0 ? i + 3 : i) * 4 + j]);
    return v;
  };
  auto cols = [&](const std::vector<int>& idx) {
    std::vector<float> v;
    for (int r = 0; r < 3; ++r)
      for (int i : idx) v.push_back(p[r * 4 + (i < 0 ? i + 4 : i)]);
    return v;
  };
  ExpectOutputs(testing::OneOpTflite(36, {{"p", {3, 4}, {}, {}}, {"i", {3}, {}, {2, -1, 0}}, {"y", {3, 4}, {}, {}}},
                                     {0, 1}, {2}, 23, IntOptions<0, 0>),
                {p}, {{{3, 4}, rows({2, -1, 0})}});
  ExpectOutputs(testing::OneOpTflite(36, {{"p", {3, 4}, {}, {}}, {"i", {3}, {}, {3, -4, 1}}, {"y", {3, 3}, {}, {}}},
                                     {0, 1}, {2}, 23, IntOptions<0, -1>),
                {p}, {{{3, 3}, cols({3, -4, 1})}});
  // Indices [2, 2] at run time into constant params (an embedding table).
  ExpectOutputs(testing::OneOpTflite(36, {{"p", {3, 4}, p, {}}, {"i", {2, 2}, {}, {}}, {"y", {2, 2, 4}, {}, {}}},
                                     {0, 1}, {2}, 23, IntOptions<0, 0>),
                {{1, 0, 2, 2}}, {{{2, 2, 4}, rows({1, 0, 2, 2})}});
  // batch_dims 1 is refused, naming the node, op and option.
  const std::string batch = ImportError(
      testing::OneOpTflite(36, {{"p", {3, 4}, {}, {}}, {"i", {3, 1}, {}, {0, 1, 2}}, {"y", {3, 1}, {}, {}}}, {0, 1},
                           {2}, 23, IntOptions<0, 1, 1, 1>),
      "gather.tflite");
  EXPECT_NE(batch.find("node #0"), std::string::npos) << batch;
  EXPECT_NE(batch.find("(GATHER)"), std::string::npos) << batch;
  EXPECT_NE(batch.find("batch_dims"), std::string::npos) << batch;
}

// ---- GATHER_ND, SCATTER_ND ----------------------------------------------------------------

TEST(TfliteBreadthOpsTest, GatherNdTuplesAndSlices) {
  // params [3, 4, 2]; GATHER_ND (107) picks whole tuples, rows or elements.
  const std::vector<float> p = Iota(24, 1);
  auto at = [&](int i, int j, int k) { return p[(i * 4 + j) * 2 + k]; };
  // indices [2, 3]: two elements.
  ExpectOutputs(testing::OneOpTflite(
                    107, {{"p", {3, 4, 2}, {}, {}}, {"i", {2, 3}, {}, {2, 3, 1, 0, 1, 0}}, {"y", {2}, {}, {}}}, {0, 1}, {2}),
                {p}, {{{2}, {at(2, 3, 1), at(0, 1, 0)}}});
  // indices [2, 1, 2]: [2, 1] pairs, each a [2] slice.
  ExpectOutputs(testing::OneOpTflite(107,
                                     {{"p", {3, 4, 2}, {}, {}}, {"i", {2, 1, 2}, {}, {1, 2, 0, 3}}, {"y", {2, 1, 2}, {}, {}}},
                                     {0, 1}, {2}),
                {p}, {{{2, 1, 2}, {at(1, 2, 0), at(1, 2, 1), at(0, 3, 0), at(0, 3, 1)}}});
  // indices [3, 1] at run time into constant params: rows [4, 2] each.
  std::vector<float> rows;
  for (int i : {2, 0, 2})
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k) rows.push_back(at(i, j, k));
  ExpectOutputs(testing::OneOpTflite(107, {{"p", {3, 4, 2}, p, {}}, {"i", {3, 1}, {}, {}}, {"y", {3, 4, 2}, {}, {}}},
                                     {0, 1}, {2}),
                {{2, 0, 2}}, {{{3, 4, 2}, rows}});
}

TEST(TfliteBreadthOpsTest, ScatterNdSumsRepeatedIndicesIntoZeros) {
  // SCATTER_ND (122): rows of updates [4, 3] at indices {0, 2, 0, 3} into
  // zeros [5, 3]: row 0 gets updates 0 + 2.
  const std::vector<float> u = Iota(12, 1, 0.5f);
  std::vector<float> want(15, 0.0f);
  const int rows[] = {0, 2, 0, 3};
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < 3; ++j) want[rows[t] * 3 + j] += u[t * 3 + j];
  ExpectOutputs(testing::OneOpTflite(122,
                                     {{"i", {4, 1}, {}, {0, 2, 0, 3}},
                                      {"u", {4, 3}, {}, {}},
                                      {"shape", {2}, {}, {5, 3}},
                                      {"y", {5, 3}, {}, {}}},
                                     {0, 1, 2}, {3}),
                {u}, {{{5, 3}, want}});
  // Element tuples into [2, 2, 2] (negative indices count from the end, as
  // the engine's GATHER_ND): (0, 1, 1) twice and (1, 0, 0).
  const std::vector<float> e = {5, -2, 7};
  std::vector<float> cube(8, 0.0f);
  cube[0 * 4 + 1 * 2 + 1] = 5 + 7;
  cube[1 * 4 + 0 * 2 + 0] = -2;
  ExpectOutputs(testing::OneOpTflite(122,
                                     {{"i", {3, 3}, {}, {0, 1, 1, 1, 0, 0, 0, -1, 1}},
                                      {"u", {3}, {}, {}},
                                      {"shape", {3}, {}, {2, 2, 2}},
                                      {"y", {2, 2, 2}, {}, {}}},
                                     {0, 1, 2}, {3}),
                {e}, {{{2, 2, 2}, cube}});
  // A shape that is not a constant is refused, naming the operator.
  const std::string err = ImportError(
      testing::OneOpTflite(122, {{"i", {1, 1}, {}, {0}}, {"u", {1}, {}, {}}, {"shape", {1}, {}, {}}, {"y", {2}, {}, {}}},
                           {0, 1, 2}, {3}),
      "scatter_nd.tflite");
  EXPECT_NE(err.find("SCATTER_ND"), std::string::npos) << err;
}

// ---- math -----------------------------------------------------------------------------

std::vector<uint8_t> UnaryModel(int32_t code, OptionsFn options = nullptr) {
  return testing::OneOpTflite(code, {{"x", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}}, {0}, {1}, options ? 1 : 0, options);
}

std::vector<float> Map(const std::vector<float>& x, const std::function<float(float)>& f) {
  std::vector<float> y;
  for (float v : x) y.push_back(f(v));
  return y;
}

TEST(TfliteBreadthOpsTest, UnaryMath) {
  const std::vector<float> x = {-2.5f, -0.75f, 0.0f, 0.3f, 1.5f, 3.25f};
  const std::vector<float> pos = {0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 9.0f};
  const float tol = 2e-5f;
  ExpectOutputs(UnaryModel(47), {x}, {{{2, 3}, Map(x, [](float v) { return std::exp(v); })}}, tol);
  ExpectOutputs(UnaryModel(73), {pos}, {{{2, 3}, Map(pos, [](float v) { return std::log(v); })}}, tol);
  ExpectOutputs(UnaryModel(75), {pos}, {{{2, 3}, {0.5f, std::sqrt(0.5f), 1, std::sqrt(2.0f), 2, 3}}}, tol);
  ExpectOutputs(UnaryModel(76), {pos}, {{{2, 3}, {2, 1 / std::sqrt(0.5f), 1, 1 / std::sqrt(2.0f), 0.5f, 1 / 3.0f}}}, tol);
  ExpectOutputs(UnaryModel(101), {x}, {{{2, 3}, {2.5f, 0.75f, 0, 0.3f, 1.5f, 3.25f}}});
  ExpectOutputs(UnaryModel(59), {x}, {{{2, 3}, {2.5f, 0.75f, 0, -0.3f, -1.5f, -3.25f}}});
  ExpectOutputs(UnaryModel(28), {x}, {{{2, 3}, Map(x, [](float v) { return std::tanh(v); })}}, tol);
  ExpectOutputs(UnaryModel(92), {x}, {{{2, 3}, {6.25f, 0.5625f, 0, 0.09f, 2.25f, 10.5625f}}}, tol);
  ExpectOutputs(UnaryModel(111), {x}, {{{2, 3}, Map(x, [](float v) { return v >= 0 ? v : std::expm1(v); })}}, tol);
  ExpectOutputs(UnaryModel(66), {x}, {{{2, 3}, Map(x, [](float v) { return std::sin(v); })}}, tol);
  ExpectOutputs(UnaryModel(108), {x}, {{{2, 3}, Map(x, [](float v) { return std::cos(v); })}}, tol);
  ExpectOutputs(UnaryModel(8), {x}, {{{2, 3}, {-3, -1, 0, 0, 1, 3}}});
  ExpectOutputs(UnaryModel(104), {x}, {{{2, 3}, {-2, -0, 0, 1, 2, 4}}});
  // GELU (150): erf form, and the tanh form with approximate = true.
  ExpectOutputs(UnaryModel(150, ByteOption<0, 0>), {x},
                {{{2, 3}, Map(x, [](float v) { return 0.5f * v * (1 + std::erf(v / std::sqrt(2.0f))); })}}, tol);
  ExpectOutputs(UnaryModel(150, ByteOption<0, 1>), {x},
                {{{2, 3}, Map(x, [](float v) {
                    return 0.5f * v * (1 + std::tanh(std::sqrt(2 / 3.14159265358979f) * (v + 0.044715f * v * v * v)));
                  })}},
                tol);
}

TEST(TfliteBreadthOpsTest, BinaryMathBroadcast) {
  const std::vector<float> a = {1, -2, 3, 0.5f, 4, -1};  // [2, 3]
  const std::vector<float> b = {2, 0.5f, -3};             // [3]
  auto model = [](int32_t code, const Shape& as, const Shape& bs, const Shape& ys) {
    return testing::OneOpTflite(code, {{"a", as, {}, {}}, {"b", bs, {}, {}}, {"y", ys, {}, {}}}, {0, 1}, {2});
  };
  std::vector<float> sq, mn, mx;
  for (int i = 0; i < 6; ++i) {
    const float d = a[i] - b[i % 3];
    sq.push_back(d * d);
    mn.push_back(std::min(a[i], b[i % 3]));
    mx.push_back(std::max(a[i], b[i % 3]));
  }
  ExpectOutputs(model(99, {2, 3}, {3}, {2, 3}), {a, b}, {{{2, 3}, sq}});
  ExpectOutputs(model(57, {2, 3}, {3}, {2, 3}), {a, b}, {{{2, 3}, mn}});
  ExpectOutputs(model(55, {2, 3}, {3}, {2, 3}), {a, b}, {{{2, 3}, mx}});
  // POW (78): [2, 1] ** [1, 3] -> [2, 3].
  ExpectOutputs(model(78, {2, 1}, {1, 3}, {2, 3}), {{2, 3}, {0.5f, 2, 3}},
                {{{2, 3}, {std::pow(2.0f, 0.5f), 4, 8, std::pow(3.0f, 0.5f), 9, 27}}}, 1e-6f);
}

TEST(TfliteBreadthOpsTest, L2NormalizationAndLogSoftmax) {
  // [2, 3] with a zero row: TFLite's epsilon keeps it 0.
  const std::vector<float> x = {3, -4, 12, 0, 0, 0};
  const auto l2 = testing::OneOpTflite(11, {{"x", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}}, {0}, {1});
  ExpectOutputs(l2, {x}, {{{2, 3}, {3 / 13.0f, -4 / 13.0f, 12 / 13.0f, 0, 0, 0}}}, 1e-6f);
  const std::vector<float> z = {1, 2, 3, -50, 0, 50};
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) sum += std::exp(static_cast<double>(z[r * 3 + j]));
    for (int j = 0; j < 3; ++j) want.push_back(static_cast<float>(z[r * 3 + j] - std::log(sum)));
  }
  const auto ls = testing::OneOpTflite(50, {{"x", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}}, {0}, {1});
  ExpectOutputs(ls, {z}, {{{2, 3}, want}}, 1e-5f);
}

// CumsumOptions: exclusive and reverse.
flatbuffers::uoffset_t CumsumExclusiveReverse(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(0), 1, 0);
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(1), 1, 0);
  return b->EndTable(start);
}

// LocalResponseNormalizationOptions: radius 1, bias 2, alpha 0.5, beta 0.75.
flatbuffers::uoffset_t LrnOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(0), 1, 0);
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(1), 2.0f, 0.0f);
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(2), 0.5f, 0.0f);
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(3), 0.75f, 0.0f);
  return b->EndTable(start);
}

// LOCAL_RESPONSE_NORMALIZATION (13) over the channels of [1, 1, 2, 5]: each
// value over (bias + alpha * the squares of itself and its neighbours)^beta,
// worked out here in double.
TEST(TfliteBreadthOpsTest, LocalResponseNormalization) {
  const std::vector<float> x = {1, -2, 3, 0.5f, -1.5f, 2, 0, -1, 4, 0.25f};
  std::vector<float> want;
  for (int p = 0; p < 2; ++p) {
    for (int ch = 0; ch < 5; ++ch) {
      double sum = 0;
      for (int j = std::max(0, ch - 1); j <= std::min(4, ch + 1); ++j) sum += double(x[p * 5 + j]) * x[p * 5 + j];
      want.push_back(static_cast<float>(x[p * 5 + ch] / std::pow(2.0 + 0.5 * sum, 0.75)));
    }
  }
  const auto model = testing::OneOpTflite(13, {{"x", {1, 1, 2, 5}, {}, {}}, {"y", {1, 1, 2, 5}, {}, {}}}, {0}, {1},
                                          13, LrnOptions);
  ExpectOutputs(model, {x}, {{{1, 1, 2, 5}, want}}, 1e-6f);
}

// CUMSUM (128) along axis 1 of [2, 3]: inclusive, then exclusive and
// reversed (CumsumOptions).
TEST(TfliteBreadthOpsTest, Cumsum) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  auto model = [](flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*)) {
    return testing::OneOpTflite(128,
                                {{"x", {2, 3}, {}, {}}, {"axis", {}, {}, {1}}, {"y", {2, 3}, {}, {}}},
                                {0, 1}, {2}, 124, options);
  };
  ExpectOutputs(model(ByteOption<0, 0>), {x}, {{{2, 3}, {1, 3, 6, 4, 9, 15}}});
  ExpectOutputs(model(CumsumExclusiveReverse), {x}, {{{2, 3}, {5, 3, 0, 11, 6, 0}}});
}

// ---- comparisons, logic, SELECT, CAST ---------------------------------------------------

TEST(TfliteBreadthOpsTest, ComparisonsAndLogic) {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};  // [2, 3]
  const std::vector<float> b = {2, 5, 3};           // [3], broadcast
  auto model = [](int32_t code) {
    return testing::OneOpTflite(code, {{"a", {2, 3}, {}, {}}, {"b", {3}, {}, {}}, {"y", {2, 3}, {}, {}}}, {0, 1}, {2});
  };
  auto expect = [&](int32_t code, const std::function<bool(float, float)>& f) {
    std::vector<float> want;
    for (int i = 0; i < 6; ++i) want.push_back(f(a[i], b[i % 3]) ? 1.0f : 0.0f);
    ExpectOutputs(model(code), {a, b}, {{{2, 3}, want}});
  };
  expect(71, [](float x, float y) { return x == y; });
  expect(72, [](float x, float y) { return x != y; });
  expect(58, [](float x, float y) { return x < y; });
  expect(63, [](float x, float y) { return x <= y; });
  expect(61, [](float x, float y) { return x > y; });
  expect(62, [](float x, float y) { return x >= y; });
  const std::vector<float> p = {1, 0, 1, 0, 1, 0}, q = {1, 1, 0};
  ExpectOutputs(model(86), {p, q}, {{{2, 3}, {1, 0, 0, 0, 1, 0}}});
  ExpectOutputs(model(84), {p, q}, {{{2, 3}, {1, 1, 1, 1, 1, 0}}});
  ExpectOutputs(testing::OneOpTflite(87, {{"p", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}}, {0}, {1}), {p},
                {{{2, 3}, {0, 1, 0, 1, 0, 1}}});
}

TEST(TfliteBreadthOpsTest, SelectAndSelectV2) {
  const std::vector<float> x = Iota(6, 1), y = Iota(6, -1, -1);  // [2, 3]
  // SELECT_V2 (123): a [3] condition broadcast over rows.
  ExpectOutputs(testing::OneOpTflite(123,
                                     {{"c", {3}, {}, {}}, {"x", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}, {"o", {2, 3}, {}, {}}},
                                     {0, 1, 2}, {3}),
                {{1, 0, 1}, x, y}, {{{2, 3}, {1, -2, 3, 4, -5, 6}}});
  // SELECT (64): a [2] condition picks whole rows.
  ExpectOutputs(testing::OneOpTflite(64,
                                     {{"c", {2}, {}, {}}, {"x", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}, {"o", {2, 3}, {}, {}}},
                                     {0, 1, 2}, {3}),
                {{0, 1}, x, y}, {{{2, 3}, {-1, -2, -3, 4, 5, 6}}});
}

TEST(TfliteBreadthOpsTest, CastTileBroadcastTo) {
  const std::vector<float> x = {-1.7f, -0.2f, 0.0f, 0.9f, 2.5f, 3.0f};
  auto cast = [](OptionsFn to) {
    return testing::OneOpTflite(53, {{"x", {2, 3}, {}, {}}, {"y", {2, 3}, {}, {}}}, {0}, {1}, 46, to);
  };
  ExpectOutputs(cast(ByteOption<1, 2>), {x}, {{{2, 3}, {-1, 0, 0, 0, 2, 3}}});  // INT32: toward zero
  ExpectOutputs(cast(ByteOption<1, 6>), {x}, {{{2, 3}, {1, 1, 0, 1, 1, 1}}});   // BOOL
  ExpectOutputs(cast(ByteOption<1, 0>), {x}, {{{2, 3}, x}});                    // FLOAT32
  // TILE (69): [2, 3] by {2, 1}; BROADCAST_TO (130): [3, 1] to [2, 3, 4].
  ExpectOutputs(testing::OneOpTflite(69, {{"x", {2, 3}, {}, {}}, {"m", {2}, {}, {2, 1}}, {"y", {4, 3}, {}, {}}}, {0, 1},
                                     {2}),
                {x}, {{{4, 3}, {-1.7f, -0.2f, 0, 0.9f, 2.5f, 3, -1.7f, -0.2f, 0, 0.9f, 2.5f, 3}}});
  std::vector<float> bt;
  for (int i = 0; i < 2; ++i)
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 4; ++j) bt.push_back(static_cast<float>(r + 1));
  ExpectOutputs(testing::OneOpTflite(130, {{"x", {3, 1}, {}, {}}, {"s", {3}, {}, {2, 3, 4}}, {"y", {2, 3, 4}, {}, {}}},
                                     {0, 1}, {2}),
                {{1, 2, 3}}, {{{2, 3, 4}, bt}});
}

// ---- STRIDED_SLICE, SPACE_TO_DEPTH ------------------------------------------------------

template <int kBegin, int kEnd, int kEllipsis, int kNewAxis, int kShrink, int kOffset>
flatbuffers::uoffset_t StridedSliceOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(0), kBegin, -1);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(1), kEnd, -1);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(2), kEllipsis, -1);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(3), kNewAxis, -1);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(4), kShrink, -1);
  b->AddElement<uint8_t>(flatbuffers::FieldIndexToOffset(5), kOffset, 2);
  return b->EndTable(start);
}

std::vector<uint8_t> StridedSliceModel(const Shape& in, const std::vector<int32_t>& begin,
                                       const std::vector<int32_t>& end, const std::vector<int32_t>& strides,
                                       const Shape& out, OptionsFn options) {
  const int32_t n = static_cast<int32_t>(begin.size());
  return testing::OneOpTflite(
      45, {{"x", in, {}, {}}, {"b", {n}, {}, begin}, {"e", {n}, {}, end}, {"s", {n}, {}, strides}, {"y", out, {}, {}}},
      {0, 1, 2, 3}, {4}, 32, options);
}

TEST(TfliteBreadthOpsTest, StridedSliceEllipsisNewAxisShrinkOffset) {
  const Shape s = {2, 3, 4};
  const std::vector<float> x = Iota(24);
  auto at = [&](int i, int j, int k) { return x[(i * 3 + j) * 4 + k]; };
  // x[..., newaxis, 1:4:2]: spec (ellipsis, new axis, slice); the ellipsis
  // covers axes 0 and 1 -> [2, 3, 1, 2].
  {
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k : {1, 3}) want.push_back(at(i, j, k));
    ExpectOutputs(StridedSliceModel(s, {0, 0, 1}, {0, 0, 4}, {1, 1, 2}, {2, 3, 1, 2},
                                    StridedSliceOptions<0, 0, 1, 2, 0, 0>),
                  {x}, {{{2, 3, 1, 2}, want}});
  }
  // x[-1, ::-1, 2]: shrink axes 0 and 2, axis 1 reversed (masked) -> [3].
  ExpectOutputs(StridedSliceModel(s, {-1, 0, 2}, {0, 0, 0}, {1, -1, 1}, {3}, StridedSliceOptions<2, 2, 0, 0, 5, 0>),
                {x}, {{{3}, {at(1, 2, 2), at(1, 1, 2), at(1, 0, 2)}}});
  // x[1:, ...]: the axes past the spec whole; offset: end = begin + 1 on
  // axis 0 -> [1, 3, 4].
  ExpectOutputs(StridedSliceModel(s, {1}, {1}, {1}, {1, 3, 4}, StridedSliceOptions<0, 0, 0, 0, 0, 1>), {x},
                {{{1, 3, 4}, std::vector<float>(x.begin() + 12, x.end())}});
  // x[:, 2] on a 4-D NHWC tensor: shrink H -> [1, 3, 2].
  {
    const std::vector<float> y = Iota(1 * 4 * 3 * 2);
    std::vector<float> want;
    for (int w = 0; w < 3; ++w)
      for (int ch = 0; ch < 2; ++ch) want.push_back(y[(2 * 3 + w) * 2 + ch]);
    ExpectOutputs(StridedSliceModel({1, 4, 3, 2}, {0, 2}, {0, 3}, {1, 1}, {1, 3, 2}, StridedSliceOptions<1, 1, 0, 0, 2, 0>),
                  {y}, {{{1, 3, 2}, want}});
  }
}

TEST(TfliteBreadthOpsTest, SpaceToDepthAndBack) {
  // [1, 4, 6, 2], block 2 -> [1, 2, 3, 8]: out[n, y, x, (dy * 2 + dx) * 2 + c]
  // = in[n, 2y + dy, 2x + dx, c].
  const std::vector<float> x = Iota(48);
  std::vector<float> want;
  for (int y = 0; y < 2; ++y)
    for (int xx = 0; xx < 3; ++xx)
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx)
          for (int ch = 0; ch < 2; ++ch) want.push_back(x[((2 * y + dy) * 6 + (2 * xx + dx)) * 2 + ch]);
  ExpectOutputs(testing::OneOpTflite(26, {{"x", {1, 4, 6, 2}, {}, {}}, {"y", {1, 2, 3, 8}, {}, {}}}, {0}, {1}, 17,
                                     IntOptions<0, 2>),
                {x}, {{{1, 2, 3, 8}, want}});
  // DEPTH_TO_SPACE (5) undoes it.
  const auto round_trip = testing::TfliteModel(
      {{"x", {1, 4, 6, 2}, {}, {}}, {"d", {1, 2, 3, 8}, {}, {}}, {"y", {1, 4, 6, 2}, {}, {}}},
      {TfliteOp{26, "", {0}, {1}, 17, IntOptions<0, 2>}, TfliteOp{5, "", {1}, {2}, 67, IntOptions<0, 2>}}, {2});
  ExpectOutputs(round_trip, {x}, {{{1, 4, 6, 2}, x}});
}

TEST(TfliteBreadthOpsTest, TopKV2ReverseV2) {
  // TOPK_V2 (48): k = 2 along the last axis of [2, 4], ties in index order.
  const std::vector<float> x = {3, 7, 7, 1, -1, -5, 0, -1};
  ExpectOutputs(testing::OneOpTflite(48,
                                     {{"x", {2, 4}, {}, {}}, {"k", {}, {}, {2}}, {"v", {2, 2}, {}, {}},
                                      {"i", {2, 2}, {}, {}}},
                                     {0, 1}, {2, 3}),
                {x}, {{{2, 2}, {7, 7, 0, -1}}, {{2, 2}, {1, 2, 2, 0}}});
  // REVERSE_V2 (105) of [2, 3] along {0, -1}: both axes reversed.
  ExpectOutputs(testing::OneOpTflite(105, {{"x", {2, 3}, {}, {}}, {"axes", {2}, {}, {0, -1}}, {"y", {2, 3}, {}, {}}},
                                     {0, 1}, {2}),
                {Iota(6)}, {{{2, 3}, {5, 4, 3, 2, 1, 0}}});
}

TEST(TfliteBreadthOpsTest, AddNFloorDivRoundRelu0To1) {
  // ADD_N (106) of three [3]; the last a constant.
  ExpectOutputs(testing::OneOpTflite(106,
                                     {{"a", {3}, {}, {}}, {"b", {3}, {}, {}}, {"c", {3}, {10, 20, 30}, {}},
                                      {"y", {3}, {}, {}}},
                                     {0, 1, 2}, {3}),
                {{1, 2, 3}, {-1, 0.5f, 4}}, {{{3}, {10, 22.5f, 37}}});
  // FLOOR_DIV (90): toward minus infinity; b broadcast.
  ExpectOutputs(testing::OneOpTflite(90, {{"a", {4}, {}, {}}, {"b", {1}, {}, {}}, {"y", {4}, {}, {}}}, {0, 1}, {2}),
                {{-7, 7, -6, 5}, {2}}, {{{4}, {-4, 3, -3, 2}}});
  // ROUND (116): halves to even.
  const auto unary = [](int32_t code) {
    return testing::OneOpTflite(code, {{"x", {6}, {}, {}}, {"y", {6}, {}, {}}}, {0}, {1});
  };
  ExpectOutputs(unary(116), {{0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.6f}}, {{{6}, {0, 2, 2, -0.0f, -2, 3}}});
  // RELU_0_TO_1 (152).
  ExpectOutputs(unary(152), {{-1, 0, 0.25f, 1, 1.5f, 0.75f}}, {{{6}, {0, 0, 0.25f, 1, 1, 0.75f}}});
}

// ---- the exporter and ONNX Runtime ------------------------------------------------

// A model built tensor by tensor.
struct ModelBuilder {
  std::vector<TfliteTensor> tensors;
  std::vector<TfliteOp> ops;
  int32_t Tensor(const std::string& name, const Shape& shape, std::vector<float> data = {},
                 std::vector<int32_t> ints = {}) {
    tensors.push_back({name, std::vector<int32_t>(shape.begin(), shape.end()), std::move(data), std::move(ints)});
    return static_cast<int32_t>(tensors.size()) - 1;
  }
  int32_t Ints(const std::string& name, const std::vector<int32_t>& v) {
    return Tensor(name, {static_cast<int>(v.size())}, {}, v);
  }
  void Op(int32_t code, const std::vector<int32_t>& in, const std::vector<int32_t>& out, OptionsFn options = nullptr) {
    ops.push_back(TfliteOp{code, "", in, out, static_cast<uint8_t>(options ? 1 : 0), options});
  }
};

TEST(TfliteBreadthOrtTest, ExportedMultiOpModelOnOnnxRuntimeMatchesTheEngine) {
  RILL_REQUIRE(testing::FileExists(ort::DefaultLibraryPath()),
               ort::DefaultLibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)");
  ModelBuilder m;
  const int32_t x = m.Tensor("x", {2, 3, 4}), y = m.Tensor("y", {2, 3, 4}), z = m.Tensor("z", {1, 4, 4, 2});
  std::vector<int32_t> outs;
  auto out = [&](const std::string& name, const Shape& shape) {
    const int32_t id = m.Tensor(name, shape);
    outs.push_back(id);
    return id;
  };
  // SPLIT, SQUARED_DIFFERENCE, PACK, REDUCE_MAX, SUM, REDUCE_PROD.
  const int32_t a = m.Tensor("a", {2, 3, 2}), b = m.Tensor("b", {2, 3, 2});
  m.Op(49, {m.Ints("split_axis", {-1}), x}, {a, b}, IntOptions<0, 2>);
  const int32_t d = out("sq_diff", {2, 3, 2});
  m.Op(99, {a, b}, {d});
  const int32_t p = out("pack", {2, 2, 3, 2});
  m.Op(83, {a, d}, {p}, IntOptions<0, 2, 1, 0>);
  m.Op(82, {p, m.Ints("max_axes", {-1})}, {out("reduce_max", {2, 2, 3})}, ByteOption<0, 0>);
  m.Op(74, {p, m.Ints("sum_axes", {1, 3})}, {out("sum", {2, 1, 3, 1})}, ByteOption<0, 1>);
  m.Op(81, {x, m.Ints("prod_axes", {0})}, {out("prod", {3, 4})}, ByteOption<0, 0>);
  // SPLIT_V, UNPACK, ARG_MAX, ARG_MIN, GATHER.
  m.Op(102, {y, m.Ints("sizes", {1, -1}), m.Ints("splitv_axis", {1})},
       {out("splitv0", {2, 1, 4}), out("splitv1", {2, 2, 4})}, IntOptions<0, 2>);
  m.Op(88, {y}, {out("unpack0", {3, 4}), out("unpack1", {3, 4})}, IntOptions<0, 2, 1, 0>);
  m.Op(56, {x, m.Ints("argmax_axis", {1})}, {out("argmax", {2, 4})}, ByteOption<0, 4>);
  m.Op(79, {x, m.Ints("argmin_axis", {-1})}, {out("argmin", {2, 3})}, ByteOption<0, 2>);
  m.Op(36, {x, m.Ints("gather_idx", {2, -3})}, {out("gather", {2, 2, 4})}, IntOptions<0, 1>);
  // STRIDED_SLICE x[..., newaxis, ::-2] and x[1, :, 1:3].
  m.Op(45, {x, m.Ints("ss_b", {0, 0, 0}), m.Ints("ss_e", {0, 0, 0}), m.Ints("ss_s", {1, 1, -2})},
       {out("strided_new", {2, 3, 1, 2})}, StridedSliceOptions<4, 4, 1, 2, 0, 0>);
  m.Op(45, {x, m.Ints("ss2_b", {1, 0, 1}), m.Ints("ss2_e", {2, 3, 3}), m.Ints("ss2_s", {1, 1, 1})},
       {out("strided_shrink", {3, 2})}, StridedSliceOptions<0, 0, 0, 0, 1, 0>);
  // LOG_SOFTMAX, L2_NORMALIZATION, the unary math.
  m.Op(50, {x}, {out("log_softmax", {2, 3, 4})});
  m.Op(11, {x}, {out("l2_norm", {2, 3, 4})});
  const int32_t ax = m.Tensor("abs", {2, 3, 4}), shifted = m.Tensor("shifted", {2, 3, 4});
  m.Op(101, {x}, {ax});
  m.Op(0, {ax, m.Tensor("half", {1}, {0.5f})}, {shifted});
  m.Op(76, {shifted}, {out("rsqrt", {2, 3, 4})});
  m.Op(73, {shifted}, {out("log", {2, 3, 4})});
  m.Op(75, {shifted}, {out("sqrt", {2, 3, 4})});
  m.Op(78, {shifted, m.Tensor("exponent", {4}, {1.5f, 2, 0.5f, -1})}, {out("pow", {2, 3, 4})});
  m.Op(47, {x}, {out("exp", {2, 3, 4})});
  m.Op(59, {x}, {out("neg", {2, 3, 4})});
  m.Op(28, {x}, {out("tanh", {2, 3, 4})});
  m.Op(92, {x}, {out("square", {2, 3, 4})});
  m.Op(111, {x}, {out("elu", {2, 3, 4})});
  m.Op(66, {x}, {out("sin", {2, 3, 4})});
  m.Op(108, {x}, {out("cos", {2, 3, 4})});
  m.Op(8, {x}, {out("floor", {2, 3, 4})});
  m.Op(104, {x}, {out("ceil", {2, 3, 4})});
  m.Op(150, {x}, {out("gelu", {2, 3, 4})}, ByteOption<0, 0>);
  m.Op(150, {x}, {out("gelu_tanh", {2, 3, 4})}, ByteOption<0, 1>);
  m.Op(57, {x, y}, {out("minimum", {2, 3, 4})});
  m.Op(55, {x, m.Tensor("row", {4}, {-0.5f, 0, 0.25f, 0.5f})}, {out("maximum", {2, 3, 4})});
  // Comparisons, logic, SELECT_V2, CAST, TILE, BROADCAST_TO, SPACE_TO_DEPTH.
  const int32_t gt = out("greater", {2, 3, 4}), lt = out("less", {2, 3, 4});
  m.Op(61, {x, y}, {gt});
  m.Op(58, {x, m.Tensor("zero", {1}, {0.0f})}, {lt});
  m.Op(72, {x, y}, {out("not_equal", {2, 3, 4})});
  m.Op(63, {x, y}, {out("less_equal", {2, 3, 4})});
  m.Op(84, {gt, lt}, {out("logical_or", {2, 3, 4})});
  m.Op(86, {gt, lt}, {out("logical_and", {2, 3, 4})});
  m.Op(87, {gt}, {out("logical_not", {2, 3, 4})});
  m.Op(123, {gt, x, y}, {out("select", {2, 3, 4})});
  m.Op(53, {x}, {out("cast_int", {2, 3, 4})}, ByteOption<1, 2>);
  m.Op(53, {x}, {out("cast_bool", {2, 3, 4})}, ByteOption<1, 6>);
  m.Op(69, {x, m.Ints("multiples", {1, 2, 1})}, {out("tile", {2, 6, 4})});
  m.Op(130, {m.Tensor("col", {3, 1}, {1, 2, 3}), m.Ints("to_shape", {2, 3, 4})}, {out("broadcast_to", {2, 3, 4})});
  m.Op(26, {z}, {out("space_to_depth", {1, 2, 2, 8})}, IntOptions<0, 2>);
  // TOPK_V2, REVERSE_V2, ADD_N, FLOOR_DIV, ROUND, BATCH_MATMUL (adj_y).
  m.Op(48, {x, m.Tensor("top_k", {}, {}, {2})}, {out("topk_values", {2, 3, 2}), out("topk_indices", {2, 3, 2})});
  m.Op(105, {x, m.Ints("reverse_axes", {1, -1})}, {out("reverse", {2, 3, 4})});
  m.Op(106, {x, y, m.Tensor("addend", {2, 3, 4}, std::vector<float>(24, 0.125f))}, {out("add_n", {2, 3, 4})});
  m.Op(90, {x, y}, {out("floor_div", {2, 3, 4})});
  m.Op(116, {x}, {out("round", {2, 3, 4})});
  m.Op(126, {x, y}, {out("batch_matmul", {2, 3, 3})}, ByteOption<1, 1>);
  const std::vector<uint8_t> bytes = testing::TfliteModel(m.tensors, m.ops, outs);

  LoadOptions raw;
  raw.optimize = false;
  auto imported = Model::FromBuffer(bytes.data(), bytes.size(), "breadth.tflite", raw);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  auto onnx = onnx_export::ExportOnnx((*imported)->graph());
  ASSERT_TRUE(onnx.ok()) << onnx.status().ToString();
  const std::string onnx_path = ::testing::TempDir() + "/breadth.exported.onnx";
  {
    std::ofstream f(onnx_path, std::ios::binary | std::ios::trunc);
    f.write(onnx->data(), static_cast<std::streamsize>(onnx->size()));
    ASSERT_TRUE(static_cast<bool>(f)) << onnx_path;
  }
  auto runner = ort::OrtRunner::Create(onnx_path);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();

  // Inputs: x and y in [-2, 2) on a grid of quarters plus an offset (no
  // ties between them, no values on an integer), z any.
  std::vector<ort::OrtTensor> inputs = {{"x", {2, 3, 4}, {}}, {"y", {2, 3, 4}, {}}, {"z", {1, 4, 4, 2}, {}}};
  for (int i = 0; i < 24; ++i) {
    inputs[0].data.push_back(static_cast<float>((i * 7) % 16) * 0.25f - 1.9f);
    inputs[1].data.push_back(static_cast<float>((i * 5 + 3) % 16) * 0.25f - 2.05f);
  }
  for (int i = 0; i < 32; ++i) inputs[2].data.push_back(static_cast<float>(i) * 0.1f);
  std::vector<ort::OrtTensor> expected;
  const Status run = (*runner)->Run(inputs, &expected);
  ASSERT_TRUE(run.ok()) << run.ToString();
  ASSERT_EQ(expected.size(), outs.size());

  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "breadth.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& s = **session;
    ASSERT_EQ(s.num_inputs(), 3);
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(s.input(i)->name(), inputs[i].name);
      std::memcpy(s.input(i)->data(), inputs[i].data.data(), inputs[i].data.size() * 4);
    }
    ASSERT_TRUE(s.Run().ok());
    std::map<std::string, const Tensor*> got;
    for (int o = 0; o < s.num_outputs(); ++o) got[s.output(o)->name()] = s.output(o);
    for (const ort::OrtTensor& want : expected) {
      ASSERT_EQ(got.count(want.name), 1u) << "the engine has no output " << want.name;
      const Tensor* t = got[want.name];
      EXPECT_EQ(std::vector<int64_t>(t->shape().begin(), t->shape().end()), want.shape) << want.name;
      ASSERT_EQ(static_cast<size_t>(t->num_elements()), want.data.size()) << want.name;
      const ort::OutputDiff diff = ort::DiffOutputs(t->data_as<float>(), want.data.data(), want.data.size());
      EXPECT_TRUE(diff.Within(ort::kCompareTolerance))
          << want.name << ": max abs error " << diff.max_abs << " over a range of " << diff.scale;
    }
  }
  std::remove(onnx_path.c_str());
}

}  // namespace
}  // namespace rill::inference
