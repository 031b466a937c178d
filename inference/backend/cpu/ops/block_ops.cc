// DEPTHWISE_BLOCK on the CPU: [1x1 expand ->] depthwise -> 1x1 project
// [+ residual], made by optimize::FuseDepthwiseBlocks.
//
// The separate convs write the expanded tensor (MobileNetV2's first blocks:
// 112x112x96, 4.8 MB) to memory and read it back, and the same again for the
// depthwise output; bound by memory, and more so with two threads sharing it.
// Here each thread takes a range of output rows and walks it band by band:
// the expand GEMM fills the input rows the band's depthwise windows need into
// a buffer of ~256 KB (rows shared with the previous band are moved, not
// recomputed), the depthwise kernel writes the band's rows into a second
// buffer, and the project GEMM (with the residual and the activation) writes
// the block's output. Both buffers stay in L2.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/residual_add.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference::cpu {
namespace {

// Bytes of expanded input rows one band holds (per thread).
constexpr long long kBandBytes = 256 * 1024;

class DepthwiseBlockOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    if (!fast_) return "depthwise_block_ref";
    return std::string("depthwise_block_gemm_") + project_.gemm()->name + PanelNameSuffix(project_.type());
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(9));
    const Shape& x = InShape(0);
    const Shape& wd = InShape(3);
    const Shape& y = OutShape();
    const ir::OpAttrs& a = attrs();
    batch_ = x[0];
    in_h_ = x[1];
    in_w_ = x[2];
    in_c_ = x[3];
    has_expand_ = HasInput(1);
    mid_c_ = has_expand_ ? InShape(1)[0] : in_c_;
    out_c_ = InShape(5)[0];
    // The depthwise conv, on the expanded tensor of one image.
    dw_ = ConvParams{};
    dw_.batch = 1;
    dw_.in_h = in_h_;
    dw_.in_w = in_w_;
    dw_.in_c = mid_c_;
    dw_.out_h = y[1];
    dw_.out_w = y[2];
    dw_.out_c = mid_c_;
    dw_.kernel_h = wd[1];
    dw_.kernel_w = wd[2];
    dw_.stride_h = a.stride_h;
    dw_.stride_w = a.stride_w;
    dw_.activation = ToFused(a.depthwise_activation);
    SetWindowPadding(a, &dw_);
    expand_act_ = ToFused(a.expand_activation);
    act_ = ToFused(a.activation);
    residual_c_ = HasInput(7) ? InShape(7)[3] : 0;
    prelu_ = HasInput(8);  // the project conv's fused PRELU, last
    bool constant = args_.inputs[3]->constant && args_.inputs[5]->constant;
    if (has_expand_) constant = constant && args_.inputs[1]->constant;
    // The widest GEMM for the 1x1 convs and the table's depthwise rows.
    const GemmKernels* gemm = kernels().widest_gemm();
    fast_ = gemm != nullptr && kernels().depthwise && constant;
    if (!fast_) {
      scratch_floats_ = static_cast<size_t>(batch_) * dw_.out_h * dw_.out_w * mid_c_;
      if (has_expand_) scratch_floats_ += static_cast<size_t>(batch_) * in_h_ * in_w_ * mid_c_;
      return Status::Ok();
    }
    const PanelType panels = ChoosePanelType(args_.precision, kernels(), args_.bf16_even_if_slower);
    project_.Pack(In(5), out_c_, mid_c_, *gemm, panels);
    if (has_expand_) expand_.Pack(In(1), mid_c_, in_c_, *gemm, panels);
    // Output rows per band: the expanded rows they read fit kBandBytes.
    const long long row_floats = static_cast<long long>(in_w_) * mid_c_;
    const long long fit_rows = std::max<long long>(dw_.kernel_h, kBandBytes / 4 / std::max<long long>(1, row_floats));
    const int max_band =
        static_cast<int>(std::clamp<long long>((fit_rows - dw_.kernel_h) / dw_.stride_h + 1, 1, dw_.out_h));
    // Bands of equal height within a thread's rows (7 rows at 6 at most: 4 + 3, not 6 + 1).
    const int shares = std::min(dw_.out_h, threads());
    const int chunk_rows = (dw_.out_h + shares - 1) / shares;
    // Each thread's rows in two ranges where there are at least 2 rows per
    // range, so that a thread done first (the other joined late, or was
    // preempted) can take the other's second range. A thread that runs its
    // ranges in turn keeps its expanded rows from one to the next (held_),
    // so only a taken range recomputes the rows its first windows share.
    chunks_ = threads() > 1 && dw_.out_h >= 4 * threads() ? 2 * threads() : shares;
    held_.assign(static_cast<size_t>(3) * threads(), -1);
    const int bands = (chunk_rows + max_band - 1) / max_band;
    band_ = (chunk_rows + bands - 1) / bands;
    expand_floats_ = has_expand_ ? static_cast<size_t>(BandInputRows(band_)) * row_floats : 0;
    // Depthwise -> project in pieces of two output rows (the depthwise
    // kernel's row pair), more where rows are so short that the project
    // GEMM would get fewer than 24 pixels.
    sub_rows_ = std::min(band_, std::max(2, (24 + dw_.out_w - 1) / dw_.out_w));
    mid_floats_ = static_cast<size_t>(sub_rows_) * dw_.out_w * mid_c_;
    scratch_floats_ = (expand_floats_ + mid_floats_) * threads();
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override { return expand_.bytes() + project_.bytes(); }

  void Compute() override {
    if (!fast_) {
      RunReference();
      return;
    }
    std::fill(held_.begin(), held_.end(), -1);
    auto task = [this](int t, int thread) {
      const int n = t / chunks_, c = t % chunks_;
      RunRows(n, dw_.out_h * c / chunks_, dw_.out_h * (c + 1) / chunks_,
              Scratch() + (expand_floats_ + mid_floats_) * thread, held_.data() + 3 * thread);
    };
    ParallelFor(batch_ * chunks_, task);
  }

 private:
  // Input rows the depthwise windows of `rows` output rows span.
  int BandInputRows(int rows) const { return (rows - 1) * dw_.stride_h + dw_.kernel_h; }

  // Output rows [row_begin, row_end) of image n, band by band. `held`: the
  // image and the expanded rows [lo, hi) this thread's `scratch` holds from
  // its previous range ({-1, ...}: none), updated.
  void RunRows(int n, int row_begin, int row_end, float* scratch, int* held) const {
    float* expanded = scratch;
    float* mid = scratch + expand_floats_;
    const long long in_row = static_cast<long long>(in_w_) * in_c_;
    const long long mid_row = static_cast<long long>(in_w_) * mid_c_;
    const float* x = In(0) + static_cast<long long>(n) * in_h_ * in_row;
    const long long out_pixels = static_cast<long long>(dw_.out_h) * dw_.out_w;
    float* y = Out() + n * out_pixels * out_c_;
    const float* residual = residual_c_ ? In(7) + n * out_pixels * residual_c_ : nullptr;
    // Expanded image rows in `expanded`, from its first row.
    int held_lo = held[0] == n ? held[1] : 0, held_hi = held[0] == n ? held[2] : 0;
    for (int b0 = row_begin; b0 < row_end; b0 += band_) {
      const int b1 = std::min(row_end, b0 + band_);
      const int first = b0 * dw_.stride_h - dw_.pad_top;
      const int i0 = std::max(0, first);
      const int i1 = std::min(in_h_, (b1 - 1) * dw_.stride_h - dw_.pad_top + dw_.kernel_h);
      const float* source = x + i0 * in_row;
      if (has_expand_) {
        // Rows the previous band expanded move to the front; the rest are new.
        int have = 0;
        if (i0 >= held_lo && i0 < held_hi) {
          have = std::min(held_hi, i1) - i0;
          if (i0 > held_lo) std::memmove(expanded, expanded + (i0 - held_lo) * mid_row, have * mid_row * sizeof(float));
        }
        if (i1 > i0 + have) {
          expand_.Gemm((i1 - i0 - have) * in_w_, mid_c_, in_c_, x + (i0 + have) * in_row, in_c_, 0, In(2),
                       expand_act_, expanded + have * mid_row, mid_c_);
        }
        held_lo = i0;
        held_hi = std::max(i1, i0 + have);
        source = expanded;
      }
      // The band's output rows a few at a time (sub_rows_): each piece as a
      // depthwise conv of its own, its input rows starting at image row s_i0
      // (rows outside the image are the conv's padding), into `mid`, which
      // the project GEMM reads right away: at most 64 KB on MobileNetV2
      // instead of a band's ~200 KB (one-row pieces, 32 KB, measured no
      // faster on the device's Xeon).
      for (int s0 = b0; s0 < b1; s0 += sub_rows_) {
        const int s1 = std::min(b1, s0 + sub_rows_);
        const int s_first = s0 * dw_.stride_h - dw_.pad_top;
        const int s_i0 = std::max(0, s_first);
        const int s_i1 = std::min(in_h_, (s1 - 1) * dw_.stride_h - dw_.pad_top + dw_.kernel_h);
        ConvParams piece = dw_;
        piece.in_h = std::max(0, s_i1 - s_i0);
        piece.out_h = s1 - s0;
        piece.pad_top = s_i0 - s_first;
        const float* rows = has_expand_ ? source + (s_i0 - i0) * mid_row : x + s_i0 * in_row;
        kernels().depthwise.rows(piece, rows, In(3), In(4), mid, 0, piece.out_h);
        const long long p0 = static_cast<long long>(s0) * dw_.out_w, p1 = static_cast<long long>(s1) * dw_.out_w;
        if (residual && project_.has_residual_epilogue()) {  // the skip added in the GEMM's epilogue
          project_.GemmResidual(static_cast<int>(p1 - p0), out_c_, mid_c_, mid, mid_c_, 0, In(6), act_,
                                y + p0 * out_c_, out_c_, residual + p0 * residual_c_, residual_c_, residual_c_);
        } else {
          project_.Gemm(static_cast<int>(p1 - p0), out_c_, mid_c_, mid, mid_c_, 0, In(6),
                        residual ? FusedActivation::kNone : act_, y + p0 * out_c_, out_c_);
          if (residual) AddResidual(kernels(), residual, residual_c_, y, out_c_, p0, p1, 0, out_c_, act_);
        }
        if (prelu_) ApplyPRelu(kernels(), In(8), y, out_c_, p0, p1, 0, out_c_);
      }
    }
    held[0] = n;
    held[1] = held_lo;
    held[2] = held_hi;
  }

  // The three convs one after the other on whole tensors (the oracle).
  void RunReference() const {
    float* mid = Scratch();
    const float* source = In(0);
    if (has_expand_) {
      float* expanded = mid + static_cast<size_t>(batch_) * dw_.out_h * dw_.out_w * mid_c_;
      ConvParams e;
      e.batch = batch_;
      e.in_h = e.out_h = in_h_;
      e.in_w = e.out_w = in_w_;
      e.in_c = in_c_;
      e.out_c = mid_c_;
      e.activation = expand_act_;
      Conv2DRef(e, In(0), In(1), In(2), expanded);
      source = expanded;
    }
    ConvParams d = dw_;
    d.batch = batch_;
    DepthwiseConv2DRef(d, source, In(3), In(4), mid);
    ConvParams pr;
    pr.batch = batch_;
    pr.in_h = pr.out_h = dw_.out_h;
    pr.in_w = pr.out_w = dw_.out_w;
    pr.in_c = mid_c_;
    pr.out_c = out_c_;
    pr.activation = residual_c_ ? FusedActivation::kNone : act_;
    Conv2DRef(pr, mid, In(5), In(6), Out());
    if (residual_c_) {
      ResidualAddRef(static_cast<long long>(batch_) * dw_.out_h * dw_.out_w, out_c_, In(7), residual_c_, act_, Out());
    }
    const long long pixels = static_cast<long long>(batch_) * dw_.out_h * dw_.out_w;
    if (prelu_) ApplyPRelu(kernels(), In(8), Out(), out_c_, 0, pixels, 0, out_c_);
  }

  int batch_ = 1, in_h_ = 0, in_w_ = 0, in_c_ = 0, mid_c_ = 0, out_c_ = 0;
  bool has_expand_ = false;
  ConvParams dw_;
  FusedActivation expand_act_ = FusedActivation::kNone, act_ = FusedActivation::kNone;
  int residual_c_ = 0;
  bool prelu_ = false;
  bool fast_ = false;
  GemmPanels expand_, project_;
  int band_ = 1, chunks_ = 1, sub_rows_ = 1;
  // Per thread: the image and the expanded rows [lo, hi) its scratch holds
  // (reset at each run; sized in Prepare).
  mutable std::vector<int> held_;
  size_t expand_floats_ = 0, mid_floats_ = 0, scratch_floats_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeDepthwiseBlock(const CpuArgs& args) {
  return std::make_unique<DepthwiseBlockOp>(args);
}

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kDepthwiseBlock, MakeDepthwiseBlock);

}  // namespace

}  // namespace rill::inference::cpu
