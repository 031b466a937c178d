// ONNX Resize / Upsample against ONNX Runtime 1.30: one-node models written
// here with the ONNX protobuf classes, run on both, reference and optimized
// kernels, 1 and 2 threads.
//
// - nearest (RESIZE_NEAREST_NEIGHBOR): every coordinate_transformation_mode
//   x nearest_mode x size (enlarging, shrinking, non-integer ratios, sizes or
//   scales given), Resize-10 and Upsample-9 (ONNX Runtime's "simple"
//   rounding), tf_crop_and_resize. Nearest copies input values, so the
//   outputs must be equal, not close.
// - linear (RESIZE_BILINEAR) and cubic (RESIZE_BICUBIC): every mode, sizes
//   down to one pixel, cubic_coeff_a, exclude_outside, tf_crop_and_resize
//   with its roi and extrapolation_value, antialias; within kTolerance of
//   the output's range (see there).
// - opset 18/19: axes, keep_aspect_ratio_policy, half_pixel_symmetric.
// - attributes or values not handled are errors naming the node and file.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_test_models.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

// Linear and cubic outputs must be within this fraction of the output's
// range of ONNX Runtime's. The kernels compute ONNX Runtime's taps and
// weights in its float order (the reference kernels sum in its order too,
// the SIMD kernels with fused multiply-adds), so what is left is float
// rounding: a few 1e-7 of the range. 1e-5 is the bound the brief set; the
// measured largest error is printed by each test ("max error").
constexpr double kTolerance = 1e-5;

struct ResizeCase {
  int opset = 13;
  std::string op = "Resize";
  std::string mode = "nearest";
  std::string ctm;           // empty: attribute absent
  std::string nearest_mode;  // empty: attribute absent
  std::string policy;        // keep_aspect_ratio_policy; empty: absent
  std::vector<float> scales;   // scales input (or Upsample-7's attribute), or empty
  std::vector<int64_t> sizes;  // sizes input, or empty
  std::vector<float> roi;      // roi input; empty: an empty initializer (absent for tf_crop_and_resize)
  std::vector<int64_t> axes;   // empty: attribute absent
  float cubic_coeff_a = 0.0f;  // 0: attribute absent
  float extrapolation_value = 0.0f;
  bool has_extrapolation_value = false;
  int exclude_outside = -1, antialias = -1;  // -1: attribute absent
  std::string extra_attribute;                // an int attribute named so (error cases)
  int n = 1, c = 3, h = 5, w = 7;
  std::string Describe() const {
    std::string s = op + "-" + std::to_string(opset) + " " + mode + " ctm=" + ctm + " nearest_mode=" + nearest_mode;
    if (!policy.empty()) s += " policy=" + policy;
    if (cubic_coeff_a != 0.0f) s += " a=" + std::to_string(cubic_coeff_a);
    if (exclude_outside >= 0) s += " exclude_outside=" + std::to_string(exclude_outside);
    if (antialias >= 0) s += " antialias=" + std::to_string(antialias);
    if (has_extrapolation_value) s += " extrapolation=" + std::to_string(extrapolation_value);
    s += " in " + std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
    for (float v : scales) s += " s" + std::to_string(v);
    for (int64_t v : sizes) s += " z" + std::to_string(v);
    for (float v : roi) s += " r" + std::to_string(v);
    for (int64_t v : axes) s += " axis" + std::to_string(v);
    return s;
  }
};

