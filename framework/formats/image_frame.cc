#include "framework/formats/image_frame.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"

namespace rill {
namespace {

bool IsPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

void AlignedFree(uint8_t* p) { std::free(p); }

}  // namespace

int ImageFrame::NumberOfChannelsForFormat(ImageFormat::Format format) {
  switch (format) {
    case ImageFormat::GRAY8:
    case ImageFormat::GRAY16:
    case ImageFormat::VEC32F1:
      return 1;
    case ImageFormat::VEC32F2:
      return 2;
    case ImageFormat::SRGB:
    case ImageFormat::SRGB48:
    case ImageFormat::LAB8:
      return 3;
    case ImageFormat::SRGBA:
    case ImageFormat::SRGBA64:
    case ImageFormat::SBGRA:
    case ImageFormat::VEC32F4:
      return 4;
    default:
      return 0;
  }
}

int ImageFrame::ByteDepthForFormat(ImageFormat::Format format) {
  switch (format) {
    case ImageFormat::GRAY8:
    case ImageFormat::SRGB:
    case ImageFormat::SRGBA:
    case ImageFormat::SBGRA:
    case ImageFormat::LAB8:
      return 1;
    case ImageFormat::GRAY16:
    case ImageFormat::SRGB48:
    case ImageFormat::SRGBA64:
      return 2;
    case ImageFormat::VEC32F1:
    case ImageFormat::VEC32F2:
    case ImageFormat::VEC32F4:
      return 4;
    default:
      return 0;
  }
}

const char* ImageFrame::FormatName(ImageFormat::Format format) {
  if (!ImageFormat::Format_IsValid(format)) return "INVALID";
  return ImageFormat::Format_Name(format).c_str();
}

ImageFrame::ImageFrame(ImageFormat::Format format, int width, int height,
                       int alignment_boundary) {
  Reset(format, width, height, alignment_boundary);
}

ImageFrame::ImageFrame(ImageFormat::Format format, int width, int height,
                       int width_step, uint8_t* pixel_data, Deleter deleter) {
  AdoptPixelData(format, width, height, width_step, pixel_data,
                 std::move(deleter));
}

ImageFrame::ImageFrame(ImageFrame&& other) noexcept {
  *this = std::move(other);
}

ImageFrame& ImageFrame::operator=(ImageFrame&& other) noexcept {
  if (this != &other) {
    Release();
    format_ = other.format_;
    width_ = other.width_;
    height_ = other.height_;
    width_step_ = other.width_step_;
    pixel_data_ = other.pixel_data_;
    deleter_ = std::move(other.deleter_);
    other.pixel_data_ = nullptr;
    other.deleter_ = nullptr;
    other.format_ = ImageFormat::UNKNOWN;
    other.width_ = other.height_ = other.width_step_ = 0;
  }
  return *this;
}

ImageFrame::~ImageFrame() { Release(); }

void ImageFrame::Release() {
  if (pixel_data_ != nullptr && deleter_) deleter_(pixel_data_);
  pixel_data_ = nullptr;
  deleter_ = nullptr;
}

void ImageFrame::Reset(ImageFormat::Format format, int width, int height,
                       int alignment_boundary) {
  CHECK(IsValidFormat(format))
      << "ImageFrame cannot hold format " << FormatName(format);
  CHECK(IsPowerOfTwo(alignment_boundary))
      << "alignment boundary " << alignment_boundary
      << " is not a power of two";
  CHECK_GE(width, 0);
  CHECK_GE(height, 0);
  Release();
  format_ = format;
  width_ = width;
  height_ = height;
  const int row_bytes =
      width * NumberOfChannelsForFormat(format) * ByteDepthForFormat(format);
  width_step_ = (row_bytes + alignment_boundary - 1) / alignment_boundary *
                alignment_boundary;
  // Every row starts aligned because the buffer does and the step is a
  // multiple of the boundary. posix_memalign needs at least sizeof(void*).
  const size_t align = alignment_boundary < static_cast<int>(sizeof(void*))
                           ? sizeof(void*)
                           : alignment_boundary;
  size_t bytes = static_cast<size_t>(width_step_) * height;
  if (bytes == 0) bytes = align;
  void* p = nullptr;
  CHECK_EQ(posix_memalign(&p, align, bytes), 0)
      << "out of memory allocating " << bytes << " bytes for " << DebugString();
  pixel_data_ = static_cast<uint8_t*>(p);
  deleter_ = AlignedFree;
}

void ImageFrame::AdoptPixelData(ImageFormat::Format format, int width,
                                int height, int width_step, uint8_t* pixel_data,
                                Deleter deleter) {
  CHECK(IsValidFormat(format))
      << "ImageFrame cannot hold format " << FormatName(format);
  CHECK_GE(width_step, width * NumberOfChannelsForFormat(format) *
                           ByteDepthForFormat(format));
  Release();
  format_ = format;
  width_ = width;
  height_ = height;
  width_step_ = width_step;
  pixel_data_ = pixel_data;
  deleter_ = std::move(deleter);
}

void ImageFrame::CopyPixelData(ImageFormat::Format format, int width,
                               int height, int width_step,
                               const uint8_t* pixel_data,
                               int alignment_boundary) {
  Reset(format, width, height, alignment_boundary);
  const int row_bytes = width * PixelBytes();
  for (int y = 0; y < height; ++y) {
    std::memcpy(MutableRow(y), pixel_data + static_cast<size_t>(y) * width_step,
                row_bytes);
  }
  SetAlignmentPaddingAreas();
}

void ImageFrame::CopyFrom(const ImageFrame& other, int alignment_boundary) {
  CHECK_NE(&other, this);
  CopyPixelData(other.Format(), other.Width(), other.Height(),
                other.WidthStep(), other.PixelData(), alignment_boundary);
}

void ImageFrame::CopyToBuffer(uint8_t* buffer, int buffer_size) const {
  CHECK_EQ(ByteDepth(), 1) << "CopyToBuffer(uint8_t*) on " << DebugString();
  const int row_bytes = width_ * PixelBytes();
  CHECK_GE(buffer_size, row_bytes * height_);
  for (int y = 0; y < height_; ++y) {
    std::memcpy(buffer + static_cast<size_t>(y) * row_bytes, Row(y), row_bytes);
  }
}

void ImageFrame::CopyToBuffer(float* buffer, int buffer_size) const {
  CHECK_EQ(ByteDepth(), 4) << "CopyToBuffer(float*) on " << DebugString();
  const int row_floats = width_ * NumberOfChannels();
  CHECK_GE(buffer_size, row_floats * height_);
  for (int y = 0; y < height_; ++y) {
    std::memcpy(buffer + static_cast<size_t>(y) * row_floats, Row(y),
                row_floats * sizeof(float));
  }
}

void ImageFrame::SetToZero() {
  if (pixel_data_ != nullptr) std::memset(pixel_data_, 0, PixelDataSize());
}

void ImageFrame::SetAlignmentPaddingAreas() {
  const int row_bytes = width_ * PixelBytes();
  if (pixel_data_ == nullptr || row_bytes == width_step_) return;
  for (int y = 0; y < height_; ++y) {
    std::memset(MutableRow(y) + row_bytes, 0, width_step_ - row_bytes);
  }
}

bool ImageFrame::IsAligned(uint32_t alignment_boundary) const {
  if (pixel_data_ == nullptr || alignment_boundary == 0) return false;
  return reinterpret_cast<uintptr_t>(pixel_data_) % alignment_boundary == 0 &&
         width_step_ % alignment_boundary == 0;
}

std::string ImageFrame::DebugString() const {
  return absl::StrCat("ImageFrame(", FormatName(format_), " ", width_, "x",
                      height_, ", step ", width_step_, ")");
}

}  // namespace rill
