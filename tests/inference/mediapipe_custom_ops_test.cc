// MediaPipe's custom ops (Landmarks2TransformMatrix, TransformLandmarks,
// TransformTensorBilinear, version 2) through the TFLite importer, on one-op
// models written here with FlexBuffers options, against values worked out by
// hand: identity, rotation, scale and translation matrices, bilinear samples
// of a linear ramp (which bilinear interpolation reproduces exactly) and
// samples outside the input. The reference and CPU kernels at 1 and 2
// threads. And the FlexBuffers reader on maps written by FlexBuffers' own
// builder, and option errors.
#include <flatbuffers/flexbuffers.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/import/tflite/flexbuffer_reader.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"
#include "tests/inference/tflite_test_models.h"

namespace rill::inference {
namespace {

using testing::TfliteOp;
using testing::TfliteTensor;

constexpr int32_t kCustom = 32;

std::vector<uint8_t> Finish(flexbuffers::Builder* fbb) {
  fbb->Finish();
  return fbb->GetBuffer();
}

// Runs a loaded model under every policy and thread count with `inputs`
// (in graph-input order) and returns each run's output 0.
std::vector<std::vector<float>> RunAll(const std::vector<uint8_t>& bytes, const std::vector<std::vector<float>>& inputs,
                                       Shape* out_shape = nullptr) {
  std::vector<std::vector<float>> results;
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "custom.tflite");
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return results;
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return results;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Tensor* in = (*s)->input(static_cast<int>(i));
      EXPECT_EQ(in->num_elements(), static_cast<int64_t>(inputs[i].size()));
      std::memcpy(in->data(), inputs[i].data(), inputs[i].size() * 4);
    }
    EXPECT_TRUE((*s)->Run().ok());
    const Tensor* out = (*s)->output(0);
    if (out_shape != nullptr) *out_shape = out->shape();
    results.emplace_back(out->data_as<float>(), out->data_as<float>() + out->num_elements());
  }
  return results;
}

std::vector<float> Matrix(float m00, float m01, float m03, float m10, float m11, float m13) {
  return {m00, m01, 0, m03, m10, m11, 0, m13, 0, 0, 1, 0, 0, 0, 0, 1};
}

// ---- TransformLandmarks ------------------------------------------------------

std::vector<uint8_t> TransformLandmarksModel(int n, int count, int dims, int matrices, int version = 2) {
  TfliteOp op{kCustom, "TransformLandmarks", {0, 1}, {2}};
  op.version = version;
  return testing::TfliteModel(
      {{"landmarks", {n, count, dims}, {}}, {"matrix", {matrices, 4, 4}, {}}, {"out", {n, count, dims}, {}}}, {op},
      {2});
}

TEST(MediaPipeCustomOpsTest, TransformLandmarksIdentityRotationTranslation) {
  // Three 3-D landmarks: identity keeps them; a 90 degree rotation with a
  // shift maps (x, y) to (-y + 5, x - 2) and keeps z.
  const std::vector<float> lm = {1, 2, 3, -4, 0.5f, 7, 10, -10, -1};
  for (const auto& r : RunAll(TransformLandmarksModel(1, 3, 3, 1), {lm, Matrix(1, 0, 0, 0, 1, 0)})) {
    EXPECT_EQ(r, lm);
  }
  const std::vector<float> want = {3, -1, 3, 4.5f, -6, 7, 15, 8, -1};
  for (const auto& r : RunAll(TransformLandmarksModel(1, 3, 3, 1), {lm, Matrix(0, -1, 5, 1, 0, -2)})) {
    EXPECT_EQ(r, want);
  }
  // 2-D landmarks, a batch of 2 with one matrix each: scale 2 and 0.5,
  // shift (1, 1) and (0, -1). z (column 2 of the matrix) never enters.
  std::vector<float> two = {1, 2, 3, 4, 1, 2, 3, 4};
  std::vector<float> matrices = Matrix(2, 0, 1, 0, 2, 1);
  const std::vector<float> second = Matrix(0.5f, 0, 0, 0, 0.5f, -1);
  matrices.insert(matrices.end(), second.begin(), second.end());
  matrices[2] = 100.0f;  // m02 multiplies z = 0
  Shape shape;
  for (const auto& r : RunAll(TransformLandmarksModel(2, 2, 2, 2), {two, matrices}, &shape)) {
    EXPECT_EQ(r, std::vector<float>({3, 5, 7, 9, 0.5f, 0, 1.5f, 1}));
  }
  EXPECT_EQ(shape, Shape({2, 2, 2}));
}

