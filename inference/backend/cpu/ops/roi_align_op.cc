// ROI_ALIGN on the CPU: the optimized loops (roi_align_loops.h; the
// reference kernel under AlgorithmPolicy::kReference, and for a roi the loops
// do not take) over (roi, channel block) pieces on the backend's threads. Batch indices are read once per run (an
// activation: floats holding integers; a constant: int64 or int32) and
// checked against the batch.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/roi_align.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/backend/cpu/ops/roi_align_loops.h"
#include "inference/ir/ops/roi_align_ops.h"

namespace rill::inference::cpu {
namespace {

// Channels per piece: the reference's, and the loops' (NHWC: a vector loop
// per sample; their per-roi set-up is repeated per piece).
constexpr int kChannelBlock = 16;
constexpr int kLoopsChannelBlock = 64;

class RoiAlignOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return reference_ ? "roi_align_ref" : "roi_align_loops"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::RoiAlignAttrs>();
    if (attrs_ == nullptr) return Error("missing RoiAlignAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(2));
    const TensorBinding& idx = *args_.inputs[2];
    if (idx.dtype != DataType::kFloat32 && idx.dtype != DataType::kInt64 && idx.dtype != DataType::kInt32) {
      return Error("batch_indices must be integers");
    }
    if (idx.dtype != DataType::kFloat32 && !idx.constant) return Error("integer batch_indices must be constant");
    reference_ = args_.algorithm == AlgorithmPolicy::kReference;
    return Status::Ok();
  }
  void Compute() override {
    const int rois = InShape(1)[0];
    const int channels = InShape(0)[attrs_->nhwc ? 3 : 1];
    const int block = reference_ ? kChannelBlock : kLoopsChannelBlock;
    const int blocks = (channels + block - 1) / block;
    auto task = [&](int t, int) {
      const int r = t / blocks, b = t % blocks;
      const int batch = BatchIndex(r);
      const int c0 = b * block, c1 = std::min(channels, c0 + block);
      if (batch < 0) {
        // An index outside the batch (ONNX leaves it undefined): zeros, not
        // a read outside the input.
        const int plane = attrs_->out_h * attrs_->out_w;
        std::memset(Out() + (static_cast<long long>(r) * channels + c0) * plane, 0,
                    sizeof(float) * plane * (c1 - c0));
        return;
      }
      if (reference_ || !RoiAlignLoops(*attrs_, InShape(0), In(0), In(1) + 4 * r, batch, r, c0, c1, Out())) {
        RoiAlignRef(*attrs_, InShape(0), In(0), In(1) + 4 * r, batch, r, c0, c1, Out());
      }
    };
    ParallelFor(rois * blocks, task);
  }

 private:
  // Roi r's batch element, or -1 when it is not one of the input's.
  int BatchIndex(int r) const {
    const TensorBinding& idx = *args_.inputs[2];
    double v;
    if (idx.dtype == DataType::kFloat32) {
      v = In(2)[r];
    } else if (idx.dtype == DataType::kInt64) {
      int64_t w;
      std::memcpy(&w, static_cast<const uint8_t*>(idx.host()) + 8 * r, 8);
      v = static_cast<double>(w);
    } else {
      int32_t w;
      std::memcpy(&w, static_cast<const uint8_t*>(idx.host()) + 4 * r, 4);
      v = w;
    }
    const int batch = InShape(0)[0];
    if (!(v >= 0 && v < batch) || v != std::floor(v)) return -1;
    return static_cast<int>(v);
  }

  const ir::RoiAlignAttrs* attrs_ = nullptr;
  bool reference_ = false;
};

std::unique_ptr<Execution> MakeRoiAlign(const CpuArgs& args) { return std::make_unique<RoiAlignOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::RoiAlignOp(), MakeRoiAlign);

}  // namespace
}  // namespace rill::inference::cpu
