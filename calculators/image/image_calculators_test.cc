// Tests of the image calculators: file source, transformation, Image
// conversion, recolor.
#include <array>
#include <cstdlib>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/require.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

constexpr char kAstronaut[] = "third_party/media/astronaut.png";

// A w x h SRGB frame where pixel (x, y) is (x, y, 7).
ImageFrame Gradient(int w, int h) {
  ImageFrame f(ImageFormat::SRGB, w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint8_t* p = f.MutableRow(y) + 3 * x;
      p[0] = x;
      p[1] = y;
      p[2] = 7;
    }
  }
  return f;
}

const uint8_t* Pixel(const ImageFrame& f, int x, int y) {
  return f.Row(y) + x * f.NumberOfChannels();
}

absl::StatusOr<StreamPackets> Transform(const std::string& options,
                                        ImageFrame input,
                                        const std::string& extra = "") {
  std::vector<Packet> in;
  in.push_back(MakePacket<ImageFrame>(std::move(input)).At(Timestamp(1)));
  return RunGraph(
      R"pb(
            input_stream: "in"
            node { calculator: "ImageTransformationCalculator"
                   input_stream: "IMAGE:in"
                   output_stream: "IMAGE:out"
                   output_stream: "LETTERBOX_PADDING:padding"
      )pb" +
          extra + R"pb(
            options {
              [mediapipe.ImageTransformationCalculatorOptions.ext] {)pb" +
          options + R"pb(}
                         }
    })pb",
      {"out", "padding"}, {{"in", in}});
}

TEST(ImageFileSourceCalculatorTest, DecodesToRgb) {
  RILL_REQUIRE(std::ifstream(kAstronaut).good(), kAstronaut << " is missing: run scripts/fetch_models.sh");
  auto out =
      RunGraph(R"pb(
                 input_side_packet: "path"
                 node {
                   calculator: "ImageFileSourceCalculator"
                   input_side_packet: "FILE_PATH:path"
                   output_stream: "IMAGE:image"
                 })pb",
               {"image"}, {}, {{"path", MakePacket<std::string>(kAstronaut)}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["image"].size(), 1u);
  const ImageFrame& f = (*out)["image"][0].Get<ImageFrame>();
  const cv::Mat bgr = cv::imread(kAstronaut, cv::IMREAD_COLOR);
  ASSERT_EQ(f.Width(), bgr.cols);
  ASSERT_EQ(f.Height(), bgr.rows);
  EXPECT_EQ(f.Format(), ImageFormat::SRGB);
  for (int y : {0, 100, 300}) {
    for (int x : {0, 200, 400}) {
      const cv::Vec3b v = bgr.at<cv::Vec3b>(y, x);
      EXPECT_EQ(Pixel(f, x, y)[0], v[2]);  // R
      EXPECT_EQ(Pixel(f, x, y)[2], v[0]);  // B
    }
  }
}

TEST(ImageFileSourceCalculatorTest, MissingFileNamesNodeAndFile) {
  auto out = RunGraph(
      R"pb(
        input_side_packet: "path"
        node {
          name: "image_source"
          calculator: "ImageFileSourceCalculator"
          input_side_packet: "FILE_PATH:path"
          output_stream: "IMAGE:image"
        })pb",
      {"image"}, {}, {{"path", MakePacket<std::string>("/no/such/image.png")}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("image_source"));
  EXPECT_THAT(out.status().message(), HasSubstr("/no/such/image.png"));
}

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

constexpr char kSinkGraph[] = R"pb(
  input_stream: "image"
  input_side_packet: "path"
  node {
    name: "sink"
    calculator: "ImageFileSinkCalculator"
    input_stream: "IMAGE:image"
    input_side_packet: "FILE_PATH:path"
  })pb";

