// Tests of RectToRenderDataCalculator, RectToRenderScaleCalculator,
// LabelsToRenderDataCalculator and ConcatenateRenderDataVectorCalculator.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/render_data.pb.h"
#include "framework/formats/video_stream_header.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Size = std::pair<int, int>;

template <typename R>
R MakeRect(float xc, float yc, float w, float h, float rotation = 0.f) {
  R r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rotation);
  return r;
}

absl::StatusOr<std::vector<RenderData>> RectRender(const std::string& tag,
                                                   const Packet& in,
                                                   const std::string& options) {
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "RectToRenderDataCalculator"
                  input_stream: ")pb" +
          tag + R"pb(:in" output_stream: "RENDER_DATA:out"
                  options { [mediapipe.RectToRenderDataCalculatorOptions.ext] {)pb" +
          options + "}}}",
      {"out"}, {{"in", {in}}});
  if (!out.ok()) return out.status();
  return PacketValues<RenderData>((*out)["out"]);
}

TEST(RectToRenderDataCalculatorTest, NormRectOutline) {
  auto out = RectRender(
      "NORM_RECT",
      MakePacket<NormalizedRect>(
          MakeRect<NormalizedRect>(0.5f, 0.5f, 0.2f, 0.4f, 0.3f))
          .At(Timestamp(1)),
      "color { r: 255 g: 0 b: 0 } thickness: 4");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  ASSERT_EQ((*out)[0].render_annotations_size(), 1);
  const RenderAnnotation& a = (*out)[0].render_annotations(0);
  EXPECT_EQ(a.color().r(), 255);
  EXPECT_DOUBLE_EQ(a.thickness(), 4.0);
  ASSERT_TRUE(a.has_rectangle());
  const auto& r = a.rectangle();
  EXPECT_TRUE(r.normalized());
  EXPECT_NEAR(r.left(), 0.4, 1e-6);
  EXPECT_NEAR(r.top(), 0.3, 1e-6);
  EXPECT_NEAR(r.right(), 0.6, 1e-6);
  EXPECT_NEAR(r.bottom(), 0.7, 1e-6);
  EXPECT_NEAR(r.rotation(), 0.3, 1e-6);
}

TEST(RectToRenderDataCalculatorTest, FilledOvalsAndOffscreenRects) {
  const std::vector<Rect> rects = {MakeRect<Rect>(100, 50, 40, 20),
                                   MakeRect<Rect>(-50, 50, 20, 20)};
  auto out = RectRender(
      "RECTS", MakePacket<std::vector<Rect>>(rects).At(Timestamp(1)),
      "filled: true oval: true");
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& d = (*out)[0];
  ASSERT_EQ(d.render_annotations_size(), 2);
  ASSERT_TRUE(d.render_annotations(0).has_filled_oval());
  const auto& r = d.render_annotations(0).filled_oval().oval().rectangle();
  EXPECT_FALSE(r.normalized());
  EXPECT_DOUBLE_EQ(r.left(), 80);
  EXPECT_DOUBLE_EQ(r.top(), 40);
  EXPECT_DOUBLE_EQ(r.right(), 120);
  EXPECT_DOUBLE_EQ(r.bottom(), 60);
  // Entirely left of the image (-60..-40): an annotation without place.
  const auto& off = d.render_annotations(1).filled_oval().oval().rectangle();
  EXPECT_FALSE(off.has_left());
  EXPECT_FALSE(off.has_right());
}

TEST(RectToRenderDataCalculatorTest, EmptyVectorAndTopLeftThickness) {
  auto empty = RectRender(
      "NORM_RECTS",
      MakePacket<std::vector<NormalizedRect>>().At(Timestamp(1)), "");
  ASSERT_TRUE(empty.ok()) << empty.status();
  ASSERT_EQ(empty->size(), 1u);
  EXPECT_EQ((*empty)[0].render_annotations_size(), 0);
  auto mark = RectRender(
      "RECT", MakePacket<Rect>(MakeRect<Rect>(10, 10, 4, 4)).At(Timestamp(1)),
      "top_left_thickness: 3");
  ASSERT_TRUE(mark.ok()) << mark.status();
  EXPECT_DOUBLE_EQ(
      (*mark)[0].render_annotations(0).rectangle().top_left_thickness(), 3);
  auto bad = RectRender(
      "RECT", MakePacket<Rect>(MakeRect<Rect>(10, 10, 4, 4)).At(Timestamp(1)),
      "top_left_thickness: 3 filled: true");
  EXPECT_THAT(bad.status().message(), HasSubstr("top_left_thickness"));
}

