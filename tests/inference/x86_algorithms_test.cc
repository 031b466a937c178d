// The convolution algorithms beyond im2col GEMM against the reference
// kernels: Winograd F(4x4,3x3) and F(6x6,3x3), the sliding-window (direct)
// conv, Strassen GEMM; each on odd shapes (1, 3, 7, 17 channels; stride 2;
// padding; batch 2; output sizes that are not multiples of the tile), with
// and without fused activation, on both ISAs; then through the CPU backend's
// executions at 1 and 2 threads (bit-identical), and the cost model's choices
// on fixed shapes.
//
// Tolerances. Each output is compared against the reference with an error
// normalised by its magnitude bound |b| + sum |w| |x| (the reference conv of
// absolute values): float32 rounding of any summation order stays below
// K * 2^-24 of it. Measured (this suite, random data in [-1, 1]):
//   sliding window, GEMM:  < 1e-6  (same products, another order)  -> 1e-5
//   Winograd F(4,3):       < 7e-6                                  -> 2e-5
//   Winograd F(6,3):       < 8e-6  (transform entries up to 32 and
//                                   21/4 grow the rounding)        -> 5e-5
//   Strassen d1 / d2:      < 2e-6 / 4e-6                           -> 2e-5
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/test_util.h"
#include "inference/backend/backend.h"
#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/residual_add.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_grouped_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_sliding.h"
#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_strassen.h"
#include "inference/backend/cpu/kernels/x86/f32_transpose_conv2d.h"
#include "inference/backend/cpu/kernels/x86/x86_kernels.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/conv_geometry.h"
#include "inference/ir/graph.h"
#include "inference/runtime/thread_pool.h"

namespace rill::inference::cpu {
namespace {

std::vector<float> Random(size_t n, std::mt19937* rng) { return testing::RandomFloats(n, rng); }
std::vector<float> Abs(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// CPUs to build kernel tables of (for names and the cost model's features,
// whatever CPU runs the test).
x86::CpuFeatures Avx2Cpu() {
  x86::CpuFeatures f;
  f.avx2 = f.fma = true;
  return f;
}
x86::CpuFeatures Avx512Cpu() {
  x86::CpuFeatures f = Avx2Cpu();
  f.avx512f = f.avx512bf16 = true;
  return f;
}
IsaFeatures Avx512Features(PanelType panel = PanelType::kF32) {
  return ConvIsaFeatures(x86::KernelTable(Avx512Cpu()), panel);
}
// The table the executions under test run on.
const CpuKernels& HostKernels() { return CpuKernelsFor(AlgorithmPolicy::kAuto); }

struct Shape4 {
  int batch, h, w, in_c, out_c, k, stride, dilation;
  ir::Padding padding;
  FusedActivation act;
};

ConvParams Params(const Shape4& c) {
  ConvParams p;
  p.batch = c.batch;
  p.in_h = c.h;
  p.in_w = c.w;
  p.in_c = c.in_c;
  p.out_c = c.out_c;
  p.kernel_h = p.kernel_w = c.k;
  p.stride_h = p.stride_w = c.stride;
  p.dilation_h = p.dilation_w = c.dilation;
  p.out_h = ir::WindowOutputSize(c.h, c.k, c.stride, c.dilation, c.padding);
  p.out_w = ir::WindowOutputSize(c.w, c.k, c.stride, c.dilation, c.padding);
  p.pad_top =
      ir::WindowPadBefore(c.h, p.out_h, c.k, c.stride, c.dilation, c.padding);
  p.pad_left =
      ir::WindowPadBefore(c.w, p.out_w, c.k, c.stride, c.dilation, c.padding);
  p.activation = c.act;
  return p;
}

std::string Describe(const ConvParams& p) {
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "n%d %dx%dx%d -> %dx%dx%d k%d s%d d%d pad %d,%d act %d groups %d",
                p.batch, p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c,
                p.kernel_h, p.stride_h, p.dilation_h, p.pad_top, p.pad_left,
                static_cast<int>(p.activation), p.groups);
  return buf;
}

// One conv problem with its reference result and magnitude bound.
struct ConvProblem {
  ConvParams p;
  std::vector<float> x, w, bias, want, bound;
  ConvProblem(const ConvParams& params, std::mt19937* rng) : p(params) {
    x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, rng);
    w = Random(static_cast<size_t>(p.out_c) * p.kernel_h * p.kernel_w * p.in_c / p.groups, rng);
    bias = Random(p.out_c, rng);
    const size_t out =
        static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c;
    want.resize(out);
    bound.resize(out);
    Conv2DRef(p, x.data(), w.data(), bias.data(), want.data());
    ConvParams linear = p;
    linear.activation = FusedActivation::kNone;
    const std::vector<float> ax = Abs(x), aw = Abs(w), ab = Abs(bias);
    Conv2DRef(linear, ax.data(), aw.data(), ab.data(), bound.data());
  }
  size_t out_size() const { return want.size(); }
  // Gives the conv a fused residual of `res_c` channels (<= out_c; fewer
  // stands for a skip zero-padded in its channels) and recomputes `want`.
  void AddResidual(int res_c, std::mt19937* rng) {
    residual_c = res_c;
    const long long pixels = static_cast<long long>(p.batch) * p.out_h * p.out_w;
    residual = Random(static_cast<size_t>(pixels) * res_c, rng);
    ConvParams linear = p;
    linear.activation = FusedActivation::kNone;
    Conv2DRef(linear, x.data(), w.data(), bias.data(), want.data());
    ResidualAddRef(pixels, p.out_c, residual.data(), res_c, p.activation, want.data());
    for (long long r = 0; r < pixels; ++r) {
      for (int c = 0; c < res_c; ++c) bound[r * p.out_c + c] += std::fabs(residual[r * res_c + c]);
    }
  }
  // Gives the conv a fused PRELU (optimize::FusePRelu) with slopes in
  // [-1, 1] (1-Lipschitz: `bound` still bounds the error), applied to `want`
  // last; the conv must have no activation of its own.
  void AddPRelu(std::mt19937* rng) {
    slope = Random(p.out_c, rng);
    for (size_t i = 0; i < want.size(); ++i) {
      const float v = want[i];
      want[i] = v >= 0.0f ? v : v * slope[i % p.out_c];
    }
  }
  std::vector<float> residual;
  int residual_c = 0;
  std::vector<float> slope;  // a fused PRELU's (empty: none)
};

// Largest |got - want| / (1 + bound) (activations are 1-Lipschitz, so the
// bound of the linear part bounds the activated error too).
double MaxError(const ConvProblem& c, const std::vector<float>& got) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return 1e30;
    worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - c.want[i]) /
                                (1.0 + c.bound[i]));
  }
  return worst;
}

const FusedActivation kActs[] = {
    FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6,
    FusedActivation::kReluN1To1, FusedActivation::kTanh};

class X86AlgorithmsTest : public ::testing::Test {
 public:
  void SetUp() override {
    if (!x86::HasAvx2Fma()) GTEST_SKIP() << "CPU has no AVX2/FMA";
  }
  static std::vector<bool> Isas() {
    std::vector<bool> isas{false};
    if (x86::GetCpuFeatures().avx512f) isas.push_back(true);
    return isas;
  }

 protected:
  std::mt19937 rng_{7};
};

// Runs Winograd F(m,3) through its three phases, split at odd places (as
// threads would split them).
std::vector<float> RunWinograd(int m, const ConvProblem& c, bool avx512,
                               x86::WinogradWeights* keep = nullptr,
                               bool bf16 = false) {
  x86::WinogradWeights uw;
  x86::TransformWeightsWinograd(m, c.p, c.w.data(), avx512, &uw);
  if (bf16) x86::ToBf16Panels(c.p, &uw);
  if (keep) *keep = uw;
  const x86::WinogradPlan plan = x86::PlanWinograd(m, c.p);
  std::vector<float> v(plan.v_floats), mb(plan.m_floats),
      patch(plan.patch_floats);
  std::vector<float> got(c.out_size(), 123.0f);
  const x86::GemmFn gemm = avx512 ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
  for (int b = 0; b < plan.blocks; ++b) {
    const int tiles = x86::WinogradBlockTiles(plan, b);
    const int split = tiles / 3;
    x86::WinogradInputTransform(plan, c.p, c.x.data(), avx512, b, split, tiles,
                                v.data(), patch.data());
    x86::WinogradInputTransform(plan, c.p, c.x.data(), avx512, b, 0, split,
                                v.data(), patch.data());
    x86::WinogradMultiply(plan, c.p, uw, gemm, b, 0, 5, v.data(), mb.data());
    x86::WinogradMultiply(plan, c.p, uw, gemm, b, 5, plan.alpha * plan.alpha,
                          v.data(), mb.data());
    x86::WinogradOutputTransform(plan, c.p, c.bias.data(), avx512, b, 0, tiles,
                                 mb.data(), got.data());
  }
  return got;
}

