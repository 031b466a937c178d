// OpenCvVideoEncoderCalculator writes the ImageFrames of its VIDEO stream
// (SRGB, SRGBA or GRAY8) to a video file with OpenCV.
//
//   node {
//     calculator: "OpenCvVideoEncoderCalculator"
//     input_stream: "VIDEO:output_video"
//     input_stream: "VIDEO_PRESTREAM:input_video_header"   # optional
//     input_side_packet: "OUTPUT_FILE_PATH:output_video_path"
//     node_options: {
//       [type.googleapis.com/mediapipe.OpenCvVideoEncoderCalculatorOptions]: {
//         codec: "avc1" video_format: "mp4"
//       }
//     }
//   }
//
// The writer opens at the header (VIDEO_PRESTREAM) or, without one, at the
// first frame; the frame size comes from the options, the header or the
// first frame, and the frame rate from options.fps, the header, or 30. If the
// options' codec cannot be opened for the file, mp4v (.mp4) or MJPG (other
// containers) is tried before failing, and a warning says so. Frames of
// another size than the first are resized (a video has one size).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calculators/video/opencv_video_encoder_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/video_stream_header.h"
#include "glog/logging.h"

namespace rill {
namespace {

constexpr char kVideoTag[] = "VIDEO";
constexpr char kVideoPrestreamTag[] = "VIDEO_PRESTREAM";
constexpr char kOutputFilePathTag[] = "OUTPUT_FILE_PATH";
constexpr char kAudioFilePathTag[] = "AUDIO_FILE_PATH";

class OpenCvVideoEncoderCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->InputSidePackets().HasTag(kOutputFilePathTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "OpenCvVideoEncoderCalculator node \"", cc->GetNodeName(),
          "\" needs an OUTPUT_FILE_PATH input side packet"));
    }
    cc->Inputs().Tag(kVideoTag).Set<ImageFrame>();
    if (cc->Inputs().HasTag(kVideoPrestreamTag)) {
      cc->Inputs().Tag(kVideoPrestreamTag).Set<VideoHeader>();
    }
    cc->InputSidePackets().Tag(kOutputFilePathTag).Set<std::string>();
    if (cc->InputSidePackets().HasTag(kAudioFilePathTag)) {
      cc->InputSidePackets().Tag(kAudioFilePathTag).Set<std::string>();
    }
    const auto& options = cc->Options<OpenCvVideoEncoderCalculatorOptions>();
    if (options.has_codec() && options.codec().size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "OpenCvVideoEncoderCalculator node \"", cc->GetNodeName(),
          "\": codec must be a 4-character code, got \"", options.codec(),
          "\""));
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<OpenCvVideoEncoderCalculatorOptions>();
    path_ = cc->InputSidePackets().Tag(kOutputFilePathTag).Get<std::string>();
    where_ = absl::StrCat("OpenCvVideoEncoderCalculator node \"",
                          cc->NodeName(), "\": ");
    if (options_.has_video_format() && !options_.video_format().empty() &&
        !absl::EndsWithIgnoreCase(path_, "." + options_.video_format())) {
      LOG(WARNING) << where_ << "output file \"" << path_
                   << "\" does not end in ." << options_.video_format();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kVideoPrestreamTag) &&
        !cc->Inputs().Tag(kVideoPrestreamTag).IsEmpty()) {
      const auto& header =
          cc->Inputs().Tag(kVideoPrestreamTag).Get<VideoHeader>();
      if (!writer_.isOpened()) {
        RILL_RETURN_IF_ERROR(
            OpenWriter(header.width, header.height, header.frame_rate));
      }
      return absl::OkStatus();
    }
    const InputStreamShard& in = cc->Inputs().Tag(kVideoTag);
    if (in.IsEmpty()) return absl::OkStatus();
    const ImageFrame& frame = in.Get<ImageFrame>();
    if (!writer_.isOpened()) {
      RILL_RETURN_IF_ERROR(OpenWriter(frame.Width(), frame.Height(), 0));
    }
    const cv::Mat view = formats::MatView(&frame);
    switch (frame.Format()) {
      case ImageFormat::SRGB:
        cv::cvtColor(view, bgr_, cv::COLOR_RGB2BGR);
        break;
      case ImageFormat::SRGBA:
        cv::cvtColor(view, bgr_, cv::COLOR_RGBA2BGR);
        break;
      case ImageFormat::GRAY8:
        cv::cvtColor(view, bgr_, cv::COLOR_GRAY2BGR);
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat(where_, "cannot encode ", frame.DebugString(),
                         " (SRGB, SRGBA or GRAY8 only)"));
    }
    if (bgr_.cols != size_.width || bgr_.rows != size_.height) {
      cv::resize(bgr_, bgr_, size_);
    }
    writer_.write(bgr_);
    ++frames_;
    return absl::OkStatus();
  }

  absl::Status Close(CalculatorContext* cc) override {
    if (writer_.isOpened()) writer_.release();
    return absl::OkStatus();
  }

 private:
  absl::Status OpenWriter(int width, int height, double header_fps) {
    if (options_.width() > 0) width = options_.width();
    if (options_.height() > 0) height = options_.height();
    if (width <= 0 || height <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "no frame size for \"", path_, "\""));
    }
    size_ = cv::Size(width, height);
    const double fps = options_.fps() > 0 ? options_.fps()
                       : header_fps > 0   ? header_fps
                                          : 30.0;
    const bool mp4 = absl::EndsWithIgnoreCase(path_, ".mp4") ||
                     absl::EndsWithIgnoreCase(path_, ".mov");
    std::string codecs[2] = {options_.codec(), mp4 ? "mp4v" : "MJPG"};
    for (const std::string& codec : codecs) {
      if (codec.size() != 4) continue;
      const int fourcc =
          cv::VideoWriter::fourcc(codec[0], codec[1], codec[2], codec[3]);
      if (writer_.open(path_, cv::CAP_FFMPEG, fourcc, fps, size_, true) ||
          writer_.open(path_, fourcc, fps, size_, true)) {
        if (codec != options_.codec() && !options_.codec().empty()) {
          LOG(WARNING) << where_ << "codec \"" << options_.codec()
                       << "\" is not available; wrote \"" << path_ << "\" with "
                       << codec;
        }
        return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        where_, "cannot open \"", path_, "\" for writing with codec \"",
        options_.codec().empty() ? codecs[1] : options_.codec(),
        "\" (is the directory writable and the container known?)"));
  }

  OpenCvVideoEncoderCalculatorOptions options_;
  std::string path_;
  std::string where_;
  cv::VideoWriter writer_;
  cv::Size size_;
  cv::Mat bgr_;
  int64_t frames_ = 0;
};

}  // namespace

REGISTER_CALCULATOR(OpenCvVideoEncoderCalculator);

}  // namespace rill
