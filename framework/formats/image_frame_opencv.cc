#include "framework/formats/image_frame_opencv.h"

#include "glog/logging.h"

namespace rill {
namespace formats {

int GetMatType(ImageFormat::Format format) {
  switch (format) {
    case ImageFormat::GRAY8:
      return CV_8UC1;
    case ImageFormat::GRAY16:
      return CV_16UC1;
    case ImageFormat::SRGB:
    case ImageFormat::LAB8:
      return CV_8UC3;
    case ImageFormat::SRGBA:
    case ImageFormat::SBGRA:
      return CV_8UC4;
    case ImageFormat::SRGB48:
      return CV_16UC3;
    case ImageFormat::SRGBA64:
      return CV_16UC4;
    case ImageFormat::VEC32F1:
      return CV_32FC1;
    case ImageFormat::VEC32F2:
      return CV_32FC2;
    case ImageFormat::VEC32F4:
      return CV_32FC4;
    default:
      return -1;
  }
}

ImageFormat::Format FormatForMatType(int mat_type) {
  switch (mat_type) {
    case CV_8UC1:
      return ImageFormat::GRAY8;
    case CV_16UC1:
      return ImageFormat::GRAY16;
    case CV_8UC3:
      return ImageFormat::SRGB;
    case CV_8UC4:
      return ImageFormat::SRGBA;
    case CV_16UC3:
      return ImageFormat::SRGB48;
    case CV_16UC4:
      return ImageFormat::SRGBA64;
    case CV_32FC1:
      return ImageFormat::VEC32F1;
    case CV_32FC2:
      return ImageFormat::VEC32F2;
    case CV_32FC4:
      return ImageFormat::VEC32F4;
    default:
      return ImageFormat::UNKNOWN;
  }
}

cv::Mat MatView(ImageFrame* frame) {
  const int type = GetMatType(frame->Format());
  CHECK_GE(type, 0) << "no cv::Mat type for " << frame->DebugString();
  return cv::Mat(frame->Height(), frame->Width(), type,
                 frame->MutablePixelData(), frame->WidthStep());
}

const cv::Mat MatView(const ImageFrame* frame) {
  const int type = GetMatType(frame->Format());
  CHECK_GE(type, 0) << "no cv::Mat type for " << frame->DebugString();
  // cv::Mat has no const-pixel form; the const return is the promise.
  return cv::Mat(frame->Height(), frame->Width(), type,
                 const_cast<uint8_t*>(frame->PixelData()), frame->WidthStep());
}

ImageFrame FromMat(const cv::Mat& mat, ImageFormat::Format format) {
  CHECK_EQ(GetMatType(format), mat.type())
      << "cv::Mat type does not match " << ImageFrame::FormatName(format);
  ImageFrame frame(format, mat.cols, mat.rows);
  mat.copyTo(MatView(&frame));
  return frame;
}

}  // namespace formats
}  // namespace rill