// Writes the case's one-node model to a file; returns its path.
std::string WriteModel(const ResizeCase& rc, const std::string& file) {
  onnx::ModelProto m = testing::NewOnnxModel(rc.opset, "rill onnx_resize_test");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {rc.n, rc.c, rc.h, rc.w});
  onnx::NodeProto* node = g->add_node();
  node->set_name("the_resize");
  node->set_op_type(rc.op);
  node->add_input("x");
  auto ints_attr = [&](const std::string& name, const std::vector<int64_t>& v) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  };
  auto int_attr = [&](const std::string& name, int64_t v) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  };
  auto float_attr = [&](const std::string& name, float v) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  };
  auto string_attr = [&](const std::string& name, const std::string& value) {
    if (value.empty()) return;
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  };
  const bool old = rc.op == "Upsample" || rc.opset < 11;
  if (rc.op == "Upsample" && rc.opset < 9) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name("scales");
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : rc.scales) a->add_floats(v);
  } else if (old) {
    testing::AddFloatInitializer(g, "scales", rc.scales);
    node->add_input("scales");
  } else {
    if (!rc.roi.empty()) {
      testing::AddFloatInitializer(g, "roi", rc.roi);
      node->add_input("roi");
    } else if (rc.ctm == "tf_crop_and_resize") {
      node->add_input("");  // absent: the whole input
    } else {
      testing::AddFloatInitializer(g, "roi", {});
      node->add_input("roi");
    }
    if (!rc.scales.empty()) {
      testing::AddFloatInitializer(g, "scales", rc.scales);
      node->add_input("scales");
    } else {
      testing::AddFloatInitializer(g, "scales", {});
      node->add_input("scales");
      testing::AddIntInitializer(g, "sizes", rc.sizes);
      node->add_input("sizes");
    }
  }
  node->add_output("y");
  string_attr("mode", rc.mode);
  string_attr("coordinate_transformation_mode", rc.ctm);
  string_attr("nearest_mode", rc.nearest_mode);
  string_attr("keep_aspect_ratio_policy", rc.policy);
  if (!rc.axes.empty()) ints_attr("axes", rc.axes);
  if (rc.cubic_coeff_a != 0.0f) float_attr("cubic_coeff_a", rc.cubic_coeff_a);
  if (rc.has_extrapolation_value) float_attr("extrapolation_value", rc.extrapolation_value);
  if (rc.exclude_outside >= 0) int_attr("exclude_outside", rc.exclude_outside);
  if (rc.antialias >= 0) int_attr("antialias", rc.antialias);
  if (!rc.extra_attribute.empty()) int_attr(rc.extra_attribute, 1);
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return testing::SaveOnnxModel(m, file);
}

// The largest error (relative to the output's range) seen by the kernels of
// one test, reported at its end.
struct MaxError {
  double reference = 0, optimized = 0;
  void Print(const char* what) const {
    std::printf("%s: max error vs ONNX Runtime, reference %.3g, optimized %.3g (of the output range)\n", what,
                reference, optimized);
  }
};

// Runs the case on the engine (reference and optimized kernels, 1 and 2
// threads) and on ONNX Runtime; outputs must be identical (nearest), or
// within kTolerance (linear, cubic).
void ExpectSameAsOrt(const ResizeCase& rc, int index, MaxError* max_error = nullptr) {
  const std::string path = WriteModel(rc, "resize_" + std::to_string(index) + ".onnx");
  std::mt19937 rng(index);
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(rc.n) * rc.c * rc.h * rc.w, &rng);
  auto ort = ort::OrtRunner::Create(path);
  ASSERT_TRUE(ort.ok()) << rc.Describe() << ": " << ort.status().ToString();
  std::vector<ort::OrtTensor> want;
  ASSERT_TRUE((*ort)->Run({{"x", {rc.n, rc.c, rc.h, rc.w}, x}}, &want).ok()) << rc.Describe();
  ASSERT_EQ(want.size(), 1u);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << rc.Describe() << ": " << model.status().ToString();
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
    std::vector<float> one_thread;
    for (int threads : {1, 2, 3}) {
      SessionConfig config;
      config.algorithm = policy;
      config.num_threads = threads;
      auto s = Session::Create(*model, config);
      ASSERT_TRUE(s.ok()) << rc.Describe() << ": " << s.status().ToString();
      std::copy(x.begin(), x.end(), (*s)->input(0)->data_as<float>());
      ASSERT_TRUE((*s)->Run().ok());
      const Tensor* y = (*s)->output(0);
      std::vector<int64_t> shape(y->shape().begin(), y->shape().end());
      ASSERT_EQ(shape, want[0].shape) << rc.Describe();
      const std::vector<float> got(y->data_as<float>(), y->data_as<float>() + y->num_elements());
      if (threads == 1) one_thread = got;
      else ASSERT_EQ(got, one_thread) << rc.Describe() << ": " << threads << " threads differ from 1";
      const std::string what =
          rc.Describe() + (policy == AlgorithmPolicy::kAuto ? " optimized" : " reference") + " threads " +
          std::to_string(threads);
      if (rc.mode == "nearest") {
        ASSERT_EQ(got, want[0].data) << what;
      } else {
        ASSERT_EQ(got.size(), want[0].data.size()) << what;
        const ort::OutputDiff d = ort::DiffOutputs(got.data(), want[0].data.data(), got.size());
        EXPECT_TRUE(d.Within(kTolerance)) << what << ": error " << d.max_rel() << " of the range";
        if (max_error) {
          double& m = policy == AlgorithmPolicy::kAuto ? max_error->optimized : max_error->reference;
          m = std::max(m, d.max_rel());
        }
      }
    }
  }
}

