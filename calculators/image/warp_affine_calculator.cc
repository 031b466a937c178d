// WarpAffineCalculator resamples an image through an affine map, as
// MediaPipe's: MATRIX (std::array<float, 16>, a 4x4 row-major matrix) maps a
// point of the output, in coordinates normalized to [0, 1] of the output's
// size, to the point of the input it takes its value from (normalized to the
// input's size). With the inverse of ImageToTensorCalculator's MATRIX, it
// puts something computed on a model's input tensor (a segmentation mask)
// back onto the image.
//
//   node {
//     calculator: "WarpAffineCalculator"
//     input_stream: "IMAGE:roi_mask"              # Image or ImageFrame
//     input_stream: "MATRIX:inverse_matrix"       # std::array<float, 16>
//     input_stream: "OUTPUT_SIZE:image_size"      # std::pair<int, int> (w, h)
//     output_stream: "IMAGE:mask"                 # same type as IMAGE
//   }
//
// Any ImageFrame format OpenCV can warp (8-bit and float, 1 to 4 channels).
// Pixel (x, y) is sampled at integer coordinates of the normalized map
// scaled by the sizes, as MediaPipe's CPU path does (OpenCV convention).
#include <array>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/image/warp_affine_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kMatrixTag[] = "MATRIX";
constexpr char kOutputSizeTag[] = "OUTPUT_SIZE";

using Options = WarpAffineCalculatorOptions;

class WarpAffineCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<Options>();
    if (!cc->Inputs().HasTag(kImageTag) || !cc->Inputs().HasTag(kMatrixTag) ||
        !cc->Inputs().HasTag(kOutputSizeTag) ||
        !cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(
          "WarpAffineCalculator needs inputs IMAGE, MATRIX and OUTPUT_SIZE "
          "and output IMAGE");
    }
    cc->Inputs().Tag(kImageTag).SetAny();
    cc->Inputs().Tag(kMatrixTag).Set<std::array<float, 16>>();
    cc->Inputs().Tag(kOutputSizeTag).Set<std::pair<int, int>>();
    cc->Outputs().Tag(kImageTag).SetSameAs(&cc->Inputs().Tag(kImageTag));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(TimestampDiff(0));
    const Options& o = cc->Options<Options>();
    border_ = o.border_mode() == Options::BORDER_ZERO ? cv::BORDER_CONSTANT
                                                      : cv::BORDER_REPLICATE;
    switch (o.interpolation()) {
      case Options::INTER_CUBIC:
        interpolation_ = cv::INTER_CUBIC;
        break;
      case Options::INTER_NEAREST:
        interpolation_ = cv::INTER_NEAREST;
        break;
      default:
        interpolation_ = cv::INTER_LINEAR;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& in = cc->Inputs().Tag(kImageTag).Value();
    if (in.IsEmpty() || cc->Inputs().Tag(kMatrixTag).IsEmpty() ||
        cc->Inputs().Tag(kOutputSizeTag).IsEmpty()) {
      return absl::OkStatus();  // nothing to warp at this timestamp
    }
    const bool is_image = in.ValidateAsType<Image>().ok();
    const ImageFrame* frame = nullptr;
    if (is_image) {
      frame = in.Get<Image>().GetImageFrameSharedPtr().get();
    } else if (in.ValidateAsType<ImageFrame>().ok()) {
      frame = &in.Get<ImageFrame>();
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "WarpAffineCalculator: IMAGE must hold an Image or an ImageFrame, "
          "got ",
          in.DebugTypeName()));
    }
    if (frame == nullptr || frame->Width() <= 0 || frame->Height() <= 0) {
      return absl::InvalidArgumentError(
          "WarpAffineCalculator: IMAGE holds no pixels");
    }
    const auto& size = cc->Inputs().Tag(kOutputSizeTag).Get<std::pair<int, int>>();
    if (size.first <= 0 || size.second <= 0 || size.first > 1 << 15 ||
        size.second > 1 << 15) {
      return absl::InvalidArgumentError(
          absl::StrCat("WarpAffineCalculator: OUTPUT_SIZE ", size.first, "x",
                       size.second, " is not a usable image size"));
    }
    const auto& m = cc->Inputs().Tag(kMatrixTag).Get<std::array<float, 16>>();
    // Absolute map: input pixels = S_in * M * N_out * output pixels, with
    // N_out normalizing the output's pixels and S_in scaling to the input's.
    const double sx = frame->Width(), sy = frame->Height();
    const double nx = 1.0 / size.first, ny = 1.0 / size.second;
    cv::Matx23d map(sx * m[0] * nx, sx * m[1] * ny, sx * m[3],  //
                    sy * m[4] * nx, sy * m[5] * ny, sy * m[7]);
    auto out = std::make_shared<ImageFrame>(frame->Format(), size.first,
                                            size.second);
    const cv::Mat src = formats::MatView(frame);
    cv::Mat dst = formats::MatView(out.get());
    cv::warpAffine(src, dst, cv::Mat(map), dst.size(),
                   interpolation_ | cv::WARP_INVERSE_MAP, border_,
                   cv::Scalar::all(0));
    if (is_image) {
      cc->Outputs().Tag(kImageTag).Add(new Image(std::move(out)),
                                       cc->InputTimestamp());
    } else {
      cc->Outputs().Tag(kImageTag).Add(new ImageFrame(std::move(*out)),
                                       cc->InputTimestamp());
    }
    return absl::OkStatus();
  }

 private:
  int border_ = cv::BORDER_REPLICATE;
  int interpolation_ = cv::INTER_LINEAR;
};
REGISTER_CALCULATOR(WarpAffineCalculator);

}  // namespace
}  // namespace rill
