// The TFLite reader on damaged files: every truncation of a real model, and
// random byte flips, must give an error (or, for flips in weights, a model
// that still runs), never a crash. Run under --config=asan to make out of
// bounds reads fail loudly.
#include <cstdint>
#include <random>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

const char kModel[] = "face_detection_short_range.tflite";

TEST(TfLiteCorruptionTest, EveryTruncationIsAnError) {
  const std::string path = testing::ModelPath(kModel);
  RILL_SKIP_IF_MISSING(path);
  const std::vector<uint8_t> bytes = testing::ReadBytes(path);
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t len = 0; len < bytes.size(); ++len) {
    // An exact-size heap copy, so ASan sees any read past `len`.
    auto model = Model::FromBuffer(bytes.data(), len, "truncated.tflite");
    ASSERT_FALSE(model.ok()) << "a " << len << "-byte prefix loaded";
    if (len % 50000 == 0) {
      ASSERT_NE(model.status().message().find("truncated.tflite"), std::string::npos);
    }
  }
}

TEST(TfLiteCorruptionTest, RandomByteFlipsNeverCrash) {
  const std::string path = testing::ModelPath(kModel);
  RILL_SKIP_IF_MISSING(path);
  const std::vector<uint8_t> original = testing::ReadBytes(path);
  std::mt19937 rng(1234);
  int loaded = 0, ran = 0, rejected = 0;
  for (int iteration = 0; iteration < 600; ++iteration) {
    std::vector<uint8_t> bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Half the flips land in the first and last 8 KiB, where the tables,
      // vtables and vectors of the model's structure live; weights fill the rest.
      size_t pos;
      if (rng() % 2) {
        const size_t window = 8192;
        pos = rng() % 2 ? rng() % window : bytes.size() - 1 - rng() % window;
      } else {
        pos = rng() % bytes.size();
      }
      bytes[pos] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "flipped.tflite");
    if (!model.ok()) {
      ++rejected;
      EXPECT_NE(model.status().message().find("flipped.tflite"), std::string::npos) << model.status().message();
      continue;
    }
    ++loaded;
    auto session = Session::Create(*model);
    if (!session.ok() || (*session)->arena_bytes() > (64u << 20)) continue;
    for (int i = 0; i < (*session)->num_inputs(); ++i) {
      Tensor* in = (*session)->input(i);
      if (in->dtype() != DataType::kFloat32) continue;
      for (int64_t k = 0; k < in->num_elements(); ++k) in->data_as<float>()[k] = 0.25f;
    }
    EXPECT_TRUE((*session)->Run().ok());
    ++ran;
  }
  std::printf("byte flips: %d rejected, %d loaded, %d ran\n", rejected, loaded, ran);
  EXPECT_GT(rejected, 0);
}

TEST(TfLiteCorruptionTest, GarbageAndEmptyBuffers) {
  EXPECT_FALSE(Model::FromBuffer(nullptr, 0, "empty").ok());
  std::vector<uint8_t> junk(4096);
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    junk[4] = 'T';
    junk[5] = 'F';
    junk[6] = 'L';
    junk[7] = '3';
    junk[0] = static_cast<uint8_t>(rng() % 64);
    junk[1] = junk[2] = junk[3] = 0;
    EXPECT_FALSE(Model::FromBuffer(junk.data(), junk.size(), "junk.tflite").ok());
  }
}

}  // namespace
}  // namespace rill::inference
