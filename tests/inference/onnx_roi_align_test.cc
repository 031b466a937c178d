// RoiAlign on the engine against ONNX Runtime (onnx_op_test_util.h): both
// pooling modes, both coordinate modes, fixed and adaptive sampling, a
// spatial scale, boxes partly and wholly outside the map, degenerate
// (zero-size) boxes, batch indices as an activation (Cast from float) and as
// an int64 constant; and a hand-computed case that pins the sampling
// arithmetic independently of ORT. The optimized loops (roi_align_loops.h)
// against the reference kernel, bit for bit, on odd shapes, every sampling
// ratio and mode, channels-first and NHWC inputs (a 1x1 MaxPool before the
// RoiAlign leaves the map NHWC, as a conv does), and a roi too large for
// the loops (the reference's). MaxRoiPool against ONNX Runtime (its rounding
// of the scaled corners, half away from zero, on halves; empty, reversed and
// outside boxes; rois constant and run-time; an NHWC input; bins of negative
// values) and by hand (the rounding, a bin of negatives).
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

// Eight boxes (x1, y1, x2, y2) in input pixels (before spatial_scale 0.5 of
// the tests that set it): inside, across the border, outside, zero-size,
// thin, the whole map, tiny, reversed.
const std::vector<float> kRois = {
    1.0f,  1.0f,  6.0f,  5.0f,    //
    -3.0f, 2.0f,  4.5f,  9.0f,    //
    20.0f, 20.0f, 30.0f, 25.0f,   //
    3.0f,  3.0f,  3.0f,  3.0f,    //
    0.5f,  2.0f,  7.5f,  2.25f,   //
    0.0f,  0.0f,  8.0f,  6.0f,    //
    2.2f,  1.1f,  2.9f,  1.7f,    //
    6.0f,  5.0f,  1.0f,  1.0f,
};
const std::vector<float> kBatch = {0, 1, 1, 0, 1, 0, 1, 0};

TEST(OnnxRoiAlignTest, ModesAndSamplingMatchOrt) {
  for (const char* mode : {"avg", "max"}) {
    for (const char* transform : {"half_pixel", "output_half_pixel"}) {
      for (int64_t ratio : {0, 2}) {
        for (float scale : {1.0f, 0.5f}) {
          SCOPED_TRACE(std::string(mode) + " " + transform + " sampling_ratio=" + std::to_string(ratio) +
                       " spatial_scale=" + std::to_string(scale));
          OnnxGraph g;
          g.Input("x", {2, 3, 6, 8});
          g.Input("rois", {8, 4});
          g.Input("batch_f", {8});
          OnnxGraph::Attr(g.Node("Cast", {"batch_f"}, {"batch"}), "to", int64_t{7});  // INT64
          onnx::NodeProto* n = g.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
          OnnxGraph::Attr(n, "mode", std::string(mode));
          OnnxGraph::Attr(n, "coordinate_transformation_mode", std::string(transform));
          OnnxGraph::Attr(n, "output_height", int64_t{3});
          OnnxGraph::Attr(n, "output_width", int64_t{2});
          OnnxGraph::Attr(n, "sampling_ratio", ratio);
          OnnxGraph::Attr(n, "spatial_scale", scale);
          g.Output("y");
          ExpectMatchesOrt(g, {{"x", {2, 3, 6, 8}, RandomValues(288, -1.0f, 1.0f, 7)},
                               {"rois", {8, 4}, kRois},
                               {"batch_f", {8}, kBatch}});
        }
      }
    }
  }
}

TEST(OnnxRoiAlignTest, ConstantIndicesManyChannelsAndOpset10) {
  // 37 channels: more than one channel block per roi, with a tail.
  OnnxGraph g(10);
  g.Input("x", {2, 37, 5, 7});
  g.Input("rois", {8, 4});
  g.Int64Initializer("batch", {8}, {1, 0, 1, 1, 0, 0, 1, 0});
  onnx::NodeProto* n = g.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  OnnxGraph::Attr(n, "output_height", int64_t{4});
  OnnxGraph::Attr(n, "output_width", int64_t{4});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 37, 5, 7}, RandomValues(2 * 37 * 35, -2.0f, 2.0f, 3)},
                       {"rois", {8, 4}, kRois}});
}

