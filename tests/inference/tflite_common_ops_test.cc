// TFLite builtins beyond the MediaPipe models that map onto one engine op
// (converters/common_ops.cc), on models written here (tflite_test_models.h),
// against values worked out by hand, with the optimized and reference
// kernels at 1 and 2 threads: SUB and DIV (broadcast, fused activation),
// TRANSPOSE, SQUEEZE, EXPAND_DIMS, SLICE, PADV2, LEAKY_RELU, RELU_N1_TO_1
// and the builtin TRANSPOSE_CONV (an output_shape the padding does not give
// is refused, naming the op and the model).
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

using testing::TfliteTensor;

using OptionsFn = flatbuffers::uoffset_t (*)(flatbuffers::FlatBufferBuilder*);

// Runs a one-op model on `x` (its first tensor) and returns its output.
void ExpectOutput(const std::vector<uint8_t>& bytes, const std::vector<float>& x, const std::vector<int>& want_shape,
                  const std::vector<float>& want) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "op.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::memcpy((*s)->input(0)->data(), x.data(), x.size() * 4);
    ASSERT_TRUE((*s)->Run().ok());
    const Tensor* y = (*s)->output(0);
    EXPECT_EQ(std::vector<int>(y->shape().begin(), y->shape().end()), want_shape);
    const float* v = y->data_as<float>();
    ASSERT_EQ(static_cast<size_t>(y->num_elements()), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(v[i], want[i]) << "element " << i;
  }
}

template <int kActivation>
flatbuffers::uoffset_t ActivationOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(0), kActivation, 0);
  return b->EndTable(start);
}

TEST(TfliteCommonOpsTest, SubAndDivBroadcastWithActivation) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  // SUB (41, SubOptions 28) of [10 1 2] along rows, RELU (1) fused.
  ExpectOutput(testing::OneOpTflite(41, {{"x", {2, 3}, {}, {}}, {"b", {3}, {10, 1, 2}, {}}, {"y", {2, 3}, {}, {}}},
                                    {0, 1}, {2}, 28, ActivationOptions<1>),
               x, {2, 3}, {0, 1, 1, 0, 4, 4});
  // DIV (42, DivOptions 29) by [2 4 8], no activation.
  ExpectOutput(testing::OneOpTflite(42, {{"x", {2, 3}, {}, {}}, {"b", {3}, {2, 4, 8}, {}}, {"y", {2, 3}, {}, {}}},
                                    {0, 1}, {2}, 29, ActivationOptions<0>),
               x, {2, 3}, {0.5f, 0.5f, 0.375f, 2, 1.25f, 0.75f});
}

TEST(TfliteCommonOpsTest, TransposeSqueezeExpandDimsSlice) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  ExpectOutput(testing::OneOpTflite(39, {{"x", {2, 3}, {}, {}}, {"perm", {2}, {}, {1, 0}}, {"y", {3, 2}, {}, {}}},
                                    {0, 1}, {2}),
               x, {3, 2}, {1, 4, 2, 5, 3, 6});
  ExpectOutput(testing::OneOpTflite(43, {{"x", {1, 6, 1}, {}, {}}, {"y", {6}, {}, {}}}, {0}, {1}), x, {6}, x);
  ExpectOutput(testing::OneOpTflite(70, {{"x", {2, 3}, {}, {}}, {"axis", {1}, {}, {-1}}, {"y", {2, 3, 1}, {}, {}}},
                                    {0, 1}, {2}),
               x, {2, 3, 1}, x);
  // SLICE rows 1.., columns 1..: size -1 takes the rest of the axis.
  ExpectOutput(testing::OneOpTflite(65,
                                    {{"x", {2, 3}, {}, {}}, {"begin", {2}, {}, {1, 1}}, {"size", {2}, {}, {-1, 2}},
                                     {"y", {1, 2}, {}, {}}},
                                    {0, 1, 2}, {3}),
               x, {1, 2}, {5, 6});
}

flatbuffers::uoffset_t LeakyReluOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(0), 0.25f, 0.0f);
  return b->EndTable(start);
}

TEST(TfliteCommonOpsTest, PadV2LeakyReluReluN1To1) {
  // PADV2: one 7 on each side of the last axis.
  ExpectOutput(testing::OneOpTflite(60,
                                    {{"x", {1, 2}, {}, {}}, {"paddings", {2, 2}, {}, {0, 0, 1, 1}},
                                     {"value", {}, {7}, {}}, {"y", {1, 4}, {}, {}}},
                                    {0, 1, 2}, {3}),
               {1, 2}, {1, 4}, {7, 1, 2, 7});
  ExpectOutput(testing::OneOpTflite(98, {{"x", {4}, {}, {}}, {"y", {4}, {}, {}}}, {0}, {1}, 75, LeakyReluOptions),
               {-4, -1, 0, 3}, {4}, {-1, -0.25f, 0, 3});
  ExpectOutput(testing::OneOpTflite(20, {{"x", {4}, {}, {}}, {"y", {4}, {}, {}}}, {0}, {1}), {-4, -0.5f, 0.5f, 3},
               {4}, {-1, -0.5f, 0.5f, 1});
}

template <int kPadding>
flatbuffers::uoffset_t TransposeConvOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(0), kPadding, 0);  // 0 SAME, 1 VALID
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(1), 2, 0);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(2), 2, 0);
  return b->EndTable(start);
}

std::vector<uint8_t> TransposeConvModel(const std::vector<int32_t>& out_shape, OptionsFn options) {
  // Input [1,2,2,1] = 1 2 / 3 4; a 2x2 filter of ones, stride 2, bias 0.5:
  // every input pixel fills its own 2x2 block.
  return testing::OneOpTflite(67,
                              {{"output_shape", {4}, {}, out_shape},
                               {"w", {1, 2, 2, 1}, {1, 1, 1, 1}, {}},
                               {"x", {1, 2, 2, 1}, {}, {}},
                               {"b", {1}, {0.5f}, {}},
                               {"y", {1, 4, 4, 1}, {}, {}}},
                              {0, 1, 2, 3}, {4}, 49, options);
}

TEST(TfliteCommonOpsTest, TransposeConv) {
  ExpectOutput(TransposeConvModel({1, 4, 4, 1}, TransposeConvOptions<1>), {1, 2, 3, 4}, {1, 4, 4, 1},
               {1.5f, 1.5f, 2.5f, 2.5f,  //
                1.5f, 1.5f, 2.5f, 2.5f,  //
                3.5f, 3.5f, 4.5f, 4.5f,  //
                3.5f, 3.5f, 4.5f, 4.5f});
  const std::vector<uint8_t> bytes = TransposeConvModel({1, 5, 5, 1}, TransposeConvOptions<1>);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "deconv.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("TRANSPOSE_CONV"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("deconv.tflite"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("output_shape"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace rill::inference