TEST(RectToRenderScaleCalculatorTest, LongerSideTimesMultiplier) {
  // 0.2 x 0.5 of 100 x 40 is 20 x 20 px: 20 * 0.5 = 10. 0.5 x 0.1 of
  // 200 x 100 is 100 x 10 px: 100 * 0.5 = 50. At 3 no rect: the multiplier.
  auto out = RunGraph(
      R"pb(input_stream: "rect" input_stream: "size"
           node { calculator: "RectToRenderScaleCalculator"
                  input_stream: "NORM_RECT:rect" input_stream: "IMAGE_SIZE:size"
                  output_stream: "RENDER_SCALE:scale"
                  options { [mediapipe.RectToRenderScaleCalculatorOptions.ext] {
                    multiplier: 0.5 } } })pb",
      {"scale"},
      {{"rect", MakePackets<NormalizedRect>(
                    {MakeRect<NormalizedRect>(0.5f, 0.5f, 0.2f, 0.5f),
                     MakeRect<NormalizedRect>(0.5f, 0.5f, 0.5f, 0.1f)},
                    {1, 2})},
       {"size", MakePackets<Size>({{100, 40}, {200, 100}, {10, 10}},
                                  {1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["scale"]), ElementsAre(1, 2, 3));
  EXPECT_THAT(PacketValues<float>((*out)["scale"]),
              ElementsAre(10.f, 50.f, 0.5f));
}

absl::StatusOr<RenderData> Labels(const std::string& options,
                                  const ClassificationList& classes) {
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "LabelsToRenderDataCalculator"
                  input_stream: "CLASSIFICATIONS:in"
                  output_stream: "RENDER_DATA:out"
                  options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {)pb" +
          options + "}}}",
      {"out"}, {{"in", {MakePacket<ClassificationList>(classes).At(Timestamp(1))}}});
  if (!out.ok()) return out.status();
  if ((*out)["out"].size() != 1) return absl::InternalError("no output");
  return (*out)["out"][0].Get<RenderData>();
}

ClassificationList Classes() {
  ClassificationList list;
  for (auto [label, name, score] :
       std::vector<std::tuple<std::string, std::string, float>>{
           {"Left", "L", 0.9f}, {"Right", "R", 0.25f}, {"Other", "O", 0.5f}}) {
    auto* c = list.add_classification();
    c->set_label(label);
    c->set_display_name(name);
    c->set_score(score);
  }
  return list;
}

TEST(LabelsToRenderDataCalculatorTest, TopLeftLines) {
  // Font 20 px: lines ceil(25) = 25 px apart, first baseline 10 + 25 = 35.
  auto d = Labels(
      "color { r: 1 } color { r: 2 } font_height_px: 20 max_num_labels: 3 "
      "horizontal_offset_px: 5 vertical_offset_px: 10 font_face: 2 "
      "display_classification_score: true thickness: 3",
      Classes());
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->render_annotations_size(), 3);
  std::vector<std::string> texts;
  std::vector<double> baselines;
  std::vector<int> reds;
  for (const auto& a : d->render_annotations()) {
    texts.push_back(a.text().display_text());
    baselines.push_back(a.text().baseline());
    reds.push_back(a.color().r());
    EXPECT_DOUBLE_EQ(a.text().left(), 5);
    EXPECT_DOUBLE_EQ(a.text().font_height(), 20);
    EXPECT_EQ(a.text().font_face(), 2);
    EXPECT_DOUBLE_EQ(a.thickness(), 3);
    EXPECT_FALSE(a.text().has_outline_thickness());
  }
  EXPECT_THAT(texts, ElementsAre("Left:0.9", "Right:0.25", "Other:0.5"));
  EXPECT_THAT(baselines, ElementsAre(35, 60, 85));
  EXPECT_THAT(reds, ElementsAre(1, 2, 1));  // colors in turn
}