TEST(OnnxResizeTest, NearestEveryModeMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 0;
  for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                          "half_pixel_symmetric"}) {
    for (const char* nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      std::vector<ResizeCase> cases;
      ResizeCase up;  // x2 and x3
      up.ctm = ctm;
      up.nearest_mode = nm;
      up.scales = {1, 1, 2, 3};
      cases.push_back(up);
      ResizeCase down = up;  // shrinking by a non-integer ratio
      down.scales = {1, 1, 0.6f, 0.5f};
      down.h = 10;
      down.w = 9;
      cases.push_back(down);
      ResizeCase odd = up;  // non-integer enlargement
      odd.scales = {1, 1, 1.7f, 2.3f};
      cases.push_back(odd);
      ResizeCase sized = up;  // sizes instead of scales; batch 2; one output column
      sized.scales.clear();
      sized.n = 2;
      sized.sizes = {2, 3, 12, 1};
      cases.push_back(sized);
      ResizeCase sized2 = sized;
      sized2.sizes = {2, 3, 3, 11};
      cases.push_back(sized2);
      ResizeCase one_axis = up;  // H keeps its size: scale 1, not transformed
      one_axis.scales = {1, 1, 1, 2.5f};
      cases.push_back(one_axis);
      for (const ResizeCase& rc : cases) ExpectSameAsOrt(rc, index++);
    }
  }
  // The defaults (half_pixel, round_prefer_floor: no attributes).
  ResizeCase defaults;
  defaults.scales = {1, 1, 2.5f, 1.5f};
  ExpectSameAsOrt(defaults, index++);
  EXPECT_EQ(index, 145);
}

TEST(OnnxResizeTest, OldOpsetsMatchOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 200;
  MaxError error;
  for (const std::vector<float>& scales :
       {std::vector<float>{1, 1, 2, 2}, {1, 1, 3, 1.5f}, {1, 1, 0.5f, 0.6f}, {1, 1, 1.7f, 2.3f}}) {
    ResizeCase r10;  // Resize-10: (X, scales), asymmetric
    r10.opset = 10;
    r10.scales = scales;
    r10.h = 10;
    r10.w = 9;
    ExpectSameAsOrt(r10, index++);
    ResizeCase up9 = r10;  // Upsample-9
    up9.op = "Upsample";
    up9.opset = 9;
    ResizeCase up7 = up9;  // Upsample-7: scales as an attribute
    up7.opset = 7;
    ResizeCase linear10 = r10;  // linear before opset 11 is asymmetric too
    linear10.mode = "linear";
    if (scales[2] >= 1 && scales[3] >= 1) {  // Upsample only enlarges
      ExpectSameAsOrt(up9, index++);
      ExpectSameAsOrt(up7, index++);
      ExpectSameAsOrt(linear10, index++, &error);
      linear10.op = "Upsample";
      linear10.opset = 9;
      ExpectSameAsOrt(linear10, index++, &error);
    }
  }
  error.Print("Resize-10/Upsample linear");
}

// Output sizes from scales: ONNX Runtime multiplies in float and truncates
// (10 x 0.7f is 7 in float, 6.99999988 in double).
TEST(OnnxResizeTest, OutputSizeFromScalesIsComputedInFloat) {
  RILL_SKIP_IF_NO_ORT();
  int index = 300;
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    ResizeCase rc;
    rc.mode = mode;
    rc.h = 10;
    rc.w = 10;
    rc.scales = {1, 1, 0.7f, 0.3f};
    ExpectSameAsOrt(rc, index++);
  }
}

