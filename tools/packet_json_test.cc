#include "tools/packet_json.h"

#include <vector>

#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/tensor.h"
#include "gtest/gtest.h"

namespace rill {
namespace tools {
namespace {

TEST(PacketJsonTest, Scalars) {
  EXPECT_EQ(PayloadToJson(MakePacket<int>(3)), "3");
  EXPECT_EQ(PayloadToJson(MakePacket<float>(0.5f)), "0.5");
  EXPECT_EQ(PayloadToJson(MakePacket<bool>(true)), "true");
  EXPECT_EQ(PayloadToJson(MakePacket<std::string>("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(PayloadToJson(MakePacket<std::vector<int>>(std::vector<int>{1, 2})), "[1,2]");
  EXPECT_EQ(PayloadToJson(Packet()), "null");
}

TEST(PacketJsonTest, ProtosInTheirJsonForm) {
  Detection d;
  d.add_score(0.75f);
  d.mutable_location_data()->mutable_relative_bounding_box()->set_xmin(0.25f);
  std::vector<Detection> list = {d, d};
  const std::string json =
      PacketToJsonLine("faces", MakePacket<std::vector<Detection>>(list).At(Timestamp(33)));
  EXPECT_EQ(json.rfind("{\"stream\":\"faces\",\"timestamp\":33,\"value\":[{", 0), 0u) << json;
  EXPECT_NE(json.find("\"score\":[0.75]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"xmin\":0.25"), std::string::npos) << json;
}

TEST(PacketJsonTest, ImagesAndTensorsAsShapes) {
  ImageFrame frame(ImageFormat::SRGB, 4, 3);
  // Channel c of pixel (x, y) holds 10 * c + x: means 1.5, 11.5, 21.5.
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) {
      for (int c = 0; c < 3; ++c) frame.MutablePixelData()[y * frame.WidthStep() + x * 3 + c] = 10 * c + x;
    }
  }
  EXPECT_EQ(PayloadToJson(MakePacket<ImageFrame>(std::move(frame))),
            "{\"image\":{\"width\":4,\"height\":3,\"channels\":3,\"mean\":[1.5,11.5,21.5]}}");
  ImageFrame mask(ImageFormat::VEC32F1, 2, 1);
  reinterpret_cast<float*>(mask.MutablePixelData())[0] = 0.25f;
  reinterpret_cast<float*>(mask.MutablePixelData())[1] = 0.5f;
  EXPECT_EQ(PayloadToJson(MakePacket<ImageFrame>(std::move(mask))),
            "{\"image\":{\"width\":2,\"height\":1,\"channels\":1,\"mean\":[0.375]}}");
  struct Unknown {};
  EXPECT_NE(PayloadToJson(MakePacket<Unknown>()).find("\"type\""), std::string::npos);
}

}  // namespace
}  // namespace tools
}  // namespace rill
