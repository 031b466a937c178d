// Single TFLite ops through the importer, on models written here
// (tflite_test_models.h): SOFTMAX over the last axis against its definition
// (reference and optimized kernels, 1 and 2 threads), a beta other than 1 an
// error naming the op and the model. PRELU with a per-channel slope;
// STRIDED_SLICE (masks, negative begin, negative strides) against index
// lists worked out by hand, its unsupported masks named.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

constexpr int32_t kSoftmaxCode = 25;
constexpr uint8_t kSoftmaxOptionsType = 9;  // BuiltinOptions.SoftmaxOptions

template <int kBetaTimes10>
flatbuffers::uoffset_t SoftmaxOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(0), kBetaTimes10 / 10.0f, 0.0f);
  return b->EndTable(start);
}

std::vector<uint8_t> SoftmaxModel(const std::vector<int32_t>& shape,
                                  flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*)) {
  return testing::OneOpTflite(kSoftmaxCode, {{"logits", shape, {}}, {"probabilities", shape, {}}}, {0}, {1},
                              kSoftmaxOptionsType, options);
}

TEST(TfliteOpsTest, SoftmaxOverTheLastAxis) {
  for (const std::vector<int32_t>& shape : {std::vector<int32_t>{1, 1001}, {3, 7}, {1, 4, 5, 17}}) {
    const std::vector<uint8_t> bytes = SoftmaxModel(shape, SoftmaxOptions<10>);
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "softmax.tflite");
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
      auto s = Session::Create(*model, config);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      std::mt19937 rng(3);
      Tensor* in = (*s)->input(0);
      const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in->num_elements()), &rng, -8, 8);
      std::memcpy(in->data(), x.data(), x.size() * 4);
      ASSERT_TRUE((*s)->Run().ok());
      const float* y = (*s)->output(0)->data_as<float>();
      const int n = shape.back();
      for (size_t row = 0; row < x.size() / n; ++row) {
        double max = -1e30, sum = 0;
        for (int i = 0; i < n; ++i) max = std::max(max, static_cast<double>(x[row * n + i]));
        for (int i = 0; i < n; ++i) sum += std::exp(x[row * n + i] - max);
        for (int i = 0; i < n; ++i) {
          const double want = std::exp(x[row * n + i] - max) / sum;
          ASSERT_NEAR(y[row * n + i], want, 1e-6 * (1 + want)) << "row " << row << " column " << i;
        }
      }
    }
  }
}

TEST(TfliteOpsTest, SoftmaxBetaOtherThanOneIsAnError) {
  const std::vector<uint8_t> bytes = SoftmaxModel({1, 10}, SoftmaxOptions<20>);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "beta.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("SOFTMAX"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("beta.tflite"), std::string::npos) << model.status().message();
  // Absent options read as the schema's beta 0: also refused, not a uniform output.
  const std::vector<uint8_t> none = SoftmaxModel({1, 10}, nullptr);
  EXPECT_FALSE(Model::FromBuffer(none.data(), none.size(), "none.tflite").ok());
}

TEST(TfliteOpsTest, PReluPerChannelSlope) {
  const std::vector<uint8_t> bytes = testing::OneOpTflite(
      54, {{"x", {1, 2, 2, 3}, {}}, {"alpha", {1, 1, 3}, {0.5f, -1.0f, 0.0f}}, {"y", {1, 2, 2, 3}, {}}}, {0, 1}, {2});
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "prelu.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const std::vector<float> x = {-2, -2, -2, 3, 3, 3, -4, 1, -6, 0, -8, 2};
    std::memcpy((*s)->input(0)->data(), x.data(), x.size() * 4);
    ASSERT_TRUE((*s)->Run().ok());
    const float* y = (*s)->output(0)->data_as<float>();
    const std::vector<float> want = {-1, 2, 0, 3, 3, 3, -2, 1, 0, 0, 8, 2};
    for (int i = 0; i < 12; ++i) EXPECT_EQ(y[i], want[i]) << i;
  }
}

constexpr uint8_t kStridedSliceOptionsType = 32;  // BuiltinOptions.StridedSliceOptions

template <int kBeginMask, int kEndMask, int kShrinkMask>
flatbuffers::uoffset_t StridedSliceOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(0), kBeginMask, 0);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(1), kEndMask, 0);
  b->AddElement<int32_t>(flatbuffers::FieldIndexToOffset(4), kShrinkMask, 0);
  return b->EndTable(start);
}

std::vector<uint8_t> StridedSliceModel(const std::vector<int32_t>& out_shape,
                                       flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*)) {
  std::vector<testing::TfliteTensor> tensors = {{"x", {2, 5, 6, 3}, {}},
                                               {"begin", {4}, {}, {7, 1, -1, 0}},
                                               {"end", {4}, {}, {-9, 5, 0, 1}},
                                               {"strides", {4}, {}, {1, 2, -2, 1}},
                                               {"y", out_shape, {}}};
  return testing::OneOpTflite(45, tensors, {0, 1, 2, 3}, {4}, kStridedSliceOptionsType, options);
}

TEST(TfliteOpsTest, StridedSliceWithMasksAndNegativeStrides) {
  // begin_mask bit 0 and end_mask bits 0 and 3: axis 0 whole ([0, 1]);
  // axis 1 from 1 to 5 by 2 ([1, 3]); axis 2 from -1 (5) down to 0 by -2
  // ([5, 3, 1]); axis 3 whole ([0, 1, 2]).
  const std::vector<uint8_t> bytes = StridedSliceModel({2, 2, 3, 3}, StridedSliceOptions<1, 9, 0>);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "strided_slice.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    Tensor* in = (*s)->input(0);
    for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = static_cast<float>(i);
    ASSERT_TRUE((*s)->Run().ok());
    const Tensor* out = (*s)->output(0);
    ASSERT_EQ(out->shape(), Shape({2, 2, 3, 3}));
    const float* y = out->data_as<float>();
    int k = 0;
    for (int a : {0, 1}) {
      for (int b : {1, 3}) {
        for (int c : {5, 3, 1}) {
          for (int d : {0, 1, 2}) EXPECT_EQ(y[k++], static_cast<float>(((a * 5 + b) * 6 + c) * 3 + d));
        }
      }
    }
  }
  // shrink_axis_mask bit 3: axis 3 takes begin (0) and is dropped.
  const std::vector<uint8_t> shrink = StridedSliceModel({2, 2, 3}, StridedSliceOptions<1, 9, 8>);
  auto shrunk = Model::FromBuffer(shrink.data(), shrink.size(), "shrink.tflite");
  ASSERT_TRUE(shrunk.ok()) << shrunk.status().ToString();
  auto s = Session::Create(*shrunk, SessionConfig());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Tensor* in = (*s)->input(0);
  for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = static_cast<float>(i);
  ASSERT_TRUE((*s)->Run().ok());
  const Tensor* out = (*s)->output(0);
  ASSERT_EQ(out->shape(), Shape({2, 2, 3}));
  int k = 0;
  for (int a : {0, 1}) {
    for (int b : {1, 3}) {
      for (int c : {5, 3, 1}) EXPECT_EQ(out->data_as<float>()[k++], static_cast<float>(((a * 5 + b) * 6 + c) * 3));
    }
  }
}

}  // namespace
}  // namespace rill::inference
