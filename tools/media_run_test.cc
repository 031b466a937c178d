// rill run's media path: frames from a video into a graph, frames out to a
// video, latency and throughput figures, and errors for bad inputs.
#include "tools/media_run.h"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "framework/tool/config_loader.h"
#include "gtest/gtest.h"
#include "opencv2/imgcodecs.hpp"
#include "opencv2/videoio.hpp"

namespace rill {
namespace tools {
namespace {

constexpr char kFlipGraph[] = R"pb(
  input_stream: "input_video"
  output_stream: "output_video"
  node {
    calculator: "ImageTransformationCalculator"
    input_stream: "IMAGE:input_video"
    output_stream: "IMAGE:output_video"
    options: { [mediapipe.ImageTransformationCalculatorOptions.ext] { flip_horizontally: true } }
  }
)pb";

// A 64x48 video whose left half is red (BGR 0,0,255) and right half blue.
std::string MakeVideo(int frames) {
  const std::string path = ::testing::TempDir() + "/in.avi";
  cv::VideoWriter w(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25, cv::Size(64, 48));
  EXPECT_TRUE(w.isOpened());
  cv::Mat m(48, 64, CV_8UC3, cv::Scalar(255, 0, 0));
  m(cv::Rect(0, 0, 32, 48)).setTo(cv::Scalar(0, 0, 255));
  for (int i = 0; i < frames; ++i) w.write(m);
  return path;
}

absl::Status RunFlip(const MediaRunOptions& options, MediaRunSummary* summary) {
  auto config = ParseGraphConfigText(kFlipGraph);
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  if (!s.ok()) return s;
  return RunWithMedia(&graph, options, summary);
}

TEST(MediaRunTest, VideoInVideoOutWithFigures) {
  MediaRunOptions options;
  options.input = MakeVideo(12);
  options.output = ::testing::TempDir() + "/out.avi";
  MediaRunSummary summary;
  ASSERT_TRUE(RunFlip(options, &summary).ok());
  EXPECT_EQ(summary.frames_in, 12);
  EXPECT_EQ(summary.frames_out, 12);
  EXPECT_GT(summary.p50_ms, 0);
  EXPECT_GE(summary.p99_ms, summary.p50_ms);
  EXPECT_GT(summary.fps, 0);
  cv::VideoCapture out(options.output);
  ASSERT_TRUE(out.isOpened());
  cv::Mat frame;
  int n = 0;
  while (out.read(frame)) {
    ++n;
    // Flipped: the left half is now blue.
    const cv::Vec3b left = frame.at<cv::Vec3b>(24, 8);
    EXPECT_GT(left[0], 200) << "frame " << n;
    EXPECT_LT(left[2], 60) << "frame " << n;
  }
  EXPECT_EQ(n, 12);
  const std::string json = SummaryJson("g.pbtxt", summary);
  EXPECT_NE(json.find("\"frames_in\":12"), std::string::npos) << json;
  EXPECT_NE(json.find("\"p99\":"), std::string::npos) << json;
}

// A copy of `path` cut to `fraction` of its bytes (a download that broke
// off, a disk that filled up).
std::string Truncated(const std::string& path, double fraction) {
  const std::string out = path + ".truncated.avi";
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(out, std::ios::binary) << bytes.substr(0, static_cast<size_t>(bytes.size() * fraction));
  return out;
}

TEST(MediaRunTest, TruncatedVideoSaysSo) {
  MediaRunOptions options;
  options.input = Truncated(MakeVideo(40), 0.5);
  MediaRunSummary summary;
  ASSERT_TRUE(RunFlip(options, &summary).ok());
  EXPECT_GT(summary.frames_in, 5);
  EXPECT_LT(summary.frames_in, 30);
  EXPECT_EQ(summary.frames_read, summary.frames_in);
  EXPECT_EQ(summary.frames_in_header, 40);
  const std::string text = SummaryText(summary);
  EXPECT_NE(text.find("warning: the input ended after " + std::to_string(summary.frames_in) +
                      " of the 40 frames its header announces"),
            std::string::npos)
      << text;
  EXPECT_NE(SummaryJson("g", summary).find("\"truncated\":{\"frames_read\":"), std::string::npos);

  // A whole file, and a run stopped by --max_frames, say nothing.
  MediaRunOptions whole;
  whole.input = MakeVideo(40);
  MediaRunSummary complete;
  ASSERT_TRUE(RunFlip(whole, &complete).ok());
  EXPECT_EQ(complete.frames_in, 40);
  EXPECT_EQ(complete.frames_in_header, 0);
  EXPECT_EQ(SummaryText(complete).find("warning"), std::string::npos);
  whole.max_frames = 10;
  ASSERT_TRUE(RunFlip(whole, &complete).ok());
  EXPECT_EQ(complete.frames_in, 10);
  EXPECT_EQ(complete.frames_in_header, 0);
}

TEST(MediaRunTest, ImageInImageOutAndMaxFrames) {
  const std::string in = ::testing::TempDir() + "/in.png";
  cv::Mat m(10, 20, CV_8UC3, cv::Scalar(0, 255, 0));
  ASSERT_TRUE(cv::imwrite(in, m));
  MediaRunOptions options;
  options.input = in;
  options.output = ::testing::TempDir() + "/out.png";
  MediaRunSummary summary;
  ASSERT_TRUE(RunFlip(options, &summary).ok());
  EXPECT_EQ(summary.frames_in, 1);
  cv::Mat out = cv::imread(options.output);
  EXPECT_EQ(out.cols, 20);
  EXPECT_EQ(out.rows, 10);

  options.input = MakeVideo(10);
  options.output.clear();
  options.max_frames = 4;
  ASSERT_TRUE(RunFlip(options, &summary).ok());
  EXPECT_EQ(summary.frames_in, 4);
}

TEST(MediaRunTest, BadInputsAreClearErrors) {
  MediaRunOptions options;
  MediaRunSummary summary;
  options.input = "/nonexistent/video.avi";
  absl::Status s = RunFlip(options, &summary);
  EXPECT_NE(s.message().find("/nonexistent/video.avi"), std::string::npos) << s;
  const std::string junk = ::testing::TempDir() + "/junk.avi";
  FILE* f = fopen(junk.c_str(), "w");
  fputs("not a video", f);
  fclose(f);
  options.input = junk;
  s = RunFlip(options, &summary);
  EXPECT_NE(s.message().find("not a readable video"), std::string::npos) << s;
  options.input = "camera:57";
  s = RunFlip(options, &summary);
  EXPECT_NE(s.message().find("/dev/video57"), std::string::npos) << s;
}

// --timeout works with --input: a graph whose node takes 1.5 s a frame (15
// s for the video) is cancelled after 0.3 s, naming the node still waiting;
// the run ends when the call in progress returns (a Process call is not
// interrupted).
TEST(MediaRunTest, TimeoutCancelsAMediaRun) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "in"
    output_stream: "out"
    node { name: "slow" calculator: "TestSleepCalculator" input_stream: "in" output_stream: "out"
           options { [rill.TestOptions.ext] { value: 1500000 } } }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  MediaRunOptions options;
  options.input = MakeVideo(10);
  options.timeout_s = 0.3;
  MediaRunSummary summary;
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = RunWithMedia(&graph, options, &summary);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find("--timeout"), std::string::npos) << s;
  EXPECT_NE(s.message().find("slow"), std::string::npos) << s;
  EXPECT_LT(seconds, 5.0) << "the run was not cancelled";
}