// ---- TransformTensorBilinear ----------------------------------------------------

std::vector<uint8_t> TransformTensorModel(const std::vector<int32_t>& x_shape, int out_h, int out_w) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("output_height", out_h);
    fbb.Int("output_width", out_w);
  });
  TfliteOp op{kCustom, "TransformTensorBilinear", {0, 1}, {2}};
  op.custom_options = Finish(&fbb);
  op.version = 2;
  return testing::TfliteModel({{"x", x_shape, {}},
                               {"matrix", {1, 4, 4}, {}},
                               {"y", {x_shape[0], out_h, out_w, x_shape[3]}, {}}},
                              {op}, {2});
}

// x[y][x][c] = 10 y + x + 100 c: linear, so a bilinear sample at (u, v) is
// 10 v + u + 100 c exactly (up to float rounding).
std::vector<float> Ramp(int n, int h, int w, int c) {
  std::vector<float> x;
  for (int b = 0; b < n; ++b) {
    for (int i = 0; i < h; ++i) {
      for (int j = 0; j < w; ++j) {
        for (int k = 0; k < c; ++k) x.push_back(10.0f * i + j + 100.0f * k + 1000.0f * b);
      }
    }
  }
  return x;
}

TEST(MediaPipeCustomOpsTest, TransformTensorBilinearIdentityCopies) {
  // The identity samples every pixel at its own centre: a copy.
  const std::vector<float> x = Ramp(1, 5, 7, 3);
  for (const auto& r : RunAll(TransformTensorModel({1, 5, 7, 3}, 5, 7), {x, Matrix(1, 0, 0, 0, 1, 0)})) {
    EXPECT_EQ(r, x);
  }
}

TEST(MediaPipeCustomOpsTest, TransformTensorBilinearSamplesBetweenPixels) {
  // Half scale plus a shift: output (i, j) samples at
  // u = 0.5 (j + 0.5) + 1.3 - 0.5 = 0.5 j + 1.05, v = 0.5 (i + 0.5) + 0.7 - 0.5 = 0.5 i + 0.45.
  const std::vector<float> x = Ramp(2, 6, 8, 2);
  Shape shape;
  for (const auto& r : RunAll(TransformTensorModel({2, 6, 8, 2}, 4, 3), {x, Matrix(0.5f, 0, 1.3f, 0, 0.5f, 0.7f)},
                              &shape)) {
    ASSERT_EQ(r.size(), 2u * 4 * 3 * 2);
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) {
          for (int k = 0; k < 2; ++k) {
            const float u = 0.5f * j + 1.05f, v = 0.5f * i + 0.45f;
            EXPECT_NEAR(r[((b * 4 + i) * 3 + j) * 2 + k], 10 * v + u + 100 * k + 1000 * b, 2e-3)
                << b << " " << i << " " << j << " " << k;
          }
        }
      }
    }
  }
  EXPECT_EQ(shape, Shape({2, 4, 3, 2}));
}

