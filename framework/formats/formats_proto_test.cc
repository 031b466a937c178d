// The format protos keep MediaPipe's field numbers: a message serialized
// with known numbers parses into the expected fields.
#include <string>

#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/render_data.pb.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

TEST(FormatsProtoTest, FieldNumbersAreMediaPipes) {
  const auto* d = Detection::descriptor();
  EXPECT_EQ(d->FindFieldByName("label")->number(), 1);
  EXPECT_EQ(d->FindFieldByName("label_id")->number(), 2);
  EXPECT_EQ(d->FindFieldByName("score")->number(), 3);
  EXPECT_EQ(d->FindFieldByName("location_data")->number(), 4);
  EXPECT_EQ(d->FindFieldByName("feature_tag")->number(), 5);
  EXPECT_EQ(d->FindFieldByName("track_id")->number(), 6);
  EXPECT_EQ(d->FindFieldByName("detection_id")->number(), 7);
  EXPECT_EQ(d->FindFieldByName("associated_detections")->number(), 8);
  EXPECT_EQ(d->FindFieldByName("display_name")->number(), 9);
  EXPECT_EQ(d->FindFieldByName("timestamp_usec")->number(), 10);
  const auto* l = LocationData::descriptor();
  EXPECT_EQ(l->FindFieldByName("relative_bounding_box")->number(), 3);
  EXPECT_EQ(l->FindFieldByName("relative_keypoints")->number(), 5);
  const auto* r = RenderAnnotation::descriptor();
  EXPECT_EQ(r->FindFieldByName("gradient_line")->number(), 14);
  EXPECT_EQ(r->FindFieldByName("thickness")->number(), 11);
  EXPECT_EQ(r->FindFieldByName("color")->number(), 12);
  EXPECT_EQ(
      NormalizedLandmark::descriptor()->FindFieldByName("presence")->number(),
      5);
  EXPECT_EQ(NormalizedRect::descriptor()->FindFieldByName("rotation")->number(),
            5);
}

TEST(FormatsProtoTest, TextFormatRoundTrip) {
  Detection det;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        label: "face"
        score: 0.9
        location_data {
          format: RELATIVE_BOUNDING_BOX
          relative_bounding_box { xmin: 0.1 ymin: 0.2 width: 0.3 height: 0.4 }
          relative_keypoints { x: 0.5 y: 0.6 }
        })pb",
      &det));
  EXPECT_FLOAT_EQ(det.location_data().relative_bounding_box().height(), 0.4f);
  Detection back;
  ASSERT_TRUE(back.ParseFromString(det.SerializeAsString()));
  EXPECT_EQ(back.DebugString(), det.DebugString());

  RenderData rd;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        render_annotations {
          rectangle { left: 0 top: 0 right: 1 bottom: 1 normalized: true }
          color { r: 255 }
          thickness: 2
        })pb",
      &rd));
  EXPECT_TRUE(rd.render_annotations(0).has_rectangle());
  ClassificationList cl;
  cl.add_classification()->set_score(1.f);
  EXPECT_EQ(cl.classification_size(), 1);
}

}  // namespace
}  // namespace rill