// x = 4x4 map with value 10*row + col; one 1x1 bin over the box (0, 0)-(2, 2)
// with 2x2 samples. half_pixel shifts the box to -0.5..1.5 per axis; the bin
// is 2 wide, so the samples sit at -0.5 + (i + 0.5) * 2 / 2 = 0 and 1, on
// pixel centres: the mean of 0, 1, 10 and 11 = 5.5. With
// output_half_pixel the box stays 0..2, the samples fall at 0.5 and 1.5, and
// bilinear interpolation of a linear map gives 10*1 + 1 = 11 at their mean.
TEST(OnnxRoiAlignTest, HandComputedAverage) {
  OnnxGraph g(16);
  g.Input("x", {1, 1, 4, 4});
  g.Initializer("rois", {1, 4}, {0.0f, 0.0f, 2.0f, 2.0f});
  g.Int64Initializer("batch", {1}, {0});
  onnx::NodeProto* n = g.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  OnnxGraph::Attr(n, "sampling_ratio", int64_t{2});
  g.Output("y");
  OnnxGraph legacy(16);
  legacy.Input("x", {1, 1, 4, 4});
  legacy.Initializer("rois", {1, 4}, {0.0f, 0.0f, 2.0f, 2.0f});
  legacy.Int64Initializer("batch", {1}, {0});
  onnx::NodeProto* m = legacy.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  OnnxGraph::Attr(m, "sampling_ratio", int64_t{2});
  OnnxGraph::Attr(m, "coordinate_transformation_mode", std::string("output_half_pixel"));
  legacy.Output("y");
  for (const auto& [graph, expected] : {std::pair<const OnnxGraph*, float>{&g, 5.5f}, {&legacy, 11.0f}}) {
    const std::string bytes = graph->Serialize();
    auto model = Model::FromBuffer(bytes.data(), bytes.size(), "roi_align.onnx");
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
      SessionConfig config;
      config.algorithm = policy;
      auto s = Session::Create(*model, config);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      float* x = (*s)->input(0)->data_as<float>();
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) x[r * 4 + c] = 10.0f * r + c;
      ASSERT_TRUE((*s)->Run().ok());
      EXPECT_EQ((*s)->output(0)->shape(), Shape({1, 1, 1, 1}));
      EXPECT_NEAR((*s)->output(0)->data_as<float>()[0], expected, 1e-5f);
    }
  }
}

// x [2, C, 9, 11] (through a 1x1 MaxPool with `nhwc`: the engine's NHWC
// layout) pooled to 3x5 bins over `rois` (random boxes, some outside the
// map, one far larger than it).
OnnxGraph PooledRoiAlign(int channels, bool nhwc, const char* mode, const char* transform, int64_t ratio) {
  OnnxGraph g(16);
  g.Input("x", {2, channels, 9, 11});
  g.Input("rois", {24, 4});
  g.Input("batch_f", {24});
  std::string map = "x";
  if (nhwc) {
    OnnxGraph::Attr(g.Node("MaxPool", {"x"}, {"xp"}), "kernel_shape", std::vector<int64_t>{1, 1});
    map = "xp";
  }
  OnnxGraph::Attr(g.Node("Cast", {"batch_f"}, {"batch"}), "to", int64_t{7});
  onnx::NodeProto* n = g.Node("RoiAlign", {map, "rois", "batch"}, {"y"});
  OnnxGraph::Attr(n, "mode", std::string(mode));
  OnnxGraph::Attr(n, "coordinate_transformation_mode", std::string(transform));
  OnnxGraph::Attr(n, "output_height", int64_t{3});
  OnnxGraph::Attr(n, "output_width", int64_t{5});
  OnnxGraph::Attr(n, "sampling_ratio", ratio);
  OnnxGraph::Attr(n, "spatial_scale", 0.75f);
  g.Output("y");
  return g;
}

std::vector<float> RandomRois(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-4.0f, 16.0f), size(0.0f, 12.0f);
  std::vector<float> rois;
  for (int i = 0; i < n; ++i) {
    const float x1 = pos(rng), y1 = pos(rng);
    rois.insert(rois.end(), {x1, y1, x1 + size(rng), y1 + size(rng)});
  }
  // Adaptive sampling: 250 samples per bin along y, 750 over the 3 bins,
  // more than the loops take (kRoiAlignMaxTaps).
  rois[4 * (n - 1) + 0] = 0.0f;
  rois[4 * (n - 1) + 1] = -400.0f;
  rois[4 * (n - 1) + 2] = 10.0f;
  rois[4 * (n - 1) + 3] = 600.0f;
  return rois;
}

