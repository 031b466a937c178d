// CONV_3D and POOL_3D (inference/ir/ops/volume_ops.h) on the CPU, in the
// models' own channels-first layout.
//
// CONV_3D is, per batch and channel group, Y[O, V] = W[O, K] X_col[K, V]
// (V output voxels, K = channels x kd x kh x kw): the filter, with the bias
// as one more column (and a row of ones in X_col), is the GEMM's left
// operand, read in place; blocks of output voxels are gathered (im2col)
// straight into the table GEMM's column panels (each kernel tap a run of
// contiguous input values along W at stride 1) and multiplied into the
// output's channel rows, so the output needs no transpose and a fused
// activation (optimize::FuseActivations) is applied in the GEMM's epilogue.
// The blocks of every group run over the backend's threads. A depthwise
// CONV_3D (one input and one output channel per group: MViT's pooling)
// runs direct loops per channel instead, each tap adding a shifted input
// row. Without a table GEMM (kReference) it runs the reference loops.
//
// MAX POOL_3D takes the window's maximum one axis at a time (W, then H,
// then D: max is separable and exact), each pass a contiguous loop; average
// pooling and CONV_TRANSPOSE_3D run the reference loops.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/conv_params.h"
#include "inference/backend/cpu/kernels/ref/volume.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/volume_ops.h"