TEST(ImageFileSinkCalculatorTest, WritesNumberedPngsThatReadBackExactly) {
  std::vector<Packet> frames;
  for (int i = 0; i < 3; ++i) {
    ImageFrame f = Gradient(6, 4);
    f.MutableRow(0)[0] = 100 + i;
    frames.push_back(MakePacket<ImageFrame>(std::move(f)).At(Timestamp(i)));
  }
  const std::string pattern = TmpDir() + "/sink_%03d.png";
  auto out = RunGraph(kSinkGraph, {}, {{"image", frames}},
                      {{"path", MakePacket<std::string>(pattern)}});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 3; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "/sink_%03d.png", i);
    const cv::Mat bgr = cv::imread(TmpDir() + name, cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty()) << name;
    EXPECT_EQ(bgr.cols, 6);
    EXPECT_EQ(bgr.at<cv::Vec3b>(0, 0)[2], 100 + i);  // R, lossless
    EXPECT_EQ(bgr.at<cv::Vec3b>(3, 5), cv::Vec3b(7, 3, 5));
  }
}

TEST(ImageFileSinkCalculatorTest, UnwritableFileAndBadPatternAreClear) {
  std::vector<Packet> frames = {
      MakePacket<ImageFrame>(Gradient(2, 2)).At(Timestamp(0))};
  auto out =
      RunGraph(kSinkGraph, {}, {{"image", frames}},
               {{"path", MakePacket<std::string>("/no/such/dir/out.png")}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("sink"));
  EXPECT_THAT(out.status().message(), HasSubstr("/no/such/dir/out.png"));
  auto bad = RunGraph(kSinkGraph, {}, {{"image", frames}},
                      {{"path", MakePacket<std::string>("out_%s.png")}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("out_%s.png"));
}

TEST(ImageTransformationCalculatorTest, Rotate90IsCounterclockwise) {
  auto out = Transform("rotation_mode: ROTATION_90", Gradient(4, 3));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  ASSERT_EQ(f.Width(), 3);
  ASSERT_EQ(f.Height(), 4);
  // Counterclockwise: the input's top-right corner (3, 0) goes to the
  // top-left; its top-left (0, 0) to the bottom-left.
  EXPECT_EQ(Pixel(f, 0, 0)[0], 3);
  EXPECT_EQ(Pixel(f, 0, 0)[1], 0);
  EXPECT_EQ(Pixel(f, 0, 3)[0], 0);
  EXPECT_EQ(Pixel(f, 0, 3)[1], 0);
  EXPECT_EQ((*out)["out"][0].Timestamp(), Timestamp(1));
}

TEST(ImageTransformationCalculatorTest, RotationDegreesStreamAndFlip) {
  std::vector<Packet> in, rot;
  in.push_back(MakePacket<ImageFrame>(Gradient(4, 3)).At(Timestamp(1)));
  rot.push_back(MakePacket<int>(180).At(Timestamp(1)));
  auto out =
      RunGraph(R"pb(
                 input_stream: "in"
                 input_stream: "rot"
                 node {
                   calculator: "ImageTransformationCalculator"
                   input_stream: "IMAGE:in"
                   input_stream: "ROTATION_DEGREES:rot"
                   output_stream: "IMAGE:out"
                   options {
                     [mediapipe.ImageTransformationCalculatorOptions.ext] {
                       flip_horizontally: true
                     }
                   }
                 })pb",
               {"out"}, {{"in", in}, {"rot", rot}});
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  // 180 then a horizontal flip = a vertical flip.
  EXPECT_EQ(Pixel(f, 0, 0)[0], 0);
  EXPECT_EQ(Pixel(f, 0, 0)[1], 2);
  EXPECT_EQ(Pixel(f, 3, 2)[0], 3);
  EXPECT_EQ(Pixel(f, 3, 2)[1], 0);
}

TEST(ImageTransformationCalculatorTest, FitLetterboxes) {
  ImageFrame wide(ImageFormat::SRGB, 200, 100);
  formats::MatView(&wide).setTo(cv::Scalar(200, 100, 50));
  auto out = Transform(
      "output_width: 100 output_height: 100 scale_mode: FIT "
      "padding_color { r: 0 g: 255 b: 0 }",
      std::move(wide));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  ASSERT_EQ(f.Width(), 100);
  ASSERT_EQ(f.Height(), 100);
  // 200x100 fits as 100x50, centered: 25 rows of padding above and below.
  EXPECT_EQ(Pixel(f, 50, 10)[1], 255);
  EXPECT_EQ(Pixel(f, 50, 90)[1], 255);
  EXPECT_EQ(Pixel(f, 50, 50)[0], 200);
  EXPECT_EQ(Pixel(f, 50, 26)[0], 200);
  const auto& padding = (*out)["padding"][0].Get<std::array<float, 4>>();
  EXPECT_THAT(padding, Pointwise(FloatNear(1e-6),
                                 std::array<float, 4>{0.f, 0.25f, 0.f, 0.25f}));
}

TEST(ImageTransformationCalculatorTest, FillAndCropAndStretch) {
  // 8x4 gradient to 4x4: FILL_AND_CROP keeps the middle (x 2..5), STRETCH
  // squeezes all of it.
  auto crop = Transform(
      "output_width: 4 output_height: 4 scale_mode: FILL_AND_CROP "
      "interpolation_mode: NEAREST",
      Gradient(8, 4));
  ASSERT_TRUE(crop.ok()) << crop.status();
  const ImageFrame& c = (*crop)["out"][0].Get<ImageFrame>();
  EXPECT_EQ(Pixel(c, 0, 0)[0], 2);
  EXPECT_EQ(Pixel(c, 3, 0)[0], 5);
  auto stretch =
      Transform("output_width: 4 output_height: 4 interpolation_mode: NEAREST",
                Gradient(8, 4));
  ASSERT_TRUE(stretch.ok()) << stretch.status();
  const ImageFrame& s = (*stretch)["out"][0].Get<ImageFrame>();
  EXPECT_EQ(Pixel(s, 0, 0)[0], 0);
  EXPECT_EQ(Pixel(s, 3, 0)[0], 6);
  const auto& padding = (*stretch)["padding"][0].Get<std::array<float, 4>>();
  EXPECT_THAT(padding, ElementsAre(0, 0, 0, 0));
}

TEST(ImageTransformationCalculatorTest, BadRotationIsAnError) {
  std::vector<Packet> in, rot;
  in.push_back(MakePacket<ImageFrame>(Gradient(4, 3)).At(Timestamp(1)));
  rot.push_back(MakePacket<int>(45).At(Timestamp(1)));
  auto out = RunGraph(R"pb(
                        input_stream: "in"
                        input_stream: "rot"
                        node {
                          name: "xform"
                          calculator: "ImageTransformationCalculator"
                          input_stream: "IMAGE:in"
                          input_stream: "ROTATION_DEGREES:rot"
                          output_stream: "IMAGE:out"
                        })pb",
                      {"out"}, {{"in", in}, {"rot", rot}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("45"));
}

TEST(ImageConversionTest, ToImageAndBackShareThePixels) {
  std::vector<Packet> in;
  in.push_back(MakePacket<ImageFrame>(Gradient(5, 5)).At(Timestamp(3)));
  const void* pixels = in[0].Get<ImageFrame>().PixelData();
  auto out = RunGraph(R"pb(
                        input_stream: "frame"
                        node {
                          calculator: "ToImageCalculator"
                          input_stream: "IMAGE_CPU:frame"
                          output_stream: "IMAGE:image"
                        }
                        node {
                          calculator: "FromImageCalculator"
                          input_stream: "IMAGE:image"
                          output_stream: "IMAGE_CPU:back"
                        })pb",
                      {"image", "back"}, {{"frame", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  in.clear();  // the outputs keep the pixels alive
  const Image& image = (*out)["image"][0].Get<Image>();
  EXPECT_EQ(image.width(), 5);
  EXPECT_EQ(image.GetImageFrameSharedPtr()->PixelData(), pixels);
  const ImageFrame& back = (*out)["back"][0].Get<ImageFrame>();
  EXPECT_EQ(back.PixelData(), pixels);
  EXPECT_EQ(Pixel(back, 4, 2)[0], 4);
  EXPECT_EQ((*out)["back"][0].Timestamp(), Timestamp(3));
}

// MediaPipe's CPU modules feed an ImageFrame to ToImageCalculator's IMAGE
// tag and read FromImageCalculator's SOURCE_ON_GPU (false on the CPU).
TEST(ImageConversionTest, ImageTagTakesAFrameAndSourceOnGpuIsFalse) {
  std::vector<Packet> in;
  in.push_back(MakePacket<ImageFrame>(Gradient(4, 3)).At(Timestamp(7)));
  const void* pixels = in[0].Get<ImageFrame>().PixelData();
  auto out = RunGraph(R"pb(
                        input_stream: "frame"
                        node {
                          calculator: "ToImageCalculator"
                          input_stream: "IMAGE:frame"
                          output_stream: "IMAGE:image"
                        }
                        node {
                          calculator: "FromImageCalculator"
                          input_stream: "IMAGE:image"
                          output_stream: "IMAGE_CPU:back"
                          output_stream: "SOURCE_ON_GPU:on_gpu"
                        })pb",
                      {"image", "back", "on_gpu"}, {{"frame", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["image"][0].Get<Image>().GetImageFrameSharedPtr()->PixelData(), pixels);
  EXPECT_EQ((*out)["back"][0].Get<ImageFrame>().PixelData(), pixels);
  ASSERT_EQ((*out)["on_gpu"].size(), 1u);
  EXPECT_FALSE((*out)["on_gpu"][0].Get<bool>());
  EXPECT_EQ((*out)["on_gpu"][0].Timestamp(), Timestamp(7));
}

absl::StatusOr<StreamPackets> Recolor(const std::string& options,
                                      ImageFrame image, ImageFrame mask) {
  std::vector<Packet> images, masks;
  images.push_back(MakePacket<ImageFrame>(std::move(image)).At(Timestamp(0)));
  masks.push_back(MakePacket<ImageFrame>(std::move(mask)).At(Timestamp(0)));
  return RunGraph(
      R"pb(
            input_stream: "image"
            input_stream: "mask"
            node { calculator: "RecolorCalculator" input_stream: "IMAGE:image"
                   input_stream: "MASK:mask"
                   output_stream: "IMAGE:out"
                   options {
                     [mediapipe.RecolorCalculatorOptions.ext] {)pb" +
          options + R"pb(}
                         }
    })pb",
      {"out"}, {{"image", images}, {"mask", masks}});
}

TEST(RecolorCalculatorTest, BlendsWhereMaskIsOn) {
  ImageFrame image(ImageFormat::SRGB, 4, 2);
  formats::MatView(&image).setTo(cv::Scalar(100, 100, 100));
  ImageFrame mask(ImageFormat::VEC32F1, 4, 2);
  cv::Mat m = formats::MatView(&mask);
  m.setTo(0.f);
  m.colRange(2, 4).setTo(1.f);
  auto out = Recolor("color { r: 0 g: 0 b: 255 } adjust_with_luminance: false",
                     std::move(image), std::move(mask));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  EXPECT_EQ(Pixel(f, 0, 0)[0], 100);
  EXPECT_EQ(Pixel(f, 0, 0)[2], 100);
  EXPECT_EQ(Pixel(f, 3, 1)[0], 0);
  EXPECT_EQ(Pixel(f, 3, 1)[2], 255);
}

TEST(RecolorCalculatorTest, LuminanceInvertAndResizedGrayMask) {
  ImageFrame image(ImageFormat::SRGBA, 4, 4);
  formats::MatView(&image).setTo(cv::Scalar(255, 255, 255, 9));
  ImageFrame mask(ImageFormat::GRAY8, 2, 2);
  formats::MatView(&mask).setTo(0);  // off everywhere; inverted: on
  auto out = Recolor("color { r: 0 g: 0 b: 0 } invert_mask: true",
                     std::move(image), std::move(mask));
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  // White has luminance 1: the mix is full, the pixel becomes the color.
  EXPECT_EQ(Pixel(f, 1, 1)[0], 0);
  EXPECT_EQ(Pixel(f, 3, 3)[1], 0);
  EXPECT_EQ(Pixel(f, 3, 3)[3], 9);  // alpha kept
}

void SaveForReview(const ImageFrame& frame, const std::string& name) {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (dir == nullptr) return;
  cv::Mat bgr;
  cv::cvtColor(formats::MatView(&frame), bgr, cv::COLOR_RGB2BGR);
  cv::imwrite(std::string(dir) + "/" + name, bgr);
}

// The real photo through rotate + FIT letterbox and through recolor with an
// elliptical mask; the outputs are saved for a look and checked at a few
// places.
TEST(ImageCalculatorsOnPhotoTest, TransformAndRecolorAstronaut) {
  RILL_REQUIRE(std::ifstream(kAstronaut).good(), kAstronaut << " is missing: run scripts/fetch_models.sh");
  std::vector<Packet> mask;
  ImageFrame m(ImageFormat::VEC32F1, 128, 128);
  cv::Mat mm = formats::MatView(&m);
  mm.setTo(0.f);
  // The mask covers an ellipse around the image center (after the
  // recolor's resize to 512x512: center 256,256, axes 128x192).
  cv::ellipse(mm, cv::Point(64, 64), cv::Size(32, 48), 0, 0, 360,
              cv::Scalar(1.f), cv::FILLED);
  mask.push_back(MakePacket<ImageFrame>(std::move(m)).At(Timestamp(0)));
  auto out = RunGraph(
      R"pb(
        input_side_packet: "path"
        input_stream: "mask"
        node {
          calculator: "ImageFileSourceCalculator"
          input_side_packet: "FILE_PATH:path"
          output_stream: "IMAGE:image"
        }
        node {
          calculator: "ImageTransformationCalculator"
          input_stream: "IMAGE:image"
          output_stream: "IMAGE:letterboxed"
          output_stream: "LETTERBOX_PADDING:padding"
          options {
            [mediapipe.ImageTransformationCalculatorOptions.ext] {
              rotation_mode: ROTATION_90
              output_width: 320
              output_height: 200
              scale_mode: FIT
              padding_color { r: 0 g: 0 b: 160 }
            }
          }
        }
        node {
          calculator: "RecolorCalculator"
          input_stream: "IMAGE:image"
          input_stream: "MASK:mask"
          output_stream: "IMAGE:recolored"
          options {
            [mediapipe.RecolorCalculatorOptions.ext] {
              color { r: 0 g: 255 b: 0 }
            }
          }
        })pb",
      {"image", "letterboxed", "padding", "recolored"}, {{"mask", mask}},
      {{"path", MakePacket<std::string>(kAstronaut)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& image = (*out)["image"][0].Get<ImageFrame>();
  const ImageFrame& boxed = (*out)["letterboxed"][0].Get<ImageFrame>();
  const ImageFrame& recolored = (*out)["recolored"][0].Get<ImageFrame>();
  SaveForReview(boxed, "astronaut_rot90_fit.png");
  SaveForReview(recolored, "astronaut_recolor.png");
  ASSERT_EQ(image.Width(), 512);
  ASSERT_EQ(image.Height(), 512);
  // 512x512 into 320x200: a 200x200 square with 60 px bars left and right.
  EXPECT_EQ(boxed.Width(), 320);
  EXPECT_EQ(Pixel(boxed, 10, 100)[2], 160);
  EXPECT_EQ(Pixel(boxed, 310, 100)[2], 160);
  const auto& padding = (*out)["padding"][0].Get<std::array<float, 4>>();
  EXPECT_NEAR(padding[0], 60.f / 320.f, 1e-6);
  EXPECT_NEAR(padding[1], 0.f, 1e-6);
  // Rotated counterclockwise: the photo's top-right corner is now at the
  // square's top-left.
  const uint8_t* corner = Pixel(boxed, 61, 1);
  const uint8_t* source = Pixel(image, 509, 2);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(corner[c], source[c], 40);
  // Recolor: outside the ellipse unchanged; inside, green raised and red
  // lowered wherever the pixel is not black.
  EXPECT_EQ(Pixel(recolored, 20, 20)[0], Pixel(image, 20, 20)[0]);
  EXPECT_EQ(Pixel(recolored, 20, 20)[1], Pixel(image, 20, 20)[1]);
  int greener = 0, total = 0;
  for (int y = 200; y < 320; y += 8) {
    for (int x = 200; x < 312; x += 8) {
      ++total;
      greener += Pixel(recolored, x, y)[1] >= Pixel(image, x, y)[1] &&
                 Pixel(recolored, x, y)[0] <= Pixel(image, x, y)[0];
    }
  }
  EXPECT_EQ(greener, total);
}

}  // namespace
}  // namespace rill
