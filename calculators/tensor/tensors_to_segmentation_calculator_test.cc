#include <cmath>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/tensor.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

absl::StatusOr<const ImageFrame*> Mask(const std::string& options, Tensor t,
                                       StreamPackets* keep,
                                       std::pair<int, int> size = {0, 0}) {
  StreamPackets in;
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  in["t"] = {MakePacket<std::vector<Tensor>>(std::move(v)).At(Timestamp(0))};
  in["size"] = {};
  if (size.first > 0)
    in["size"].push_back(
        MakePacket<std::pair<int, int>>(size).At(Timestamp(0)));
  auto out =
      RunGraph(R"pb(
                     input_stream: "t"
                     input_stream: "size"
                     output_stream: "mask"
                     node { calculator: "TensorsToSegmentationCalculator"
                            input_stream: "TENSORS:t"
                            input_stream: "OUTPUT_SIZE:size"
                            output_stream: "MASK:mask"
                            options {
                              [mediapipe.TensorsToSegmentationCalculatorOptions
                                   .ext] {)pb" +
                   options + "}}}",
               {"mask"}, in);
  if (!out.ok()) return out.status();
  *keep = *out;
  return (*keep)["mask"].at(0).Get<Image>().GetImageFrameSharedPtr().get();
}

float Px(const ImageFrame& f, int x, int y) {
  return reinterpret_cast<const float*>(f.Row(y))[x];
}

TEST(TensorsToSegmentationCalculatorTest, SigmoidOneChannel) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2, 2, 1});
  float* d = t.mutable_data<float>();
  d[0] = 0, d[1] = 100, d[2] = -100, d[3] = 1;
  StreamPackets keep;
  auto m = Mask("activation: SIGMOID", std::move(t), &keep);
  ASSERT_TRUE(m.ok()) << m.status();
  const ImageFrame& f = **m;
  EXPECT_EQ(f.Format(), ImageFormat::VEC32F1);
  EXPECT_EQ(f.Width(), 2);
  EXPECT_NEAR(Px(f, 0, 0), 0.5f, 1e-6);
  EXPECT_NEAR(Px(f, 1, 0), 1.0f, 1e-6);
  EXPECT_NEAR(Px(f, 0, 1), 0.0f, 1e-6);
  EXPECT_NEAR(Px(f, 1, 1), 1 / (1 + std::exp(-1.0f)), 1e-6);
}

TEST(TensorsToSegmentationCalculatorTest, SoftmaxPicksTheLayer) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 1, 1, 2});
  t.mutable_data<float>()[0] = 0;
  t.mutable_data<float>()[1] = std::log(3.0f);
  StreamPackets keep;
  auto m =
      Mask("activation: SOFTMAX output_layer_index: 1", std::move(t), &keep);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_NEAR(Px(**m, 0, 0), 0.75f, 1e-6);
}

TEST(TensorsToSegmentationCalculatorTest, ResizedToOutputSize) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2, 2, 1});
  for (int i = 0; i < 4; ++i) t.mutable_data<float>()[i] = 0.25f;
  StreamPackets keep;
  auto m = Mask("activation: NONE", std::move(t), &keep, {8, 6});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->Width(), 8);
  EXPECT_EQ((*m)->Height(), 6);
  EXPECT_NEAR(Px(**m, 7, 5), 0.25f, 1e-6);
}

TEST(TensorsToSegmentationCalculatorTest, SoftmaxNeedsTwoChannels) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2, 2, 1});
  StreamPackets keep;
  auto m = Mask("activation: SOFTMAX", std::move(t), &keep);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("2 channels"), absl::string_view::npos);
}

}  // namespace
}  // namespace rill
