// End to end: selfie segmentation (graphs/selfie_segmentation) on the
// astronaut portrait, through the desktop graph (FlowLimiter, the
// SelfieSegmentationCpu subgraph, RecolorCalculator).
#include <cstdio>
#include <fstream>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "gtest/gtest.h"
#include "tests/solutions/solution_test_util.h"

namespace rill {
namespace {

using solutions::FileExists;
using solutions::LoadRgb;
using solutions::MediaPath;
using solutions::ModelPath;

// Mean mask value over a square patch centred at (x, y), relative coords.
float PatchMean(const cv::Mat& mask, float x, float y, float half = 0.03f) {
  const int cx = static_cast<int>(x * mask.cols),
            cy = static_cast<int>(y * mask.rows);
  const int r = static_cast<int>(half * mask.cols);
  cv::Rect roi(cx - r, cy - r, 2 * r + 1, 2 * r + 1);
  roi &= cv::Rect(0, 0, mask.cols, mask.rows);
  return static_cast<float>(cv::mean(mask(roi))[0]);
}

struct Region {
  const char* what;
  float x, y;
};

class SelfieSegmentationTest : public ::testing::TestWithParam<const char*> {};

// Regions read off the overlay (selfie_segmentation_astronaut_*.png, the
// background tinted blue) and checked by eye: the person's face, hair, neck
// ring and suit are person; the flag, the wall, and the shuttle model are
// background.
TEST_P(SelfieSegmentationTest, SeparatesTheAstronautFromTheBackground) {
  const std::string graph = GetParam();
  const std::string image_path = MediaPath("astronaut.png");
  RILL_REQUIRE(FileExists(image_path) && FileExists(ModelPath("selfie_segmentation.tflite")),
               "models or media missing: run scripts/fetch_models.sh");
  solutions::UseGraphs({"selfie_segmentation"});
  ImageFrame frame = LoadRgb(image_path);
  ASSERT_FALSE(frame.IsEmpty());
  std::string config;
  {
    std::ifstream f(
        "graphs/selfie_segmentation/selfie_segmentation_desktop.pbtxt");
    config.assign(std::istreambuf_iterator<char>(f),
                  std::istreambuf_iterator<char>());
  }
  ASSERT_FALSE(config.empty());
  if (graph != "SelfieSegmentationCpu") {
    config.replace(config.find("calculator: \"SelfieSegmentationCpu\""),
                   std::string("calculator: \"SelfieSegmentationCpu\"").size(),
                   "calculator: \"" + graph + "\"");
  }
  auto out =
      RunGraph(config, {"output_video", "segmentation_mask"},
               {{"input_video",
                 {Adopt(new ImageFrame(std::move(frame))).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["segmentation_mask"].size(), 1u);
  ASSERT_EQ((*out)["output_video"].size(), 1u);
  const ImageFrame& mask_frame =
      (*out)["segmentation_mask"][0].Get<ImageFrame>();
  ASSERT_EQ(mask_frame.Format(), ImageFormat::VEC32F1);
  ASSERT_EQ(mask_frame.Width(), 512);
  ASSERT_EQ(mask_frame.Height(), 512);
  const cv::Mat mask = formats::MatView(&mask_frame);

  // Save the overlay and the mask to look at.
  cv::Mat overlay_rgb =
              formats::MatView(&(*out)["output_video"][0].Get<ImageFrame>()),
          overlay;
  cv::cvtColor(overlay_rgb, overlay, cv::COLOR_RGB2BGR);
  cv::imwrite(solutions::OutputDir() + "/selfie_segmentation_astronaut_" +
                  graph + ".png",
              overlay);
  cv::Mat mask8;
  mask.convertTo(mask8, CV_8U, 255.0);
  cv::imwrite(
      solutions::OutputDir() + "/selfie_segmentation_mask_" + graph + ".png",
      mask8);

  const std::vector<Region> person = {{"face", 0.44f, 0.25f},
                                      {"hair", 0.44f, 0.09f},
                                      {"neck ring", 0.25f, 0.42f},
                                      {"suit chest", 0.40f, 0.65f},
                                      {"suit arm", 0.12f, 0.80f}};
  const std::vector<Region> background = {{"flag", 0.05f, 0.25f},
                                          {"wall top", 0.62f, 0.05f},
                                          {"wall right", 0.95f, 0.50f},
                                          {"shuttle", 0.80f, 0.30f},
                                          {"top left", 0.15f, 0.05f}};
  for (const Region& r : person) {
    const float m = PatchMean(mask, r.x, r.y);
    std::printf("%s person %-12s %.3f\n", graph.c_str(), r.what, m);
    EXPECT_GT(m, 0.8f) << r.what;
  }
  for (const Region& r : background) {
    const float m = PatchMean(mask, r.x, r.y);
    std::printf("%s background %-12s %.3f\n", graph.c_str(), r.what, m);
    EXPECT_LT(m, 0.2f) << r.what;
  }
  // Overall: the person covers a good part of the portrait, not all of it.
  const float area = static_cast<float>(cv::mean(mask)[0]);
  std::printf("%s person area %.3f\n", graph.c_str(), area);
  EXPECT_GT(area, 0.3f);
  EXPECT_LT(area, 0.8f);
}

INSTANTIATE_TEST_SUITE_P(Models, SelfieSegmentationTest,
                         ::testing::Values("SelfieSegmentationCpu",
                                           "SelfieSegmentationLandscapeCpu"));

}  // namespace
}  // namespace rill
