// OpenCvVideoDecoderCalculator and OpenCvVideoEncoderCalculator on the test
// media (scripts/fetch_models.sh): decode, round-trip, and bad input.
#include <cstdio>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/video_stream_header.h"
#include "framework/graph.h"
#include "framework/tool/config_loader.h"
#include "glog/logging.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/require.h"

namespace rill {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kVideo[] = "third_party/media/Megamind.avi";

bool HaveMedia() { return std::ifstream(kVideo).good(); }

std::string TmpPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

constexpr char kDecodeGraph[] = R"pb(
  input_side_packet: "path"
  node {
    calculator: "OpenCvVideoDecoderCalculator"
    input_side_packet: "INPUT_FILE_PATH:path"
    output_stream: "VIDEO:video"
    output_stream: "VIDEO_PRESTREAM:header"
    output_side_packet: "SAVED_AUDIO_PATH:audio"
  }
)pb";

TEST(OpenCvVideoDecoderCalculatorTest, DecodesEveryFrameWithTimestamps) {
  RILL_REQUIRE(HaveMedia(), "the test media are missing: run scripts/fetch_models.sh");
  auto out = RunGraph(kDecodeGraph, {"video", "header"}, {},
                      {{"path", MakePacket<std::string>(kVideo)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& frames = (*out)["video"];
  ASSERT_GT(frames.size(), 100u);
  ASSERT_EQ((*out)["header"].size(), 1u);
  const auto& header = (*out)["header"][0].Get<VideoHeader>();
  EXPECT_EQ((*out)["header"][0].Timestamp(), Timestamp::PreStream());
  EXPECT_EQ(header.format, ImageFormat::SRGB);
  EXPECT_GT(header.frame_rate, 1.f);
  int64_t last = -1;
  for (const Packet& p : frames) {
    const ImageFrame& f = p.Get<ImageFrame>();
    EXPECT_EQ(f.Format(), ImageFormat::SRGB);
    EXPECT_EQ(f.Width(), header.width);
    EXPECT_EQ(f.Height(), header.height);
    EXPECT_GT(p.Timestamp().Value(), last);
    last = p.Timestamp().Value();
  }
  // Timestamps are the video's: frame i at about i / fps seconds.
  const double expected_us = 10 * 1e6 / header.frame_rate;
  EXPECT_NEAR(frames[10].Timestamp().Value() - frames[0].Timestamp().Value(),
              expected_us, expected_us * 0.05);
}

TEST(OpenCvVideoDecoderCalculatorTest, MissingFileNamesNodeAndFile) {
  auto out = RunGraph(
      R"pb(
        input_side_packet: "path"
        node {
          name: "decoder"
          calculator: "OpenCvVideoDecoderCalculator"
          input_side_packet: "INPUT_FILE_PATH:path"
          output_stream: "VIDEO:video"
        })pb",
      {"video"}, {}, {{"path", MakePacket<std::string>("/nonexistent/x.avi")}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("decoder"));
  EXPECT_THAT(out.status().message(), HasSubstr("/nonexistent/x.avi"));
}

// Collects WARNING lines logged while it lives.
class WarningCollector : public google::LogSink {
 public:
  WarningCollector() { google::AddLogSink(this); }
  ~WarningCollector() override { google::RemoveLogSink(this); }
  void send(google::LogSeverity severity, const char*, const char*, int, const struct ::tm*,
            const char* message, size_t message_len) override {
    if (severity == google::GLOG_WARNING) {
      std::lock_guard<std::mutex> lock(mu_);
      text_.append(message, message_len).append("\n");
    }
  }
  std::string text() {
    std::lock_guard<std::mutex> lock(mu_);
    return text_;
  }

 private:
  std::mutex mu_;
  std::string text_;
};

TEST(OpenCvVideoDecoderCalculatorTest, TruncatedFileIsReported) {
  RILL_REQUIRE(HaveMedia(), "the test media are missing: run scripts/fetch_models.sh");
  // vtest.avi cut in half: its header still announces 795 frames.
  const std::string whole = "third_party/media/vtest.avi";
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(bytes.size(), 1000u);
  const std::string path = TmpPath("truncated.avi");
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  WarningCollector warnings;
  auto out = RunGraph(R"pb(
        input_side_packet: "path"
        node {
          name: "decoder"
          calculator: "OpenCvVideoDecoderCalculator"
          input_side_packet: "INPUT_FILE_PATH:path"
          output_stream: "VIDEO:video"
        })pb",
                      {"video"}, {}, {{"path", MakePacket<std::string>(path)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const size_t n = (*out)["video"].size();
  EXPECT_GT(n, 100u);
  EXPECT_LT(n, 700u);
  EXPECT_THAT(warnings.text(), HasSubstr("node \"decoder\": video file \"" + path + "\" ended after " +
                                         std::to_string(n) + " of the 795 frames its header announces"));
  // The whole file decodes without a word.
  WarningCollector quiet;
  auto full = RunGraph(kDecodeGraph, {"video"}, {}, {{"path", MakePacket<std::string>(whole)}});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ((*full)["video"].size(), 795u);
  EXPECT_THAT(quiet.text(), Not(HasSubstr("header announces")));
}

// The file under a running decoder is cut short (a copy still being
// written, a network share that drops) or deleted: the run ends, without
// hanging, with the frames there were, and a truncation says so.
TEST(OpenCvVideoDecoderCalculatorTest, FileVanishingMidRun) {
  RILL_REQUIRE(HaveMedia(), "the test media are missing: run scripts/fetch_models.sh");
  for (const bool truncate : {true, false}) {
    SCOPED_TRACE(truncate ? "truncated mid-run" : "deleted mid-run");
    const std::string path = TmpPath(truncate ? "vanishing.avi" : "deleted.avi");
    {
      std::ifstream in("third_party/media/vtest.avi", std::ios::binary);
      std::ofstream out(path, std::ios::binary);
      out << in.rdbuf();
    }
    auto config = ParseGraphConfigText(R"pb(
      input_side_packet: "path"
      max_queue_size: 2
      node {
        name: "decoder"
        calculator: "OpenCvVideoDecoderCalculator"
        input_side_packet: "INPUT_FILE_PATH:path"
        output_stream: "VIDEO:video"
      })pb");
    ASSERT_TRUE(config.ok()) << config.status();
    CalculatorGraph graph;
    ASSERT_TRUE(graph.Initialize(*config).ok());
    std::atomic<int> frames{0};
    ASSERT_TRUE(graph.ObserveOutputStream("video", [&](const Packet&) {
      if (frames.fetch_add(1) == 20) {
        if (truncate) {
          std::filesystem::resize_file(path, std::filesystem::file_size(path) / 20);
        } else {
          std::filesystem::remove(path);
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      return absl::OkStatus();
    }).ok());
    WarningCollector warnings;
    const auto start = std::chrono::steady_clock::now();
    const absl::Status s = graph.Run({{"path", MakePacket<std::string>(path)}});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
    ASSERT_TRUE(s.ok()) << s;
    if (truncate) {
      EXPECT_GT(frames.load(), 20);
      EXPECT_LT(frames.load(), 795);
      EXPECT_THAT(warnings.text(), HasSubstr("of the 795 frames its header announces"));
    } else {
      // An open file outlives its name (POSIX): every frame is decoded.
      EXPECT_EQ(frames.load(), 795);
      EXPECT_THAT(warnings.text(), Not(HasSubstr("header announces")));
    }
  }
}

TEST(OpenCvVideoDecoderCalculatorTest, NotAVideoIsAClearError) {
  const std::string path = TmpPath("not_a_video.avi");
  std::ofstream(path) << "this is text, not a video";
  auto out = RunGraph(kDecodeGraph, {"video"}, {},
                      {{"path", MakePacket<std::string>(path)}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr(path));
}

TEST(OpenCvVideoEncoderCalculatorTest, RoundTripKeepsFramesAndSize) {
  RILL_REQUIRE(HaveMedia(), "the test media are missing: run scripts/fetch_models.sh");
  for (const char* ext : {"avi", "mp4"}) {
    const std::string out_path = TmpPath(std::string("roundtrip.") + ext);
    const std::string codec = std::string(ext) == "mp4" ? "mp4v" : "MJPG";
    auto out =
        RunGraph(std::string(R"pb(
                   input_side_packet: "path"
                   input_side_packet: "out_path"
                   node {
                     calculator: "OpenCvVideoDecoderCalculator"
                     input_side_packet: "INPUT_FILE_PATH:path"
                     output_stream: "VIDEO:video"
                     output_stream: "VIDEO_PRESTREAM:header"
                   }
                   node { calculator: "OpenCvVideoEncoderCalculator"
                          input_stream: "VIDEO:video"
                          input_stream: "VIDEO_PRESTREAM:header"
                          input_side_packet: "OUTPUT_FILE_PATH:out_path"
                          node_options: {
                            [type.googleapis.com/
                             mediapipe.OpenCvVideoEncoderCalculatorOptions]: {
                              codec: ")pb") +
                     codec + R"pb(" video_format: ")pb" + ext + R"pb(                                                                     "
              }
                                                                                                                                          }
          })pb",
                 {"video"}, {},
                 {{"path", MakePacket<std::string>(kVideo)},
                  {"out_path", MakePacket<std::string>(out_path)}});
    ASSERT_TRUE(out.ok()) << out.status();
    const size_t n = (*out)["video"].size();
    const ImageFrame& first = (*out)["video"][0].Get<ImageFrame>();

    auto again = RunGraph(kDecodeGraph, {"video"}, {},
                          {{"path", MakePacket<std::string>(out_path)}});
    ASSERT_TRUE(again.ok()) << again.status();
    ASSERT_EQ((*again)["video"].size(), n) << ext;
    const ImageFrame& back = (*again)["video"][0].Get<ImageFrame>();
    EXPECT_EQ(back.Width(), first.Width());
    EXPECT_EQ(back.Height(), first.Height());
    // Lossy codecs: the mean absolute difference stays small.
    double diff = 0;
    for (int y = 0; y < back.Height(); ++y) {
      for (int x = 0; x < back.Width() * 3; ++x) {
        diff += std::abs(back.Row(y)[x] - first.Row(y)[x]);
      }
    }
    diff /= back.Height() * back.Width() * 3.0;
    EXPECT_LT(diff, 8.0) << ext;
  }
}

TEST(OpenCvVideoEncoderCalculatorTest, UnwritablePathIsAClearError) {
  std::vector<Packet> frames;
  ImageFrame f(ImageFormat::SRGB, 32, 32);
  f.SetToZero();
  frames.push_back(MakePacket<ImageFrame>(std::move(f)).At(Timestamp(0)));
  auto out = RunGraph(
      R"pb(
        input_stream: "video"
        input_side_packet: "out_path"
        node {
          name: "encoder"
          calculator: "OpenCvVideoEncoderCalculator"
          input_stream: "VIDEO:video"
          input_side_packet: "OUTPUT_FILE_PATH:out_path"
        })pb",
      {}, {{"video", frames}},
      {{"out_path", MakePacket<std::string>("/nonexistent/dir/out.avi")}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("encoder"));
  EXPECT_THAT(out.status().message(), HasSubstr("/nonexistent/dir/out.avi"));
}

TEST(OpenCvVideoEncoderCalculatorTest, BadCodecFailsAtContract) {
  absl::Status s = CheckContract(R"pb(
    calculator: "OpenCvVideoEncoderCalculator"
    input_stream: "VIDEO:video"
    input_side_packet: "OUTPUT_FILE_PATH:p"
    options {
      [mediapipe.OpenCvVideoEncoderCalculatorOptions.ext] { codec: "h264x" }
    })pb");
  EXPECT_THAT(s.message(), HasSubstr("h264x"));
}

}  // namespace
}  // namespace rill
