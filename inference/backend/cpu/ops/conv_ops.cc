// CONV_2D, DEPTHWISE_CONV_2D, transposed conv and FULLY_CONNECTED on the CPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/ref/residual_add.h"
#include "inference/backend/cpu/kernels/ref/transpose_conv2d.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_binary_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_grouped_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_sliding.h"
#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd.h"
#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_strassen.h"
#include "inference/backend/cpu/kernels/x86/f32_transpose_conv2d.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::cpu {
namespace {

// kTune diagnostics: with SessionConfig::tune_log set, every measurement is
// appended as `key choice measured_ms estimated_cycles` (the data the cost
// model is calibrated against). Only at resize, never during a run.
void LogMeasurement(const std::string& path, const std::string& key, const std::string& choice, double ms,
                    double cycles) {
  if (path.empty()) return;
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s %s %.4f %.0f\n", key.c_str(), choice.c_str(), ms, cycles);
    std::fclose(f);
  }
}

// Synthetic input for measuring candidates: deterministic, in [-0.5, 0.5).
std::vector<float> TuningInput(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
  return x;
}

// The best of three timed runs, in milliseconds.
template <class Run>
double BestOfThreeMs(Run&& run) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// kTune for one layer: the cached choice under `key`, or else every
// candidate measured (`measure_ms`, one thread) and logged against the cost
// model (`estimate`), the fastest cached and returned.
template <class Measure, class Estimate>
ConvAlgo MeasureCandidates(const std::string& key, const std::vector<ConvAlgo>& candidates, TuningCache* cache,
                           Measure&& measure_ms, Estimate&& estimate) {
  ConvAlgo algo;
  auto cached = cache->choices.find(key);
  if (cached != cache->choices.end() && ParseConvAlgo(cached->second, &algo)) return algo;
  ConvAlgo best = candidates.front();
  double best_ms = 1e30;
  for (ConvAlgo c : candidates) {
    const double ms = measure_ms(c);
    LogMeasurement(cache->log_path, key, ConvAlgoToken(c), ms, estimate(c));
    if (ms < best_ms) {
      best_ms = ms;
      best = c;
    }
  }
  cache->choices[key] = ConvAlgoToken(best);
  cache->dirty = true;
  return best;
}

class ConvOp : public CpuOp {
 public:
  enum class Kind { kConv, kDepthwise, kTranspose };
  ConvOp(const CpuArgs& args, Kind kind) : CpuOp(args), kind_(kind) {}