// Linear and cubic resizes of 1x3x5x7 (and 2x...) to sizes up, down, odd and
// one pixel wide, and by scales, in every coordinate_transformation_mode.
std::vector<ResizeCase> SizeCases(const std::string& mode, const std::string& ctm) {
  std::vector<ResizeCase> cases;
  ResizeCase base;
  base.mode = mode;
  base.ctm = ctm;
  for (const std::vector<int64_t>& hw : {std::vector<int64_t>{10, 14}, {11, 4}, {3, 4}, {1, 1}, {1, 9}, {12, 1},
                                         {5, 13}, {2, 7}}) {
    ResizeCase rc = base;
    rc.sizes = {1, 3, hw[0], hw[1]};
    cases.push_back(rc);
  }
  for (const std::vector<float>& s : {std::vector<float>{1, 1, 2, 3}, {1, 1, 1.7f, 2.3f}, {1, 1, 0.6f, 0.5f}}) {
    ResizeCase rc = base;
    rc.scales = s;
    if (s[2] < 1) {
      rc.h = 10;
      rc.w = 9;
    }
    cases.push_back(rc);
  }
  ResizeCase batch = base;  // batch 2, 17 channels (the SIMD kernel's vectors and tails)
  batch.n = 2;
  batch.c = 17;
  batch.sizes = {2, 17, 9, 6};
  cases.push_back(batch);
  return cases;
}

const char* const kModes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                              "tf_half_pixel_for_nn", "half_pixel_symmetric"};

TEST(OnnxResizeTest, LinearEveryModeMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 400;
  MaxError error;
  for (const char* ctm : kModes) {
    for (const ResizeCase& rc : SizeCases("linear", ctm)) ExpectSameAsOrt(rc, index++, &error);
  }
  error.Print("linear");
}

// pytorch_half_pixel differs from half_pixel where an output axis has one
// pixel: its source coordinate is 0, not the input's centre.
TEST(OnnxResizeTest, PytorchHalfPixelOnePixelOutputs) {
  RILL_SKIP_IF_NO_ORT();
  int index = 500;
  for (const char* mode : {"linear", "cubic", "nearest"}) {
    for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{1, 3, 1, 4}, {1, 3, 6, 1}, {1, 3, 1, 1}}) {
      ResizeCase rc;
      rc.mode = mode;
      rc.ctm = "pytorch_half_pixel";
      rc.sizes = sizes;
      ExpectSameAsOrt(rc, index++);
    }
  }
}

TEST(OnnxResizeTest, CubicEveryModeMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 600;
  MaxError error;
  for (const char* ctm : kModes) {
    for (ResizeCase rc : SizeCases("cubic", ctm)) {
      ExpectSameAsOrt(rc, index++, &error);
      rc.exclude_outside = 1;  // taps outside the input dropped, the rest renormalized
      ExpectSameAsOrt(rc, index++, &error);
      rc.exclude_outside = 0;
      rc.cubic_coeff_a = -0.5f;
      ExpectSameAsOrt(rc, index++, &error);
    }
  }
  ResizeCase defaults;  // no attributes but the mode: half_pixel, a = -0.75
  defaults.mode = "cubic";
  defaults.scales = {1, 1, 2.5f, 1.5f};
  ExpectSameAsOrt(defaults, index++, &error);
  ResizeCase one_axis = defaults;  // H keeps its size: scale 1, not transformed
  one_axis.scales = {1, 1, 1, 2.5f};
  ExpectSameAsOrt(one_axis, index++, &error);
  error.Print("cubic");
}

