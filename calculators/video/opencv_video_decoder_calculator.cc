// OpenCvVideoDecoderCalculator reads a video file with OpenCV and emits its
// frames as SRGB ImageFrames, each at the frame's own presentation time (in
// microseconds) as the container reports it.
//
//   node {
//     calculator: "OpenCvVideoDecoderCalculator"
//     input_side_packet: "INPUT_FILE_PATH:input_video_path"
//     output_stream: "VIDEO:input_video"
//     output_stream: "VIDEO_PRESTREAM:input_video_header"   # optional
//     output_side_packet: "SAVED_AUDIO_PATH:audio_path"     # optional
//   }
//
// VIDEO_PRESTREAM carries one VideoHeader at Timestamp::PreStream().
// SAVED_AUDIO_PATH is accepted for MediaPipe graphs and set to "" (audio is
// not extracted). A file that cannot be opened or has no frame fails Open()
// with a message naming the node and the file. A frame whose timestamp does
// not advance (broken container clocks) gets the previous one plus one.
#include <cstdint>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/video_stream_header.h"

namespace rill {
namespace {

constexpr char kInputFilePathTag[] = "INPUT_FILE_PATH";
constexpr char kVideoTag[] = "VIDEO";
constexpr char kVideoPrestreamTag[] = "VIDEO_PRESTREAM";
constexpr char kSavedAudioPathTag[] = "SAVED_AUDIO_PATH";

class OpenCvVideoDecoderCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->InputSidePackets().HasTag(kInputFilePathTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "OpenCvVideoDecoderCalculator node \"", cc->GetNodeName(),
          "\" needs an INPUT_FILE_PATH input side packet"));
    }
    cc->InputSidePackets().Tag(kInputFilePathTag).Set<std::string>();
    cc->Outputs().Tag(kVideoTag).Set<ImageFrame>();
    if (cc->Outputs().HasTag(kVideoPrestreamTag)) {
      cc->Outputs().Tag(kVideoPrestreamTag).Set<VideoHeader>();
    }
    if (cc->OutputSidePackets().HasTag(kSavedAudioPathTag)) {
      cc->OutputSidePackets().Tag(kSavedAudioPathTag).Set<std::string>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    path_ = cc->InputSidePackets().Tag(kInputFilePathTag).Get<std::string>();
    const std::string where = absl::StrCat(
        "OpenCvVideoDecoderCalculator node \"", cc->NodeName(), "\": ");
    if (!std::ifstream(path_).good()) {
      return absl::NotFoundError(
          absl::StrCat(where, "cannot read video file \"", path_,
                       "\" (missing or not readable)"));
    }
    // FFmpeg reads every container we care about; asking for it avoids
    // probing camera backends (and their libraries) for a file.
    const bool opened = capture_.open(path_, cv::CAP_FFMPEG) ||
                        capture_.open(path_, cv::CAP_ANY);
    if (!opened || !capture_.isOpened()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "OpenCV cannot decode video file \"", path_,
                       "\" (not a video, or an unsupported codec)"));
    }
    width_ = static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_WIDTH));
    height_ = static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_HEIGHT));
    const double fps = capture_.get(cv::CAP_PROP_FPS);
    const double frames = capture_.get(cv::CAP_PROP_FRAME_COUNT);
    if (width_ <= 0 || height_ <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "video file \"", path_, "\" reports no frame size"));
    }
    if (cc->Outputs().HasTag(kVideoPrestreamTag)) {
      VideoHeader header;
      header.format = ImageFormat::SRGB;
      header.width = width_;
      header.height = height_;
      header.frame_rate = fps > 0 ? static_cast<float>(fps) : 0.f;
      header.duration =
          fps > 0 && frames > 0 ? static_cast<float>(frames / fps) : 0.f;
      auto& out = cc->Outputs().Tag(kVideoPrestreamTag);
      out.AddPacket(MakePacket<VideoHeader>(header).At(Timestamp::PreStream()));
      out.Close();
    }
    if (cc->OutputSidePackets().HasTag(kSavedAudioPathTag)) {
      cc->OutputSidePackets()
          .Tag(kSavedAudioPathTag)
          .Set(MakePacket<std::string>(""));
    }
    fps_ = fps > 0 ? fps : 30.0;
    frames_in_header_ = frames > 0 ? static_cast<int64_t>(frames) : 0;
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (!capture_.read(bgr_) || bgr_.empty()) {
      if (frame_count_ == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "OpenCvVideoDecoderCalculator node \"", cc->NodeName(),
            "\": video file \"", path_, "\" has no decodable frame"));
      }
      // A file that ends before its header's frame count is truncated or
      // damaged: the graph goes on with what there was, but says so (one
      // frame of slack: some containers' counts are estimates).
      if (frames_in_header_ > 0 && frame_count_ + 1 < frames_in_header_) {
        LOG(WARNING) << "OpenCvVideoDecoderCalculator node \"" << cc->NodeName()
                     << "\": video file \"" << path_ << "\" ended after "
                     << frame_count_ << " of the " << frames_in_header_
                     << " frames its header announces (truncated or damaged "
                        "file?)";
      }
      return StatusStop();
    }
    // Position of the frame just read; some backends report the end of the
    // frame or 0 for the first frame, so fall back to the frame index.
    double msec = capture_.get(cv::CAP_PROP_POS_MSEC);
    int64_t us = static_cast<int64_t>(msec * 1000.0 + 0.5);
    if (msec <= 0 && frame_count_ > 0) {
      us = static_cast<int64_t>(frame_count_ * 1e6 / fps_ + 0.5);
    }
    if (frame_count_ > 0 && us <= last_us_) us = last_us_ + 1;
    last_us_ = us;
    ++frame_count_;

    ImageFrame frame(ImageFormat::SRGB, bgr_.cols, bgr_.rows);
    cv::Mat view = formats::MatView(&frame);
    if (bgr_.channels() == 1) {
      cv::cvtColor(bgr_, view, cv::COLOR_GRAY2RGB);
    } else if (bgr_.channels() == 4) {
      cv::cvtColor(bgr_, view, cv::COLOR_BGRA2RGB);
    } else {
      cv::cvtColor(bgr_, view, cv::COLOR_BGR2RGB);
    }
    cc->Outputs().Tag(kVideoTag).AddPacket(
        MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(us)));
    return absl::OkStatus();
  }

  absl::Status Close(CalculatorContext* cc) override {
    capture_.release();
    return absl::OkStatus();
  }

 private:
  std::string path_;
  cv::VideoCapture capture_;
  cv::Mat bgr_;
  int width_ = 0, height_ = 0;
  double fps_ = 30.0;
  int64_t frame_count_ = 0;
  int64_t frames_in_header_ = 0;
  int64_t last_us_ = 0;
};

}  // namespace

REGISTER_CALCULATOR(OpenCvVideoDecoderCalculator);

}  // namespace rill