  std::string name() const override {
    switch (kind_) {
      case Kind::kConv:
        if (!use_avx2_) return "conv2d_ref";
        // The panels' suffix where this algorithm reads them so.
        return ConvKernelName(algo_, avx512_) + (HalfWeights() || Bf16Gemm() ? x86::PanelNameSuffix(panel_) : "");
      case Kind::kDepthwise: return use_avx2_ ? "depthwise_conv2d_avx2" : "depthwise_conv2d_ref";
      case Kind::kTranspose:
        if (!use_avx2_) return "transpose_conv2d_ref";
        return avx512_ ? "transpose_conv2d_gemm_6x32_avx512" : "transpose_conv2d_gemm_6x16_avx2";
    }
    return "conv_ref";
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(4));
    const Shape& x = InShape(0);
    const Shape& w = InShape(1);
    const Shape& y = OutShape();
    const ir::OpAttrs& a = attrs();
    p_ = ConvParams{};
    p_.batch = x[0];
    p_.in_h = x[1];
    p_.in_w = x[2];
    p_.in_c = x[3];
    p_.out_h = y[1];
    p_.out_w = y[2];
    p_.out_c = y[3];
    p_.kernel_h = w[1];
    p_.kernel_w = w[2];
    p_.stride_h = a.stride_h;
    p_.stride_w = a.stride_w;
    p_.dilation_h = kind_ == Kind::kTranspose ? 1 : a.dilation_h;
    p_.dilation_w = kind_ == Kind::kTranspose ? 1 : a.dilation_w;
    p_.activation = ToFused(a.activation);
    if (kind_ == Kind::kTranspose && a.padding != ir::Padding::kExplicit) {
      // Padding of the forward conv that maps the output back to the input.
      p_.pad_top = ir::WindowPadBefore(p_.out_h, p_.in_h, p_.kernel_h, p_.stride_h, 1, a.padding);
      p_.pad_left = ir::WindowPadBefore(p_.out_w, p_.in_w, p_.kernel_w, p_.stride_w, 1, a.padding);
    } else {
      SetWindowPadding(a, &p_);
    }
    p_.depth_multiplier = kind_ == Kind::kDepthwise ? p_.out_c / p_.in_c : 1;
    if (kind_ != Kind::kDepthwise) p_.groups = ir::ConvGroups(p_.in_c, w[3]);
    // A fused residual (optimizer: conv -> ADD(skip)): the kernels write the
    // conv without activation and the epilogue adds the skip, then activates.
    act_ = p_.activation;
    residual_c_ = 0;
    if (kind_ == Kind::kConv && HasInput(3)) {
      residual_c_ = InShape(3)[3];
      p_.activation = FusedActivation::kNone;
    }
    // Algorithm choice: the AVX2/FMA kernels when the CPU has them and the
    // policy allows; the reference kernels otherwise.
    const bool avx2 = args_.algorithm != AlgorithmPolicy::kReference && x86::HasAvx2Fma() && args_.inputs[1]->constant;
    use_avx2_ = avx2 && (kind_ != Kind::kDepthwise || p_.depth_multiplier == 1);
    scratch_floats_ = 0;
    if (use_avx2_ && kind_ == Kind::kTranspose) {
      // A GEMM per input row and a scatter into bands of output rows.
      avx512_ = x86::GetCpuFeatures().avx512f;
      gemm_ = avx512_ ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
      // The packing depends on whether the taps tile the output (a resize
      // may change that).
      if (!prepared_ || prepared_tiles_ != x86::TransposeConvTiles(p_)) {
        x86::PackTransposeConvWeights(p_, In(1), In(2), avx512_, &packed_);
      }
      prepared_ = true;
      prepared_tiles_ = x86::TransposeConvTiles(p_);
      scratch_floats_ = x86::TransposeConvScratchFloats(p_) * threads();
    }
    if (use_avx2_ && kind_ == Kind::kConv) {
      avx512_ = x86::GetCpuFeatures().avx512f;
      panel_ = x86::ChoosePanelType(args_.precision == Precision::kFp16, args_.precision == Precision::kBf16, avx512_);
      const IsaFeatures isa{true, avx512_, panel_ == x86::PanelType::kBf16};
      // kAuto: the cost model (conv_algorithm.cc); kTune: measured.
      algo_ = args_.tuning ? Tune(isa) : ChooseConvAlgo(p_, isa);
      SetUp(algo_);
      scratch_floats_ = ScratchFloats(threads());
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override {
    return (packed_.size() + winograd_.packed.size() + strassen_.packed.size()) * sizeof(float) +
           (packed_half_.size() + winograd_.half.size()) * sizeof(uint16_t) +
           (packed_bf16_.size() + winograd_.bf16.size()) * sizeof(x86::Bf16);
  }

  // Every x86 CONV_2D algorithm writes with a pixel stride (the session
  // points the output into a channel CONCATENATION's); the reference and
  // depthwise kernels write dense outputs only.
  bool SetOutputPixelStride(int floats) override {
    if (floats != 0 && (kind_ != Kind::kConv || !use_avx2_ || floats < p_.out_c)) return false;
    p_.out_stride = floats;
    return true;
  }

  void Compute() override {
    switch (kind_) {
      case Kind::kConv:
        if (use_avx2_) {
          Execute(In(0), Out(), Scratch(), /*use_pool=*/true, residual_c_ ? In(3) : nullptr);
        } else {
          Conv2DRef(p_, In(0), In(1), In(2), Out());
          if (residual_c_) ResidualAddRef(GemmRows(), p_.out_c, In(3), residual_c_, act_, Out());
        }
        break;
      case Kind::kDepthwise:
        if (use_avx2_) {
          // Chunks of whole row pairs (the AVX-512 kernel computes two
          // output rows at a time), two per thread; tiny layers stay on one.
          const int rows = p_.batch * p_.out_h;
          const int pairs = (rows + 1) / 2;
          const long long macs = 1LL * rows * p_.out_w * p_.out_c * p_.kernel_h * p_.kernel_w;
          const int chunks = macs < 65536 ? 1 : std::min(pairs, threads() * 2);
          auto chunk = [this, rows, pairs, chunks](int c, int) {
            const int begin = 2 * (pairs * c / chunks);
            const int end = std::min(rows, 2 * (pairs * (c + 1) / chunks));
            x86::DepthwiseConv2DAvx2Rows(p_, In(0), In(1), In(2), Out(), begin, end);
          };
          ParallelFor(chunks, chunk);
        } else {
          DepthwiseConv2DRef(p_, In(0), In(1), In(2), Out());
        }
        break;
      case Kind::kTranspose:
        if (use_avx2_) {
          // Bands of output rows (a few per thread); each band computes the
          // input rows that reach it, so the split never changes a result.
          const int rows = p_.batch * p_.out_h;
          const int bands = std::min(rows, 4 * threads());
          const size_t per_thread = x86::TransposeConvScratchFloats(p_);
          auto band = [this, rows, bands, per_thread](int b, int thread) {
            x86::TransposeConv2DRows(p_, In(0), packed_.data(), In(2), gemm_,
                                     Scratch() + per_thread * thread, Out(),
                                     rows * b / bands, rows * (b + 1) / bands);
          };
          ParallelFor(bands, band);
        } else {
          TransposeConv2DRef(p_, In(0), In(1), In(2), Out());
        }
        break;
    }
  }

 private:
  // One channel group as a conv of its own over a slice of the tensors:
  // its channels, the whole tensors' pixel strides (p_ itself when ungrouped).
  ConvParams GroupParams() const {
    ConvParams g = p_;
    g.in_c = p_.in_c / p_.groups;
    g.out_c = p_.out_c / p_.groups;
    g.groups = 1;
    g.in_stride = p_.in_c;
    g.out_stride = OutPixelStride(p_);
    return g;
  }

  // Rows of one Strassen call: fixed by the shape (never by the thread
  // count), so every row block, and the result, is the same for any threads.
  int StrassenRowBlock() const { return 256 << StrassenDepth(algo_); }
  long long GemmRows() const { return static_cast<long long>(p_.batch) * p_.out_h * p_.out_w; }
  // Precision::kFp16 on AVX-512: half-precision panels for the GEMM and the
  // Winograd products.
  bool HalfWeights() const {
    return panel_ == x86::PanelType::kF16 && (algo_ == ConvAlgo::kGemm6x32 || WinogradTile(algo_) > 0);
  }
  // Precision::kBf16 on AVX512-BF16: bf16 panels for the 6x32 GEMM and
  // F(2,3)'s products. F(4,3) and F(6,3) keep fp32 products: their output
  // transforms cancel large terms, which turns bf16's 2^-9 into errors of
  // 13-16% of the terms' magnitude with few input channels (F(2,3): 0.8%;
  // x86_algorithms_test WinogradBf16MatchesReference). The sliding window
  // and Strassen stay fp32.
  bool Bf16Gemm() const {
    return panel_ == x86::PanelType::kBf16 && (algo_ == ConvAlgo::kGemm6x32 || algo_ == ConvAlgo::kWinogradF23);
  }

  // Transforms / packs the weights for `algo` (once per algorithm: a resize
  // that keeps the algorithm keeps the packed weights).
  void SetUp(ConvAlgo algo) {
    algo_ = algo;
    const bool wide = avx512_ && algo != ConvAlgo::kGemm6x16;
    gemm_ = wide ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
    if (WinogradTile(algo) > 0) plan_ = x86::PlanWinograd(WinogradTile(algo), p_, threads());
    if (prepared_ && prepared_algo_ == algo) return;
    packed_.clear();
    packed_.shrink_to_fit();
    packed_half_.clear();
    packed_half_.shrink_to_fit();
    packed_bf16_.clear();
    packed_bf16_.shrink_to_fit();
    winograd_ = {};
    strassen_ = {};
    switch (algo) {
      case ConvAlgo::kGemm6x16:
      case ConvAlgo::kGemm6x32:
        if (panel_ == x86::PanelType::kF16 && algo == ConvAlgo::kGemm6x32) {
          x86::PackConvGemmWeightsHalf(p_, In(1), &packed_half_);
        } else if (panel_ == x86::PanelType::kBf16 && algo == ConvAlgo::kGemm6x32) {
          x86::PackConvGemmWeightsBf16(p_, In(1), &packed_bf16_);
        } else {
          x86::PackConvGemmWeights(p_, In(1), wide, &packed_);
        }
        break;
      case ConvAlgo::kSlidingAvx2:
      case ConvAlgo::kSlidingAvx512: {
        // One packed filter per channel group (one in all for ungrouped convs).
        const int lanes = algo == ConvAlgo::kSlidingAvx512 ? 16 : 8;
        const ConvParams pg = GroupParams();
        const size_t per_group = x86::SlidingPackedFloats(pg, lanes);
        const size_t filter_floats = static_cast<size_t>(pg.out_c) * pg.kernel_h * pg.kernel_w * pg.in_c;
        packed_.assign(per_group * p_.groups, 0.0f);
        for (int g = 0; g < p_.groups; ++g) {
          x86::PackSlidingWeights(pg, In(1) + filter_floats * g, lanes, packed_.data() + per_group * g);
        }
        break;
      }
      case ConvAlgo::kWinogradF23:
      case ConvAlgo::kWinogradF43:
      case ConvAlgo::kWinogradF63:
        x86::TransformWeightsWinograd(WinogradTile(algo), p_, In(1), wide, &winograd_);
        if (panel_ == x86::PanelType::kF16) x86::ToHalfPanels(&winograd_.packed, &winograd_.half);
        if (panel_ == x86::PanelType::kBf16 && algo == ConvAlgo::kWinogradF23) x86::ToBf16Panels(p_, &winograd_);
        break;
      case ConvAlgo::kStrassen1:
      case ConvAlgo::kStrassen2:
        x86::PrepareStrassenWeights(In(1), p_.out_c, p_.in_c, StrassenDepth(algo), wide, &strassen_);
        break;
      case ConvAlgo::kGroupedDirect:
        packed_.assign(x86::GroupedDirectPackedFloats(p_), 0.0f);
        x86::PackGroupedDirectWeights(p_, In(1), packed_.data());
        break;
    }
    prepared_ = true;
    prepared_algo_ = algo;
  }

  // Winograd on `n` threads: whole blocks per thread (one parallel loop, each
  // thread with its own transformed-input and product buffers) when there
  // are blocks enough to share; else each block's three phases are split
  // over the threads (three loops per block: small maps have one block).
  bool WinogradBlockPerThread(int n) const {
    return x86::WinogradBlocksPerThread(plan_.total_tiles, n) && plan_.blocks % n == 0;
  }

  // Scratch of the chosen algorithm when `n` threads run it.
  size_t ScratchFloats(int n) const {
    switch (algo_) {
      case ConvAlgo::kGemm6x16:
      case ConvAlgo::kGemm6x32: return x86::Conv2DGemmScratchFloats(p_) * n;
      case ConvAlgo::kSlidingAvx2:
      case ConvAlgo::kSlidingAvx512:
      case ConvAlgo::kGroupedDirect: return 0;
      case ConvAlgo::kWinogradF23:
      case ConvAlgo::kWinogradF43:
      case ConvAlgo::kWinogradF63:
        if (WinogradBlockPerThread(n)) return (plan_.v_floats + plan_.m_floats + plan_.patch_floats) * n;
        return plan_.v_floats + plan_.m_floats + plan_.patch_floats * n;
      case ConvAlgo::kStrassen1:
      case ConvAlgo::kStrassen2:
        return x86::StrassenScratchFloats(static_cast<int>(std::min<long long>(GemmRows(), StrassenRowBlock())),
                                          p_.out_c, p_.in_c, StrassenDepth(algo_)) *
               n;
    }
    return 0;
  }

  // f(task, thread) for tasks [0, n): on the session's threads, or in turn
  // on the calling thread (kTune measures one core).
  template <typename F>
  void For(int n, F& f, bool use_pool) const {
    if (use_pool) {
      ParallelFor(n, f);
    } else {
      for (int i = 0; i < n; ++i) f(i, 0);
    }
  }

  // Adds the fused residual to output pixels [begin, end), channels
  // [col_begin, col_end), and applies the activation.
  void AddResidual(const float* residual, float* y, long long begin, long long end, int col_begin = 0,
                   int col_end = -1) const {
    x86::ResidualAddAvx2(residual, residual_c_, y, OutPixelStride(p_), begin, end, col_begin,
                         col_end < 0 ? p_.out_c : col_end, act_);
  }

  // `residual`: the fused skip tensor, or null; each task adds it to the
  // part of the output it has just written, while that is still in cache.
  void Execute(const float* x, float* y, float* scratch, bool use_pool, const float* residual = nullptr) {
    const float* bias = In(2);
    switch (algo_) {
      case ConvAlgo::kGemm6x16:
      case ConvAlgo::kGemm6x32: {
        const size_t per_thread = x86::Conv2DGemmScratchFloats(p_);
        // The AVX-512 GEMM adds the residual in its epilogue (in registers);
        // the AVX2 one leaves it to a pass over the tile it has just written.
        const bool epilogue = residual && algo_ == ConvAlgo::kGemm6x32;
        ConvParams with_act = p_;  // the node's activation after the sum
        with_act.activation = act_;
        const bool half = HalfWeights();
        const bool bf16 = Bf16Gemm();
        auto tile = [&](int t, int thread) {
          if (bf16) {  // the residual in the epilogue, as the half panels
            x86::Conv2DGemmAvx512Bf16Tile(residual ? with_act : p_, x, packed_bf16_.data(), bias,
                                          scratch + per_thread * thread, y, t, residual, residual_c_);
            return;
          }
          if (half) {  // the 6x32 GEMM: the residual in its epilogue
            x86::Conv2DGemmAvx512HalfTile(residual ? with_act : p_, x, packed_half_.data(), bias,
                                          scratch + per_thread * thread, y, t, residual, residual_c_);
            return;
          }
          if (epilogue) {
            x86::Conv2DGemmAvx2Tile(with_act, x, packed_.data(), bias, scratch + per_thread * thread, y, t, gemm_,
                                    residual, residual_c_);
            return;
          }
          x86::Conv2DGemmAvx2Tile(p_, x, packed_.data(), bias, scratch + per_thread * thread, y, t, gemm_);
          if (residual) {
            long long r0, r1;
            int c0, c1;
            x86::Conv2DGemmTileWindow(p_, t, &r0, &r1, &c0, &c1);
            AddResidual(residual, y, r0, r1, c0, c1);
          }
        };
        For(x86::Conv2DGemmTiles(p_), tile, use_pool);
        break;
      }
      case ConvAlgo::kSlidingAvx2:
      case ConvAlgo::kSlidingAvx512: {
        const int rows = p_.batch * p_.out_h;
        const int chunks = std::min(rows, 64);
        const bool wide = algo_ == ConvAlgo::kSlidingAvx512;
        const ConvParams pg = GroupParams();
        const size_t per_group = x86::SlidingPackedFloats(pg, wide ? 16 : 8);
        auto chunk = [&](int c, int) {
          const int r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
          for (int g = 0; g < p_.groups; ++g) {
            x86::Conv2DSlidingRows(pg, x + g * pg.in_c, packed_.data() + per_group * g,
                                   bias ? bias + g * pg.out_c : nullptr, wide, y + g * pg.out_c, r0, r1);
          }
          if (residual) AddResidual(residual, y, 1LL * r0 * p_.out_w, 1LL * r1 * p_.out_w);
        };
        For(chunks, chunk, use_pool);
        break;
      }
      case ConvAlgo::kGroupedDirect: {
        const int rows = p_.batch * p_.out_h;
        const int chunks = std::min(rows, 64);
        auto chunk = [&](int c, int) {
          const int r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
          x86::Conv2DGroupedDirectRows(p_, x, packed_.data(), bias, y, r0, r1);
          if (residual) AddResidual(residual, y, 1LL * r0 * p_.out_w, 1LL * r1 * p_.out_w);
        };
        For(chunks, chunk, use_pool);
        break;
      }
      case ConvAlgo::kWinogradF23:
      case ConvAlgo::kWinogradF43:
      case ConvAlgo::kWinogradF63: {
        // Three phases per block, each split over the threads: whole-block
        // tasks would leave threads idle on small images (7x7: one block).
        const int positions = plan_.alpha * plan_.alpha;
        if (use_pool && WinogradBlockPerThread(threads())) {
          const size_t per_thread = plan_.v_floats + plan_.m_floats + plan_.patch_floats;
          auto whole = [&](int b, int thread) {
            float* v = scratch + per_thread * thread;
            float* m = v + plan_.v_floats;
            const int tiles = x86::WinogradBlockTiles(plan_, b);
            x86::WinogradInputTransform(plan_, p_, x, winograd_.wide, b, 0, tiles, v, m + plan_.m_floats);
            x86::WinogradMultiply(plan_, p_, winograd_, gemm_, b, 0, positions, v, m);
            x86::WinogradOutputTransform(plan_, p_, bias, winograd_.wide, b, 0, tiles, m, y);
          };
          For(plan_.blocks, whole, use_pool);
          break;
        }
        float* v = scratch;
        float* m = v + plan_.v_floats;
        float* patches = m + plan_.m_floats;
        constexpr int kTilesPerTask = 4;
        for (int b = 0; b < plan_.blocks; ++b) {
          const int tiles = x86::WinogradBlockTiles(plan_, b);
          const int tasks = (tiles + kTilesPerTask - 1) / kTilesPerTask;
          auto in = [&](int t, int thread) {
            x86::WinogradInputTransform(plan_, p_, x, winograd_.wide, b, t * kTilesPerTask,
                                        std::min(tiles, (t + 1) * kTilesPerTask), v,
                                        patches + plan_.patch_floats * thread);
          };
          For(tasks, in, use_pool);
          auto mul = [&](int pos, int) { x86::WinogradMultiply(plan_, p_, winograd_, gemm_, b, pos, pos + 1, v, m); };
          For(positions, mul, use_pool);
          auto out = [&](int t, int) {
            x86::WinogradOutputTransform(plan_, p_, bias, winograd_.wide, b, t * kTilesPerTask,
                                         std::min(tiles, (t + 1) * kTilesPerTask), m, y);
          };
          For(tasks, out, use_pool);
        }
        break;
      }
      case ConvAlgo::kStrassen1:
      case ConvAlgo::kStrassen2: {
        const long long rows = GemmRows();
        const int block_rows = StrassenRowBlock();
        const int blocks = static_cast<int>((rows + block_rows - 1) / block_rows);
        const size_t per_thread = ScratchFloats(1);
        auto block = [&](int b, int thread) {
          const long long r0 = static_cast<long long>(b) * block_rows;
          const int m = static_cast<int>(std::min<long long>(block_rows, rows - r0));
          x86::GemmStrassen(m, x + r0 * p_.in_c, p_.in_c, strassen_, bias, p_.activation, gemm_,
                            y + r0 * OutPixelStride(p_), OutPixelStride(p_), scratch + per_thread * thread);
          if (residual) AddResidual(residual, y, r0, r0 + m);
        };
        For(blocks, block, use_pool);
        break;
      }
    }
    if (residual && WinogradTile(algo_) > 0) {
      // Winograd writes its output tile by tile across phases: one more pass.
      const long long pixels = GemmRows();
      const int chunks = static_cast<int>(std::min<long long>(pixels, 16));
      auto chunk = [&](int c, int) { AddResidual(residual, y, pixels * c / chunks, pixels * (c + 1) / chunks); };
      For(chunks, chunk, use_pool);
    }
  }

  // Measures every candidate on this layer's shapes (one thread, synthetic
  // input, best of 3 runs each), or reuses a cached measurement.
  ConvAlgo Tune(IsaFeatures isa) {
    // A cached choice this layer cannot run (an edited or stale cache) is
    // measured again.
    // kFp16 and kBf16 measure their own kernels: keys of their own.
    const std::string key = ConvTuningKey(p_, isa.avx512) + x86::PanelKeySuffix(panel_);
    auto cached = args_.tuning->choices.find(key);
    ConvAlgo algo;
    if (cached != args_.tuning->choices.end() &&
        (!ParseConvAlgo(cached->second, &algo) || !ConvAlgoApplies(p_, algo))) {
      args_.tuning->choices.erase(cached);
    }
    const std::vector<float> x = TuningInput(static_cast<size_t>(p_.batch) * p_.in_h * p_.in_w * p_.in_c);
    std::vector<float> y(static_cast<size_t>(p_.batch) * p_.out_h * p_.out_w * p_.out_c);
    return MeasureCandidates(
        key, ConvCandidates(p_, isa), args_.tuning,
        [&](ConvAlgo c) {
          SetUp(c);
          std::vector<float> scratch(ScratchFloats(1) + 1);
          return BestOfThreeMs([&] { Execute(x.data(), y.data(), scratch.data(), /*use_pool=*/false); });
        },
        [&](ConvAlgo c) { return EstimateConvCycles(p_, c, isa.bf16); });
  }

  Kind kind_;
  ConvParams p_;
  FusedActivation act_ = FusedActivation::kNone;  // the node's activation
  int residual_c_ = 0;                            // channels of a fused residual (0: none)
  bool use_avx2_ = false;
  bool avx512_ = false;
  // What the precision asks of the GEMM and Winograd panels here: kF16
  // (Precision::kFp16 with AVX-512) or kBf16 (see Bf16Gemm).
  x86::PanelType panel_ = x86::PanelType::kF32;
  ConvAlgo algo_ = ConvAlgo::kGemm6x16;
  bool prepared_ = false;
  ConvAlgo prepared_algo_ = ConvAlgo::kGemm6x16;
  bool prepared_tiles_ = false;  // TRANSPOSE_CONV_2D: packed for TransposeConvTiles
  x86::GemmFn gemm_ = nullptr;
  std::vector<float> packed_;  // GEMM or sliding-window weights
  std::vector<uint16_t> packed_half_;  // the 6x32 GEMM's, kFp16
  std::vector<x86::Bf16> packed_bf16_;  // the 6x32 GEMM's, kBf16
  x86::WinogradWeights winograd_;
  x86::WinogradPlan plan_;
  x86::StrassenWeights strassen_;
  size_t scratch_floats_ = 0;
};

class FullyConnectedOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    if (!use_avx2_) return "fully_connected_ref";
    const std::string suffix = x86::PanelNameSuffix(panels_.type);
    if (Gemv()) return "fully_connected_gemv_avx512" + suffix;
    return FcKernelName(algo_, avx512_) + suffix;
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    in_dim_ = InShape(1)[1];
    out_dim_ = InShape(1)[0];
    batch_ = static_cast<int>(NumElements(InShape(0)) / in_dim_);
    use_avx2_ = args_.algorithm != AlgorithmPolicy::kReference && x86::HasAvx2Fma() && args_.inputs[1]->constant;
    scratch_floats_ = 0;
    if (use_avx2_) {
      avx512_ = x86::GetCpuFeatures().avx512f;
      panel_ = x86::ChoosePanelType(args_.precision == Precision::kFp16, args_.precision == Precision::kBf16, avx512_);
      const IsaFeatures isa{true, avx512_, panel_ == x86::PanelType::kBf16};
      algo_ = args_.tuning ? Tune(isa) : ChooseFcAlgo(batch_, in_dim_, out_dim_, isa);
      SetUp(algo_);
      scratch_floats_ = ScratchFloats() * threads();
    }
    return Status::Ok();
  }
  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override {
    return panels_.bytes() + strassen_.packed.size() * sizeof(float);
  }
  void Compute() override {
    if (use_avx2_) {
      Execute(In(0), Out(), Scratch(), true);
    } else {
      FullyConnectedRef(batch_, in_dim_, out_dim_, ToFused(attrs().activation), In(0), In(1), In(2), Out());
    }
  }

 private:
  int StrassenRowBlock() const { return 256 << StrassenDepth(algo_); }
  // Batch 1 on the AVX-512 panels: GemvF32Avx512.
  bool Gemv() const { return batch_ == 1 && avx512_ && algo_ == ConvAlgo::kGemm6x32; }
  size_t ScratchFloats() const {
    const int d = StrassenDepth(algo_);
    return d == 0 ? 0 : x86::StrassenScratchFloats(std::min(batch_, StrassenRowBlock()), out_dim_, in_dim_, d);
  }
  void SetUp(ConvAlgo algo) {
    algo_ = algo;
    if (prepared_ && prepared_algo_ == algo) return;
    const bool wide = avx512_ && algo != ConvAlgo::kGemm6x16;
    panels_ = {};
    strassen_ = {};
    if (StrassenDepth(algo) > 0) {
      x86::PrepareStrassenWeights(In(1), out_dim_, in_dim_, StrassenDepth(algo), wide, &strassen_);
    } else {  // kFp16 / kBf16: their panels on the 6x32 GEMM
      panels_.Pack(In(1), out_dim_, in_dim_, wide, algo == ConvAlgo::kGemm6x32 ? panel_ : x86::PanelType::kF32);
    }
    prepared_ = true;
    prepared_algo_ = algo;
  }
  void Execute(const float* x, float* y, float* scratch, bool use_pool) {
    const FusedActivation act = ToFused(attrs().activation);
    const bool wide = avx512_ && algo_ != ConvAlgo::kGemm6x16;
    const x86::GemmFn gemm = wide ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
    if (StrassenDepth(algo_) == 0) {
      // Columns in groups of 128 (whole panels of either microkernel) over
      // the threads: at batch 1 this is a GEMV bound by reading the weights.
      constexpr int kGroup = 128;
      const int groups = (out_dim_ + kGroup - 1) / kGroup;
      const float* bias = In(2);
      // One row on AVX-512: the GEMV streams the same panels faster.
      const bool gemv = Gemv();
      auto columns = [&](int n0, int n) {
        const float* b = bias ? bias + n0 : nullptr;
        if (gemv) panels_.Gemv(n, in_dim_, x, n0, b, act, y + n0);
        else panels_.Gemm(batch_, n, in_dim_, x, in_dim_, n0, b, act, y + n0, out_dim_);
      };
      if (!use_pool || groups < 2 || threads() == 1) {
        columns(0, out_dim_);
        return;
      }
      auto group = [&](int g, int) {
        const int n0 = g * kGroup;
        columns(n0, std::min(kGroup, out_dim_ - n0));
      };
      ParallelFor(groups, group);
      return;
    }
    const int block_rows = StrassenRowBlock();
    const int blocks = (batch_ + block_rows - 1) / block_rows;
    const size_t per_thread = ScratchFloats();
    auto block = [&](int b, int thread) {
      const long long r0 = static_cast<long long>(b) * block_rows;
      const int m = static_cast<int>(std::min<long long>(block_rows, batch_ - r0));
      x86::GemmStrassen(m, x + r0 * in_dim_, in_dim_, strassen_, In(2), act, gemm, y + r0 * out_dim_, out_dim_,
                        scratch + per_thread * thread);
    };
    if (use_pool) {
      ParallelFor(blocks, block);
    } else {
      for (int b = 0; b < blocks; ++b) block(b, 0);
    }
  }
  ConvAlgo Tune(IsaFeatures isa) {
    const std::vector<float> x = TuningInput(static_cast<size_t>(batch_) * in_dim_);
    std::vector<float> y(static_cast<size_t>(batch_) * out_dim_);
    return MeasureCandidates(
        FcTuningKey(batch_, in_dim_, out_dim_, isa.avx512) + x86::PanelKeySuffix(panel_),
        FcCandidates(batch_, in_dim_, out_dim_, isa),
        args_.tuning,
        [&](ConvAlgo c) {
          SetUp(c);
          std::vector<float> scratch(ScratchFloats() + 1);
          return BestOfThreeMs([&] { Execute(x.data(), y.data(), scratch.data(), false); });
        },
        [&](ConvAlgo c) { return EstimateGemmCycles(batch_, out_dim_, in_dim_, c); });
  }

  int batch_ = 0, in_dim_ = 0, out_dim_ = 0;
  bool use_avx2_ = false;
  bool avx512_ = false;
  x86::PanelType panel_ = x86::PanelType::kF32;  // what the precision asks of the GEMM's panels
  ConvAlgo algo_ = ConvAlgo::kGemm6x16;
  bool prepared_ = false;
  ConvAlgo prepared_algo_ = ConvAlgo::kGemm6x16;
  x86::GemmPanels panels_;  // the GEMM's (or GEMV's) weights
  x86::StrassenWeights strassen_;
  size_t scratch_floats_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeConv2D(const CpuArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kConv);
}
std::unique_ptr<Execution> MakeDepthwiseConv2D(const CpuArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kDepthwise);
}
std::unique_ptr<Execution> MakeTransposeConv2D(const CpuArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kTranspose);
}
std::unique_ptr<Execution> MakeFullyConnected(const CpuArgs& args) {
  return std::make_unique<FullyConnectedOp>(args);
}

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kConv2D, MakeConv2D) &&
                         RegisterCpuOp(ir::OpType::kDepthwiseConv2D, MakeDepthwiseConv2D) &&
                         RegisterCpuOp(ir::OpType::kTransposeConv2D, MakeTransposeConv2D) &&
                         RegisterCpuOp(ir::OpType::kFullyConnected, MakeFullyConnected);

}  // namespace

}  // namespace rill::inference::cpu