TEST(MediaPipeCustomOpsTest, TransformTensorBilinearOutsideIsZero) {
  // A shift of (2, -1): output (i, j) samples at (j + 2, i - 1). Row 0
  // samples v = -1 (outside); column j samples u = j + 2, outside past
  // u = 4 (W - 1); u = 4 exactly is the last column.
  const std::vector<float> x = Ramp(1, 4, 5, 1);
  for (const auto& r : RunAll(TransformTensorModel({1, 4, 5, 1}, 5, 4), {x, Matrix(1, 0, 2, 0, 1, -1)})) {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 4; ++j) {
        const int u = j + 2, v = i - 1;
        const bool inside = u >= 0 && u <= 4 && v >= 0 && v <= 3;
        EXPECT_EQ(r[i * 4 + j], inside ? 10.0f * v + u : 0.0f) << i << " " << j;
      }
    }
  }
  // A 90 degree rotation, m = [[0, -1, 4], [1, 0, 0]]: u = -(i + 0.5) + 4 - 0.5
  // = 3 - i, v = (j + 0.5) - 0.5 = j: a transpose with the rows reversed.
  for (const auto& r : RunAll(TransformTensorModel({1, 4, 5, 1}, 4, 4), {x, Matrix(0, -1, 4, 1, 0, 0)})) {
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) EXPECT_EQ(r[i * 4 + j], 10.0f * j + (3 - i)) << i << " " << j;
    }
  }
}

// ---- Landmarks2TransformMatrix ---------------------------------------------------

std::vector<uint8_t> Landmarks2TransformMatrixModel(int count, const std::vector<int>& subset, int left, int right,
                                                    double target, int out_h, int out_w, double sx, double sy,
                                                    bool typed_subset = true, int version = 2) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("left_rotation_idx", left);
    fbb.Int("output_height", out_h);
    fbb.Int("output_width", out_w);
    fbb.Int("right_rotation_idx", right);
    fbb.Float("scale_x", static_cast<float>(sx));
    fbb.Double("scale_y", sy);  // 8-byte float: the reader takes any width
    if (typed_subset) {
      fbb.Vector("subset_idxs", subset.data(), subset.size());
    } else {
      fbb.Vector("subset_idxs", [&] {
        for (int i : subset) fbb.UInt(static_cast<uint64_t>(i));
      });
    }
    fbb.Float("target_rotation_radians", static_cast<float>(target));
  });
  TfliteOp op{kCustom, "Landmarks2TransformMatrix", {0}, {1}};
  op.custom_options = Finish(&fbb);
  op.version = version;
  return testing::TfliteModel({{"landmarks", {1, count, 3}, {}}, {"matrix", {1, 4, 4}, {}}}, {op}, {1});
}

