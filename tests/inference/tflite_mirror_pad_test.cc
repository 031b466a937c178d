// TFLite's MIRROR_PAD (REFLECT and SYMMETRIC) on models written here
// (tflite_test_models.h), against values worked out by hand, with the
// optimized and reference kernels at 1 and 2 threads; a padding the mode
// cannot mirror is an error naming the op and the model.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

constexpr int32_t kMirrorPadCode = 100;
constexpr uint8_t kMirrorPadOptionsType = 77;  // BuiltinOptions.MirrorPadOptions

template <int kMode>
flatbuffers::uoffset_t MirrorPadOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<int8_t>(flatbuffers::FieldIndexToOffset(0), kMode, 0);
  return b->EndTable(start);
}

std::vector<uint8_t> MirrorPadModel(const std::vector<int32_t>& shape, const std::vector<int32_t>& out_shape,
                                    const std::vector<int32_t>& paddings,
                                    flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*)) {
  const int rank = static_cast<int>(shape.size());
  return testing::OneOpTflite(kMirrorPadCode,
                              {{"x", shape, {}, {}}, {"paddings", {rank, 2}, {}, paddings}, {"y", out_shape, {}, {}}},
                              {0, 1}, {2}, kMirrorPadOptionsType, options);
}

void ExpectPadded(const std::vector<uint8_t>& bytes, const std::vector<float>& x, const std::vector<float>& want) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "mirror_pad.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::memcpy((*s)->input(0)->data(), x.data(), x.size() * 4);
    ASSERT_TRUE((*s)->Run().ok());
    const float* y = (*s)->output(0)->data_as<float>();
    EXPECT_EQ(std::vector<float>(y, y + want.size()), want);
  }
}

TEST(TfliteMirrorPadTest, ReflectAndSymmetricInOneAxis) {
  // 1 2 3 padded by 2 on both sides.
  ExpectPadded(MirrorPadModel({1, 3}, {1, 7}, {0, 0, 2, 2}, MirrorPadOptions<0>), {1, 2, 3}, {3, 2, 1, 2, 3, 2, 1});
  ExpectPadded(MirrorPadModel({1, 3}, {1, 7}, {0, 0, 2, 2}, MirrorPadOptions<1>), {1, 2, 3}, {2, 1, 1, 2, 3, 3, 2});
}

TEST(TfliteMirrorPadTest, ReflectInTwoAxes) {
  // [[1 2 3] [4 5 6]], one row above and below, one column before.
  ExpectPadded(MirrorPadModel({2, 3}, {4, 4}, {1, 1, 1, 0}, MirrorPadOptions<0>), {1, 2, 3, 4, 5, 6},
               {5, 4, 5, 6,  //
                2, 1, 2, 3,  //
                5, 4, 5, 6,  //
                2, 1, 2, 3});
}

TEST(TfliteMirrorPadTest, ReflectingMoreThanTheAxisIsAnError) {
  const std::vector<uint8_t> bytes = MirrorPadModel({1, 3}, {1, 9}, {0, 0, 3, 3}, MirrorPadOptions<0>);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "too_far.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("MIRROR_PAD"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("too_far.tflite"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace rill::inference
