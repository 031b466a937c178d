// CONV_2D on the CPU: the algorithm per layer (conv_algorithm.h: GEMM,
// sliding window, Winograd, Strassen, grouped direct; the cost model or
// kTune's measurements), run on the kernel table's microkernels, or the
// reference kernel.
#include <algorithm>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/residual_add.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference::cpu {
namespace {

class Conv2DOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    if (!fast_) return "conv2d_ref";
    // The panels' suffix where this algorithm reads them so.
    return ConvKernelName(algo_, kernels()) + (HalfWeights() || Bf16Gemm() ? PanelNameSuffix(panel_) : "");
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(5));
    const ir::OpAttrs& a = attrs();
    p_ = ConvShapeParams(InShape(0), InShape(1), OutShape(), a);
    SetWindowPadding(a, &p_);
    p_.groups = ir::ConvGroups(p_.in_c, InShape(1)[3]);
    // A fused PRELU (optimizer: conv -> PRELU): each task applies it to the
    // output it has just written, after everything else.
    prelu_ = HasInput(4);
    // A fused residual (optimizer: conv -> ADD(skip)): the kernels write the
    // conv without activation and the epilogue adds the skip, then activates.
    act_ = p_.activation;
    residual_c_ = 0;
    if (HasInput(3)) {
      residual_c_ = InShape(3)[3];
      p_.activation = FusedActivation::kNone;
    }
    // The table's kernels where it has the narrow GEMM (the algorithms all
    // need one) and the weights are constant (packed once); the reference
    // kernel otherwise.
    panel_ = ChoosePanelType(args_.precision, kernels(), args_.bf16_even_if_slower);
    isa_ = ConvIsaFeatures(kernels(), panel_);
    fast_ = isa_.narrow && args_.inputs[1]->constant;
    scratch_floats_ = 0;
    if (fast_) {
      // kAuto: the cost model (conv_algorithm.cc); kTune: measured.
      algo_ = args_.tuning ? Tune() : ChooseConvAlgo(p_, isa_);
      SetUp(algo_);
      scratch_floats_ = ScratchFloats(threads());
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override {
    return (packed_.size() + winograd_.packed.size() + strassen_.packed.size()) * sizeof(float) +
           (packed_half_.size() + winograd_.half.size()) * sizeof(uint16_t) +
           (packed_bf16_.size() + winograd_.bf16.size()) * sizeof(Bf16);
  }

  // Every optimized algorithm writes with a pixel stride (the session points
  // the output into a channel CONCATENATION's); the reference kernel writes
  // dense outputs only.
  bool SetOutputPixelStride(int floats) override {
    if (floats != 0 && (!fast_ || floats < p_.out_c)) return false;
    p_.out_stride = floats;
    return true;
  }

  void Compute() override {
    if (fast_) {
      Execute(In(0), Out(), Scratch(), /*use_pool=*/true, residual_c_ ? In(3) : nullptr);
      return;
    }
    Conv2DRef(p_, In(0), In(1), In(2), Out());
    if (residual_c_) ResidualAddRef(GemmRows(), p_.out_c, In(3), residual_c_, act_, Out());
    if (prelu_) ApplyPRelu(kernels(), In(4), Out(), p_.out_c, 0, GemmRows(), 0, p_.out_c);
  }

 private:
  // The GEMM microkernel `algo` runs on: the narrow one for kGemm6x16, the
  // widest there is for every other GEMM-based algorithm.
  const GemmKernels& GemmOf(ConvAlgo algo) const {
    return algo == ConvAlgo::kGemm6x16 ? kernels().gemm[CpuKernels::kNarrowGemm] : *kernels().widest_gemm();
  }
  const SlidingKernels& SlidingOf(ConvAlgo algo) const {
    return kernels().sliding[algo == ConvAlgo::kSlidingAvx512 ? 1 : 0];
  }

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
  // Precision::kFp16 where the wide GEMM reads half panels: for the GEMM on
  // it and the Winograd products where the table has half panels for them
  // (x86; ARM keeps Winograd's products in fp32).
  bool HalfWeights() const {
    return panel_ == PanelType::kF16 &&
           (algo_ == ConvAlgo::kGemm6x32 || (WinogradTile(algo_) > 0 && kernels().winograd.to_f16 != nullptr));
  }
  // Precision::kBf16 where bf16 GEMMs pay: bf16 panels for the wide GEMM and
  // F(2,3)'s products. F(4,3) and F(6,3) keep fp32 products: their output
  // transforms cancel large terms, which turns bf16's 2^-9 into errors of
  // 13-16% of the terms' magnitude with few input channels (F(2,3): 0.8%;
  // x86_algorithms_test WinogradBf16MatchesReference). The sliding window
  // and Strassen stay fp32.
  bool Bf16Gemm() const {
    return panel_ == PanelType::kBf16 && (algo_ == ConvAlgo::kGemm6x32 || algo_ == ConvAlgo::kWinogradF23);
  }

  // Transforms / packs the weights for `algo` (once per algorithm: a resize
  // that keeps the algorithm keeps the packed weights).
  void SetUp(ConvAlgo algo) {
    algo_ = algo;
    const CpuKernels& k = kernels();
    if (WinogradTile(algo) > 0) plan_ = k.winograd.plan(WinogradTile(algo), p_, threads());
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
        if (HalfWeights()) {
          k.im2col.pack_f16(p_, In(1), &packed_half_);
        } else if (Bf16Gemm()) {
          k.im2col.pack_bf16(p_, In(1), &packed_bf16_);
        } else {
          k.im2col.pack(p_, In(1), GemmOf(algo).nr, &packed_);
        }
        break;
      case ConvAlgo::kSlidingAvx2:
      case ConvAlgo::kSlidingAvx512: {
        // One packed filter per channel group (one in all for ungrouped convs).
        const SlidingKernels& sliding = SlidingOf(algo);
        const ConvParams pg = GroupParams();
        const size_t per_group = sliding.packed_floats(pg);
        const size_t filter_floats = static_cast<size_t>(pg.out_c) * pg.kernel_h * pg.kernel_w * pg.in_c;
        packed_.assign(per_group * p_.groups, 0.0f);
        for (int g = 0; g < p_.groups; ++g) {
          sliding.pack(pg, In(1) + filter_floats * g, packed_.data() + per_group * g);
        }
        break;
      }
      case ConvAlgo::kWinogradF23:
      case ConvAlgo::kWinogradF43:
      case ConvAlgo::kWinogradF63:
        k.winograd.transform_weights(WinogradTile(algo), p_, In(1), &winograd_);
        if (HalfWeights()) k.winograd.to_f16(&winograd_);
        if (Bf16Gemm()) k.winograd.to_bf16(p_, &winograd_);
        break;
      case ConvAlgo::kStrassen1:
      case ConvAlgo::kStrassen2:
        k.strassen.prepare(In(1), p_.out_c, p_.in_c, StrassenDepth(algo), &strassen_);
        break;
      case ConvAlgo::kGroupedDirect:
        packed_.assign(k.grouped_direct.packed_floats(p_), 0.0f);
        k.grouped_direct.pack(p_, In(1), packed_.data());
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
    return kernels().winograd.blocks_per_thread(plan_.total_tiles, n) && plan_.blocks % n == 0;
  }

  // Scratch of the chosen algorithm when `n` threads run it.
  size_t ScratchFloats(int n) const {
    switch (algo_) {
      case ConvAlgo::kGemm6x16:
      case ConvAlgo::kGemm6x32: return kernels().im2col.scratch_floats(p_) * n;
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
        return kernels().strassen.scratch_floats(
                   static_cast<int>(std::min<long long>(GemmRows(), StrassenRowBlock())), p_.out_c, p_.in_c,
                   StrassenDepth(algo_)) *
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
  void AddResidualTo(const float* residual, float* y, long long begin, long long end, int col_begin = 0,
                     int col_end = -1) const {
    AddResidual(kernels(), residual, residual_c_, y, OutPixelStride(p_), begin, end, col_begin,
                col_end < 0 ? p_.out_c : col_end, act_);
  }

  // The fused PRELU (if any) on output pixels [begin, end), channels
  // [col_begin, col_end).
  void PReluTo(float* y, long long begin, long long end, int col_begin = 0, int col_end = -1) const {
    if (!prelu_) return;
    ApplyPRelu(kernels(), In(4), y, OutPixelStride(p_), begin, end, col_begin, col_end < 0 ? p_.out_c : col_end);
  }

  // `residual`: the fused skip tensor, or null; each task adds it (and
  // applies a fused PRELU) to the part of the output it has just written,
  // while that is still in cache.
  void Execute(const float* x, float* y, float* scratch, bool use_pool, const float* residual = nullptr) {
    const CpuKernels& k = kernels();
    const float* bias = In(2);
    switch (algo_) {
      case ConvAlgo::kGemm6x16:
      case ConvAlgo::kGemm6x32: {
        const GemmKernels& gemm = GemmOf(algo_);
        const size_t per_thread = k.im2col.scratch_floats(p_);
        // A microkernel with a residual epilogue adds it in registers; others
        // leave it to a pass over the tile just written.
        const bool epilogue = residual && gemm.gemm_residual != nullptr;
        ConvParams with_act = p_;  // the node's activation after the sum
        with_act.activation = act_;
        const bool half = HalfWeights();
        const bool bf16 = Bf16Gemm();
        auto body = [&](int t, int thread) {
          if (bf16) {  // the residual in the epilogue, as the half panels
            k.im2col.tile_bf16(residual ? with_act : p_, x, packed_bf16_.data(), bias, scratch + per_thread * thread,
                               y, t, residual, residual_c_);
            return;
          }
          if (half) {  // the wide GEMM: the residual in its epilogue
            k.im2col.tile_f16(residual ? with_act : p_, x, packed_half_.data(), bias, scratch + per_thread * thread,
                              y, t, residual, residual_c_);
            return;
          }
          if (epilogue) {
            k.im2col.tile(with_act, gemm, x, packed_.data(), bias, scratch + per_thread * thread, y, t, residual,
                          residual_c_);
            return;
          }
          k.im2col.tile(p_, gemm, x, packed_.data(), bias, scratch + per_thread * thread, y, t, nullptr, 0);
          if (residual) {
            long long r0, r1;
            int c0, c1;
            k.im2col.tile_window(p_, t, &r0, &r1, &c0, &c1);
            AddResidualTo(residual, y, r0, r1, c0, c1);
          }
        };
        auto tile = [&](int t, int thread) {
          body(t, thread);
          if (!prelu_) return;
          long long r0, r1;
          int c0, c1;
          k.im2col.tile_window(p_, t, &r0, &r1, &c0, &c1);
          PReluTo(y, r0, r1, c0, c1);
        };
        For(k.im2col.tiles(p_), tile, use_pool);
        break;
      }
      case ConvAlgo::kSlidingAvx2:
      case ConvAlgo::kSlidingAvx512: {
        const int rows = p_.batch * p_.out_h;
        const int chunks = std::min(rows, 64);
        const SlidingKernels& sliding = SlidingOf(algo_);
        const ConvParams pg = GroupParams();
        const size_t per_group = sliding.packed_floats(pg);
        auto chunk = [&](int c, int) {
          const int r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
          for (int g = 0; g < p_.groups; ++g) {
            sliding.rows(pg, x + g * pg.in_c, packed_.data() + per_group * g, bias ? bias + g * pg.out_c : nullptr,
                         y + g * pg.out_c, r0, r1);
          }
          if (residual) AddResidualTo(residual, y, 1LL * r0 * p_.out_w, 1LL * r1 * p_.out_w);
          PReluTo(y, 1LL * r0 * p_.out_w, 1LL * r1 * p_.out_w);
        };
        For(chunks, chunk, use_pool);
        break;
      }
      case ConvAlgo::kGroupedDirect: {
        const int rows = p_.batch * p_.out_h;
        const int chunks = std::min(rows, 64);
        auto chunk = [&](int c, int) {
          const int r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
          k.grouped_direct.rows(p_, x, packed_.data(), bias, y, r0, r1);
          if (residual) AddResidualTo(residual, y, 1LL * r0 * p_.out_w, 1LL * r1 * p_.out_w);
          PReluTo(y, 1LL * r0 * p_.out_w, 1LL * r1 * p_.out_w);
        };
        For(chunks, chunk, use_pool);
        break;
      }
      case ConvAlgo::kWinogradF23:
      case ConvAlgo::kWinogradF43:
      case ConvAlgo::kWinogradF63: {
        const WinogradKernels& wino = k.winograd;
        const int positions = plan_.alpha * plan_.alpha;
        if (use_pool && WinogradBlockPerThread(threads())) {
          const size_t per_thread = plan_.v_floats + plan_.m_floats + plan_.patch_floats;
          auto whole = [&](int b, int thread) {
            float* v = scratch + per_thread * thread;
            float* m = v + plan_.v_floats;
            const int tiles = wino.block_tiles(plan_, b);
            wino.input_transform(plan_, p_, x, b, 0, tiles, v, m + plan_.m_floats);
            wino.multiply(plan_, p_, winograd_, b, 0, positions, v, m);
            wino.output_transform(plan_, p_, bias, b, 0, tiles, m, y);
          };
          For(plan_.blocks, whole, use_pool);
          break;
        }
        // Three phases per block, each split over the threads: whole-block
        // tasks would leave threads idle on small images (7x7: one block).
        float* v = scratch;
        float* m = v + plan_.v_floats;
        float* patches = m + plan_.m_floats;
        constexpr int kTilesPerTask = 4;
        for (int b = 0; b < plan_.blocks; ++b) {
          const int tiles = wino.block_tiles(plan_, b);
          const int tasks = (tiles + kTilesPerTask - 1) / kTilesPerTask;
          auto in = [&](int t, int thread) {
            wino.input_transform(plan_, p_, x, b, t * kTilesPerTask, std::min(tiles, (t + 1) * kTilesPerTask), v,
                                 patches + plan_.patch_floats * thread);
          };
          For(tasks, in, use_pool);
          auto mul = [&](int pos, int) { wino.multiply(plan_, p_, winograd_, b, pos, pos + 1, v, m); };
          For(positions, mul, use_pool);
          auto out = [&](int t, int) {
            wino.output_transform(plan_, p_, bias, b, t * kTilesPerTask, std::min(tiles, (t + 1) * kTilesPerTask), m,
                                  y);
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
          k.strassen.gemm(m, x + r0 * p_.in_c, p_.in_c, strassen_, bias, p_.activation, y + r0 * OutPixelStride(p_),
                          OutPixelStride(p_), scratch + per_thread * thread);
          if (residual) AddResidualTo(residual, y, r0, r0 + m);
          PReluTo(y, r0, r0 + m);
        };
        For(blocks, block, use_pool);
        break;
      }
    }
    if ((residual || prelu_) && WinogradTile(algo_) > 0) {
      // Winograd writes its output tile by tile across phases: one more pass.
      const long long pixels = GemmRows();
      const int chunks = static_cast<int>(std::min<long long>(pixels, 16));
      auto chunk = [&](int c, int) {
        const long long begin = pixels * c / chunks, end = pixels * (c + 1) / chunks;
        if (residual) AddResidualTo(residual, y, begin, end);
        PReluTo(y, begin, end);
      };
      For(chunks, chunk, use_pool);
    }
  }

  // Measures every candidate on this layer's shapes (one thread, synthetic
  // input, best of 3 runs each), or reuses a cached measurement.
  ConvAlgo Tune() {
    // kFp16 and kBf16 measure their own kernels: keys of their own.
    const std::string key = ConvTuningKey(p_, kernels().isa) + PanelKeySuffix(panel_);
    // A cached choice this layer cannot run (an edited or stale cache) is
    // measured again.
    auto cached = args_.tuning->choices.find(key);
    ConvAlgo algo;
    if (cached != args_.tuning->choices.end() &&
        (!ParseConvAlgo(cached->second, &algo) || !ConvAlgoApplies(p_, algo, isa_))) {
      args_.tuning->choices.erase(cached);
    }
    const std::vector<float> x = TuningInput(static_cast<size_t>(p_.batch) * p_.in_h * p_.in_w * p_.in_c);
    std::vector<float> y(static_cast<size_t>(p_.batch) * p_.out_h * p_.out_w * p_.out_c);
    return MeasureCandidates(
        key, ConvCandidates(p_, isa_), args_.tuning,
        [&](ConvAlgo c) {
          SetUp(c);
          std::vector<float> scratch(ScratchFloats(1) + 1);
          return BestOfThreeMs([&] { Execute(x.data(), y.data(), scratch.data(), /*use_pool=*/false); });
        },
        [&](ConvAlgo c) { return EstimateConvCycles(p_, c, isa_); });
  }

  ConvParams p_;
  FusedActivation act_ = FusedActivation::kNone;  // the node's activation
  int residual_c_ = 0;                            // channels of a fused residual (0: none)
  bool prelu_ = false;                            // a fused PRELU (its slope: input 4)
  bool fast_ = false;                             // the table's kernels (else the reference)
  IsaFeatures isa_;
  // What the precision asks of the GEMM and Winograd panels here (see
  // HalfWeights, Bf16Gemm).
  PanelType panel_ = PanelType::kF32;
  ConvAlgo algo_ = ConvAlgo::kGemm6x16;
  bool prepared_ = false;
  ConvAlgo prepared_algo_ = ConvAlgo::kGemm6x16;
  std::vector<float> packed_;           // GEMM, sliding-window or grouped-direct weights
  std::vector<uint16_t> packed_half_;   // the wide GEMM's, kFp16
  std::vector<Bf16> packed_bf16_;       // the wide GEMM's, kBf16
  WinogradWeights winograd_;
  WinogradPlan plan_;
  StrassenWeights strassen_;
  size_t scratch_floats_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeConv2D(const CpuArgs& args) { return std::make_unique<Conv2DOp>(args); }

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kConv2D, MakeConv2D);

}  // namespace

}  // namespace rill::inference::cpu
