#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

// Landmarks (x, y, z) = (base + i, -(base + i), z[i]).
NormalizedLandmarkList List(float base, std::vector<float> z) {
  NormalizedLandmarkList list;
  for (size_t i = 0; i < z.size(); ++i) {
    NormalizedLandmark* l = list.add_landmark();
    l->set_x(base + i);
    l->set_y(-(base + i));
    l->set_z(z[i]);
  }
  return list;
}

constexpr char kGraph[] = R"pb(
  input_stream: "mesh"
  input_stream: "lips"
  input_stream: "iris"
  node {
    calculator: "LandmarksRefinementCalculator"
    input_stream: "LANDMARKS:0:mesh"
    input_stream: "LANDMARKS:1:lips"
    input_stream: "LANDMARKS:2:iris"
    output_stream: "REFINED_LANDMARKS:out"
    options { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
      refinement { indexes_mapping: [0, 1, 2, 3] z_refinement { copy {} } }
      refinement { indexes_mapping: [3, 1] z_refinement { none {} } }
      refinement {
        indexes_mapping: [4]
        z_refinement { assign_average { indexes_for_average: [0, 2] } }
      }
    } }
  })pb";

TEST(LandmarksRefinementCalculatorTest, MapsIndexesAndRefinesZ) {
  auto out = RunGraph(
      kGraph, {"out"},
      {{"mesh", {MakePacket<NormalizedLandmarkList>(List(0, {1, 2, 3, 4}))
                     .At(Timestamp(1))}},
       {"lips", {MakePacket<NormalizedLandmarkList>(List(10, {50, 60}))
                     .At(Timestamp(1))}},
       {"iris", {MakePacket<NormalizedLandmarkList>(List(20, {70}))
                     .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  const auto& r = (*out)["out"][0].Get<NormalizedLandmarkList>();
  ASSERT_EQ(r.landmark_size(), 5);
  // 0 and 2: the mesh's, z copied.
  EXPECT_FLOAT_EQ(r.landmark(0).x(), 0);
  EXPECT_FLOAT_EQ(r.landmark(0).z(), 1);
  EXPECT_FLOAT_EQ(r.landmark(2).x(), 2);
  EXPECT_FLOAT_EQ(r.landmark(2).z(), 3);
  // 3 and 1: x, y from lips landmarks 0 and 1; z kept from the mesh.
  EXPECT_FLOAT_EQ(r.landmark(3).x(), 10);
  EXPECT_FLOAT_EQ(r.landmark(3).y(), -10);
  EXPECT_FLOAT_EQ(r.landmark(3).z(), 4);
  EXPECT_FLOAT_EQ(r.landmark(1).x(), 11);
  EXPECT_FLOAT_EQ(r.landmark(1).z(), 2);
  // 4: x, y from the iris; z the mean of refined 0 and 2: (1 + 3) / 2.
  EXPECT_FLOAT_EQ(r.landmark(4).x(), 20);
  EXPECT_FLOAT_EQ(r.landmark(4).z(), 2);
  EXPECT_FALSE(r.landmark(4).has_visibility());
}

TEST(LandmarksRefinementCalculatorTest, MissingInputEmitsNothing) {
  auto out = RunGraph(
      kGraph, {"out"},
      {{"mesh", {MakePacket<NormalizedLandmarkList>(List(0, {1, 2, 3, 4}))
                     .At(Timestamp(1))}},
       {"lips", {MakePacket<NormalizedLandmarkList>(List(10, {50, 60}))
                     .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)["out"].empty());
}

TEST(LandmarksRefinementCalculatorTest, WrongListSizeIsAnError) {
  auto out = RunGraph(
      kGraph, {"out"},
      {{"mesh", {MakePacket<NormalizedLandmarkList>(List(0, {1, 2, 3}))
                     .At(Timestamp(1))}},
       {"lips", {MakePacket<NormalizedLandmarkList>(List(10, {50, 60}))
                     .At(Timestamp(1))}},
       {"iris", {MakePacket<NormalizedLandmarkList>(List(20, {70}))
                     .At(Timestamp(1))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("LANDMARKS:0"));
}

TEST(LandmarksRefinementCalculatorTest, MappingsMustCoverWithoutGaps) {
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "LandmarksRefinementCalculator"
                input_stream: "LANDMARKS:0:a"
                output_stream: "REFINED_LANDMARKS:out"
                options { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
                  refinement { indexes_mapping: [0, 2] z_refinement { none {} } }
                } })pb")
                  .message(),
              HasSubstr("without gaps"));
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "LandmarksRefinementCalculator"
                input_stream: "LANDMARKS:0:a"
                input_stream: "LANDMARKS:1:b"
                output_stream: "REFINED_LANDMARKS:out"
                options { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
                  refinement { indexes_mapping: [0] z_refinement { none {} } }
                } })pb")
                  .message(),
              HasSubstr("2 LANDMARKS inputs but 1 refinements"));
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "LandmarksRefinementCalculator"
                input_stream: "LANDMARKS:0:a"
                output_stream: "REFINED_LANDMARKS:out"
                options { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
                  refinement { indexes_mapping: [0] }
                } })pb")
                  .message(),
              HasSubstr("no z_refinement"));
}

}  // namespace
}  // namespace rill