TEST(OnnxRoiAlignTest, LoopsMatchReferenceBitForBitAndOrt) {
  const std::vector<float> rois = RandomRois(24, 5);
  std::vector<float> batch(24);
  for (int i = 0; i < 24; ++i) batch[i] = static_cast<float>(i % 2);
  for (int channels : {37, 70}) {
    const std::vector<float> x = RandomValues(2 * channels * 99, -2.0f, 2.0f, 11);
    for (bool nhwc : {false, true}) {
      for (const char* mode : {"avg", "max"}) {
        for (const char* transform : {"half_pixel", "output_half_pixel"}) {
          for (int64_t ratio : {0, 1, 3}) {
            SCOPED_TRACE(std::to_string(channels) + " channels " + (nhwc ? "NHWC " : "NCHW ") + mode + " " +
                         transform + " sampling_ratio=" + std::to_string(ratio));
            const OnnxGraph g = PooledRoiAlign(channels, nhwc, mode, transform, ratio);
            std::shared_ptr<const Model> model = LoadOnnxGraph(g, "roi_align_loops");
            ASSERT_NE(model, nullptr);
            // The NHWC map is read as is: the one TRANSPOSE is the pool's input's.
            EXPECT_EQ(CountOps(*model, "TRANSPOSE"), nhwc ? 1 : 0);
            std::vector<float> want;
            for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
              for (int threads : {1, 2}) {
                SessionConfig config;
                config.algorithm = policy;
                config.num_threads = threads;
                auto s = Session::Create(model, config);
                ASSERT_TRUE(s.ok()) << s.status().ToString();
                std::memcpy((*s)->input("x")->data(), x.data(), x.size() * sizeof(float));
                std::memcpy((*s)->input("rois")->data(), rois.data(), rois.size() * sizeof(float));
                std::memcpy((*s)->input("batch_f")->data(), batch.data(), batch.size() * sizeof(float));
                ASSERT_TRUE((*s)->Run().ok());
                const Tensor* y = (*s)->output(0);
                ASSERT_EQ(y->shape(), (Shape{24, channels, 3, 5}));
                std::vector<float> got(y->data_as<float>(), y->data_as<float>() + y->num_elements());
                if (want.empty()) {
                  want = got;
                } else {
                  ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
                      << "threads " << threads;
                }
              }
            }
            if (channels == 37 && ratio != 1) {
              ExpectMatchesOrt(g, {{"x", {2, channels, 9, 11}, x}, {"rois", {24, 4}, rois}, {"batch_f", {24}, batch}});
            }
          }
        }
      }
    }
  }
}

TEST(OnnxRoiAlignTest, BadShapesAndModesAreClearErrors) {
  OnnxGraph g;
  g.Input("x", {1, 2, 4, 4});
  g.Initializer("rois", {2, 3}, std::vector<float>(6, 1.0f));
  g.Int64Initializer("batch", {2}, {0, 0});
  g.Node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  g.Output("y");
  std::string bytes = g.Serialize();
  auto bad_rois = Model::FromBuffer(bytes.data(), bytes.size(), "bad_rois.onnx");
  ASSERT_FALSE(bad_rois.ok());
  EXPECT_NE(bad_rois.status().message().find("[num_rois, 4]"), std::string::npos) << bad_rois.status().message();

  OnnxGraph h;
  h.Input("x", {1, 2, 4, 4});
  h.Initializer("rois", {1, 4}, {0, 0, 1, 1});
  h.Int64Initializer("batch", {1}, {0});
  OnnxGraph::Attr(h.Node("RoiAlign", {"x", "rois", "batch"}, {"y"}), "mode", std::string("median"));
  h.Output("y");
  bytes = h.Serialize();
  auto bad_mode = Model::FromBuffer(bytes.data(), bytes.size(), "bad_mode.onnx");
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_NE(bad_mode.status().message().find("median"), std::string::npos) << bad_mode.status().message();
}

// ---- MaxRoiPool ---------------------------------------------------------------

// Boxes (batch, x1, y1, x2, y2): inside, corners on halves (1.5 and 2.5 round
// away from zero; with spatial_scale 0.5, 3 and 5 make 1.5 and 2.5), across
// the border, wholly outside (empty bins: 0), reversed (1x1), the whole map.
const std::vector<float> kPoolRois = {
    0, 1.0f, 1.0f, 6.0f, 4.0f,   //
    1, 1.5f, 2.5f, 5.5f, 3.5f,   //
    1, 3.0f, 5.0f, 7.0f, 9.0f,   //
    0, -3.0f, 2.0f, 4.0f, 12.0f,  //
    1, 20.0f, 20.0f, 30.0f, 25.0f,  //
    0, 6.0f, 5.0f, 1.0f, 1.0f,   //
    1, 0.0f, 0.0f, 8.0f, 6.0f,
};

