// Without a camera (CI machines have none) the source fails cleanly, naming
// the node and the device, instead of hanging or crashing.
#include <fstream>
#include <string>

#include "calculators/core/test_util.h"
#include "framework/formats/image_frame.h"
#include "framework/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

TEST(OpenCvCameraSourceCalculatorTest, NoCameraNamesNodeAndDevice) {
  auto out = RunGraph(R"pb(
                        input_side_packet: "device"
                        node {
                          name: "camera"
                          calculator: "OpenCvCameraSourceCalculator"
                          input_side_packet: "DEVICE:device"
                          output_stream: "VIDEO:video"
                        })pb",
                      {"video"}, {},
                      {{"device", MakePacket<std::string>("/dev/video97")}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("camera"));
  EXPECT_THAT(out.status().message(), HasSubstr("/dev/video97"));
  EXPECT_THAT(out.status().message(), HasSubstr("no camera"));
}

TEST(OpenCvCameraSourceCalculatorTest, IndexNamesTheDevicePath) {
  auto out = RunGraph(R"pb(
                        node {
                          calculator: "OpenCvCameraSourceCalculator"
                          output_stream: "VIDEO:video"
                          options {
                            [rill.OpenCvCameraSourceCalculatorOptions.ext] {
                              device: "63"
                              max_frames: 2
                            }
                          }
                        })pb",
                      {"video"});
  if (out.ok()) GTEST_SKIP() << "a camera is attached at /dev/video63";
  EXPECT_THAT(out.status().message(), HasSubstr("/dev/video63"));
}

}  // namespace
}  // namespace rill