void CheckWinograd(int m, double tolerance, std::mt19937* rng,
                   bool bf16 = false) {
  int checked = 0;
  double worst = 0;
  for (bool avx512 : X86AlgorithmsTest::Isas()) {
    if (bf16 && !avx512) continue;
    for (int in_c : {1, 3, 7, 17, 40}) {
      for (int out_c : {1, 7, 17, 40}) {
        for (ir::Padding pad : {ir::Padding::kSame, ir::Padding::kValid}) {
          for (int batch : {1, 2}) {
            // Output sides 5..15: rarely a multiple of 4 or 6.
            Shape4 s{batch,
                     7 + (in_c + out_c) % 9,
                     9 + in_c % 5,
                     in_c,
                     out_c,
                     3,
                     1,
                     1,
                     pad,
                     kActs[checked % 5]};
            ConvProblem c(Params(s), rng);
            ASSERT_TRUE(x86::WinogradApplies(c.p));
            const double err =
                MaxError(c, RunWinograd(m, c, avx512, nullptr, bf16));
            worst = std::max(worst, err);
            ASSERT_LE(err, tolerance)
                << "F(" << m << ",3) " << (avx512 ? "avx512 " : "avx2 ")
                << Describe(c.p);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GE(checked, 80);
  std::printf(
      "Winograd F(%d,3)%s: %d cases, max normalised error %.3g (tolerance "
      "%.3g)\n",
      m, bf16 ? " bf16" : "", checked, worst, tolerance);
}

// F(2,3) runs on the same three phases (the AVX-512 or AVX2 transforms, its
// own 4x4 tiles): points 0, +-1, inf, the smallest error of the three.
TEST_F(X86AlgorithmsTest, WinogradF23MatchesReference) {
  CheckWinograd(2, 1e-5, &rng_);
}
TEST_F(X86AlgorithmsTest, WinogradF43MatchesReference) {
  CheckWinograd(4, 2e-5, &rng_);
}
TEST_F(X86AlgorithmsTest, WinogradF63MatchesReference) {
  CheckWinograd(6, 5e-5, &rng_);
}

// Precision::kBf16: F(2,3)'s products on bf16 panels (transformed filters
// and inputs rounded to 8 significant bits), the transforms in fp32: errors
// near bf16's own (measured 8e-3 of the terms' magnitude). F(4,3) and F(6,3)
// amplify the rounding (0.13 and 0.16 with one input channel), so the engine
// keeps their products in fp32; the check shows why.
TEST_F(X86AlgorithmsTest, WinogradBf16MatchesReference) {
  if (!x86::GetCpuFeatures().avx512bf16) GTEST_SKIP() << "no AVX512-BF16";
  CheckWinograd(2, 2e-2, &rng_, true);
  ConvProblem c(Params(Shape4{1, 12, 10, 1, 40, 3, 1, 1, ir::Padding::kValid,
                              FusedActivation::kNone}),
                &rng_);
  EXPECT_GT(MaxError(c, RunWinograd(4, c, true, nullptr, true)), 2e-2);
}

// Larger channel counts: the error of F(6,3) grows with K = 9 * in_c; the
// bound still holds at 256 input channels.
TEST_F(X86AlgorithmsTest, WinogradF63ErrorAtManyChannels) {
  for (bool avx512 : Isas()) {
    ConvProblem c(Params({1, 20, 20, 256, 48, 3, 1, 1, ir::Padding::kSame,
                          FusedActivation::kNone}),
                  &rng_);
    const std::vector<float> y4 = RunWinograd(4, c, avx512),
                             y6 = RunWinograd(6, c, avx512);
    const double e4 = MaxError(c, y4);
    const double e6 = MaxError(c, y6);
    // Also as plain numbers: largest absolute error against the largest output.
    double abs4 = 0, abs6 = 0, range = 0;
    for (size_t i = 0; i < c.want.size(); ++i) {
      abs4 = std::max(abs4, std::fabs(static_cast<double>(y4[i]) - c.want[i]));
      abs6 = std::max(abs6, std::fabs(static_cast<double>(y6[i]) - c.want[i]));
      range = std::max(range, std::fabs(static_cast<double>(c.want[i])));
    }
    std::printf(
        "in_c 256 (%s): F(4,3) error %.3g (max abs %.3g), F(6,3) error %.3g "
        "(max abs %.3g), max |y| %.3g\n",
        avx512 ? "avx512" : "avx2", e4, abs4, e6, abs6, range);
    EXPECT_LE(e4, 2e-5);
    EXPECT_LE(e6, 5e-5);
  }
}

// The comparison can fail: one wrong transformed weight is caught.
TEST_F(X86AlgorithmsTest, WinogradCheckDetectsACorruptWeight) {
  ConvProblem c(Params({1, 10, 10, 8, 16, 3, 1, 1, ir::Padding::kSame,
                        FusedActivation::kNone}),
                &rng_);
  x86::WinogradWeights uw;
  x86::TransformWeightsWinograd(6, c.p, c.w.data(), false, &uw);
  uw.packed[uw.stride * 10 + 3] += 0.01f;
  const x86::WinogradPlan plan = x86::PlanWinograd(6, c.p);
  std::vector<float> scratch(plan.v_floats + plan.m_floats + plan.patch_floats);
  std::vector<float> got(c.out_size());
  x86::WinogradConv(plan, c.p, c.x.data(), uw, c.bias.data(), x86::GemmF32Avx2,
                    scratch.data(), got.data());
  EXPECT_GT(MaxError(c, got), 5e-5);
}

std::vector<Shape4> SlidingCases() {
  std::vector<Shape4> cases;
  int a = 0;
  for (int in_c : {1, 3, 7, 17}) {
    for (int out_c : {1, 3, 7, 17, 24, 40}) {
      for (int k : {1, 3, 5}) {
        for (int stride : {1, 2}) {
          for (ir::Padding pad : {ir::Padding::kSame, ir::Padding::kValid}) {
            const int dilation = (k == 3 && stride == 1 && out_c == 7) ? 2 : 1;
            cases.push_back({(in_c + k) % 2 + 1, 9 + a % 3, 11 + a % 17, in_c,
                             out_c, k, stride, dilation, pad, kActs[a % 5]});
            ++a;
          }
        }
      }
    }
  }
  // The first layer of face_detection_short_range: 128x128x3, 5x5 stride 2.
  cases.push_back(
      {1, 32, 30, 3, 24, 5, 2, 1, ir::Padding::kSame, FusedActivation::kRelu});
  return cases;
}

TEST_F(X86AlgorithmsTest, SlidingWindowMatchesReference) {
  int checked = 0;
  for (bool avx512 : Isas()) {
    const int lanes = avx512 ? 16 : 8;
    for (const Shape4& s : SlidingCases()) {
      const ConvParams p = Params(s);
      if (p.out_h <= 0 || p.out_w <= 0) continue;
      ConvProblem c(p, &rng_);
      std::vector<float> packed(x86::SlidingPackedFloats(p, lanes));
      x86::PackSlidingWeights(p, c.w.data(), lanes, packed.data());
      std::vector<float> got(c.out_size(), 123.0f);
      const int rows = p.batch * p.out_h;
      // Two uneven row ranges, as two threads would take them.
      x86::Conv2DSlidingRows(p, c.x.data(), packed.data(), c.bias.data(),
                             avx512, got.data(), rows / 3, rows);
      x86::Conv2DSlidingRows(p, c.x.data(), packed.data(), c.bias.data(),
                             avx512, got.data(), 0, rows / 3);
      ASSERT_LE(MaxError(c, got), 1e-5)
          << (avx512 ? "avx512 " : "avx2 ") << Describe(p);
      ++checked;
    }
  }
  EXPECT_GT(checked, 250);
}

TEST_F(X86AlgorithmsTest, StrassenMatchesReference) {
  for (bool avx512 : Isas()) {
    const x86::GemmFn gemm = avx512 ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
    for (int depth : {0, 1, 2}) {
      // Odd sizes at every level; k > 256 crosses the GEMM's K blocks.
      for (auto [m, n, k] : {std::tuple{37, 45, 53}, std::tuple{1, 17, 7},
                             std::tuple{130, 67, 301}}) {
        for (FusedActivation act :
             {FusedActivation::kNone, FusedActivation::kRelu6,
              FusedActivation::kTanh}) {
          const std::vector<float> a =
              Random(static_cast<size_t>(m) * k, &rng_);
          const std::vector<float> w =
              Random(static_cast<size_t>(n) * k, &rng_);
          const std::vector<float> bias = Random(n, &rng_);
          std::vector<float> want(static_cast<size_t>(m) * n),
              bound(want.size());
          FullyConnectedRef(m, k, n, act, a.data(), w.data(), bias.data(),
                            want.data());
          const std::vector<float> aa = Abs(a), aw = Abs(w), ab = Abs(bias);
          FullyConnectedRef(m, k, n, FusedActivation::kNone, aa.data(),
                            aw.data(), ab.data(), bound.data());
          x86::StrassenWeights sw;
          x86::PrepareStrassenWeights(w.data(), n, k, depth, avx512, &sw);
          std::vector<float> scratch(
              x86::StrassenScratchFloats(m, n, k, depth) + 1);
          std::vector<float> got(want.size(), 123.0f);
          x86::GemmStrassen(m, a.data(), k, sw, bias.data(), act, gemm,
                            got.data(), n, scratch.data());
          for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_LE(std::fabs(got[i] - want[i]) / (1.0 + bound[i]), 2e-5)
                << "strassen d" << depth << " m" << m << " n" << n << " k" << k
                << " at " << i;
          }
        }
      }
    }
  }
}

// ---- Through the CPU backend's executions: the kernel the choice names, at
// 1 and 2 threads, bit-identical, matching the reference.

struct OpResult {
  std::string kernel;
  std::vector<float> out;
};

// Prepares the execution, gives it scratch, runs it once; records its name.
// A non-zero `pixel_stride` asks for strided output first (must be taken).
void PrepareAndRun(Execution* op, OpResult* r, int pixel_stride = 0) {
  EXPECT_TRUE(op->Prepare().ok());
  if (pixel_stride > 0) {
    EXPECT_TRUE(cpu::AsCpuExecution(op)->SetOutputPixelStride(pixel_stride)) << op->name();
  }
  std::vector<float> scratch(op->scratch_bytes() / sizeof(float) + 1);
  std::unique_ptr<Buffer> scratch_buffer = WrapHostMemory(scratch.data(), scratch.size() * sizeof(float));
  op->set_scratch(MemoryRef{scratch_buffer.get(), 0});
  EXPECT_TRUE(op->Run().ok());
  r->kernel = op->name();
}

// Bindings over memory the test owns (as a session's arena would hold it).
class HostBindings {
 public:
  TensorBinding Make(const Shape& shape, const float* data, bool constant) {
    TensorBinding b;
    b.shape = shape;
    b.constant = constant;
    if (constant) {
      b.constant_data = data;
    } else {
      buffers_.push_back(WrapHostMemory(const_cast<float*>(data), b.dense_bytes()));
      b.memory = MemoryRef{buffers_.back().get(), 0};
    }
    return b;
  }

 private:
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

ir::Activation ToIr(FusedActivation a) {
  switch (a) {
    case FusedActivation::kRelu:
      return ir::Activation::kRelu;
    case FusedActivation::kRelu6:
      return ir::Activation::kRelu6;
    case FusedActivation::kReluN1To1:
      return ir::Activation::kReluN1To1;
    case FusedActivation::kTanh:
      return ir::Activation::kTanh;
    default:
      return ir::Activation::kNone;
  }
}

// `choice` is a tuning-cache token forced through a pre-filled cache.
// `extra` > 0 writes the output as the first out_c channels of a tensor
// with out_c + extra (its slice of a channel concatenation): r.out is then
// that wider tensor.
OpResult RunConvOp(const ConvProblem& c, int threads,
                   const std::string& choice, int extra = 0) {
  const ConvParams& p = c.p;
  ir::Graph graph;
  graph.source = "x86_algorithms_test";
  ir::Node node;
  node.name = "conv";
  node.type = ir::OpType::kConv2D;
  node.attrs.padding = ir::Padding::kExplicit;
  node.attrs.pad_top = p.pad_top;
  node.attrs.pad_left = p.pad_left;
  node.attrs.stride_h = p.stride_h;
  node.attrs.stride_w = p.stride_w;
  node.attrs.dilation_h = p.dilation_h;
  node.attrs.dilation_w = p.dilation_w;
  node.attrs.activation = ToIr(p.activation);
  graph.nodes.push_back(node);
  HostBindings bind;
  TensorBinding x = bind.Make({p.batch, p.in_h, p.in_w, p.in_c}, c.x.data(), false);
  TensorBinding w = bind.Make({p.out_c, p.kernel_h, p.kernel_w, p.in_c / p.groups}, c.w.data(), true);
  TensorBinding b = bind.Make({p.out_c}, c.bias.data(), true);
  TensorBinding res = bind.Make({p.batch, p.out_h, p.out_w, c.residual_c}, c.residual.data(), false);
  TensorBinding slope = bind.Make({p.out_c}, c.slope.data(), true);
  OpResult r;
  r.out.assign(c.out_size() / p.out_c * (p.out_c + extra), 123.0f);
  TensorBinding y = bind.Make({p.batch, p.out_h, p.out_w, p.out_c}, r.out.data(), false);
  cpu::CpuBackend backend{SessionConfig{}};
  backend.SetThreadBudget(threads);
  TuningCache cache;
  CpuArgs args;
  args.graph = &graph;
  args.node = &graph.nodes[0];
  args.inputs = {&x, &w, &b};
  if (c.residual_c > 0 || !c.slope.empty()) args.inputs.push_back(c.residual_c > 0 ? &res : nullptr);
  if (!c.slope.empty()) args.inputs.push_back(&slope);
  args.outputs = {&y};
  args.backend = &backend;
  if (choice == "reference") {
    args.algorithm = AlgorithmPolicy::kReference;
  } else if (!choice.empty()) {
    cache.choices[ConvTuningKey(p, HostKernels().isa)] = choice;
    args.algorithm = AlgorithmPolicy::kTune;
    args.tuning = &cache;
  }
  PrepareAndRun(MakeConv2D(args).get(), &r, extra > 0 ? p.out_c + extra : 0);
  return r;
}

// A conv shape and the algorithms (tuning-cache tokens) to force on it.
struct ConvCase {
  Shape4 shape;
  std::vector<std::string> choices;
};
// The AVX-512 variants join every case's choices.
void AddAvx512Choices(std::vector<ConvCase>* cases) {
  for (ConvCase& c : *cases) {
    c.choices.push_back("gemm_6x32");
    c.choices.push_back("sliding_avx512");
  }
}

TEST_F(X86AlgorithmsTest, ConvExecutionsAllChoicesOneAndTwoThreads) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  const std::vector<std::string> all3x3 = {"gemm_6x16", "sliding_avx2",
                                           "winograd_f23", "winograd_f43",
                                           "winograd_f63"};
  std::vector<ConvCase> cases = {
      {{2, 13, 11, 17, 40, 3, 1, 1, ir::Padding::kSame, FusedActivation::kRelu},
       all3x3},
      {{1, 9, 16, 7, 3, 3, 1, 1, ir::Padding::kValid, FusedActivation::kNone},
       all3x3},
      {{2, 15, 17, 3, 24, 5, 2, 1, ir::Padding::kSame, FusedActivation::kRelu6},
       {"gemm_6x16", "sliding_avx2"}},
      // 1152 rows: three Strassen row blocks of 512 (d1) spread over threads.
      {{2, 24, 24, 300, 260, 1, 1, 1, ir::Padding::kValid,
        FusedActivation::kRelu},
       {"gemm_6x16", "sliding_avx2", "strassen_d1", "strassen_d2"}},
  };
  if (avx512) AddAvx512Choices(&cases);
  for (const ConvCase& tc : cases) {
    ConvProblem c(Params(tc.shape), &rng_);
    for (const std::string& choice : tc.choices) {
      ConvAlgo algo;
      ASSERT_TRUE(ParseConvAlgo(choice, &algo));
      const OpResult one = RunConvOp(c, 1, choice);
      const OpResult two = RunConvOp(c, 2, choice);
      EXPECT_EQ(one.kernel, ConvKernelName(algo, HostKernels())) << choice;
      const double tolerance = algo == ConvAlgo::kWinogradF63 ? 5e-5 : 2e-5;
      EXPECT_LE(MaxError(c, one.out), tolerance)
          << one.kernel << " " << Describe(c.p);
      EXPECT_EQ(one.out, two.out)
          << one.kernel << ": 1 and 2 threads differ, " << Describe(c.p);
    }
  }
}

// A fused residual (optimize::FuseResidualAdd) through every algorithm: the
// skip added to each output before the activation, a narrower skip only to
// the first channels, 1 and 2 threads bit-identical.
TEST_F(X86AlgorithmsTest, ConvExecutionsWithResidual) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  std::vector<ConvCase> cases = {
      {{2, 13, 11, 17, 40, 3, 1, 1, ir::Padding::kSame, FusedActivation::kRelu},
       {"reference", "gemm_6x16", "sliding_avx2", "winograd_f23",
        "winograd_f43", "winograd_f63"}},
      {{1, 9, 16, 7, 3, 3, 1, 1, ir::Padding::kSame, FusedActivation::kTanh},
       {"reference", "gemm_6x16", "sliding_avx2", "winograd_f43"}},
      {{2, 15, 17, 3, 24, 5, 2, 1, ir::Padding::kSame, FusedActivation::kRelu6},
       {"reference", "gemm_6x16", "sliding_avx2"}},
      {{2, 24, 24, 300, 260, 1, 1, 1, ir::Padding::kValid,
        FusedActivation::kNone},
       {"gemm_6x16", "strassen_d1"}},
      {{1, 7, 5, 17, 129, 1, 1, 1, ir::Padding::kValid,
        FusedActivation::kReluN1To1},
       {"reference", "gemm_6x16", "sliding_avx2"}},
  };
  if (avx512) AddAvx512Choices(&cases);
  int checked = 0;
  for (const ConvCase& tc : cases) {
    const ConvParams params = Params(tc.shape);
    for (int res_c : {params.out_c, (params.out_c + 1) / 2, 1}) {
      ConvProblem c(params, &rng_);
      c.AddResidual(res_c, &rng_);
      for (const std::string& choice : tc.choices) {
        const OpResult one = RunConvOp(c, 1, choice);
        const OpResult two = RunConvOp(c, 2, choice);
        ConvAlgo algo;
        if (choice != "reference") {
          ASSERT_TRUE(ParseConvAlgo(choice, &algo));
          EXPECT_EQ(one.kernel, ConvKernelName(algo, HostKernels())) << choice;
        }
        const double tolerance = choice == "winograd_f63" ? 5e-5 : 2e-5;
        EXPECT_LE(MaxError(c, one.out), tolerance)
            << one.kernel << " residual channels " << res_c << " " << Describe(c.p);
        EXPECT_EQ(one.out, two.out) << one.kernel << ": 1 and 2 threads differ";
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 45);
}

// A fused PRELU (optimize::FusePRelu) through every algorithm, alone and
// after a fused residual, into a dense output and into a channel slice of a
// wider one: each task applies it to what it has just written (Winograd in a
// pass of its own), 1 and 2 threads bit-identical, the slice the dense
// output's bits.
TEST_F(X86AlgorithmsTest, ConvExecutionsWithFusedPRelu) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  std::vector<ConvCase> cases = {
      {{2, 13, 11, 17, 40, 3, 1, 1, ir::Padding::kSame, FusedActivation::kNone},
       {"reference", "gemm_6x16", "sliding_avx2", "winograd_f23", "winograd_f43", "winograd_f63"}},
      {{2, 15, 17, 3, 24, 5, 2, 1, ir::Padding::kSame, FusedActivation::kNone},
       {"reference", "gemm_6x16", "sliding_avx2"}},
      {{2, 24, 24, 300, 260, 1, 1, 1, ir::Padding::kValid, FusedActivation::kNone},
       {"gemm_6x16", "strassen_d1", "strassen_d2"}},
      {{1, 7, 5, 17, 129, 1, 1, 1, ir::Padding::kValid, FusedActivation::kNone},
       {"reference", "gemm_6x16", "sliding_avx2"}},
  };
  if (avx512) AddAvx512Choices(&cases);
  int checked = 0;
  for (const ConvCase& tc : cases) {
    const ConvParams params = Params(tc.shape);
    for (int res_c : {0, params.out_c}) {
      ConvProblem c(params, &rng_);
      if (res_c > 0) c.AddResidual(res_c, &rng_);
      c.AddPRelu(&rng_);
      for (const std::string& choice : tc.choices) {
        const OpResult one = RunConvOp(c, 1, choice);
        const OpResult two = RunConvOp(c, 2, choice);
        const double tolerance = choice == "winograd_f63" ? 5e-5 : 2e-5;
        EXPECT_LE(MaxError(c, one.out), tolerance) << one.kernel << " residual " << res_c << " " << Describe(c.p);
        EXPECT_EQ(one.out, two.out) << one.kernel << ": 1 and 2 threads differ";
        if (choice == "reference") continue;  // the reference writes dense outputs only
        const int oc = params.out_c, px = oc + 5;
        const OpResult wide = RunConvOp(c, 2, choice, 5);
        std::vector<float> slice;
        for (size_t pixel = 0; pixel < wide.out.size() / px; ++pixel) {
          slice.insert(slice.end(), wide.out.begin() + pixel * px, wide.out.begin() + pixel * px + oc);
        }
        EXPECT_EQ(slice, two.out) << one.kernel << ": the strided slice differs";
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 24);
}

// Every x86 algorithm writing its output with a pixel stride (into its
// channel slice of a concatenation, ConcatInPlaceTest in fusion_test): the
// slice holds what the dense output holds, bit for bit, with or without a
// fused residual; the other channels are untouched.
TEST_F(X86AlgorithmsTest, ConvExecutionsWriteStridedSlices) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  std::vector<ConvCase> cases = {
      {{2, 13, 11, 17, 40, 3, 1, 1, ir::Padding::kSame, FusedActivation::kRelu},
       {"gemm_6x16", "sliding_avx2", "winograd_f23", "winograd_f43", "winograd_f63"}},
      {{1, 9, 16, 7, 3, 3, 1, 1, ir::Padding::kSame, FusedActivation::kTanh},
       {"gemm_6x16", "sliding_avx2", "winograd_f23", "winograd_f43"}},
      {{2, 15, 17, 3, 24, 5, 2, 1, ir::Padding::kSame, FusedActivation::kRelu6},
       {"gemm_6x16", "sliding_avx2"}},
      {{2, 24, 24, 300, 260, 1, 1, 1, ir::Padding::kValid, FusedActivation::kNone},
       {"gemm_6x16", "strassen_d1", "strassen_d2"}},
  };
  if (avx512) AddAvx512Choices(&cases);
  int checked = 0;
  for (const ConvCase& tc : cases) {
    const ConvParams params = Params(tc.shape);
    for (int res_c : {0, params.out_c}) {
      ConvProblem c(params, &rng_);
      if (res_c > 0) c.AddResidual(res_c, &rng_);
      for (const std::string& choice : tc.choices) {
        const OpResult dense = RunConvOp(c, 2, choice);
        for (int extra : {5, 16}) {
          const OpResult wide = RunConvOp(c, 2, choice, extra);
          const int oc = params.out_c, px = oc + extra;
          std::vector<float> slice;
          bool untouched = true;
          for (size_t pixel = 0; pixel < wide.out.size() / px; ++pixel) {
            slice.insert(slice.end(), wide.out.begin() + pixel * px, wide.out.begin() + pixel * px + oc);
            for (int e = oc; e < px; ++e) untouched = untouched && wide.out[pixel * px + e] == 123.0f;
          }
          EXPECT_EQ(dense.out, slice) << wide.kernel << " extra " << extra << " residual " << res_c;
          EXPECT_TRUE(untouched) << wide.kernel << " wrote outside its slice";
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 40);
  // The reference kernels write dense outputs only: they say so.
  ConvProblem c(Params(cases[0].shape), &rng_);
  ir::Graph graph;
  ir::Node node;
  node.type = ir::OpType::kConv2D;
  graph.nodes.push_back(node);
  const ConvParams& p = c.p;
  HostBindings bind;
  TensorBinding x = bind.Make({p.batch, p.in_h, p.in_w, p.in_c}, c.x.data(), false);
  TensorBinding w = bind.Make({p.out_c, p.kernel_h, p.kernel_w, p.in_c}, c.w.data(), true);
  std::vector<float> out(c.out_size());
  TensorBinding y = bind.Make({p.batch, p.out_h, p.out_w, p.out_c}, out.data(), false);
  CpuArgs args;
  args.graph = &graph;
  args.node = &graph.nodes[0];
  args.inputs = {&x, &w, nullptr};
  args.outputs = {&y};
  args.algorithm = AlgorithmPolicy::kReference;
  auto ref = MakeConv2D(args);
  ASSERT_TRUE(ref->Prepare().ok());
  EXPECT_FALSE(cpu::AsCpuExecution(ref.get())->SetOutputPixelStride(p.out_c + 4));
  EXPECT_TRUE(cpu::AsCpuExecution(ref.get())->SetOutputPixelStride(0));
}

// Grouped convs (ResNeXt, ShuffleNet): one GEMM or sliding window per
// channel group, or the direct kernel, against the reference, at 1 and 2 threads bit-identical, with a fused residual and
// written into a channel slice; groups whose channels are not a multiple of
// the panel width, a group wider than a 128-channel column group, im2col and
// pointwise. A cached choice the grouped conv cannot run (a stale or edited
// tuning cache) is not taken.
TEST_F(X86AlgorithmsTest, GroupedConvExecutions) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  struct GroupedCase {
    Shape4 shape;
    int groups;
  };
  const std::vector<GroupedCase> cases = {
      {{2, 9, 11, 12, 18, 3, 1, 1, ir::Padding::kSame, FusedActivation::kRelu}, 2},
      {{1, 13, 10, 21, 35, 3, 2, 1, ir::Padding::kSame, FusedActivation::kRelu6}, 7},
      {{2, 7, 9, 32, 32, 3, 1, 2, ir::Padding::kValid, FusedActivation::kNone}, 8},
      {{1, 9, 9, 6, 300, 1, 1, 1, ir::Padding::kValid, FusedActivation::kNone}, 2},
      {{1, 12, 11, 34, 51, 1, 1, 1, ir::Padding::kValid, FusedActivation::kTanh}, 17},
      {{2, 8, 6, 12, 4, 5, 1, 1, ir::Padding::kSame, FusedActivation::kReluN1To1}, 4},
      // Groups narrower than a vector (the direct kernel applies, as on 32 -> 32
      // in 8 groups above): 8 -> 8,
      // 4 -> 8 in three 16-channel blocks, 4 -> 4 with a partial last block.
      {{2, 9, 10, 16, 16, 3, 2, 1, ir::Padding::kSame, FusedActivation::kRelu6}, 2},
      {{1, 7, 11, 24, 48, 3, 1, 1, ir::Padding::kValid, FusedActivation::kRelu}, 6},
      {{2, 6, 13, 40, 40, 3, 1, 2, ir::Padding::kSame, FusedActivation::kTanh}, 10},
  };
  int checked = 0;
  int direct = 0;
  for (const GroupedCase& gc : cases) {
    ConvParams params = Params(gc.shape);
    params.groups = gc.groups;
    std::vector<std::string> choices = {"reference", "gemm_6x16", "sliding_avx2"};
    if (avx512) {
      choices.push_back("gemm_6x32");
      choices.push_back("sliding_avx512");
    }
    if (avx512 && x86::GroupedDirectApplies(params)) {
      choices.push_back("grouped_direct");
      ++direct;
    }
    for (int res_c : {0, params.out_c, params.out_c / 2}) {
      ConvProblem c(params, &rng_);
      if (res_c > 0) c.AddResidual(res_c, &rng_);
      for (const std::string& choice : choices) {
        const OpResult one = RunConvOp(c, 1, choice);
        const OpResult two = RunConvOp(c, 2, choice);
        if (choice != "reference") {
          ConvAlgo algo;
          ASSERT_TRUE(ParseConvAlgo(choice, &algo));
          EXPECT_EQ(one.kernel, ConvKernelName(algo, HostKernels()));
        }
        EXPECT_LE(MaxError(c, one.out), 2e-5) << one.kernel << " residual " << res_c << " " << Describe(c.p);
        EXPECT_EQ(one.out, two.out) << one.kernel << ": 1 and 2 threads differ, " << Describe(c.p);
        if (choice != "reference") {
          const OpResult wide = RunConvOp(c, 2, choice, 3);
          const int oc = params.out_c, px = oc + 3;
          std::vector<float> slice;
          for (size_t pixel = 0; pixel < wide.out.size() / px; ++pixel) {
            slice.insert(slice.end(), wide.out.begin() + pixel * px, wide.out.begin() + pixel * px + oc);
            for (int e = oc; e < px; ++e) EXPECT_EQ(wide.out[pixel * px + e], 123.0f) << wide.kernel;
          }
          EXPECT_EQ(one.out, slice) << wide.kernel << " into a slice, " << Describe(c.p);
        }
        ++checked;
      }
    }
    // The reference itself, one group at a time: each group is an ordinary
    // conv over its slice of the channels.
    ConvProblem c(params, &rng_);
    const int icg = params.in_c / params.groups, ocg = params.out_c / params.groups;
    ConvParams one_group = params;
    one_group.groups = 1;
    one_group.in_c = icg;
    one_group.out_c = ocg;
    const long long in_px = 1LL * params.batch * params.in_h * params.in_w;
    const long long out_px = 1LL * params.batch * params.out_h * params.out_w;
    for (int g = 0; g < params.groups; ++g) {
      std::vector<float> xg(in_px * icg), yg(out_px * ocg);
      for (long long i = 0; i < in_px; ++i)
        std::copy_n(c.x.begin() + i * params.in_c + g * icg, icg, xg.begin() + i * icg);
      const size_t wg = static_cast<size_t>(ocg) * params.kernel_h * params.kernel_w * icg;
      Conv2DRef(one_group, xg.data(), c.w.data() + g * wg, c.bias.data() + g * ocg, yg.data());
      for (long long i = 0; i < out_px; ++i) {
        for (int o = 0; o < ocg; ++o) {
          ASSERT_EQ(yg[i * ocg + o], c.want[i * params.out_c + g * ocg + o]) << "group " << g << " " << Describe(params);
        }
      }
    }
    // A cached Winograd choice (no grouped variant) is measured again; so is
    // the direct kernel where it does not apply.
    const OpResult stale = RunConvOp(c, 1, "winograd_f43");
    EXPECT_EQ(stale.kernel.find("winograd"), std::string::npos) << stale.kernel;
    EXPECT_LE(MaxError(c, stale.out), 2e-5) << stale.kernel;
    if (!x86::GroupedDirectApplies(params)) {
      const OpResult misfit = RunConvOp(c, 1, "grouped_direct");
      EXPECT_EQ(misfit.kernel.find("grouped_direct"), std::string::npos) << misfit.kernel;
      EXPECT_LE(MaxError(c, misfit.out), 2e-5) << misfit.kernel;
    }
  }
  EXPECT_GE(checked, static_cast<int>(cases.size() * 3 * 3));
  if (avx512) {
    EXPECT_EQ(direct, 4);
  }
}

// TRANSPOSE_CONV_2D through the CPU backend (`reference`: the reference
// kernel; else the x86 GEMM + scatter). Explicit padding; pad_bottom/right
// may be negative (ONNX output_padding).
OpResult RunTransposeConvOp(const ConvParams& p, const std::vector<float>& x, const std::vector<float>& w,
                            const std::vector<float>& bias, int pad_bottom, int pad_right, int threads,
                            bool reference) {
  ir::Graph graph;
  ir::Node node;
  node.name = "deconv";
  node.type = ir::OpType::kTransposeConv2D;
  node.attrs.padding = ir::Padding::kExplicit;
  node.attrs.pad_top = p.pad_top;
  node.attrs.pad_left = p.pad_left;
  node.attrs.pad_bottom = pad_bottom;
  node.attrs.pad_right = pad_right;
  node.attrs.stride_h = p.stride_h;
  node.attrs.stride_w = p.stride_w;
  node.attrs.activation = ToIr(p.activation);
  graph.nodes.push_back(node);
  HostBindings bind;
  TensorBinding xb = bind.Make({p.batch, p.in_h, p.in_w, p.in_c}, x.data(), false);
  TensorBinding wb = bind.Make({p.out_c, p.kernel_h, p.kernel_w, p.in_c / p.groups}, w.data(), true);
  TensorBinding bb = bind.Make({p.out_c}, bias.data(), true);
  OpResult r;
  r.out.assign(static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c, 123.0f);
  TensorBinding yb = bind.Make({p.batch, p.out_h, p.out_w, p.out_c}, r.out.data(), false);
  cpu::CpuBackend backend{SessionConfig{}};
  backend.SetThreadBudget(threads);
  CpuArgs args;
  args.graph = &graph;
  args.node = &graph.nodes[0];
  args.inputs = {&xb, &wb, bias.empty() ? nullptr : &bb};
  args.outputs = {&yb};
  args.backend = &backend;
  args.algorithm = reference ? AlgorithmPolicy::kReference : AlgorithmPolicy::kAuto;
  PrepareAndRun(MakeTransposeConv2D(args).get(), &r);
  return r;
}

// The x86 transposed conv against the reference: strides below, equal to
// and above the kernel (overlapping, tiling and gapped taps), padding at
// both ends and output_padding, channel groups, batch 2, activations; 1, 2
// and 3 threads give the same bits.
TEST_F(X86AlgorithmsTest, TransposeConvExecutions) {
  struct Case {
    int batch, in_h, in_w, in_c, out_c, k, stride, pad, out_pad, groups;
    FusedActivation act;
  };
  const Case cases[] = {
      // Taps tiling the output (stride == kernel): a GEMM per output row.
      {1, 128, 128, 16, 1, 2, 2, 0, 0, 1, FusedActivation::kNone},  // selfie segmentation's
      {2, 5, 4, 8, 5, 3, 3, 0, 0, 1, FusedActivation::kRelu6},
      {2, 5, 7, 6, 4, 3, 2, 1, 1, 2, FusedActivation::kRelu},
      {1, 9, 8, 3, 17, 4, 2, 1, 0, 1, FusedActivation::kRelu6},
      {1, 6, 5, 7, 9, 3, 1, 1, 0, 1, FusedActivation::kTanh},
      {2, 4, 6, 9, 6, 2, 3, 0, 2, 3, FusedActivation::kNone},
      {1, 11, 3, 40, 33, 5, 3, 2, 1, 1, FusedActivation::kReluN1To1},
  };
  for (const Case& c : cases) {
    ConvParams p;
    p.batch = c.batch;
    p.in_h = c.in_h;
    p.in_w = c.in_w;
    p.in_c = c.in_c;
    p.out_c = c.out_c;
    p.kernel_h = p.kernel_w = c.k;
    p.stride_h = p.stride_w = c.stride;
    p.pad_top = p.pad_left = c.pad;
    p.groups = c.groups;
    p.activation = c.act;
    // Output size with pad_bottom = pad - output_padding.
    p.out_h = (c.in_h - 1) * c.stride + c.k - 2 * c.pad + c.out_pad;
    p.out_w = (c.in_w - 1) * c.stride + c.k - 2 * c.pad + c.out_pad;
    const std::vector<float> x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, &rng_);
    const std::vector<float> w = Random(static_cast<size_t>(p.out_c) * c.k * c.k * p.in_c / p.groups, &rng_);
    const std::vector<float> bias = Random(p.out_c, &rng_);
    const int pad_end = c.pad - c.out_pad;
    const OpResult want = RunTransposeConvOp(p, x, w, bias, pad_end, pad_end, 1, true);
    EXPECT_EQ(want.kernel, "transpose_conv2d_ref");
    // Bound of the sums' magnitude for the relative error.
    ConvParams linear = p;
    linear.activation = FusedActivation::kNone;
    const OpResult bound = RunTransposeConvOp(linear, Abs(x), Abs(w), Abs(bias), pad_end, pad_end, 1, true);
    const OpResult one = RunTransposeConvOp(p, x, w, bias, pad_end, pad_end, 1, false);
    EXPECT_NE(one.kernel.find("transpose_conv2d_gemm"), std::string::npos) << one.kernel;
    EXPECT_EQ(x86::TransposeConvTiles(p), c.k == c.stride && c.pad == 0 && c.out_pad == 0 && c.groups == 1);
    ASSERT_EQ(one.out.size(), want.out.size());
    double worst = 0;
    for (size_t i = 0; i < want.out.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(one.out[i]) - want.out[i]) / (1.0 + bound.out[i]));
    }
    EXPECT_LE(worst, 2e-6) << "k" << c.k << " s" << c.stride << " groups " << c.groups;
    for (int threads : {2, 3}) {
      EXPECT_EQ(one.out, RunTransposeConvOp(p, x, w, bias, pad_end, pad_end, threads, false).out)
          << threads << " threads, k" << c.k << " s" << c.stride;
    }
  }
}

OpResult RunFcOp(int rows, int in_dim, int out_dim, FusedActivation act,
                 const std::vector<float>& x, const std::vector<float>& w,
                 const std::vector<float>& bias, int threads,
                 const std::string& choice,
                 Precision precision = Precision::kFp32) {
  ir::Graph graph;
  graph.source = "x86_algorithms_test";
  ir::Node node;
  node.name = "fc";
  node.type = ir::OpType::kFullyConnected;
  node.attrs.activation = ToIr(act);
  graph.nodes.push_back(node);
  HostBindings bind;
  TensorBinding xb = bind.Make({rows, in_dim}, x.data(), false);
  TensorBinding wb = bind.Make({out_dim, in_dim}, w.data(), true);
  TensorBinding bb = bind.Make({out_dim}, bias.data(), true);
  OpResult r;
  r.out.assign(static_cast<size_t>(rows) * out_dim, 123.0f);
  TensorBinding yb = bind.Make({rows, out_dim}, r.out.data(), false);
  cpu::CpuBackend backend{SessionConfig{}};
  backend.SetThreadBudget(threads);
  TuningCache cache;
  // The choice for every panel type (fp16 and bf16 keys carry a suffix): a
  // key left out would be measured, and two runs could then differ by timing.
  for (PanelType panel : {PanelType::kF32, PanelType::kF16, PanelType::kBf16}) {
    cache.choices[FcTuningKey(rows, in_dim, out_dim, HostKernels().isa) + PanelKeySuffix(panel)] = choice;
  }
  CpuArgs args;
  args.graph = &graph;
  args.node = &graph.nodes[0];
  args.inputs = {&xb, &wb, &bb};
  args.outputs = {&yb};
  args.backend = &backend;
  args.algorithm = AlgorithmPolicy::kTune;
  args.tuning = &cache;
  args.precision = precision;
  PrepareAndRun(MakeFullyConnected(args).get(), &r);
  return r;
}

TEST_F(X86AlgorithmsTest, FcExecutionsAllChoicesOneAndTwoThreads) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  // 1100 rows: three row blocks at d1 (512 rows), two at d2 (1024); odd sizes.
  const int rows = 1100, in_dim = 263, out_dim = 271;
  const std::vector<float> x =
      Random(static_cast<size_t>(rows) * in_dim, &rng_);
  const std::vector<float> w =
      Random(static_cast<size_t>(out_dim) * in_dim, &rng_);
  const std::vector<float> bias = Random(out_dim, &rng_);
  for (FusedActivation act :
       {FusedActivation::kNone, FusedActivation::kRelu6}) {
    std::vector<float> want(static_cast<size_t>(rows) * out_dim),
        bound(want.size());
    FullyConnectedRef(rows, in_dim, out_dim, act, x.data(), w.data(),
                      bias.data(), want.data());
    const std::vector<float> ax = Abs(x), aw = Abs(w), ab = Abs(bias);
    FullyConnectedRef(rows, in_dim, out_dim, FusedActivation::kNone, ax.data(),
                      aw.data(), ab.data(), bound.data());
    std::vector<std::string> choices = {"gemm_6x16", "strassen_d1",
                                        "strassen_d2"};
    if (avx512) choices.push_back("gemm_6x32");
    for (const std::string& choice : choices) {
      ConvAlgo algo;
      ASSERT_TRUE(ParseConvAlgo(choice, &algo));
      const OpResult one =
          RunFcOp(rows, in_dim, out_dim, act, x, w, bias, 1, choice);
      const OpResult two =
          RunFcOp(rows, in_dim, out_dim, act, x, w, bias, 2, choice);
      EXPECT_EQ(one.kernel, FcKernelName(algo, HostKernels()));
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst,
                         std::fabs(static_cast<double>(one.out[i]) - want[i]) /
                             (1.0 + bound[i]));
      }
      EXPECT_LE(worst, 2e-5) << one.kernel;
      EXPECT_EQ(one.out, two.out) << one.kernel << ": 1 and 2 threads differ";
    }
  }
}

// At several threads FULLY_CONNECTED splits into tiles of rows x 128-column
// groups: Swin's and ConvNeXt's early layers (thousands of rows, 96 or 384
// columns: one to three column groups) split by rows too. Odd row counts,
// columns not a multiple of the panel, a last row block shorter than the
// others: the reference's values, and the same bits at 1, 2 and 3 threads
// (and with half-precision panels).
TEST_F(X86AlgorithmsTest, FcExecutionsSplitRowsAndColumns) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  struct Shape3 {
    int rows, in_dim, out_dim;
  };
  int checked = 0;
  for (const Shape3& s : {Shape3{397, 40, 96}, Shape3{251, 96, 384}, Shape3{49, 70, 700}, Shape3{25, 17, 130},
                          Shape3{23, 33, 20}, Shape3{1000, 8, 31}}) {
    const std::vector<float> x = Random(static_cast<size_t>(s.rows) * s.in_dim, &rng_);
    const std::vector<float> w = Random(static_cast<size_t>(s.out_dim) * s.in_dim, &rng_);
    const std::vector<float> bias = Random(s.out_dim, &rng_);
    std::vector<float> want(static_cast<size_t>(s.rows) * s.out_dim), bound(want.size());
    FullyConnectedRef(s.rows, s.in_dim, s.out_dim, FusedActivation::kRelu6, x.data(), w.data(), bias.data(),
                      want.data());
    const std::vector<float> ax = Abs(x), aw = Abs(w), ab = Abs(bias);
    FullyConnectedRef(s.rows, s.in_dim, s.out_dim, FusedActivation::kNone, ax.data(), aw.data(), ab.data(),
                      bound.data());
    std::vector<std::string> choices = {"gemm_6x16"};
    if (avx512) choices.push_back("gemm_6x32");
    for (const std::string& choice : choices) {
      for (Precision precision : {Precision::kFp32, Precision::kFp16}) {
        const OpResult one = RunFcOp(s.rows, s.in_dim, s.out_dim, FusedActivation::kRelu6, x, w, bias, 1, choice,
                                     precision);
        if (precision == Precision::kFp32) {
          double worst = 0;
          for (size_t i = 0; i < want.size(); ++i) {
            worst = std::max(worst, std::fabs(static_cast<double>(one.out[i]) - want[i]) / (1.0 + bound[i]));
          }
          EXPECT_LE(worst, 2e-6) << one.kernel << " m" << s.rows << " k" << s.in_dim << " n" << s.out_dim;
        }
        for (int threads : {2, 3}) {
          const OpResult many = RunFcOp(s.rows, s.in_dim, s.out_dim, FusedActivation::kRelu6, x, w, bias, threads,
                                        choice, precision);
          EXPECT_EQ(one.kernel, many.kernel) << threads << " threads";
          EXPECT_EQ(one.out, many.out) << one.kernel << " at " << threads << " threads, m" << s.rows << " k"
                                       << s.in_dim << " n" << s.out_dim;
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, avx512 ? 24 : 12);
}

// Batch 1 (a classifier head) on AVX-512 is a GEMV over the 6x32 panels,
// chosen by the cost model: odd K (the last k step alone), N not a multiple
// of the panel or of the threads' 128-column groups, every activation.
TEST_F(X86AlgorithmsTest, FcBatchOneIsAGemv) {
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "no AVX-512";
  EXPECT_EQ(ChooseFcAlgo(1, 1280, 1000, Avx512Features()), ConvAlgo::kGemm6x32);
  int checked = 0;
  for (int in_dim : {1, 2, 263, 1280}) {
    for (int out_dim : {1, 17, 300}) {
      const std::vector<float> x = Random(in_dim, &rng_);
      const std::vector<float> w = Random(static_cast<size_t>(out_dim) * in_dim, &rng_);
      const std::vector<float> bias = Random(out_dim, &rng_);
      for (FusedActivation act : {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6,
                                  FusedActivation::kReluN1To1, FusedActivation::kTanh}) {
        std::vector<float> want(out_dim), bound(out_dim);
        FullyConnectedRef(1, in_dim, out_dim, act, x.data(), w.data(), bias.data(), want.data());
        const std::vector<float> ax = Abs(x), aw = Abs(w), ab = Abs(bias);
        FullyConnectedRef(1, in_dim, out_dim, FusedActivation::kNone, ax.data(), aw.data(), ab.data(), bound.data());
        const OpResult one = RunFcOp(1, in_dim, out_dim, act, x, w, bias, 1, "gemm_6x32");
        const OpResult two = RunFcOp(1, in_dim, out_dim, act, x, w, bias, 2, "gemm_6x32");
        EXPECT_EQ(one.kernel, "fully_connected_gemv_avx512");
        for (int i = 0; i < out_dim; ++i) {
          ASSERT_LE(std::fabs(static_cast<double>(one.out[i]) - want[i]) / (1.0 + bound[i]), 2e-6)
              << "k " << in_dim << " n " << out_dim << " column " << i;
        }
        EXPECT_EQ(one.out, two.out) << "1 and 2 threads differ";
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 60);
}

TEST_F(X86AlgorithmsTest, KernelNamesSayAlgorithmAndParameter) {
  const CpuKernels avx512 = x86::KernelTable(Avx512Cpu());
  const CpuKernels avx2 = x86::KernelTable(Avx2Cpu());
  EXPECT_EQ(ConvKernelName(ConvAlgo::kWinogradF63, avx512), "conv3x3s1_winograd_f63_avx512");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kWinogradF43, avx2), "conv3x3s1_winograd_f43_avx2");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kSlidingAvx512, avx512), "conv2d_sliding_avx512");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kSlidingAvx2, avx512), "conv2d_sliding_avx2");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kGemm6x16, avx512), "conv2d_gemm_6x16_avx2");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kGemm6x32, avx512), "conv2d_gemm_6x32_avx512");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kGroupedDirect, avx512), "conv2d_grouped_direct_avx512");
  EXPECT_EQ(FcKernelName(ConvAlgo::kStrassen1, avx512), "fc_strassen_d1_avx512");
  EXPECT_EQ(FcKernelName(ConvAlgo::kGemm6x16, avx2), "fully_connected_gemm_avx2");
  EXPECT_EQ(FcKernelName(ConvAlgo::kGemm6x32, avx512), "fully_connected_gemm_6x32_avx512");
  EXPECT_EQ(ConvKernelName(ConvAlgo::kStrassen2, avx512), "conv1x1_strassen_d2_avx512");
  // A table without the kernel says so rather than naming another ISA's.
  EXPECT_EQ(ConvKernelName(ConvAlgo::kSlidingAvx512, avx2), "conv2d_sliding_none");
  for (const char* token : {"gemm_6x16", "gemm_6x32", "sliding_avx2",
                            "sliding_avx512", "winograd_f23", "winograd_f43",
                            "winograd_f63", "strassen_d1", "strassen_d2"}) {
    ConvAlgo a;
    ASSERT_TRUE(ParseConvAlgo(token, &a)) << token;
    EXPECT_EQ(ConvAlgoToken(a), token);
  }
  ConvAlgo a;
  EXPECT_FALSE(ParseConvAlgo(
      "gemm", &a));  // the old vocabulary: re-measured, not misread
}