// tf_crop_and_resize: the roi's box (normalized, start and end per axis; a
// start past the end flips) sampled over the output; sources outside the
// input give extrapolation_value.
TEST(OnnxResizeTest, CropAndResizeMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 1000;
  MaxError error;
  const std::vector<std::vector<float>> rois = {
      {0, 0, 0.2f, 0.3f, 1, 1, 0.8f, 0.9f},    // inside
      {0, 0, -0.4f, 0.1f, 1, 1, 0.6f, 1.3f},   // past the edges: extrapolated
      {0, 0, 0.9f, 0.75f, 1, 1, 0.1f, 0.25f},  // flipped
      {},                                      // absent: the whole input
  };
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const std::vector<float>& roi : rois) {
      for (const std::vector<int64_t>& hw : {std::vector<int64_t>{8, 11}, {3, 4}, {1, 6}, {7, 1}}) {
        ResizeCase rc;
        rc.mode = mode;
        rc.ctm = "tf_crop_and_resize";
        rc.roi = roi;
        rc.sizes = {1, 3, hw[0], hw[1]};
        ExpectSameAsOrt(rc, index++, &error);
        rc.has_extrapolation_value = true;
        rc.extrapolation_value = -7.5f;
        if (mode == std::string("cubic")) rc.exclude_outside = 1;
        ExpectSameAsOrt(rc, index++, &error);
      }
      ResizeCase scaled;  // scales instead of sizes; odd channels, batch 2
      scaled.mode = mode;
      scaled.ctm = "tf_crop_and_resize";
      scaled.roi = roi;
      scaled.n = 2;
      scaled.c = 7;
      scaled.scales = {1, 1, 1.6f, 0.6f};
      ExpectSameAsOrt(scaled, index++, &error);
    }
    // Opset 18: roi for the named axes only.
    ResizeCase axes;
    axes.opset = 18;
    axes.mode = mode;
    axes.ctm = "tf_crop_and_resize";
    axes.axes = {2, 3};
    axes.roi = {-0.2f, 0.3f, 0.7f, 1.1f};
    axes.sizes = {6, 9};
    ExpectSameAsOrt(axes, index++, &error);
  }
  error.Print("tf_crop_and_resize linear/cubic");
}

// Opset 18/19: axes naming H and W (scales and sizes then hold 2 values),
// keep_aspect_ratio_policy (one scale for all named axes, sizes
// round(scale * in)).
TEST(OnnxResizeTest, Opset18AxesAndAspectRatioPolicyMatchOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 1200;
  MaxError error;
  for (int opset : {18, 19}) {
    for (const char* mode : {"nearest", "linear", "cubic"}) {
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{2, 3}, {-2, -1}, {3, 2}}) {
        ResizeCase rc;
        rc.opset = opset;
        rc.mode = mode;
        rc.axes = axes;
        rc.scales = {1.5f, 0.6f};
        ExpectSameAsOrt(rc, index++, &error);
        rc.scales.clear();
        rc.sizes = {9, 4};
        ExpectSameAsOrt(rc, index++, &error);
        for (const char* policy : {"stretch", "not_larger", "not_smaller"}) {
          if (axes[0] < 0 && policy != std::string("stretch")) continue;  // an error (see below)
          rc.policy = policy;
          rc.sizes = {9, 4};
          ExpectSameAsOrt(rc, index++, &error);
          rc.sizes = {2, 20};
          ExpectSameAsOrt(rc, index++, &error);
        }
      }
      ResizeCase w_only;  // one axis named
      w_only.opset = opset;
      w_only.mode = mode;
      w_only.axes = {3};
      w_only.sizes = {12};
      ExpectSameAsOrt(w_only, index++, &error);
      ResizeCase all_axes;  // keep_aspect_ratio_policy over all four axes: N and C keep scale 1
      all_axes.opset = opset;
      all_axes.mode = mode;
      all_axes.policy = "not_larger";
      all_axes.sizes = {1, 3, 20, 30};  // min(1, 1, 4, 4.3) = 1: the input as is
      ExpectSameAsOrt(all_axes, index++, &error);
    }
  }
  error.Print("opset 18/19 linear/cubic");
}

