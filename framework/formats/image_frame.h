// ImageFrame is the CPU image carried in packets: a width x height grid of
// pixels in one ImageFormat (SRGB, SRGBA, GRAY8, VEC32F1, ...), rows
// `WidthStep()` bytes apart, owning its pixel buffer (aligned so that SIMD
// loads and OpenCV work without copies). It is move-only: a frame in a packet
// is shared by reference, never copied by accident; CopyFrom is explicit.
//
// OpenCV views (zero-copy cv::Mat) live in image_frame_opencv.h so this
// header does not pull OpenCV into every user.
#ifndef RILL_FRAMEWORK_FORMATS_IMAGE_FRAME_H_
#define RILL_FRAMEWORK_FORMATS_IMAGE_FRAME_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "framework/formats/image_format.pb.h"

namespace rill {

class ImageFrame {
 public:
  // Rows start on this boundary unless told otherwise (covers SSE/NEON and
  // OpenCV's preference; AVX users may ask for 32).
  static constexpr int kDefaultAlignmentBoundary = 16;

  using Deleter = std::function<void(uint8_t*)>;

  ImageFrame() = default;
  // Allocates (uninitialized) pixels. Every row starts on an
  // `alignment_boundary` (a power of two; 1 packs rows contiguously).
  ImageFrame(ImageFormat::Format format, int width, int height,
             int alignment_boundary = kDefaultAlignmentBoundary);
  // Wraps pixels owned elsewhere; `deleter` runs when the frame lets go.
  ImageFrame(
      ImageFormat::Format format, int width, int height, int width_step,
      uint8_t* pixel_data, Deleter deleter = [](uint8_t*) {});

  ImageFrame(ImageFrame&& other) noexcept;
  ImageFrame& operator=(ImageFrame&& other) noexcept;
  ImageFrame(const ImageFrame&) = delete;
  ImageFrame& operator=(const ImageFrame&) = delete;
  ~ImageFrame();

  void Reset(ImageFormat::Format format, int width, int height,
             int alignment_boundary = kDefaultAlignmentBoundary);
  void AdoptPixelData(
      ImageFormat::Format format, int width, int height, int width_step,
      uint8_t* pixel_data, Deleter deleter = [](uint8_t*) {});
  // Deep copy of `other` (fresh buffer with the given row alignment).
  void CopyFrom(const ImageFrame& other, int alignment_boundary);
  void CopyFrom(const ImageFrame& other) {
    CopyFrom(other, kDefaultAlignmentBoundary);
  }
  // Copies pixels from a buffer laid out like this frame but with rows
  // `width_step` bytes apart.
  void CopyPixelData(ImageFormat::Format format, int width, int height,
                     int width_step, const uint8_t* pixel_data,
                     int alignment_boundary = kDefaultAlignmentBoundary);
  // Writes pixels into `buffer` packed row after row (no padding).
  void CopyToBuffer(uint8_t* buffer, int buffer_size) const;
  void CopyToBuffer(float* buffer, int buffer_size) const;
  void SetToZero();
  // Zeroes the bytes between the end of each row's pixels and WidthStep().
  void SetAlignmentPaddingAreas();

  bool IsEmpty() const { return pixel_data_ == nullptr; }
  ImageFormat::Format Format() const { return format_; }
  int Width() const { return width_; }
  int Height() const { return height_; }
  // Bytes from the start of one row to the next.
  int WidthStep() const { return width_step_; }
  int NumberOfChannels() const { return NumberOfChannelsForFormat(format_); }
  // Bytes per channel value (1 for uint8, 2 for uint16, 4 for float).
  int ByteDepth() const { return ByteDepthForFormat(format_); }
  int ChannelSize() const { return ByteDepth(); }
  int PixelBytes() const { return NumberOfChannels() * ByteDepth(); }
  // Bytes covered by the buffer, padding included.
  int PixelDataSize() const { return width_step_ * height_; }
  // Bytes of pixels without padding.
  int PixelDataSizeStoredContiguously() const {
    return width_ * height_ * PixelBytes();
  }
  bool IsContiguous() const { return width_step_ == width_ * PixelBytes(); }
  bool IsAligned(uint32_t alignment_boundary) const;

  const uint8_t* PixelData() const { return pixel_data_; }
  uint8_t* MutablePixelData() { return pixel_data_; }
  const uint8_t* Row(int y) const { return pixel_data_ + y * width_step_; }
  uint8_t* MutableRow(int y) { return pixel_data_ + y * width_step_; }

  std::string DebugString() const;

  // Channels per pixel / bytes per channel of `format` (0 for formats an
  // ImageFrame cannot hold, such as YCBCR420P).
  static int NumberOfChannelsForFormat(ImageFormat::Format format);
  static int ByteDepthForFormat(ImageFormat::Format format);
  static bool IsValidFormat(ImageFormat::Format format) {
    return NumberOfChannelsForFormat(format) > 0;
  }
  static const char* FormatName(ImageFormat::Format format);

 private:
  void Release();

  ImageFormat::Format format_ = ImageFormat::UNKNOWN;
  int width_ = 0;
  int height_ = 0;
  int width_step_ = 0;
  uint8_t* pixel_data_ = nullptr;
  Deleter deleter_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_FORMATS_IMAGE_FRAME_H_
