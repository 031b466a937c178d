// The demo without a display or a camera: it falls back to the video file,
// runs the graph, and writes annotated frames with the fps caption.
#include "examples/desktop/demo_runner.h"

#include <cstdlib>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <string>

#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "gmock/gmock.h"
#include "tests/require.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

constexpr char kVideo[] = "third_party/media/Megamind.avi";

// Takes frames and emits nothing, without promising anything about its
// output's timestamps: downstream can never settle.
class SwallowFramesForTestCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<ImageFrame>();
    cc->Outputs().Index(0).Set<ImageFrame>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(SwallowFramesForTestCalculator);

std::string OutDir() {
  const char* d = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (d) return d;
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

TEST(DemoRunnerTest, FallsBackToVideoAndWritesOutput) {
  RILL_REQUIRE(std::ifstream(kVideo).good(), kVideo << " is missing: run scripts/fetch_models.sh");
  DemoOptions options;
  options.graph_path = "examples/desktop/pass_through_live.pbtxt";
  options.camera = "/dev/video95";  // no such camera
  options.fallback_video = kVideo;
  options.output_video = OutDir() + "/demo.avi";
  options.window = false;
  options.max_frames = 40;
  auto stats = RunDemo(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_FALSE(stats->used_camera);
  EXPECT_THAT(stats->source, HasSubstr("Megamind.avi"));
  EXPECT_EQ(stats->frames_in, 40);
  EXPECT_EQ(stats->frames_out, 40);
  EXPECT_GT(stats->fps, 0);

  cv::VideoCapture written(options.output_video);
  ASSERT_TRUE(written.isOpened());
  EXPECT_EQ(static_cast<int>(written.get(cv::CAP_PROP_FRAME_COUNT)), 40);
  cv::Mat frame;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(written.read(frame));
  cv::imwrite(OutDir() + "/demo_frame20.png", frame);
  // The fps caption box is in the top-left corner: black with green text.
  const cv::Mat caption = frame(cv::Rect(0, 0, 60, 14));
  cv::Mat green;
  cv::inRange(caption, cv::Scalar(0, 120, 0), cv::Scalar(120, 255, 120), green);
  EXPECT_GT(cv::countNonZero(green), 5);
}

TEST(DemoRunnerTest, StalledGraphIsReportedNotHung) {
  RILL_REQUIRE(std::ifstream(kVideo).good(), kVideo << " is missing: run scripts/fetch_models.sh");
  DemoOptions options;
  options.graph_path = "examples/desktop/stall_graph_test.pbtxt";
  options.camera = "";
  options.fallback_video = kVideo;
  options.window = false;
  options.max_frames = 5;
  options.stall_timeout_s = 1;
  auto stats = RunDemo(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(stats.status().message(), HasSubstr("stall_graph_test.pbtxt"));
  EXPECT_THAT(stats.status().message(),
              HasSubstr("SwallowFramesForTestCalculator"));
}

TEST(DemoRunnerTest, NoCameraAndNoVideoIsAClearError) {
  DemoOptions options;
  options.graph_path = "examples/desktop/pass_through_live.pbtxt";
  options.camera = "/dev/video95";
  options.fallback_video = "/no/such/video.avi";
  options.window = false;
  auto stats = RunDemo(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("/dev/video95"));
  EXPECT_THAT(stats.status().message(), HasSubstr("/no/such/video.avi"));
}

}  // namespace
}  // namespace rill
