// CONV_3D and POOL_3D (inference/ir/ops/volume_ops.h) on the CPU. CONV_3D is
// a GEMM per batch and channel group on the table's widest microkernel:
// blocks of output voxels are gathered (im2col over the kd x kh x kw window
// and the group's channels, in the filter's own order, so ONNX's filter
// needs no reordering), multiplied by the packed filter, and written back
// channels-first; the blocks run on the backend's threads. Without a
// table GEMM (kReference) it runs the reference loops. CONV_TRANSPOSE_3D and
// POOL_3D run the reference loops, channels over the threads.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

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
    return gemm_ != nullptr ? std::string("conv3d_gemm_") + gemm_->isa : "conv3d_ref";
  }

  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::Conv3dAttrs>();
    if (attrs_ == nullptr) return Error("missing Conv3dAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    const Shape& w = InShape(1);
    const Shape& y = OutShape();
    k_ = w[1] * w[2] * w[3] * w[4];
    out_per_group_ = w[0] / attrs_->group;
    voxels_ = static_cast<long long>(y[2]) * y[3] * y[4];
    gemm_ = args_.inputs[1]->constant ? kernels().widest_gemm() : nullptr;
    scratch_floats_ = 0;
    groups_.clear();
    if (gemm_ != nullptr) {
      // Rows per block: the gathered block within ~256 KB (a core's L2
      // share), at least one microkernel tile's rows.
      rows_ = static_cast<int>(std::clamp<long long>((256 << 10) / (4LL * k_), 8, 256));
      rows_ = static_cast<int>(std::min<long long>(rows_, voxels_));
      groups_.resize(attrs_->group);
      for (int g = 0; g < attrs_->group; ++g) {
        groups_[g].Pack(In(1) + static_cast<size_t>(g) * out_per_group_ * k_, out_per_group_, k_, *gemm_,
                        PanelType::kF32);
      }
      scratch_floats_ = static_cast<size_t>(rows_) * (k_ + out_per_group_) * threads();
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override {
    size_t b = 0;
    for (const GemmPanels& p : groups_) b += p.bytes();
    return b;
  }

  void Compute() override {
    const Shape& xs = InShape(0);
    const Shape& ws = InShape(1);
    const Shape& ys = OutShape();
    if (gemm_ == nullptr) {
      for (int n = 0; n < xs[0]; ++n) {
        auto channels = [&](int o, int) { Conv3dRefChannels(*attrs_, xs, ws, ys, In(0), In(1), In(2), Out(), n, o, o + 1); };
        ParallelFor(ys[1], channels);
      }
      return;
    }
    const int blocks = static_cast<int>((voxels_ + rows_ - 1) / rows_);
    for (int n = 0; n < xs[0]; ++n) {
      for (int g = 0; g < attrs_->group; ++g) {
        auto block = [&](int b, int thread) { Block(n, g, b, Scratch() + static_cast<size_t>(thread) * rows_ * (k_ + out_per_group_)); };
        ParallelFor(blocks, block);
      }
    }
  }

 private:
  // Output voxels [b * rows_, ...) of batch n, group g.
  void Block(int n, int g, int b, float* scratch) const {
    const Shape& xs = InShape(0);
    const Shape& ws = InShape(1);
    const Shape& ys = OutShape();
    const ir::Conv3dAttrs& a = *attrs_;
    const int D = xs[2], H = xs[3], W = xs[4];
    const int cpg = ws[1], kd = ws[2], kh = ws[3], kw = ws[4];
    const int OH = ys[3], OW = ys[4];
    const long long r0 = static_cast<long long>(b) * rows_;
    const int m = static_cast<int>(std::min<long long>(rows_, voxels_ - r0));
    float* col = scratch;
    float* out = scratch + static_cast<size_t>(rows_) * k_;
    const float* x = In(0) + (static_cast<size_t>(n) * xs[1] + static_cast<size_t>(g) * cpg) * D * H * W;
    for (int r = 0; r < m; ++r) {
      const long long v = r0 + r;
      const int od = static_cast<int>(v / (OH * OW));
      const int oh = static_cast<int>(v / OW % OH);
      const int ow = static_cast<int>(v % OW);
      float* row = col + static_cast<size_t>(r) * k_;
      const int d0 = od * a.stride[0] - a.pad_begin[0], h0 = oh * a.stride[1] - a.pad_begin[1],
                w0 = ow * a.stride[2] - a.pad_begin[2];
      if (d0 >= 0 && d0 + (kd - 1) * a.dilation[0] < D && h0 >= 0 && h0 + (kh - 1) * a.dilation[1] < H &&
          w0 >= 0 && w0 + (kw - 1) * a.dilation[2] < W) {
        // Every tap inside the input (most voxels): whole kernel rows, no
        // bounds checks.
        float* out_k = row;
        for (int c = 0; c < cpg; ++c) {
          const float* xc = x + static_cast<size_t>(c) * D * H * W;
          for (int t = 0; t < kd; ++t) {
            for (int i = 0; i < kh; ++i) {
              const float* xr = xc + (static_cast<size_t>(d0 + t * a.dilation[0]) * H + h0 + i * a.dilation[1]) * W + w0;
              if (a.dilation[2] == 1) {
                for (int j = 0; j < kw; ++j) out_k[j] = xr[j];
              } else {
                for (int j = 0; j < kw; ++j) out_k[j] = xr[j * a.dilation[2]];
              }
              out_k += kw;
            }
          }
        }
        continue;
      }
      size_t k = 0;
      for (int c = 0; c < cpg; ++c) {
        const float* xc = x + static_cast<size_t>(c) * D * H * W;
        for (int t = 0; t < kd; ++t) {
          const int id = od * a.stride[0] - a.pad_begin[0] + t * a.dilation[0];
          for (int i = 0; i < kh; ++i) {
            const int ih = oh * a.stride[1] - a.pad_begin[1] + i * a.dilation[1];
            const bool inside = id >= 0 && id < D && ih >= 0 && ih < H;
            const float* xr = inside ? xc + (static_cast<size_t>(id) * H + ih) * W : nullptr;
            for (int j = 0; j < kw; ++j, ++k) {
              const int iw = ow * a.stride[2] - a.pad_begin[2] + j * a.dilation[2];
              row[k] = inside && iw >= 0 && iw < W ? xr[iw] : 0.0f;
            }
          }
        }
      }
    }
    const float* bias = In(2) != nullptr ? In(2) + static_cast<size_t>(g) * out_per_group_ : nullptr;
    groups_[g].Gemm(m, out_per_group_, k_, col, k_, 0, bias, FusedActivation::kNone, out, out_per_group_);
    float* y = Out() + (static_cast<size_t>(n) * ys[1] + static_cast<size_t>(g) * out_per_group_) * voxels_ + r0;
    for (int o = 0; o < out_per_group_; ++o) {
      float* yo = y + static_cast<size_t>(o) * voxels_;
      for (int r = 0; r < m; ++r) yo[r] = out[static_cast<size_t>(r) * out_per_group_ + o];
    }
  }

  const ir::Conv3dAttrs* attrs_ = nullptr;
  const GemmKernels* gemm_ = nullptr;  // null: the reference loops
  std::vector<GemmPanels> groups_;     // the filter of each group, packed
  int k_ = 0, out_per_group_ = 0, rows_ = 0;
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
  std::string name() const override { return attrs_ != nullptr && attrs_->max ? "max_pool3d_ref" : "average_pool3d_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::Pool3dAttrs>();
    if (attrs_ == nullptr) return Error("missing Pool3dAttrs");
    return NeedFloatInputs(1);
  }
  void Compute() override {
    const Shape& xs = InShape(0);
    auto channel = [&](int nc, int) { Pool3dRef(*attrs_, xs, OutShape(), In(0), Out(), nc, nc + 1); };
    ParallelFor(xs[0] * xs[1], channel);
  }

 private:
  const ir::Pool3dAttrs* attrs_ = nullptr;
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