TEST(LabelsToRenderDataCalculatorTest, DefaultsDisplayNameAndOutline) {
  // One label by default, red, no score; font 50 -> first baseline 63.
  auto d = Labels("", Classes());
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->render_annotations_size(), 1);
  const auto& a = d->render_annotations(0);
  EXPECT_EQ(a.text().display_text(), "Left");
  EXPECT_DOUBLE_EQ(a.text().baseline(), 63);
  EXPECT_EQ(a.color().r(), 255);
  EXPECT_DOUBLE_EQ(a.thickness(), 2);
  auto named = Labels("use_display_name: true outline_thickness: 1.5", Classes());
  ASSERT_TRUE(named.ok()) << named.status();
  const auto& t = named->render_annotations(0).text();
  EXPECT_EQ(t.display_text(), "L");
  EXPECT_DOUBLE_EQ(t.outline_thickness(), 1.5);
  EXPECT_TRUE(t.has_outline_color());  // black
  EXPECT_EQ(t.outline_color().r(), 0);
}

TEST(LabelsToRenderDataCalculatorTest, LabelsWithScoresAtTheBottom) {
  // BOTTOM_LEFT on a 480 px high video, font 50 (63 px lines), 2 labels:
  // baselines 480 - 63 = 417 and 480.
  VideoHeader header;
  header.width = 640;
  header.height = 480;
  auto out = RunGraph(
      R"pb(input_stream: "labels" input_stream: "scores" input_stream: "header"
           node { calculator: "LabelsToRenderDataCalculator"
                  input_stream: "LABELS:labels" input_stream: "SCORES:scores"
                  input_stream: "VIDEO_PRESTREAM:header"
                  output_stream: "RENDER_DATA:out"
                  options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
                    location: BOTTOM_LEFT max_num_labels: 5 } } })pb",
      {"out"},
      {{"header", {MakePacket<VideoHeader>(header).At(Timestamp::PreStream())}},
       {"labels", {MakePacket<std::vector<std::string>>(
                       std::vector<std::string>{"a", "b"})
                       .At(Timestamp(1))}},
       {"scores", {MakePacket<std::vector<float>>(std::vector<float>{0.5f, 1.f})
                       .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto v = PacketValues<RenderData>((*out)["out"]);
  ASSERT_EQ(v.size(), 1u);
  ASSERT_EQ(v[0].render_annotations_size(), 2);
  EXPECT_EQ(v[0].render_annotations(0).text().display_text(), "a:0.5");
  EXPECT_EQ(v[0].render_annotations(1).text().display_text(), "b:1");
  EXPECT_DOUBLE_EQ(v[0].render_annotations(0).text().baseline(), 417);
  EXPECT_DOUBLE_EQ(v[0].render_annotations(1).text().baseline(), 480);
  EXPECT_THAT(CheckContract(R"pb(calculator: "LabelsToRenderDataCalculator"
                                 input_stream: "LABELS:l"
                                 output_stream: "RENDER_DATA:out"
                                 options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
                                   location: BOTTOM_LEFT } })pb")
                  .message(),
              HasSubstr("VIDEO_PRESTREAM"));
}

TEST(ConcatenateRenderDataVectorCalculatorTest, JoinsInStreamOrder) {
  RenderData one;
  one.set_scene_class("one");
  std::vector<RenderData> two(2);
  two[0].set_scene_class("two");
  two[1].set_scene_class("three");
  auto out = RunGraph(
      R"pb(input_stream: "a" input_stream: "b"
           node { calculator: "ConcatenateRenderDataVectorCalculator"
                  input_stream: "a" input_stream: "b" output_stream: "out" })pb",
      {"out"},
      {{"a", {MakePacket<RenderData>(one).At(Timestamp(1))}},
       {"b", {MakePacket<std::vector<RenderData>>(two).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto v = PacketValues<std::vector<RenderData>>((*out)["out"]);
  ASSERT_EQ(v.size(), 1u);
  std::vector<std::string> names;
  for (const auto& d : v[0]) names.push_back(d.scene_class());
  EXPECT_THAT(names, ElementsAre("one", "two", "three"));
}

}  // namespace
}  // namespace rill
