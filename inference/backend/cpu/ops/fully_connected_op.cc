// FULLY_CONNECTED on the CPU: a GEMM (a GEMV at batch 1 where the wide panels
// have one) or Strassen on the kernel table's microkernels, chosen by the
// cost model or measured (kTune); or the reference kernel.
#include <algorithm>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference::cpu {
namespace {

class FullyConnectedOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    if (!fast_) return "fully_connected_ref";
    const std::string suffix = PanelNameSuffix(panels_.type());
    if (Gemv()) return std::string("fully_connected_gemv_") + panels_.gemm()->isa + suffix;
    return FcKernelName(algo_, kernels()) + suffix;
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    in_dim_ = InShape(1)[1];
    out_dim_ = InShape(1)[0];
    batch_ = static_cast<int>(NumElements(InShape(0)) / in_dim_);
    panel_ = ChoosePanelType(args_.precision, kernels(), args_.bf16_even_if_slower);
    isa_ = ConvIsaFeatures(kernels(), panel_);
    fast_ = isa_.narrow && args_.inputs[1]->constant;
    scratch_floats_ = 0;
    if (fast_) {
      algo_ = args_.tuning ? Tune() : ChooseFcAlgo(batch_, in_dim_, out_dim_, isa_);
      SetUp(algo_);
      scratch_floats_ = ScratchFloats() * threads();
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override { return panels_.bytes() + strassen_.packed.size() * sizeof(float); }

  void Compute() override {
    if (fast_) {
      Execute(In(0), Out(), Scratch(), true);
    } else {
      FullyConnectedRef(batch_, in_dim_, out_dim_, ToFused(attrs().activation), In(0), In(1), In(2), Out());
    }
  }

 private:
  int StrassenRowBlock() const { return 256 << StrassenDepth(algo_); }
  // Batch 1 on the wide panels where the wide GEMM has a GEMV kernel (bf16
  // panels, which have none, run the GEMM's one-row tile under that name).
  bool Gemv() const { return batch_ == 1 && algo_ == ConvAlgo::kGemm6x32 && isa_.wide_gemv; }
  size_t ScratchFloats() const {
    const int d = StrassenDepth(algo_);
    return d == 0 ? 0
                  : kernels().strassen.scratch_floats(std::min(batch_, StrassenRowBlock()), out_dim_, in_dim_, d);
  }

  // Output channels per column group: a multiple of every microkernel's
  // panel width (16 for AVX2, 32 for AVX-512), so a group starts on a panel.
  static constexpr int kColGroup = 128;
  // Tiles a layer splits into at least, per thread: enough for the threads
  // to even out what they get (a last, narrower column group; a thread that
  // joins late), few enough that each call keeps its panels busy.
  static constexpr int kTilesPerThread = 4;
  // Rows of a row block at least (two of the microkernels' 6-row tiles).
  static constexpr int kMinRowBlock = 12;
  struct FcTiling {
    int row_blocks = 1;     // of near-equal height
    int col_groups = 1;     // column tiles per row block
    int cols_per_tile = 1;  // 128-column groups per column tile
    int tiles() const { return row_blocks * col_groups; }
  };
  // One tile on one thread (the whole GEMM in one call, as before); with
  // more threads, 128-column groups and, where they are fewer than
  // kTilesPerThread per thread, row blocks as well: ViT's 3072-column
  // layers split by columns only, Swin's and ConvNeXt's 56x56 layers
  // (M = 3136, N = 96 or 384: one to three column groups) by rows.
  FcTiling Tiling(int threads) const {
    FcTiling t;
    if (threads <= 1) {
      t.cols_per_tile = (out_dim_ + kColGroup - 1) / kColGroup;
      return t;
    }
    t.col_groups = (out_dim_ + kColGroup - 1) / kColGroup;
    const int want = kTilesPerThread * threads;
    if (t.col_groups < want) {
      const int by_rows = std::max(1, batch_ / kMinRowBlock);
      t.row_blocks = std::min(by_rows, (want + t.col_groups - 1) / t.col_groups);
      // A tile count the threads divide (3 column groups: 4 row blocks, not
      // 3, which dealt 4 tiles to one thread and 5 to the other).
      while (t.tiles() % threads != 0 && t.row_blocks < by_rows) ++t.row_blocks;
    }
    return t;
  }
  // Rows [*r0, *r1) of row block rb.
  void BlockRows(const FcTiling& t, int rb, int* r0, int* r1) const {
    *r0 = static_cast<int>(static_cast<long long>(batch_) * rb / t.row_blocks);
    *r1 = static_cast<int>(static_cast<long long>(batch_) * (rb + 1) / t.row_blocks);
  }

  void SetUp(ConvAlgo algo) {
    algo_ = algo;
    if (prepared_ && prepared_algo_ == algo) return;
    panels_ = {};
    strassen_ = {};
    if (StrassenDepth(algo) > 0) {
      kernels().strassen.prepare(In(1), out_dim_, in_dim_, StrassenDepth(algo), &strassen_);
    } else if (algo == ConvAlgo::kGemm6x32) {  // kFp16 / kBf16: their panels on the wide GEMM
      panels_.Pack(In(1), out_dim_, in_dim_, kernels().gemm[CpuKernels::kWideGemm], panel_);
    } else {
      panels_.Pack(In(1), out_dim_, in_dim_, kernels().gemm[CpuKernels::kNarrowGemm], PanelType::kF32);
    }
    prepared_ = true;
    prepared_algo_ = algo;
  }

  void Execute(const float* x, float* y, float* scratch, bool use_pool) {
    const FusedActivation act = ToFused(attrs().activation);
    if (StrassenDepth(algo_) == 0) {
      const float* bias = In(2);
      if (Gemv()) {
        // Batch 1: a GEMV bound by reading the weights, columns in groups of
        // 128 (whole panels of either microkernel) over the threads.
        const int groups = (out_dim_ + kColGroup - 1) / kColGroup;
        auto group = [&](int g, int) {
          const int n0 = g * kColGroup;
          panels_.Gemv(std::min(kColGroup, out_dim_ - n0), in_dim_, x, n0, bias ? bias + n0 : nullptr, act, y + n0);
        };
        if (!use_pool || groups < 2 || threads() == 1) {
          panels_.Gemv(out_dim_, in_dim_, x, 0, bias, act, y);
          return;
        }
        ParallelFor(groups, group);
        return;
      }
      // Tiles of rows x 128-column groups, numbered row block by row block
      // (a thread's tiles cover consecutive rows: the next layer finds its
      // input in that core's cache). Every output is the same dot product
      // whatever the tiling, so the bits do not depend on the thread count.
      const FcTiling tiling = Tiling(use_pool ? threads() : 1);
      auto tile = [&](int t, int) {
        const int rb = t / tiling.col_groups, cg = t % tiling.col_groups;
        int r0 = 0, r1 = 0;
        BlockRows(tiling, rb, &r0, &r1);
        const int m = r1 - r0;
        const int n0 = cg * kColGroup, n = std::min(kColGroup * tiling.cols_per_tile, out_dim_ - n0);
        if (m <= 0 || n <= 0) return;
        panels_.Gemm(m, n, in_dim_, x + static_cast<size_t>(r0) * in_dim_, in_dim_, n0, bias ? bias + n0 : nullptr,
                     act, y + static_cast<size_t>(r0) * out_dim_ + n0, out_dim_);
      };
      if (tiling.tiles() == 1) {
        tile(0, 0);
        return;
      }
      ParallelFor(tiling.tiles(), tile);
      return;
    }
    const int block_rows = StrassenRowBlock();
    const int blocks = (batch_ + block_rows - 1) / block_rows;
    const size_t per_thread = ScratchFloats();
    auto block = [&](int b, int thread) {
      const long long r0 = static_cast<long long>(b) * block_rows;
      const int m = static_cast<int>(std::min<long long>(block_rows, batch_ - r0));
      kernels().strassen.gemm(m, x + r0 * in_dim_, in_dim_, strassen_, In(2), act, y + r0 * out_dim_, out_dim_,
                              scratch + per_thread * thread);
    };
    if (use_pool) {
      ParallelFor(blocks, block);
    } else {
      for (int b = 0; b < blocks; ++b) block(b, 0);
    }
  }

  ConvAlgo Tune() {
    const std::vector<float> x = TuningInput(static_cast<size_t>(batch_) * in_dim_);
    std::vector<float> y(static_cast<size_t>(batch_) * out_dim_);
    return MeasureCandidates(
        FcTuningKey(batch_, in_dim_, out_dim_, kernels().isa) + PanelKeySuffix(panel_),
        FcCandidates(batch_, in_dim_, out_dim_, isa_), args_.tuning,
        [&](ConvAlgo c) {
          SetUp(c);
          std::vector<float> scratch(ScratchFloats() + 1);
          return BestOfThreeMs([&] { Execute(x.data(), y.data(), scratch.data(), false); });
        },
        [&](ConvAlgo c) { return EstimateGemmCycles(batch_, out_dim_, in_dim_, c, isa_); });
  }

  int batch_ = 0, in_dim_ = 0, out_dim_ = 0;
  bool fast_ = false;  // the table's kernels (else the reference)
  IsaFeatures isa_;
  PanelType panel_ = PanelType::kF32;  // what the precision asks of the wide GEMM's panels
  ConvAlgo algo_ = ConvAlgo::kGemm6x16;
  bool prepared_ = false;
  ConvAlgo prepared_algo_ = ConvAlgo::kGemm6x16;
  GemmPanels panels_;  // the GEMM's (or GEMV's) weights
  StrassenWeights strassen_;
  size_t scratch_floats_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeFullyConnected(const CpuArgs& args) {
  return std::make_unique<FullyConnectedOp>(args);
}

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kFullyConnected, MakeFullyConnected);

}  // namespace

}  // namespace rill::inference::cpu