// A stop request (rill run's SIGINT/SIGTERM handler sets it) ends the input
// early: the frames sent finish, the output video is finalized and
// readable, and the summary says "interrupted".
TEST(MediaRunTest, StopFinalizesTheOutput) {
  MediaRunOptions options;
  options.input = MakeVideo(200);
  options.output = ::testing::TempDir() + "/stopped.avi";
  std::atomic<bool> stop{false};
  options.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    stop = true;
  });
  // 20 ms a frame: 4 s for the video, stopped after 0.15 s.
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "input_video"
    output_stream: "output_video"
    node { calculator: "TestSleepCalculator" input_stream: "input_video" output_stream: "output_video"
           options { [rill.TestOptions.ext] { value: 20000 } } }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  MediaRunSummary summary;
  absl::Status s = RunWithMedia(&graph, options, &summary);
  stopper.join();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(summary.interrupted);
  EXPECT_LT(summary.frames_in, 200);
  EXPECT_GT(summary.frames_in, 0);
  EXPECT_EQ(summary.frames_out, summary.frames_in);
  EXPECT_NE(SummaryText(summary).find("interrupted"), std::string::npos);
  cv::VideoCapture out(options.output);
  ASSERT_TRUE(out.isOpened()) << "the interrupted run's video is not playable";
  cv::Mat frame;
  int n = 0;
  while (out.read(frame)) ++n;
  EXPECT_EQ(n, summary.frames_out);
}

// --output is checked before the first frame, with the reason; a finished
// run's file appears under its name at once (written beside it, then
// renamed) and no temporary file is left behind.
TEST(MediaRunTest, OutputPathCheckedFirstAndWrittenAtomically) {
  MediaRunOptions options;
  MediaRunSummary summary;
  options.input = MakeVideo(5);
  options.output = "/nonexistent_dir/out.avi";
  absl::Status s = RunFlip(options, &summary);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent_dir/out.avi"), std::string::npos) << s;
  EXPECT_NE(s.message().find("No such file or directory"), std::string::npos) << s;
  EXPECT_EQ(summary.frames_in, 0) << "frames ran before the output was checked";
  options.output = ::testing::TempDir();
  s = RunFlip(options, &summary);
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s;

  const std::string dir = ::testing::TempDir() + "/atomic";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  options.output = dir + "/out.avi";
  ASSERT_TRUE(RunFlip(options, &summary).ok());
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename(), "out.avi") << "left behind: " << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 1);
  cv::VideoCapture out(options.output);
  EXPECT_TRUE(out.isOpened());
}

}  // namespace
}  // namespace tools
}  // namespace rill
