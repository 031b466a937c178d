// Zero-copy OpenCV views of an ImageFrame: the cv::Mat shares the frame's
// pixels (same rows, same step), so drawing on the view draws on the frame.
// The frame must outlive the view. SRGB stays RGB order in the view (OpenCV
// calls it BGR; convert with cv::cvtColor when reading or writing files).
#ifndef RILL_FRAMEWORK_FORMATS_IMAGE_FRAME_OPENCV_H_
#define RILL_FRAMEWORK_FORMATS_IMAGE_FRAME_OPENCV_H_

#include <opencv2/core.hpp>

#include "framework/formats/image_frame.h"

namespace rill {
namespace formats {

// The cv::Mat type (CV_8UC3, CV_32FC1, ...) of an ImageFrame format; -1 for
// formats without one.
int GetMatType(ImageFormat::Format format);

// A writable view of `frame`'s pixels.
cv::Mat MatView(ImageFrame* frame);
// A view of `frame`'s pixels that the caller promises not to write.
const cv::Mat MatView(const ImageFrame* frame);

// The ImageFormat of a cv::Mat type for `channels` interpreted as RGB(A)
// (UNKNOWN when none fits).
ImageFormat::Format FormatForMatType(int mat_type);

// A new frame holding a copy of `mat` (`format` must match its type).
ImageFrame FromMat(const cv::Mat& mat, ImageFormat::Format format);

}  // namespace formats
}  // namespace rill

#endif  // RILL_FRAMEWORK_FORMATS_IMAGE_FRAME_OPENCV_H_