// antialias=1: linear and cubic filters stretched by 1 / scale when
// shrinking (as wide as they are when enlarging), weights normalized over
// the taps inside the input.
TEST(OnnxResizeTest, AntialiasMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  int index = 1500;
  MaxError error;
  for (const char* mode : {"linear", "cubic"}) {
    for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "half_pixel_symmetric",
                            "tf_crop_and_resize"}) {
      for (const std::vector<int64_t>& hw : {std::vector<int64_t>{2, 3}, {1, 1}, {4, 2}, {11, 17}, {3, 9}}) {
        ResizeCase rc;
        rc.opset = 18;
        rc.mode = mode;
        rc.ctm = ctm;
        rc.antialias = 1;
        rc.h = 9;
        rc.w = 13;
        rc.sizes = {1, 3, hw[0], hw[1]};
        if (ctm == std::string("tf_crop_and_resize")) rc.roi = {0, 0, 0.1f, -0.2f, 1, 1, 0.8f, 0.9f};
        ExpectSameAsOrt(rc, index++, &error);
        rc.exclude_outside = 1;
        ExpectSameAsOrt(rc, index++, &error);
      }
    }
    ResizeCase scaled;  // scales, 17 channels, batch 2, a = -0.5
    scaled.opset = 18;
    scaled.mode = mode;
    scaled.antialias = 1;
    scaled.n = 2;
    scaled.c = 17;
    scaled.h = 16;
    scaled.w = 19;
    scaled.scales = {1, 1, 0.3f, 0.45f};
    if (mode == std::string("cubic")) scaled.cubic_coeff_a = -0.5f;
    ExpectSameAsOrt(scaled, index++, &error);
  }
  error.Print("antialias");
}

// Outputs large enough to be split over the threads (the models above run
// on one: too little work), each mode and filter.
TEST(OnnxResizeTest, LargerResizesSplitOverThreads) {
  RILL_SKIP_IF_NO_ORT();
  int index = 1700;
  MaxError error;
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (int antialias : {0, 1}) {
      if (antialias && mode == std::string("nearest")) continue;
      for (const std::vector<int64_t>& hw : {std::vector<int64_t>{41, 50}, {21, 15}}) {
        ResizeCase rc;
        rc.opset = 18;
        rc.mode = mode;
        rc.antialias = antialias;
        // Three images at the smaller size: the threads' row pieces cross
        // from one image into the next.
        rc.n = hw[0] == 21 ? 3 : 1;
        rc.c = 16;
        rc.h = 64;
        rc.w = 48;
        rc.sizes = {rc.n, 16, hw[0], hw[1]};
        ExpectSameAsOrt(rc, index++, &error);
        rc.ctm = "tf_crop_and_resize";
        // Antialiased, a crop inside the input: where a filter window lies
        // wholly outside it, ONNX Runtime 1.30 fails ("narrowing_error").
        rc.roi = antialias ? std::vector<float>{0, 0, 0.05f, 0.2f, 1, 1, 0.7f, 0.95f}
                           : std::vector<float>{0, 0, -0.1f, 0.2f, 1, 1, 0.7f, 1.2f};
        rc.has_extrapolation_value = true;
        rc.extrapolation_value = 3.0f;
        ExpectSameAsOrt(rc, index++, &error);
      }
    }
  }
  error.Print("larger linear/cubic");
}

// An output as large as the input: ONNX Runtime copies the input, whatever
// the mode (even tf_crop_and_resize with a smaller roi).
TEST(OnnxResizeTest, SameSizeCopiesTheInput) {
  RILL_SKIP_IF_NO_ORT();
  int index = 1800;
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    ResizeCase rc;
    rc.mode = mode;
    rc.ctm = "tf_crop_and_resize";
    rc.roi = {0, 0, 0.2f, 0.3f, 1, 1, 0.8f, 0.9f};
    rc.sizes = {1, 3, 5, 7};
    ExpectSameAsOrt(rc, index++);
    rc.ctm = "half_pixel";
    rc.roi.clear();
    rc.sizes.clear();
    rc.scales = {1, 1, 1.1f, 1.05f};  // floor(5.5) = 5, floor(7.35) = 7
    ExpectSameAsOrt(rc, index++);
  }
}

