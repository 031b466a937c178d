// Single TFLite ops through the importer, on models written here
// (tflite_test_models.h): SOFTMAX over the last axis against its definition
// (reference and optimized kernels, 1 and 2 threads), a beta other than 1 an
// error naming the op and the model.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

constexpr int32_t kSoftmaxCode = 25;
constexpr uint8_t kSoftmaxOptionsType = 9;  // BuiltinOptions.SoftmaxOptions

template <int kBetaTimes10>
flatbuffers::uoffset_t SoftmaxOptions(flatbuffers::FlatBufferBuilder* b) {
  const auto start = b->StartTable();
  b->AddElement<float>(flatbuffers::FieldIndexToOffset(0), kBetaTimes10 / 10.0f, 0.0f);
  return b->EndTable(start);
}

std::vector<uint8_t> SoftmaxModel(const std::vector<int32_t>& shape,
                                  flatbuffers::uoffset_t (*options)(flatbuffers::FlatBufferBuilder*)) {
  return testing::OneOpTflite(kSoftmaxCode, {{"logits", shape, {}}, {"probabilities", shape, {}}}, {0}, {1},
                              kSoftmaxOptionsType, options);
}

TEST(TfliteOpsTest, SoftmaxOverTheLastAxis) {
  for (const std::vector<int32_t>& shape : {std::vector<int32_t>{1, 1001}, {3, 7}, {1, 4, 5, 17}}) {
    const std::vector<uint8_t> bytes = SoftmaxModel(shape, SoftmaxOptions<10>);
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "softmax.tflite");
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
      auto s = Session::Create(*model, config);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      std::mt19937 rng(3);
      Tensor* in = (*s)->input(0);
      const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in->num_elements()), &rng, -8, 8);
      std::memcpy(in->data(), x.data(), x.size() * 4);
      ASSERT_TRUE((*s)->Run().ok());
      const float* y = (*s)->output(0)->data_as<float>();
      const int n = shape.back();
      for (size_t row = 0; row < x.size() / n; ++row) {
        double max = -1e30, sum = 0;
        for (int i = 0; i < n; ++i) max = std::max(max, static_cast<double>(x[row * n + i]));
        for (int i = 0; i < n; ++i) sum += std::exp(x[row * n + i] - max);
        for (int i = 0; i < n; ++i) {
          const double want = std::exp(x[row * n + i] - max) / sum;
          ASSERT_NEAR(y[row * n + i], want, 1e-6 * (1 + want)) << "row " << row << " column " << i;
        }
      }
    }
  }
}

TEST(TfliteOpsTest, SoftmaxBetaOtherThanOneIsAnError) {
  const std::vector<uint8_t> bytes = SoftmaxModel({1, 10}, SoftmaxOptions<20>);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "beta.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("SOFTMAX"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("beta.tflite"), std::string::npos) << model.status().message();
  // Absent options read as the schema's beta 0: also refused, not a uniform output.
  const std::vector<uint8_t> none = SoftmaxModel({1, 10}, nullptr);
  EXPECT_FALSE(Model::FromBuffer(none.data(), none.size(), "none.tflite").ok());
}

}  // namespace
}  // namespace rill::inference