// The cost model's choices on fixed shapes of the reference models (AVX-512
// machine model; measured winners noted).
// tune_regret reads the kTune logs back: every key ConvTuningKey writes
// parses to the same parameters (grouped, kFp16's suffix); others do not.
TEST(ConvCostModelTest, TuningKeysParseBack) {
  ConvParams p = Params({2, 28, 30, 208, 104, 3, 2, 1, ir::Padding::kSame, FusedActivation::kNone});
  for (int groups : {1, 26}) {
    for (const char* isa : {"avx2", "avx512", "neon"}) {
      p.groups = groups;
      for (const std::string& suffix : {std::string(), std::string(":f16w"), std::string(":bf16")}) {
        const std::string key = ConvTuningKey(p, isa) + suffix;
        ConvParams q;
        std::string parsed;
        ASSERT_TRUE(ParseConvTuningKey(key, &q, &parsed)) << key;
        EXPECT_EQ(parsed, isa);
        EXPECT_EQ(ConvTuningKey(q, parsed) + suffix, key);
      }
    }
  }
  EXPECT_EQ(ConvTuningKey(p, "avx512").substr(ConvTuningKey(p, "avx512").size() - 7), ":avx512");
  ConvParams q;
  std::string isa;
  EXPECT_FALSE(ParseConvTuningKey(FcTuningKey(1, 1280, 1000, "avx512"), &q, &isa));
  EXPECT_FALSE(ParseConvTuningKey("conv:n1:h7", &q, &isa));
  EXPECT_FALSE(ParseConvTuningKey(ConvTuningKey(p, "avx512") + "x", &q, &isa));
  EXPECT_FALSE(ParseConvTuningKey(ConvTuningKey(p, "ref"), &q, &isa));
  EXPECT_FALSE(ParseConvTuningKey("conv:n1:h-7:w7:ic1:oc1:k1x1:s1x1:d1x1:p0x0:o7x7:avx2" + std::string(" "), &q, &isa));
}