void ExpectMatrix(const std::vector<float>& m, float m00, float m01, float m03, float m10, float m11, float m13) {
  const std::vector<float> want = Matrix(m00, m01, m03, m10, m11, m13);
  ASSERT_EQ(m.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(m[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << "element " << i;
}

TEST(MediaPipeCustomOpsTest, Landmarks2TransformMatrixAxisAligned) {
  // Landmarks 0..3 bound a 20 x 40 box at (10..30, 20..60); landmark 4 is
  // outside it but not in the subset. 0 -> 1 is horizontal: no rotation.
  // M = T(20, 40) S(20 / 16, 40 / 16) T(-8, -8).
  const std::vector<float> lm = {10, 20, 0, 30, 20, 0, 10, 60, 0, 30, 60, 0, 100, 100, 0};
  for (bool typed : {true, false}) {
    const auto bytes = Landmarks2TransformMatrixModel(5, {0, 1, 2, 3}, 0, 1, 0.0, 16, 16, 1.0, 1.0, typed);
    for (const auto& r : RunAll(bytes, {lm})) ExpectMatrix(r, 1.25f, 0, 10, 0, 2.5f, 20);
  }
  // scale_x 2, scale_y 0.5 about the centre, a 10 x 20 crop; an odd subset
  // (its last index pairs with itself). M = T(20, 40) S(2 * 20 / 10,
  // 0.5 * 40 / 20) T(-5, -10).
  const auto bytes = Landmarks2TransformMatrixModel(5, {0, 1, 2, 3, 1}, 0, 1, 0.0, 20, 10, 2.0, 0.5);
  for (const auto& r : RunAll(bytes, {lm})) ExpectMatrix(r, 4, 0, 0, 0, 1, 30);
}

TEST(MediaPipeCustomOpsTest, Landmarks2TransformMatrixRotated) {
  // 0 -> 1 points down (+y): atan2 = pi/2, so with target 0 the frame turns
  // by r = -pi/2 and the crop by +pi/2. The subset (0,0) (0,10) (4,0) (4,10)
  // spans 10 along the rotated x and 4 along y, centred at (2, 5).
  // M = T(2, 5) R(pi/2) S(2 * 10 / 8, 1 * 4 / 8) T(-4, -4):
  // linear part [[0, -0.5], [2.5, 0]], shift (2, 5) + (2, -10).
  const std::vector<float> lm = {0, 0, 1, 0, 10, 2, 4, 0, 3, 4, 10, 4};
  const auto bytes = Landmarks2TransformMatrixModel(4, {0, 1, 2, 3}, 0, 1, 0.0, 8, 8, 2.0, 1.0);
  for (const auto& r : RunAll(bytes, {lm})) ExpectMatrix(r, 0, -0.5f, 4, 2.5f, 0, -5);
  // The same line with target pi/2 needs no rotation: the box is 4 x 10.
  // M = T(2, 5) S(2 * 4 / 8, 10 / 8) T(-4, -4).
  const auto upright = Landmarks2TransformMatrixModel(4, {0, 1, 2, 3}, 0, 1, M_PI / 2, 8, 8, 2.0, 1.0);
  for (const auto& r : RunAll(upright, {lm})) ExpectMatrix(r, 1, 0, -2, 0, 1.25f, 0);
}

TEST(MediaPipeCustomOpsTest, OptionErrors) {
  // A landmark index past the input: an error naming the node at load.
  const auto past = Landmarks2TransformMatrixModel(4, {0, 1, 2, 9}, 0, 1, 0.0, 8, 8, 1.0, 1.0);
  auto model = Model::FromBuffer(past.data(), past.size(), "past.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("subset_idxs value 9"), std::string::npos) << model.status().message();
  // Version 1 (other semantics): unsupported, named.
  const auto v1 = Landmarks2TransformMatrixModel(4, {0, 1, 2, 3}, 0, 1, 0.0, 8, 8, 1.0, 1.0, true, 1);
  model = Model::FromBuffer(v1.data(), v1.size(), "v1.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(model.status().message().find("version 1"), std::string::npos) << model.status().message();
  // A missing option is named.
  flexbuffers::Builder fbb;
  fbb.Map([&] { fbb.Int("output_height", 4); });
  TfliteOp op{kCustom, "TransformTensorBilinear", {0, 1}, {2}};
  op.custom_options = Finish(&fbb);
  op.version = 2;
  const auto missing =
      testing::TfliteModel({{"x", {1, 4, 4, 1}, {}}, {"matrix", {1, 4, 4}, {}}, {"y", {1, 4, 4, 1}, {}}}, {op}, {2});
  model = Model::FromBuffer(missing.data(), missing.size(), "missing.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("'output_width' is missing"), std::string::npos)
      << model.status().message();
  // Truncated options are corrupt, not read out of bounds.
  op.custom_options.resize(op.custom_options.size() / 2);
  const auto cut =
      testing::TfliteModel({{"x", {1, 4, 4, 1}, {}}, {"matrix", {1, 4, 4}, {}}, {"y", {1, 4, 4, 1}, {}}}, {op}, {2});
  model = Model::FromBuffer(cut.data(), cut.size(), "cut.tflite");
  EXPECT_FALSE(model.ok());
  // A matrix of the wrong shape: an error at load naming the node.
  const auto bad = TransformLandmarksModel(1, 3, 2, 3);
  model = Model::FromBuffer(bad.data(), bad.size(), "bad.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("TRANSFORM_LANDMARKS"), std::string::npos) << model.status().message();
}

// ---- The FlexBuffers reader ----------------------------------------------------------

TEST(FlexBufferReaderTest, ReadsWhatFlexBuffersWrites) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("big", int64_t{1} << 40);
    fbb.Int("negative", -3);
    fbb.UInt("unsigned", 200);
    fbb.Bool("yes", true);
    fbb.Double("pi", 3.25);
    fbb.IndirectFloat("indirect", 1.5f);
    fbb.String("name", "face");
    const std::vector<int64_t> wide = {-70000, 1, 70000};
    fbb.Vector("wide", wide.data(), wide.size());
    fbb.Vector("mixed", [&] {
      fbb.Int(-1);
      fbb.Double(2.0);
      fbb.UInt(300);
    });
    fbb.FixedTypedVector("pair", std::vector<int32_t>{4, 5}.data(), 2);
  });
  fbb.Finish();
  const std::vector<uint8_t>& buf = fbb.GetBuffer();
  tflite::FlexBufferReader r(buf.data(), buf.size());
  const auto root = r.Root();
  ASSERT_EQ(root.type, tflite::FlexBufferReader::kMap);
  const std::vector<std::string> keys = r.Keys(root);
  EXPECT_EQ(keys, std::vector<std::string>({"big", "indirect", "mixed", "name", "negative", "pair", "pi", "unsigned",
                                            "wide", "yes"}));
  EXPECT_EQ(r.AsInt(r.Find(root, "big")), int64_t{1} << 40);
  EXPECT_EQ(r.AsInt(r.Find(root, "negative")), -3);
  EXPECT_EQ(r.AsInt(r.Find(root, "unsigned")), 200);
  EXPECT_EQ(r.AsInt(r.Find(root, "yes")), 1);
  EXPECT_EQ(r.AsDouble(r.Find(root, "pi")), 3.25);
  EXPECT_EQ(r.AsDouble(r.Find(root, "indirect")), 1.5);
  EXPECT_EQ(r.AsDouble(r.Find(root, "negative")), -3.0);
  EXPECT_EQ(r.AsInts(r.Find(root, "wide")), std::vector<int64_t>({-70000, 1, 70000}));
  EXPECT_EQ(r.AsInts(r.Find(root, "mixed")), std::vector<int64_t>({-1, 2, 300}));
  EXPECT_EQ(r.AsInts(r.Find(root, "pair")), std::vector<int64_t>({4, 5}));
  EXPECT_TRUE(r.IsNumberVector(r.Find(root, "mixed")));
  EXPECT_FALSE(r.Find(root, "absent").valid);
  EXPECT_TRUE(r.ok()) << r.error();
  // A string is not a number: an error, kept.
  r.AsInt(r.Find(root, "name"));
  EXPECT_FALSE(r.ok());
}

TEST(FlexBufferReaderTest, TruncatedBuffersFailWithoutReadingOutside) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("output_height", 16);
    fbb.Vector("subset_idxs", std::vector<int>{1, 2, 3, 4}.data(), 4);
  });
  fbb.Finish();
  const std::vector<uint8_t> buf = fbb.GetBuffer();
  for (size_t cut = 0; cut < buf.size(); ++cut) {
    // The tail (where the root lies) kept, the head cut off: offsets point
    // before the buffer.
    std::vector<uint8_t> tail(buf.begin() + static_cast<long>(cut), buf.end());
    tflite::FlexBufferReader r(tail.data(), tail.size());
    const auto root = r.Root();
    r.AsInts(r.Find(root, "subset_idxs"));
    r.AsInt(r.Find(root, "output_height"));
    if (cut == 0) {
      EXPECT_EQ(r.AsInts(r.Find(root, "subset_idxs")), std::vector<int64_t>({1, 2, 3, 4}));
      EXPECT_TRUE(r.ok()) << r.error();
    } else {
      EXPECT_FALSE(r.ok()) << "cut " << cut;
    }
  }
}

}  // namespace
}  // namespace rill::inference
