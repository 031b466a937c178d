// ImageFileSinkCalculator writes the ImageFrames of its IMAGE stream to image
// files (PNG, JPEG, BMP, ... by the file name's extension, through OpenCV's
// imgcodecs): the file of `rill run --output=out.png`, or a numbered series.
//
//   node {
//     calculator: "ImageFileSinkCalculator"
//     input_stream: "IMAGE:output_image"         # SRGB, SRGBA or GRAY8
//     input_side_packet: "FILE_PATH:output_path"  # "out.png" or
//     "frame_%05d.png"
//   }
//
// A path with a printf integer conversion (%d, %05d, ...) names one file per
// frame (0, 1, 2, ...); a plain path is rewritten by every frame, so it
// holds the last one. A file that cannot be written fails the run with a
// message naming the node and the file.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kFilePathTag[] = "FILE_PATH";

// The file for frame `index`: the pattern with its %d filled in, or the
// path itself.
std::string FrameFileName(const std::string& path, int64_t index) {
  const size_t percent = path.find('%');
  if (percent == std::string::npos) return path;
  std::vector<char> buffer(path.size() + 32);
  std::snprintf(buffer.data(), buffer.size(), path.c_str(),
                static_cast<int>(index));
  return std::string(buffer.data());
}

class ImageFileSinkCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kImageTag) ||
        !cc->InputSidePackets().HasTag(kFilePathTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageFileSinkCalculator node \"", cc->GetNodeName(),
          "\" needs an IMAGE input stream and a FILE_PATH input side packet"));
    }
    cc->Inputs().Tag(kImageTag).Set<ImageFrame>();
    cc->InputSidePackets().Tag(kFilePathTag).Set<std::string>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    path_ = cc->InputSidePackets().Tag(kFilePathTag).Get<std::string>();
    where_ =
        absl::StrCat("ImageFileSinkCalculator node \"", cc->NodeName(), "\": ");
    const size_t percent = path_.find('%');
    if (percent != std::string::npos) {
      // Exactly one integer conversion, so snprintf reads one int.
      const size_t end = path_.find_first_of("diu", percent);
      if (end == std::string::npos ||
          path_.find('%', percent + 1) != std::string::npos ||
          path_.find_first_not_of("0123456789", percent + 1) != end) {
        return absl::InvalidArgumentError(absl::StrCat(
            where_, "file path \"", path_,
            "\" may hold one integer conversion such as %05d, and no other "
            "'%'"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kImageTag);
    if (in.IsEmpty()) return absl::OkStatus();
    const ImageFrame& frame = in.Get<ImageFrame>();
    const cv::Mat view = formats::MatView(&frame);
    switch (frame.Format()) {
      case ImageFormat::SRGB:
        cv::cvtColor(view, bgr_, cv::COLOR_RGB2BGR);
        break;
      case ImageFormat::SRGBA:
        cv::cvtColor(view, bgr_, cv::COLOR_RGBA2BGRA);
        break;
      case ImageFormat::GRAY8:
        bgr_ = view;
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat(where_, "cannot write ", frame.DebugString(),
                         " (SRGB, SRGBA or GRAY8 only)"));
    }
    const std::string file = FrameFileName(path_, index_++);
    bool written = false;
    try {
      written = cv::imwrite(file, bgr_);
    } catch (const cv::Exception& e) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "cannot write image file \"", file, "\": ", e.what()));
    }
    if (!written) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "cannot write image file \"", file,
          "\" (is the directory writable and the extension an image "
          "format?)"));
    }
    return absl::OkStatus();
  }

 private:
  std::string path_;
  std::string where_;
  cv::Mat bgr_;
  int64_t index_ = 0;
};

}  // namespace

REGISTER_CALCULATOR(ImageFileSinkCalculator);

}  // namespace rill