namespace rill::inference::cpu {
namespace {

class Conv3dOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    if (depthwise_) return "conv3d_depthwise";
    return gemm_ != nullptr ? std::string("conv3d_gemm_") + gemm_->name : "conv3d_ref";
  }

  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::Conv3dAttrs>();
    if (attrs_ == nullptr) return Error("missing Conv3dAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    act_ = ToFused(args_.node->attrs.activation);
    const Shape& w = InShape(1);
    const Shape& y = OutShape();
    k_ = w[1] * w[2] * w[3] * w[4];
    out_per_group_ = w[0] / attrs_->group;
    voxels_ = static_cast<long long>(y[2]) * y[3] * y[4];
    gemm_ = args_.inputs[1]->constant && (!HasInput(2) || args_.inputs[2]->constant) ? kernels().widest_gemm()
                                                                                       : nullptr;
    scratch_floats_ = 0;
    filter_.clear();
    // One input and one output channel per group (MViT's pooling convs):
    // a GEMM of one row per group would waste its tile; direct loops.
    depthwise_ = gemm_ != nullptr && attrs_->group > 1 && w[1] == 1 && out_per_group_ == 1;
    if (depthwise_) gemm_ = nullptr;
    if (gemm_ != nullptr) {
      // The filter rows with the bias as column K (one more multiply-add
      // with a row of ones; none without a bias).
      bias_row_ = HasInput(2);
      ka_ = k_ + (bias_row_ ? 1 : 0);
      filter_.resize(static_cast<size_t>(w[0]) * ka_);
      for (int o = 0; o < w[0]; ++o) {
        std::memcpy(filter_.data() + static_cast<size_t>(o) * ka_, In(1) + static_cast<size_t>(o) * k_,
                    sizeof(float) * k_);
        if (bias_row_) filter_[static_cast<size_t>(o) * ka_ + k_] = In(2)[o];
      }
      // Voxels per block: whole panels, the gathered block within ~256 KB
      // (a core's L2 share), at most 16 panels.
      const int nr = gemm_->nr;
      const long long panels = std::clamp<long long>((64LL << 10) / (static_cast<long long>(ka_) * nr), 1, 16);
      block_ = static_cast<int>(std::min<long long>(panels * nr, (voxels_ + nr - 1) / nr * nr));
      scratch_floats_ = static_cast<size_t>(block_) * ka_ * threads();
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override { return filter_.size() * sizeof(float); }

  void Compute() override {
    const Shape& xs = InShape(0);
    const Shape& ws = InShape(1);
    const Shape& ys = OutShape();
    if (depthwise_) {
      auto plane = [&](int nc, int) { DepthwisePlane(nc / ys[1], nc % ys[1]); };
      ParallelFor(ys[0] * ys[1], plane);
      return;
    }
    if (gemm_ == nullptr) {
      for (int n = 0; n < xs[0]; ++n) {
        auto channels = [&](int o, int) {
          Conv3dRefChannels(*attrs_, xs, ws, ys, In(0), In(1), In(2), Out(), n, o, o + 1);
          if (act_ == FusedActivation::kNone) return;
          float* yo = Out() + (static_cast<size_t>(n) * ys[1] + o) * voxels_;
          for (long long v = 0; v < voxels_; ++v) yo[v] = ApplyActivation(yo[v], act_);
        };
        ParallelFor(ys[1], channels);
      }
      return;
    }
    const int blocks = static_cast<int>((voxels_ + block_ - 1) / block_);
    const int groups = attrs_->group;
    for (int n = 0; n < xs[0]; ++n) {
      auto task = [&](int t, int thread) {
        Block(n, t / blocks, t % blocks, Scratch() + static_cast<size_t>(thread) * block_ * ka_);
      };
      ParallelFor(groups * blocks, task);
    }
  }

 private:
  // Output voxels [b * block_, ...) of batch n, group g, all the group's
  // output channels.
  void Block(int n, int g, int b, float* col) const {
    const Shape& ys = OutShape();
    const long long v0 = static_cast<long long>(b) * block_;
    const int cols = static_cast<int>(std::min<long long>(block_, voxels_ - v0));
    Gather(n, g, v0, cols, col);
    float* y = Out() + (static_cast<size_t>(n) * ys[1] + static_cast<size_t>(g) * out_per_group_) * voxels_ + v0;
    gemm_->gemm(out_per_group_, cols, ka_, filter_.data() + static_cast<size_t>(g) * out_per_group_ * ka_, ka_, col,
                nullptr, act_, y, static_cast<int>(voxels_));
  }

  // Output channel c of batch n of a depthwise conv: each kernel tap adds
  // its weight times a shifted input row to the output rows (the valid
  // outputs of that tap only), then the bias and the activation.
  void DepthwisePlane(int n, int c) const {
    const Shape& xs = InShape(0);
    const Shape& ws = InShape(1);
    const Shape& ys = OutShape();
    const ir::Conv3dAttrs& a = *attrs_;
    const int D = xs[2], H = xs[3], W = xs[4], OD = ys[2], OH = ys[3], OW = ys[4];
    const int kd = ws[2], kh = ws[3], kw = ws[4];
    const int sw = a.stride[2], pw = a.pad_begin[2], dw = a.dilation[2];
    const float* x = In(0) + (static_cast<size_t>(n) * xs[1] + c) * D * H * W;
    const float* w = In(1) + static_cast<size_t>(c) * kd * kh * kw;
    const float b = HasInput(2) ? In(2)[c] : 0.0f;
    float* y = Out() + (static_cast<size_t>(n) * ys[1] + c) * voxels_;
    for (int od = 0; od < OD; ++od) {
      for (int oh = 0; oh < OH; ++oh) {
        float* yr = y + (static_cast<size_t>(od) * OH + oh) * OW;
        std::fill(yr, yr + OW, 0.0f);
        for (int t = 0; t < kd; ++t) {
          const int id = od * a.stride[0] - a.pad_begin[0] + t * a.dilation[0];
          if (id < 0 || id >= D) continue;
          for (int i = 0; i < kh; ++i) {
            const int ih = oh * a.stride[1] - a.pad_begin[1] + i * a.dilation[1];
            if (ih < 0 || ih >= H) continue;
            const float* xr = x + (static_cast<size_t>(id) * H + ih) * W;
            for (int j = 0; j < kw; ++j) {
              const float wt = w[(t * kh + i) * kw + j];
              // Outputs whose input column ow * sw - pw + j * dw is inside.
              const int off = j * dw - pw;
              const int lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
              const int hi = W - 1 - off < 0 ? 0 : std::min(OW, (W - 1 - off) / sw + 1);
              if (sw == 1) {
                const float* xs1 = xr + off;
                for (int ow = lo; ow < hi; ++ow) yr[ow] += wt * xs1[ow];
              } else {
                for (int ow = lo; ow < hi; ++ow) yr[ow] += wt * xr[ow * sw + off];
              }
            }
          }
        }
        for (int ow = 0; ow < OW; ++ow) yr[ow] = ApplyActivation(yr[ow] + b, act_);
      }
    }
  }

  // im2col of voxels [v0, v0 + cols) into the GEMM's panels: panel q holds
  // voxels v0 + q * nr .. + nr as [ka_][nr] (tap k's values of the panel's
  // voxels contiguous), row k_ ones (the bias), columns past `cols` zero.
  void Gather(int n, int g, long long v0, int cols, float* col) const {
    const Shape& xs = InShape(0);
    const Shape& ws = InShape(1);
    const Shape& ys = OutShape();
    const ir::Conv3dAttrs& a = *attrs_;
    const int D = xs[2], H = xs[3], W = xs[4];
    const int cpg = ws[1], kd = ws[2], kh = ws[3], kw = ws[4];
    const int OH = ys[3], OW = ys[4];
    const int nr = gemm_->nr;
    const float* x = In(0) + (static_cast<size_t>(n) * xs[1] + static_cast<size_t>(g) * cpg) * D * H * W;
    const bool plane_runs = kh == 1 && kw == 1 && a.stride[1] == 1 && a.stride[2] == 1 && a.pad_begin[1] == 0 &&
                            a.pad_begin[2] == 0 && OH == H && OW == W;
    const int panels = (cols + nr - 1) / nr;
    for (int q = 0; q < panels; ++q) {
      float* panel = col + static_cast<size_t>(q) * nr * ka_;
      const int first = q * nr, last = std::min(cols, first + nr);
      if (last - first < nr) {
        for (int k = 0; k < ka_; ++k) {
          std::fill(panel + static_cast<size_t>(k) * nr + (last - first), panel + static_cast<size_t>(k + 1) * nr, 0.0f);
        }
      }
      if (plane_runs) {
        // A kernel of one row and column, stride 1 and no padding across H
        // and W (pointwise convs, R(2+1)D's temporal ones): each tap's
        // values for a run of voxels within one output depth slice are one
        // contiguous stretch of an input slice.
        const long long plane = static_cast<long long>(OH) * OW;
        for (int j0 = first; j0 < last;) {
          const long long v = v0 + j0;
          const int od = static_cast<int>(v / plane);
          const long long pos = v % plane;
          const int run = static_cast<int>(std::min<long long>(last - j0, plane - pos));
          float* dst = panel + (j0 - first);
          for (int c = 0; c < cpg; ++c) {
            const float* xc = x + static_cast<size_t>(c) * D * H * W;
            for (int t = 0; t < kd; ++t, dst += nr) {
              const int id = od * a.stride[0] - a.pad_begin[0] + t * a.dilation[0];
              if (id < 0 || id >= D) {
                std::fill(dst, dst + run, 0.0f);
              } else {
                std::memcpy(dst, xc + static_cast<size_t>(id) * plane + pos, sizeof(float) * run);
              }
            }
          }
          if (bias_row_) std::fill(dst, dst + run, 1.0f);
          j0 += run;
        }
        continue;
      }
      // Runs of voxels along one output row.
      for (int j0 = first; j0 < last;) {
        const long long v = v0 + j0;
        const int od = static_cast<int>(v / (static_cast<long long>(OH) * OW));
        const int oh = static_cast<int>(v / OW % OH);
        const int ow0 = static_cast<int>(v % OW);
        const int run = std::min(last - j0, OW - ow0);
        float* dst = panel + (j0 - first);
        for (int c = 0; c < cpg; ++c) {
          const float* xc = x + static_cast<size_t>(c) * D * H * W;
          for (int t = 0; t < kd; ++t) {
            const int id = od * a.stride[0] - a.pad_begin[0] + t * a.dilation[0];
            for (int i = 0; i < kh; ++i) {
              const int ih = oh * a.stride[1] - a.pad_begin[1] + i * a.dilation[1];
              const bool inside = id >= 0 && id < D && ih >= 0 && ih < H;
              const float* xr = inside ? xc + (static_cast<size_t>(id) * H + ih) * W : nullptr;
              for (int j = 0; j < kw; ++j, dst += nr) {
                if (!inside) {
                  std::fill(dst, dst + run, 0.0f);
                  continue;
                }
                const int iw0 = ow0 * a.stride[2] - a.pad_begin[2] + j * a.dilation[2];
                if (a.stride[2] == 1) {
                  // Outputs r with 0 <= iw0 + r < W read the row in order.
                  const int lo = std::clamp(-iw0, 0, run), hi = std::clamp(W - iw0, lo, run);
                  std::fill(dst, dst + lo, 0.0f);
                  std::memcpy(dst + lo, xr + iw0 + lo, sizeof(float) * (hi - lo));
                  std::fill(dst + hi, dst + run, 0.0f);
                } else {
                  for (int r = 0; r < run; ++r) {
                    const int iw = iw0 + r * a.stride[2];
                    dst[r] = iw >= 0 && iw < W ? xr[iw] : 0.0f;
                  }
                }
              }
            }
          }
        }
        if (bias_row_) std::fill(dst, dst + run, 1.0f);
        j0 += run;
      }
    }
  }

  const ir::Conv3dAttrs* attrs_ = nullptr;
  const GemmKernels* gemm_ = nullptr;  // null: the reference loops
  std::vector<float> filter_;          // [O, ka_]: each filter row, then its bias
  FusedActivation act_ = FusedActivation::kNone;
  bool bias_row_ = false;
  bool depthwise_ = false;
  int k_ = 0, ka_ = 0, out_per_group_ = 0, block_ = 0;
  long long voxels_ = 0;
  size_t scratch_floats_ = 0;
};

// The reference loops, output channels over the threads (video
// segmentation decoders; not yet a GEMM).
class ConvTranspose3dOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "conv_transpose3d_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::ConvTranspose3dAttrs>();
    if (attrs_ == nullptr) return Error("missing ConvTranspose3dAttrs");
    return NeedFloatInputs(3);
  }
  void Compute() override {
    const Shape& ys = OutShape();
    auto channel = [&](int task, int) {
      ConvTranspose3dRefChannel(*attrs_, InShape(0), InShape(1), ys, In(0), In(1), In(2), Out(), task / ys[1],
                                task % ys[1]);
    };
    ParallelFor(ys[0] * ys[1], channel);
  }

