#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NormalizedLandmarkList WithVisibility(float v) {
  NormalizedLandmarkList list;
  NormalizedLandmark* l = list.add_landmark();
  l->set_x(0.25f);
  l->set_visibility(v);
  return list;
}

std::string Graph(const std::string& options) {
  return R"pb(
    input_stream: "lm"
    node {
      calculator: "VisibilitySmoothingCalculator"
      input_stream: "NORM_LANDMARKS:lm"
      output_stream: "NORM_FILTERED_LANDMARKS:out"
      options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

std::vector<float> Visibilities(const std::vector<Packet>& packets) {
  std::vector<float> v;
  for (const Packet& p : packets) {
    v.push_back(p.Get<NormalizedLandmarkList>().landmark(0).visibility());
  }
  return v;
}

StreamPackets Inputs() {
  // No landmarks at 3: with a single input the node is not called there,
  // so (as in MediaPipe) the filter carries on across the gap.
  return {{"lm",
           {MakePacket<NormalizedLandmarkList>(WithVisibility(1)).At(Timestamp(1)),
            MakePacket<NormalizedLandmarkList>(WithVisibility(0)).At(Timestamp(2)),
            MakePacket<NormalizedLandmarkList>(WithVisibility(0)).At(Timestamp(4)),
            MakePacket<NormalizedLandmarkList>(WithVisibility(1))
                .At(Timestamp(5))}}};
}

TEST(VisibilitySmoothingCalculatorTest, LowPass) {
  auto out = RunGraph(Graph("low_pass_filter { alpha: 0.5 }"), {"out"}, Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  // 1; 0.5 * 0 + 0.5 * 1; 0.5 * 0.5; 0.5 * 1 + 0.5 * 0.25.
  EXPECT_THAT(Visibilities((*out)["out"]), ElementsAre(1.f, 0.5f, 0.25f, 0.625f));
  // The rest of the landmark passes unchanged.
  EXPECT_FLOAT_EQ((*out)["out"][3].Get<NormalizedLandmarkList>().landmark(0).x(),
                  0.25f);
}

TEST(VisibilitySmoothingCalculatorTest, NoFilter) {
  auto out = RunGraph(Graph("no_filter {}"), {"out"}, Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Visibilities((*out)["out"]), ElementsAre(1.f, 0.f, 0.f, 1.f));
}

TEST(VisibilitySmoothingCalculatorTest, PixelLandmarksAndAFilterAreRequired) {
  LandmarkList list;
  list.add_landmark()->set_visibility(0.5f);
  list.add_landmark()->set_visibility(1.f);
  auto out = RunGraph(R"pb(
                        input_stream: "lm"
                        node {
                          calculator: "VisibilitySmoothingCalculator"
                          input_stream: "LANDMARKS:lm"
                          output_stream: "FILTERED_LANDMARKS:out"
                          options {
                            [mediapipe.VisibilitySmoothingCalculatorOptions.ext] {
                              low_pass_filter {}
                            }
                          }
                        })pb",
                      {"out"},
                      {{"lm", {MakePacket<LandmarkList>(list).At(Timestamp(1)),
                               MakePacket<LandmarkList>(LandmarkList())
                                   .At(Timestamp(2))}}});
  ASSERT_FALSE(out.ok());  // a list of another size
  EXPECT_THAT(out.status().message(), HasSubstr("has 0 landmarks"));
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "VisibilitySmoothingCalculator"
                input_stream: "LANDMARKS:lm"
                output_stream: "FILTERED_LANDMARKS:out")pb")
                  .message(),
              HasSubstr("needs a filter"));
}

}  // namespace
}  // namespace rill