// A session resized to another input size: with scales the output size
// follows the input (int(scale * size), as for the import-time size), with
// sizes it stays, with sizes and keep_aspect_ratio_policy the one scale is
// recomputed from the new input (round(scale * size), the coordinates too);
// either way shapes and values are ONNX Runtime's on a model written for the
// new size.
TEST(OnnxResizeTest, SessionResizeRecomputesSizesFromScales) {
  RILL_SKIP_IF_NO_ORT();
  int index = 900;
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* variant : {"scales", "sizes", "not_larger", "not_smaller"}) {
      ResizeCase rc;  // imported at 1x3x5x7
      rc.mode = mode;
      const std::string v = variant;
      if (v == "scales") {
        rc.scales = {1, 1, 2.0f, 1.5f};
      } else if (v == "sizes") {
        rc.sizes = {1, 3, 8, 11};
      } else {
        rc.opset = 18;
        rc.axes = {2, 3};
        rc.sizes = {8, 11};
        rc.policy = variant;
      }
      ResizeCase resized = rc;  // run at 1x3x9x4
      resized.h = 9;
      resized.w = 4;
      const std::string path = WriteModel(rc, "resize_" + std::to_string(index++) + ".onnx");
      const std::string want_path = WriteModel(resized, "resize_" + std::to_string(index++) + ".onnx");
      std::mt19937 rng(index);
      const std::vector<float> x = testing::RandomFloats(3 * 9 * 4, &rng);
      auto ort = ort::OrtRunner::Create(want_path);
      ASSERT_TRUE(ort.ok()) << ort.status().ToString();
      std::vector<ort::OrtTensor> want;
      ASSERT_TRUE((*ort)->Run({{"x", {1, 3, 9, 4}, x}}, &want).ok());
      // not_larger: min(8/9, 11/4) = 0.889 -> 8 x 4; not_smaller: 2.75 -> 25 x 11.
      const std::vector<int64_t> want_shape = v == "scales"       ? std::vector<int64_t>{1, 3, 18, 6}
                                              : v == "sizes"      ? std::vector<int64_t>{1, 3, 8, 11}
                                              : v == "not_larger" ? std::vector<int64_t>{1, 3, 8, 4}
                                                                  : std::vector<int64_t>{1, 3, 25, 11};
      ASSERT_EQ(want[0].shape, want_shape) << resized.Describe();
      auto model = Model::FromFile(path);
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
        SessionConfig config;
        config.algorithm = policy;
        auto s = Session::Create(*model, config);
        ASSERT_TRUE(s.ok()) << s.status().ToString();
        const Status r = (*s)->Resize({{"x", {1, 3, 9, 4}}});
        ASSERT_TRUE(r.ok()) << r.ToString();
        std::copy(x.begin(), x.end(), (*s)->input(0)->data_as<float>());
        ASSERT_TRUE((*s)->Run().ok());
        const Tensor* y = (*s)->output(0);
        ASSERT_EQ(std::vector<int64_t>(y->shape().begin(), y->shape().end()), want_shape) << rc.Describe();
        const ort::OutputDiff d = ort::DiffOutputs(y->data_as<float>(), want[0].data.data(), want[0].data.size());
        EXPECT_TRUE(d.Within(kTolerance)) << rc.Describe() << ": error " << d.max_rel() << " of the range";
      }
    }
  }
}

