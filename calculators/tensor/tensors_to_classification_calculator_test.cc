#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/tensor.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

absl::StatusOr<ClassificationList> Classify(const std::string& options,
                                            std::vector<float> v) {
  Tensor t(Tensor::ElementType::kFloat32,
           Tensor::Shape{1, static_cast<int>(v.size())});
  std::copy(v.begin(), v.end(), t.mutable_data<float>());
  std::vector<Tensor> ts;
  ts.push_back(std::move(t));
  auto out =
      RunGraph(R"pb(
                     input_stream: "t"
                     output_stream: "c"
                     node {
                       calculator: "TensorsToClassificationCalculator"
                       input_stream: "TENSORS:t"
                       output_stream: "CLASSIFICATIONS:c"
                       options {
                         [mediapipe.TensorsToClassificationCalculatorOptions
                              .ext] {)pb" +
                   options + "}}}",
               {"c"},
               {{"t",
                 {MakePacket<std::vector<Tensor>>(std::move(ts))
                      .At(Timestamp(0))}}});
  if (!out.ok()) return out.status();
  return (*out)["c"].at(0).Get<ClassificationList>();
}

TEST(TensorsToClassificationCalculatorTest, TopKWithLabels) {
  auto c = Classify(
      "top_k: 2 label_items { key: 0 value { name: 'cat' } } "
      "label_items { key: 1 value { name: 'dog' display_name: 'Dog' } } "
      "label_items { key: 2 value { name: 'bird' } }",
      {0.1f, 0.7f, 0.2f});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->classification_size(), 2);
  EXPECT_EQ(c->classification(0).index(), 1);
  EXPECT_EQ(c->classification(0).label(), "dog");
  EXPECT_EQ(c->classification(0).display_name(), "Dog");
  EXPECT_EQ(c->classification(1).label(), "bird");
}

TEST(TensorsToClassificationCalculatorTest, BinaryAndThresholdAndIgnore) {
  auto c = Classify(
      "binary_classification: true top_k: 1 "
      "label_map { entries { id: 0 label: 'Left' } entries { id: 1 label: "
      "'Right' } }",
      {0.2f});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->classification_size(), 1);
  EXPECT_EQ(c->classification(0).label(), "Right");
  EXPECT_FLOAT_EQ(c->classification(0).score(), 0.8f);
  c = Classify(
      "min_score_threshold: 0.15 ignore_classes: 1 sort_by_descending_score: "
      "true",
      {0.1f, 0.7f, 0.2f, 0.5f});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->classification_size(), 2);
  EXPECT_EQ(c->classification(0).index(), 3);
  EXPECT_EQ(c->classification(1).index(), 2);
}

TEST(TensorsToClassificationCalculatorTest, MissingLabelMapFileNamesIt) {
  auto c = Classify("label_map_path: 'no/such/labels.txt'", {1});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no/such/labels.txt"),
            absl::string_view::npos);
}

}  // namespace
}  // namespace rill