 private:
  const ir::ConvTranspose3dAttrs* attrs_ = nullptr;
};

class Pool3dOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    if (attrs_ != nullptr && !attrs_->max) return "average_pool3d_ref";
    return (args_.algorithm == AlgorithmPolicy::kReference) ? "max_pool3d_ref" : "max_pool3d_separable";
  }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::Pool3dAttrs>();
    if (attrs_ == nullptr) return Error("missing Pool3dAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    separable_ = attrs_->max && !(args_.algorithm == AlgorithmPolicy::kReference);
    const Shape& x = InShape(0);
    const Shape& y = OutShape();
    // Per thread: [D, H, OW] after the W pass, [D, OH, OW] after the H pass.
    per_thread_ = separable_ ? static_cast<size_t>(x[2]) * y[4] * (x[3] + y[3]) : 0;
    return Status::Ok();
  }
  size_t scratch_bytes() const override { return per_thread_ * threads() * sizeof(float); }
  void Compute() override {
    const Shape& xs = InShape(0);
    if (!separable_) {
      auto channel = [&](int nc, int) { Pool3dRef(*attrs_, xs, OutShape(), In(0), Out(), nc, nc + 1); };
      ParallelFor(xs[0] * xs[1], channel);
      return;
    }
    auto channel = [&](int nc, int thread) { MaxPlane(nc, Scratch() + per_thread_ * thread); };
    ParallelFor(xs[0] * xs[1], channel);
  }

 private:
  // The window's maximum over one axis: out[o * step] = max over taps t of
  // in[(o * stride - pad + t) * step] (taps outside [0, size) skipped; a
  // window with none gives -inf, as the reference), for `lanes` contiguous
  // values at each position.
  static void MaxAxis(const float* in, int size, int out_size, int kernel, int stride, int pad, long long lanes,
                      float* out) {
    for (int o = 0; o < out_size; ++o) {
      float* dst = out + o * lanes;
      const int first = std::max(0, o * stride - pad), last = std::min(size, o * stride - pad + kernel);
      if (first >= last) {
        std::fill(dst, dst + lanes, -std::numeric_limits<float>::infinity());
        continue;
      }
      std::memcpy(dst, in + first * lanes, sizeof(float) * lanes);
      for (int t = first + 1; t < last; ++t) {
        const float* src = in + t * lanes;
        for (long long l = 0; l < lanes; ++l) dst[l] = std::max(dst[l], src[l]);
      }
    }
  }

  void MaxPlane(long long nc, float* scratch) const {
    const Shape& xs = InShape(0);
    const Shape& ys = OutShape();
    const ir::Pool3dAttrs& a = *attrs_;
    const int D = xs[2], H = xs[3], W = xs[4], OD = ys[2], OH = ys[3], OW = ys[4];
    const float* x = In(0) + nc * D * H * W;
    float* y = Out() + nc * OD * OH * OW;
    float* along_w = scratch;                                     // [D, H, OW]
    float* along_h = scratch + static_cast<size_t>(D) * H * OW;  // [D, OH, OW]
    for (long long row = 0; row < static_cast<long long>(D) * H; ++row) {
      MaxAxis(x + row * W, W, OW, a.kernel[2], a.stride[2], a.pad_begin[2], 1, along_w + row * OW);
    }
    for (int d = 0; d < D; ++d) {
      MaxAxis(along_w + static_cast<size_t>(d) * H * OW, H, OH, a.kernel[1], a.stride[1], a.pad_begin[1], OW,
              along_h + static_cast<size_t>(d) * OH * OW);
    }
    MaxAxis(along_h, D, OD, a.kernel[0], a.stride[0], a.pad_begin[0], static_cast<long long>(OH) * OW, y);
  }

  const ir::Pool3dAttrs* attrs_ = nullptr;
  bool separable_ = false;
  size_t per_thread_ = 0;
};

std::unique_ptr<Execution> MakeConv3d(const CpuArgs& args) { return std::make_unique<Conv3dOp>(args); }
std::unique_ptr<Execution> MakeConvTranspose3d(const CpuArgs& args) {
  return std::make_unique<ConvTranspose3dOp>(args);
}
std::unique_ptr<Execution> MakePool3d(const CpuArgs& args) { return std::make_unique<Pool3dOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::Conv3dOp(), MakeConv3d) &&
                         RegisterCpuOp(ir::ConvTranspose3dOp(), MakeConvTranspose3d) &&
                         RegisterCpuOp(ir::Pool3dOp(), MakePool3d);

}  // namespace
}  // namespace rill::inference::cpu