TEST(OnnxResizeTest, UnsupportedAttributesAreErrorsNamingTheNode) {
  std::vector<std::pair<std::string, ResizeCase>> cases;
  auto add = [&](const std::string& why, ResizeCase rc) {
    if (rc.scales.empty() && rc.sizes.empty()) rc.scales = {1, 1, 2, 2};
    cases.push_back({why, rc});
  };
  ResizeCase rc;
  rc.nearest_mode = "sideways";
  add("nearest_mode", rc);
  rc = ResizeCase();
  rc.scales = {1, 2, 2, 2};
  add("channel scale", rc);
  rc = ResizeCase();
  rc.sizes = {1, 4, 10, 14};
  add("channel size", rc);
  rc = ResizeCase();
  rc.ctm = "sideways";
  add("coordinate_transformation_mode", rc);
  rc = ResizeCase();
  rc.mode = "quadratic";
  add("mode", rc);
  rc = ResizeCase();
  rc.mode = "linear";
  rc.exclude_outside = 1;  // only cubic, or linear with antialias
  add("exclude_outside with linear", rc);
  rc = ResizeCase();
  rc.exclude_outside = 1;
  add("exclude_outside with nearest", rc);
  rc = ResizeCase();
  rc.opset = 18;
  rc.antialias = 1;
  add("antialias with nearest", rc);
  rc = ResizeCase();
  rc.opset = 18;
  rc.mode = "linear";
  rc.antialias = 2;
  add("antialias 2", rc);
  rc = ResizeCase();
  rc.opset = 13;
  rc.mode = "linear";
  rc.antialias = 1;
  add("antialias before opset 18", rc);
  rc = ResizeCase();
  rc.opset = 13;
  rc.axes = {2, 3};
  rc.scales = {2, 2};
  add("axes before opset 18", rc);
  for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1, 2}, {0, 2, 3}, {2, 2}, {2, -2}, {4}}) {
    rc = ResizeCase();
    rc.opset = 18;
    rc.axes = axes;
    rc.scales = std::vector<float>(axes.size(), 2.0f);
    add("axes", rc);
  }
  rc = ResizeCase();
  rc.opset = 18;
  rc.axes = {2, 3};
  rc.scales = {1, 1, 2, 2};
  add("4 scales for 2 axes", rc);
  rc = ResizeCase();
  rc.opset = 18;
  rc.policy = "not_too_big";
  rc.sizes = {1, 3, 10, 10};
  add("keep_aspect_ratio_policy", rc);
  rc = ResizeCase();
  rc.opset = 18;
  rc.policy = "not_smaller";
  rc.sizes = {1, 3, 10, 10};  // max(1, 1, 2, 1.43) = 2 would double N and C
  add("keep_aspect_ratio_policy over N and C", rc);
  rc = ResizeCase();
  rc.opset = 18;
  rc.policy = "not_larger";
  rc.axes = {-2, -1};
  rc.sizes = {9, 4};  // ONNX Runtime 1.30 gives the input's size, the policy's 3x4
  add("keep_aspect_ratio_policy with negative axes", rc);
  rc = ResizeCase();
  rc.ctm = "tf_crop_and_resize";
  rc.roi = {0, 0.1f, 0, 0, 1, 1, 1, 1};
  add("roi cropping C", rc);
  rc = ResizeCase();
  rc.ctm = "tf_crop_and_resize";
  rc.roi = {0, 0, 0, 1, 1, 1};
  add("roi size", rc);
  rc = ResizeCase();
  rc.ctm = "tf_crop_and_resize";
  rc.roi = {0, 0, 0, 0, 1, 1, 1e30f, 1};
  add("roi value", rc);
  rc = ResizeCase();
  rc.extra_attribute = "sharpness";
  add("unknown attribute", rc);
  rc = ResizeCase();
  rc.nearest_mode = "sideways";
  rc.sizes = {1, 3, 5, 7};  // as large as the input: copied, but the attribute is still checked
  add("nearest_mode of a copy", rc);
  rc = ResizeCase();
  rc.opset = 18;
  rc.policy = "not_too_big";
  rc.scales = {1, 1, 2, 2};  // the policy changes sizes only, its value is still checked
  add("keep_aspect_ratio_policy with scales", rc);
  rc = ResizeCase();
  rc.opset = 10;
  rc.mode = "cubic";
  add("cubic before opset 11", rc);
  rc = ResizeCase();
  rc.mode = "cubic";
  rc.cubic_coeff_a = std::numeric_limits<float>::infinity();
  add("cubic_coeff_a", rc);
  EXPECT_EQ(cases.size(), 28u);
  int i = 2000;
  for (const auto& [why, c] : cases) {
    const std::string path = WriteModel(c, "bad_" + std::to_string(i++) + ".onnx");
    auto model = Model::FromFile(path);
    ASSERT_FALSE(model.ok()) << why << ": " << c.Describe();
    EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented) << why << ": " << model.status().message();
    EXPECT_NE(model.status().message().find("the_resize"), std::string::npos) << model.status().message();
    EXPECT_NE(model.status().message().find(path), std::string::npos) << model.status().message();
  }
}

}  // namespace
}  // namespace rill::inference
