// OpenCvCameraSourceCalculator captures frames from a camera (V4L2 through
// OpenCV) and emits them as SRGB ImageFrames, timestamped with the
// microseconds since the camera opened (monotonic clock).
//
//   node {
//     calculator: "OpenCvCameraSourceCalculator"
//     input_side_packet: "DEVICE:camera"          # optional: "0",
//     "/dev/video2" output_stream: "VIDEO:input_video" output_stream:
//     "VIDEO_PRESTREAM:header"     # optional options {
//     [rill.OpenCvCameraSourceCalculatorOptions.ext] {
//       width: 640 height: 480 } }
//   }
//
// With no camera, Open() fails with an error naming the node and the
// device; a camera that stops delivering frames mid-run (unplugged) fails
// the run with an Unavailable status naming the device after a few retries,
// rather than hanging or ending as if the input were complete.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "calculators/video/opencv_camera_source_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/video_stream_header.h"
#include "glog/logging.h"

namespace rill {
namespace {

constexpr char kDeviceTag[] = "DEVICE";
constexpr char kVideoTag[] = "VIDEO";
constexpr char kVideoPrestreamTag[] = "VIDEO_PRESTREAM";
constexpr int kMaxFailedReads = 10;

class OpenCvCameraSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<OpenCvCameraSourceCalculatorOptions>();
    if (cc->InputSidePackets().HasTag(kDeviceTag)) {
      cc->InputSidePackets().Tag(kDeviceTag).Set<std::string>();
    }
    cc->Outputs().Tag(kVideoTag).Set<ImageFrame>();
    if (cc->Outputs().HasTag(kVideoPrestreamTag)) {
      cc->Outputs().Tag(kVideoPrestreamTag).Set<VideoHeader>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<OpenCvCameraSourceCalculatorOptions>();
    device_ = options_.device();
    if (cc->InputSidePackets().HasTag(kDeviceTag)) {
      device_ = cc->InputSidePackets().Tag(kDeviceTag).Get<std::string>();
    }
    where_ = absl::StrCat("OpenCvCameraSourceCalculator node \"",
                          cc->NodeName(), "\": ");
    int index = -1;
    std::string path = device_;
    if (absl::SimpleAtoi(device_, &index)) {
      path = absl::StrCat("/dev/video", index);
    }
    const bool opened = index >= 0 ? capture_.open(index, cv::CAP_V4L2)
                                   : capture_.open(path, cv::CAP_V4L2);
    if (!opened || !capture_.isOpened()) {
      return absl::UnavailableError(absl::StrCat(
          where_, "no camera: cannot open camera device \"", path,
          "\" (V4L2). Is a camera connected, and may this user open it?"));
    }
    if (options_.width() > 0) {
      capture_.set(cv::CAP_PROP_FRAME_WIDTH, options_.width());
    }
    if (options_.height() > 0) {
      capture_.set(cv::CAP_PROP_FRAME_HEIGHT, options_.height());
    }
    if (options_.fps() > 0) capture_.set(cv::CAP_PROP_FPS, options_.fps());
    if (cc->Outputs().HasTag(kVideoPrestreamTag)) {
      VideoHeader header;
      header.format = ImageFormat::SRGB;
      header.width = static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_WIDTH));
      header.height = static_cast<int>(capture_.get(cv::CAP_PROP_FRAME_HEIGHT));
      header.frame_rate = static_cast<float>(capture_.get(cv::CAP_PROP_FPS));
      auto& out = cc->Outputs().Tag(kVideoPrestreamTag);
      out.AddPacket(MakePacket<VideoHeader>(header).At(Timestamp::PreStream()));
      out.Close();
    }
    start_ = std::chrono::steady_clock::now();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (options_.max_frames() > 0 && frames_ >= options_.max_frames()) {
      return StatusStop();
    }
    int failures = 0;
    while (!capture_.read(bgr_) || bgr_.empty()) {
      if (++failures >= kMaxFailedReads) {
        // A live pipeline that loses its camera (unplugged, taken by
        // another process, driver reset) fails with a status saying so,
        // rather than ending as if the input were complete.
        return absl::UnavailableError(absl::StrCat(
            where_, "camera \"", device_, "\" stopped delivering frames after ",
            frames_, " frame", frames_ == 1 ? "" : "s", " (", kMaxFailedReads,
            " reads in a row failed: unplugged, or taken by another program?)"));
      }
    }
    int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - start_)
                     .count();
    if (frames_ > 0 && us <= last_us_) us = last_us_ + 1;
    last_us_ = us;
    ++frames_;
    ImageFrame frame(ImageFormat::SRGB, bgr_.cols, bgr_.rows);
    cv::Mat view = formats::MatView(&frame);
    cv::cvtColor(bgr_, view,
                 bgr_.channels() == 1 ? cv::COLOR_GRAY2RGB : cv::COLOR_BGR2RGB);
    cc->Outputs().Tag(kVideoTag).AddPacket(
        MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(us)));
    return absl::OkStatus();
  }

  absl::Status Close(CalculatorContext* cc) override {
    capture_.release();
    return absl::OkStatus();
  }

 private:
  OpenCvCameraSourceCalculatorOptions options_;
  std::string device_;
  std::string where_;
  cv::VideoCapture capture_;
  cv::Mat bgr_;
  std::chrono::steady_clock::time_point start_;
  int64_t frames_ = 0;
  int64_t last_us_ = 0;
};

}  // namespace

REGISTER_CALCULATOR(OpenCvCameraSourceCalculator);

}  // namespace rill
