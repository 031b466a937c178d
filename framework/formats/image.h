// Image is MediaPipe's "any backend" image handle. Rill has CPU images only,
// so an Image is a shared reference to one ImageFrame: copying an Image is
// cheap and shares the pixels. ToImageCalculator / FromImageCalculator
// convert between IMAGE (Image) and IMAGE_CPU (ImageFrame) streams.
#ifndef RILL_FRAMEWORK_FORMATS_IMAGE_H_
#define RILL_FRAMEWORK_FORMATS_IMAGE_H_

#include <memory>
#include <utility>

#include "framework/formats/image_frame.h"

namespace rill {

class Image {
 public:
  Image() = default;
  explicit Image(std::shared_ptr<ImageFrame> frame)
      : frame_(std::move(frame)) {}
  explicit Image(ImageFrame&& frame)
      : frame_(std::make_shared<ImageFrame>(std::move(frame))) {}

  bool IsEmpty() const { return frame_ == nullptr || frame_->IsEmpty(); }
  int width() const { return frame_ ? frame_->Width() : 0; }
  int height() const { return frame_ ? frame_->Height() : 0; }
  int channels() const { return frame_ ? frame_->NumberOfChannels() : 0; }
  int step() const { return frame_ ? frame_->WidthStep() : 0; }
  ImageFormat::Format image_format() const {
    return frame_ ? frame_->Format() : ImageFormat::UNKNOWN;
  }
  // Always false: there is no GPU storage in Rill.
  bool UsesGpu() const { return false; }

  std::shared_ptr<ImageFrame> GetImageFrameSharedPtr() const { return frame_; }

 private:
  std::shared_ptr<ImageFrame> frame_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_FORMATS_IMAGE_H_