TEST(OnnxRoiAlignTest, MaxRoiPoolMatchesOrt) {
  struct Case {
    std::vector<int64_t> pooled;
    float scale;
    bool constant_rois;
  };
  const std::vector<float> x = RandomValues(2 * 3 * 7 * 9, -1.0f, 1.0f, 501);
  for (const Case& k : {Case{{2, 3}, 1.0f, false}, Case{{3, 3}, 0.5f, false}, Case{{1, 1}, 1.0f, true},
                        Case{{4, 2}, 0.5f, true}}) {
    SCOPED_TRACE("pooled " + std::to_string(k.pooled[0]) + "x" + std::to_string(k.pooled[1]) + " scale " +
                 std::to_string(k.scale) + (k.constant_rois ? " constant rois" : ""));
    OnnxGraph g(16);
    g.Input("x", {2, 3, 7, 9});
    if (k.constant_rois) {
      g.Initializer("rois", {7, 5}, kPoolRois);
    } else {
      g.Input("rois", {7, 5});
    }
    onnx::NodeProto* n = g.Node("MaxRoiPool", {"x", "rois"}, {"y"});
    OnnxGraph::Attr(n, "pooled_shape", k.pooled);
    OnnxGraph::Attr(n, "spatial_scale", k.scale);
    g.Output("y");
    std::vector<ort::OrtTensor> in = {{"x", {2, 3, 7, 9}, x}};
    if (!k.constant_rois) in.push_back({"rois", {7, 5}, kPoolRois});
    ExpectMatchesOrt(g, in);
  }
  // On a conv's output (NHWC inside the engine), through a Sigmoid.
  OnnxGraph g(16);
  g.Input("x", {2, 3, 7, 9});
  g.Initializer("w", {5, 3, 3, 3}, RandomValues(135, -0.5f, 0.5f, 502));
  onnx::NodeProto* conv = g.Node("Conv", {"x", "w"}, {"c"});
  OnnxGraph::Attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  g.Node("Sigmoid", {"c"}, {"s"});
  g.Initializer("rois", {7, 5}, kPoolRois);
  OnnxGraph::Attr(g.Node("MaxRoiPool", {"s", "rois"}, {"y"}), "pooled_shape", std::vector<int64_t>{2, 2});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 7, 9}, x}});
}

// By hand, a 1 x 6 map of 0..5: x1 = 1.5 and x2 = 2.5 round away from zero
// to 2 and 3 (ties to even would give 2 and 2), so the 1x1 bin is columns
// 2..3 and gives 3; two bins over the same box give 2 and 3.
TEST(OnnxRoiAlignTest, MaxRoiPoolRoundsHalvesAwayFromZero) {
  for (int64_t bins : {1, 2}) {
    OnnxGraph g(16);
    g.Input("x", {1, 1, 1, 6});
    g.Initializer("rois", {1, 5}, {0, 1.5f, 0.0f, 2.5f, 0.0f});
    OnnxGraph::Attr(g.Node("MaxRoiPool", {"x", "rois"}, {"y"}), "pooled_shape", std::vector<int64_t>{1, bins});
    g.Output("y");
    auto model = LoadOnnxGraph(g, "max_roi_pool_round.onnx");
    ASSERT_NE(model, nullptr);
    const std::vector<float> want = bins == 1 ? std::vector<float>{3} : std::vector<float>{2, 3};
    EXPECT_EQ(RunEngine(*model, {0, 1, 2, 3, 4, 5}, AlgorithmPolicy::kReference), want);
    EXPECT_EQ(RunEngine(*model, {0, 1, 2, 3, 4, 5}, AlgorithmPolicy::kAuto, 2), want);
  }
}

// A bin of negative values gives the largest of them (an early ONNX Runtime
// started each bin's maximum at FLT_MIN, the smallest positive float, and
// gave ~1e-38 there; 1.30 does not), against ONNX Runtime and by hand.
TEST(OnnxRoiAlignTest, MaxRoiPoolOfNegativesIsTheirMaximum) {
  OnnxGraph g(16);
  g.Input("x", {1, 2, 2, 2});
  g.Initializer("rois", {1, 5}, {0, 0.0f, 0.0f, 1.0f, 1.0f});
  OnnxGraph::Attr(g.Node("MaxRoiPool", {"x", "rois"}, {"y"}), "pooled_shape", std::vector<int64_t>{1, 1});
  g.Output("y");
  const std::vector<float> x = {-4, -2, -3, -5, 1, -1, -7, -8};
  ExpectMatchesOrt(g, {{"x", {1, 2, 2, 2}, x}});
  auto model = LoadOnnxGraph(g, "max_roi_pool_negative.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, x, AlgorithmPolicy::kReference), (std::vector<float>{-2, 1}));
  EXPECT_EQ(RunEngine(*model, x, AlgorithmPolicy::kAuto, 2), (std::vector<float>{-2, 1}));
}

}  // namespace
}  // namespace rill::inference::testing