TEST(ConvCostModelTest, ChoicesOnFixedShapes) {
  const IsaFeatures avx512 = Avx512Features();
  auto conv = [](int h, int w, int ic, int oc, int k, int s, ir::Padding pad) {
    return Params({1, h, w, ic, oc, k, s, 1, pad, FusedActivation::kNone});
  };
  // face_detection_short_range's first layer: 3 input channels, 5x5 stride 2.
  EXPECT_EQ(
      ChooseConvAlgo(conv(128, 128, 3, 24, 5, 2, ir::Padding::kSame), avx512),
      ConvAlgo::kSlidingAvx512);
  // resnet's stem: 7x7 stride 2 on 3 channels.
  EXPECT_EQ(
      ChooseConvAlgo(conv(230, 230, 3, 64, 7, 2, ir::Padding::kValid), avx512),
      ConvAlgo::kSlidingAvx512);
  // resnet18 layer1 3x3 64 -> 64 at 56x56: Winograd with large tiles.
  const ConvAlgo l1 =
      ChooseConvAlgo(conv(56, 56, 64, 64, 3, 1, ir::Padding::kSame), avx512);
  EXPECT_TRUE(l1 == ConvAlgo::kWinogradF43 || l1 == ConvAlgo::kWinogradF63)
      << ConvAlgoToken(l1);
  // 7x7 maps: F(6,3) would compute 12x12 outputs for 7x7; F(2,3) or F(4,3)
  // (kTune: 1.64-1.99 ms against the GEMM's 2.26 on the AMD VM, 1.75 against
  // 3.24 on the Xeon). The GEMMs inside Winograd take the GEMM's
  // calibration, not the transforms' (they had made it pick the GEMM).
  const ConvAlgo l4 =
      ChooseConvAlgo(conv(7, 7, 512, 512, 3, 1, ir::Padding::kSame), avx512);
  EXPECT_TRUE(l4 == ConvAlgo::kWinogradF23 || l4 == ConvAlgo::kWinogradF43)
      << ConvAlgoToken(l4);
  // A 16-channel pointwise output runs the GEMM's 12x16 tile (squeezenet's
  // squeeze layers: 0.058 / 0.092 ms against the sliding window's 0.074 /
  // 0.114 on the VM / Xeon).
  EXPECT_EQ(
      ChooseConvAlgo(conv(55, 55, 64, 16, 1, 1, ir::Padding::kValid), avx512),
      ConvAlgo::kGemm6x32);
  // Pointwise convs with many channels stay on GEMM.
  EXPECT_EQ(
      ChooseConvAlgo(conv(56, 56, 64, 256, 1, 1, ir::Padding::kValid), avx512),
      ConvAlgo::kGemm6x32);
  // FC at batch 1 (memory-bound) stays on the plain GEMM; a 2048^3 GEMM
  // takes Strassen.
  EXPECT_EQ(StrassenDepth(ChooseFcAlgo(1, 2048, 1000, avx512)), 0);
  EXPECT_GE(StrassenDepth(ChooseFcAlgo(2048, 2048, 2048, avx512)), 1);
  // bf16 GEMMs (Precision::kBf16): no Strassen (its sums are fp32), and the
  // GEMM's halved cost takes layers from the other algorithms: a 2048^3 FC
  // and a large pointwise conv stay on the GEMM; a 3x3 conv with few
  // channels leaves the sliding window / Winograd for it.
  const IsaFeatures bf16 = Avx512Features(PanelType::kBf16);
  EXPECT_EQ(ChooseFcAlgo(2048, 2048, 2048, bf16), ConvAlgo::kGemm6x32);
  for (ConvAlgo a : ConvCandidates(conv(64, 64, 512, 512, 1, 1, ir::Padding::kValid), bf16)) {
    EXPECT_EQ(StrassenDepth(a), 0) << ConvAlgoToken(a);
  }
  for (ConvAlgo a : FcCandidates(2048, 2048, 2048, bf16)) EXPECT_EQ(StrassenDepth(a), 0) << ConvAlgoToken(a);
  // Without AVX-512 no AVX-512 kernel is offered.
  for (ConvAlgo a : ConvCandidates(conv(32, 32, 16, 16, 3, 1, ir::Padding::kSame),
                                   ConvIsaFeatures(x86::KernelTable(Avx2Cpu()), PanelType::kF32))) {
    EXPECT_NE(a, ConvAlgo::kGemm6x32);
    EXPECT_NE(a, ConvAlgo::kSlidingAvx512);
  }
  // Winograd's products run on the ISA's own GEMM: the AVX2 table prices
  // them on 16-wide panels with 8-lane transforms, the AVX-512 one on 32 / 16.
  const IsaFeatures avx2 = ConvIsaFeatures(x86::KernelTable(Avx2Cpu()), PanelType::kF32);
  EXPECT_EQ(avx2.winograd_nr, 16);
  EXPECT_EQ(avx2.winograd_lanes, 8);
  EXPECT_EQ(avx512.winograd_nr, 32);
  EXPECT_EQ(avx512.winograd_lanes, 16);
  // Priced as such: a 56x56x64->64 layer's F(4,3) costs more on AVX2 than on
  // AVX-512 (half the GEMM width, half the transform lanes).
  const ConvParams wl = conv(56, 56, 64, 64, 3, 1, ir::Padding::kSame);
  EXPECT_GT(EstimateConvCycles(wl, ConvAlgo::kWinogradF43, avx2),
            1.5 * EstimateConvCycles(wl, ConvAlgo::kWinogradF43, avx512));
}

}  // namespace
}  // namespace rill::inference::cpu
