// ImageFileSourceCalculator decodes one image file (PNG, JPEG, BMP, ... as
// OpenCV's imgcodecs reads them) and emits it once as an SRGB ImageFrame
// (SRGBA when the file has alpha and output_alpha is asked for by tagging
// the output IMAGE_RGBA) at Timestamp(0); then the stream ends.
//
//   node {
//     calculator: "ImageFileSourceCalculator"
//     input_side_packet: "FILE_PATH:image_path"
//     output_stream: "IMAGE:input_image"        # or IMAGE_RGBA:
//   }
//
// A missing or undecodable file fails Open() naming the node and the file.
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"

namespace rill {
namespace {

constexpr char kFilePathTag[] = "FILE_PATH";
constexpr char kImageTag[] = "IMAGE";
constexpr char kImageRgbaTag[] = "IMAGE_RGBA";

class ImageFileSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool rgb = cc->Outputs().HasTag(kImageTag);
    const bool rgba = cc->Outputs().HasTag(kImageRgbaTag);
    if (!cc->InputSidePackets().HasTag(kFilePathTag) || rgb == rgba) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageFileSourceCalculator node \"", cc->GetNodeName(),
          "\" needs a FILE_PATH input side packet and one IMAGE or "
          "IMAGE_RGBA output stream"));
    }
    cc->InputSidePackets().Tag(kFilePathTag).Set<std::string>();
    cc->Outputs().Tag(rgb ? kImageTag : kImageRgbaTag).Set<ImageFrame>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const std::string& path =
        cc->InputSidePackets().Tag(kFilePathTag).Get<std::string>();
    const std::string where = absl::StrCat("ImageFileSourceCalculator node \"",
                                           cc->NodeName(), "\": ");
    if (!std::ifstream(path).good()) {
      return absl::NotFoundError(absl::StrCat(where,
                                              "cannot read image file \"", path,
                                              "\" (missing or not readable)"));
    }
    const bool rgba = cc->Outputs().HasTag(kImageRgbaTag);
    cv::Mat decoded =
        cv::imread(path, rgba ? cv::IMREAD_UNCHANGED : cv::IMREAD_COLOR);
    if (decoded.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "cannot decode image file \"", path,
                       "\" (not an image OpenCV can read)"));
    }
    if (decoded.depth() != CV_8U) {
      decoded.convertTo(decoded, CV_8U,
                        decoded.depth() == CV_16U ? 1.0 / 257.0 : 1.0);
    }
    frame_ = ImageFrame(rgba ? ImageFormat::SRGBA : ImageFormat::SRGB,
                        decoded.cols, decoded.rows);
    cv::Mat view = formats::MatView(&frame_);
    const int channels = decoded.channels();
    int code;
    if (rgba) {
      code = channels == 1   ? cv::COLOR_GRAY2RGBA
             : channels == 3 ? cv::COLOR_BGR2RGBA
                             : cv::COLOR_BGRA2RGBA;
    } else {
      code = cv::COLOR_BGR2RGB;  // IMREAD_COLOR always gives 3 channels
    }
    cv::cvtColor(decoded, view, code);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (sent_) return StatusStop();
    sent_ = true;
    const char* tag =
        cc->Outputs().HasTag(kImageTag) ? kImageTag : kImageRgbaTag;
    cc->Outputs().Tag(tag).AddPacket(
        MakePacket<ImageFrame>(std::move(frame_)).At(Timestamp(0)));
    return absl::OkStatus();
  }

 private:
  ImageFrame frame_;
  bool sent_ = false;
};

}  // namespace

REGISTER_CALCULATOR(ImageFileSourceCalculator);

}  // namespace rill
