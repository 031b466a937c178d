#include "framework/formats/image_frame.h"

#include <cstdint>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <utility>
#include <vector>

#include "framework/formats/image.h"
#include "framework/formats/image_frame_opencv.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

TEST(ImageFrameTest, LayoutOfEachFormat) {
  struct Case {
    ImageFormat::Format format;
    int channels, depth;
  } cases[] = {{ImageFormat::SRGB, 3, 1},
               {ImageFormat::SRGBA, 4, 1},
               {ImageFormat::GRAY8, 1, 1},
               {ImageFormat::VEC32F1, 1, 4}};
  for (const Case& c : cases) {
    ImageFrame f(c.format, 7, 5);
    EXPECT_EQ(f.NumberOfChannels(), c.channels);
    EXPECT_EQ(f.ByteDepth(), c.depth);
    EXPECT_EQ(f.Width(), 7);
    EXPECT_EQ(f.Height(), 5);
    // Rows padded to the 16-byte boundary, and the buffer aligned.
    EXPECT_EQ(f.WidthStep() % 16, 0);
    EXPECT_GE(f.WidthStep(), 7 * c.channels * c.depth);
    EXPECT_LT(f.WidthStep(), 7 * c.channels * c.depth + 16);
    EXPECT_TRUE(f.IsAligned(16));
  }
}

TEST(ImageFrameTest, AlignmentOneIsContiguous) {
  ImageFrame f(ImageFormat::SRGB, 7, 5, 1);
  EXPECT_EQ(f.WidthStep(), 21);
  EXPECT_TRUE(f.IsContiguous());
  EXPECT_EQ(f.PixelDataSize(), 105);
}

TEST(ImageFrameTest, MoveTransfersOwnership) {
  ImageFrame a(ImageFormat::GRAY8, 4, 4);
  const uint8_t* pixels = a.PixelData();
  ImageFrame b(std::move(a));
  EXPECT_TRUE(a.IsEmpty());
  EXPECT_EQ(b.PixelData(), pixels);
  ImageFrame c;
  c = std::move(b);
  EXPECT_EQ(c.PixelData(), pixels);
}

TEST(ImageFrameTest, AdoptCallsDeleterOnce) {
  int deleted = 0;
  std::vector<uint8_t> storage(3 * 2 * 3);
  {
    ImageFrame f(ImageFormat::SRGB, 3, 2, 9, storage.data(), [&](uint8_t* p) {
      EXPECT_EQ(p, storage.data());
      ++deleted;
    });
    ImageFrame g(std::move(f));
  }
  EXPECT_EQ(deleted, 1);
}

TEST(ImageFrameTest, CopyFromAndCopyToBuffer) {
  ImageFrame a(ImageFormat::GRAY8, 3, 2);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x) a.MutableRow(y)[x] = y * 10 + x;
  ImageFrame b;
  b.CopyFrom(a, 1);
  EXPECT_EQ(b.WidthStep(), 3);
  uint8_t out[6];
  b.CopyToBuffer(out, 6);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 6),
            (std::vector<uint8_t>{0, 1, 2, 10, 11, 12}));
}

TEST(ImageFrameOpenCvTest, MatViewSharesPixels) {
  ImageFrame f(ImageFormat::SRGB, 10, 6);
  f.SetToZero();
  cv::Mat view = formats::MatView(&f);
  EXPECT_EQ(view.type(), CV_8UC3);
  EXPECT_EQ(view.data, f.PixelData());
  EXPECT_EQ(static_cast<int>(view.step), f.WidthStep());
  cv::rectangle(view, cv::Point(2, 1), cv::Point(3, 2), cv::Scalar(255, 0, 0),
                cv::FILLED);
  EXPECT_EQ(f.Row(1)[2 * 3 + 0], 255);
  EXPECT_EQ(f.Row(1)[2 * 3 + 1], 0);
  EXPECT_EQ(f.Row(0)[0], 0);

  ImageFrame mask(ImageFormat::VEC32F1, 4, 4);
  const ImageFrame& cmask = mask;
  EXPECT_EQ(formats::MatView(&cmask).type(), CV_32FC1);
}

TEST(ImageFrameOpenCvTest, FromMatCopies) {
  cv::Mat m(3, 5, CV_8UC4, cv::Scalar(1, 2, 3, 4));
  ImageFrame f = formats::FromMat(m, ImageFormat::SRGBA);
  EXPECT_EQ(f.Width(), 5);
  EXPECT_EQ(f.Height(), 3);
  EXPECT_EQ(f.Row(2)[4 * 4 + 3], 4);
  EXPECT_NE(static_cast<const void*>(f.PixelData()),
            static_cast<const void*>(m.data));
}

TEST(ImageTest, WrapsSharedFrame) {
  Image image(ImageFrame(ImageFormat::SRGBA, 8, 2));
  Image copy = image;
  EXPECT_EQ(copy.GetImageFrameSharedPtr(), image.GetImageFrameSharedPtr());
  EXPECT_EQ(image.width(), 8);
  EXPECT_EQ(image.channels(), 4);
  EXPECT_EQ(image.image_format(), ImageFormat::SRGBA);
  EXPECT_FALSE(image.UsesGpu());
}

}  // namespace
}  // namespace rill
